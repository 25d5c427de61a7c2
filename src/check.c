/* Checks: every path of a manifest, judged as the job will meet it.
 *
 * The manifest's paths are collected as subjects (code.path, data[i].path,
 * outputs.*), each with a role. The table path_checks[] lists, in order, the
 * checks a role gets; each adds one result with the id
 * "<field>.<check>", e.g. "outputs.checkpoint_dir.writable". A new check is a
 * function and a row in the table. */
#include "config.h"

#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobprep/check.h"
#include "jobprep/envsh.h"
#include "jobprep/i18n.h"

enum role {
	ROLE_CODE = 1 << 0,   /* the project checkout: read by every Worker */
	ROLE_DATA = 1 << 1,   /* a data set: read by every Worker */
	ROLE_OUTPUT = 1 << 2, /* written by the job, must outlive it */
};

#define ROLE_READ (ROLE_CODE | ROLE_DATA)
#define ROLE_ALL (ROLE_CODE | ROLE_DATA | ROLE_OUTPUT)

struct subject {
	char field[64];   /* "outputs.log_dir", "data[0].path" */
	const char *path; /* borrowed from the manifest */
	enum role role;
	bool read_only;   /* data declared read-only */
};

struct check_ctx {
	struct jp_manifest *m;
	const struct jp_profile *profile;
	unsigned flags;
};

/* One result: a status and what to do about it. */
struct verdict {
	enum jp_check_status status;
	char message[1024];
	bool stop; /* skip the remaining checks of this subject */
};

typedef int (*path_check_fn)(struct verdict *v, const struct check_ctx *ctx,
			     const struct subject *s, struct jp_error *err);

static void say(struct verdict *v, enum jp_check_status status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(struct verdict *v, enum jp_check_status status, const char *fmt, ...)
{
	va_list ap;

	v->status = status;
	va_start(ap, fmt);
	vsnprintf(v->message, sizeof(v->message), fmt, ap);
	va_end(ap);
}

/* --- the checks ------------------------------------------------------------ */

static int check_exists(struct verdict *v, const struct check_ctx *ctx, const struct subject *s,
			struct jp_error *err)
{
	struct stat st;

	(void)ctx;
	(void)err;
	if (stat(s->path, &st) < 0) {
		v->stop = true;
		if (errno == ENOENT && s->role == ROLE_OUTPUT) {
			char *quoted = NULL;

			if (jp_envsh_quote(&quoted, s->path) < 0)
				return JP_ENOMEM;
			say(v, JP_CHECK_FAIL,
			    _("%s does not exist. Create it before submitting: mkdir -p %s"),
			    s->path, quoted);
			free(quoted);
		} else if (errno == ENOENT)
			say(v, JP_CHECK_FAIL,
			    _("%s does not exist. Put it there before submitting, or correct the "
			      "path in the manifest."),
			    s->path);
		else
			say(v, JP_CHECK_FAIL, _("%s cannot be looked at: %s. Check the path and its "
						"permissions."),
			    s->path, strerror(errno));
		return 0;
	}
	if (s->role != ROLE_DATA && !S_ISDIR(st.st_mode)) {
		v->stop = true;
		say(v, JP_CHECK_FAIL,
		    _("%s exists but is not a directory. Give the path of a directory."), s->path);
		return 0;
	}
	say(v, JP_CHECK_PASS, _("%s exists."), s->path);
	return 0;
}

/* 0 when path can really be opened and read (one byte, or one directory
 * entry: enough to prove it, cheap on a data set of millions of files),
 * else the errno. As root, access(2) would say yes to everything. */
static int read_a_little(const char *path)
{
	struct stat st;
	char byte;
	DIR *d;
	int e = 0;
	/* O_NONBLOCK: a FIFO must not hang the check. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return errno;
	if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode)) {
		if (read(fd, &byte, 1) < 0 && errno != EAGAIN)
			e = errno;
		close(fd);
		return e;
	}
	d = fdopendir(fd);
	if (!d) {
		e = errno;
		close(fd);
		return e;
	}
	errno = 0;
	if (!readdir(d))
		e = errno;
	closedir(d);
	return e;
}

static int check_readable(struct verdict *v, const struct check_ctx *ctx, const struct subject *s,
			  struct jp_error *err)
{
	int e = read_a_little(s->path);

	(void)ctx;
	(void)err;
	if (e == 0) {
		say(v, JP_CHECK_PASS, _("%s can be read."), s->path);
		return 0;
	}
	v->stop = true;
	say(v, JP_CHECK_FAIL,
	    _("%s cannot be read: %s. Fix its permissions (chmod/chown) so the job's user can "
	      "read it."),
	    s->path, strerror(e));
	return 0;
}

static int check_writable(struct verdict *v, const struct check_ctx *ctx, const struct subject *s,
			  struct jp_error *err)
{
	char probe[4096];
	unsigned r = 0;
	int fd;

	(void)ctx;
	(void)err;
	/* Really create and remove a file: permissions, read-only mounts,
	 * quotas and full disks all show up here and nowhere else. */
	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) < 0)
		r = (unsigned)getpid();
	if (snprintf(probe, sizeof(probe), "%s/.jobprep-probe-%ld-%08x", s->path, (long)getpid(),
		     r) >= (int)sizeof(probe)) {
		say(v, JP_CHECK_FAIL, _("%s is too long a path to write into."), s->path);
		return 0;
	}
	fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, "x", 1) != 1 || fsync(fd) < 0) {
		int e = errno;

		if (fd >= 0) {
			close(fd);
			unlink(probe);
		}
		say(v, JP_CHECK_FAIL,
		    _("%s is not writable: %s. Choose a directory the job can write to, or fix "
		      "its permissions."),
		    s->path, strerror(e));
		return 0;
	}
	close(fd);
	if (unlink(probe) < 0) {
		say(v, JP_CHECK_WARN,
		    _("%s is writable, but the test file %s could not be removed: %s. Remove it "
		      "by hand."),
		    s->path, probe, strerror(errno));
		return 0;
	}
	say(v, JP_CHECK_PASS, _("%s is writable."), s->path);
	return 0;
}

/* The checks, in the order they run on each subject. */
static const struct path_check {
	const char *name;
	unsigned roles;
	path_check_fn run;
} path_checks[] = {
	{ "exists", ROLE_ALL, check_exists },
	{ "readable", ROLE_READ, check_readable },
	{ "writable", ROLE_OUTPUT, check_writable },
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* --- subjects ---------------------------------------------------------------- */

struct subjects {
	struct subject *v;
	size_t n;
};

static int add_subject(struct subjects *ss, const char *field, const char *path, enum role role,
		       bool read_only)
{
	struct subject *grown;

	if (!path)
		return 0;
	grown = realloc(ss->v, (ss->n + 1) * sizeof(*grown));
	if (!grown)
		return JP_ENOMEM;
	ss->v = grown;
	snprintf(grown[ss->n].field, sizeof(grown[ss->n].field), "%s", field);
	grown[ss->n].path = path;
	grown[ss->n].role = role;
	grown[ss->n].read_only = read_only;
	ss->n++;
	return 0;
}

static int collect(struct subjects *ss, const struct jp_manifest *m)
{
	char field[64];
	int rc = 0;

	/* Only code on shared storage is on this machine's paths; an image's
	 * code path lives inside the image. */
	if (m->code.source == JP_CODE_SHARED_STORAGE)
		rc = add_subject(ss, "code.path", m->code.path, ROLE_CODE, false);
	for (size_t i = 0; rc == 0 && i < m->n_data; i++) {
		snprintf(field, sizeof(field), "data[%zu].path", i);
		rc = add_subject(ss, field, m->data[i].path, ROLE_DATA, m->data[i].read_only);
	}
	if (rc == 0)
		rc = add_subject(ss, "outputs.output_dir", m->outputs.output_dir, ROLE_OUTPUT,
				 false);
	if (rc == 0)
		rc = add_subject(ss, "outputs.checkpoint_dir", m->outputs.checkpoint_dir,
				 ROLE_OUTPUT, false);
	if (rc == 0)
		rc = add_subject(ss, "outputs.log_dir", m->outputs.log_dir, ROLE_OUTPUT, false);
	return rc;
}

int jp_check_manifest(struct jp_manifest *m, const struct jp_profile *profile, unsigned flags,
		      struct jp_error *err)
{
	struct check_ctx ctx = { m, profile, flags };
	struct subjects ss = { NULL, 0 };
	char id[128];
	int rc;

	jp_manifest_clear_checks(m);
	rc = collect(&ss, m);
	for (size_t i = 0; rc == 0 && i < ss.n; i++) {
		const struct subject *s = &ss.v[i];

		for (size_t k = 0; rc == 0 && k < N_OF(path_checks); k++) {
			struct verdict v;

			if (!(path_checks[k].roles & s->role))
				continue;
			memset(&v, 0, sizeof(v));
			rc = path_checks[k].run(&v, &ctx, s, err);
			if (rc < 0)
				break;
			snprintf(id, sizeof(id), "%s.%s", s->field, path_checks[k].name);
			rc = jp_manifest_add_check(m, id, v.status, s->path, "%s", v.message);
			if (v.stop)
				break;
		}
	}
	free(ss.v);
	if (rc == JP_ENOMEM)
		return jp_error_set(err, rc, "%s", _("out of memory"));
	return rc;
}
