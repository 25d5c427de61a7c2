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
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobprep/check.h"
#include "check_internal.h"
#include "jobprep/lint.h"
#include "lint_internal.h"
#include "jobprep/i18n.h"
#include "jobprep/pathclass.h"
#include "jobprep/probe.h"
#include "probe_internal.h"
#include "helper_internal.h"
#include "jobprep/scan.h"
#include "jobprep/shellwords.h"
#include "jobprep/stage.h"
#include "jobprep/units.h"
#include "mountinfo.h"
#include "path_internal.h"
#include "manifest_internal.h"
#include "stage_mark.h"

enum role {
	ROLE_CODE = 1 << 0,   /* the project checkout: read by every Worker */
	ROLE_DATA = 1 << 1,   /* a data set: read by every Worker */
	ROLE_OUTPUT = 1 << 2, /* written by the job, must outlive it */
};

#define ROLE_READ (ROLE_CODE | ROLE_DATA)
#define ROLE_ALL (ROLE_CODE | ROLE_DATA | ROLE_OUTPUT)

struct storage_cache;
struct data_scan;

struct subject {
	char field[64];   /* "outputs.log_dir", "data[0].path" */
	const char *path; /* borrowed from the manifest */
	enum role role;
	bool read_only;   /* data declared read-only */
	const struct jp_data_source *data; /* ROLE_DATA: its entry */
	struct storage_cache *cache;       /* the storage checks' probe of it */
	struct data_scan *scan;            /* ROLE_DATA: the scan the data checks share */
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
	bool skip; /* this check does not apply: no result */
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

/* --- the checks ------------------------------------------------------------ *
 *
 * Every look at a path goes through the probe helper's bounded calls: a
 * hung network mount fails its subject in bounded time instead of holding
 * the check (and the process) in the kernel. */

/* A call that did not answer in time: look no further at the subject. On
 * network storage it fails (a mount that lost its server hangs the job
 * too); on this machine's own disk the machine was too busy to answer in
 * time, which says nothing of the path: a warning, to check again. */
static void hung(struct verdict *v, const struct subject *s)
{
	unsigned ms = jp_probe_default_timeout_ms();

	v->stop = true;
	if (jp_mount_path_is_own(s->path))
		say(v, JP_CHECK_WARN,
		    _("%s: %s did not answer within %u.%u s, though it is on this machine's own "
		      "storage: the machine may be too busy; check again before submitting."),
		    s->field, s->path, ms / 1000, (ms % 1000) / 100);
	else
		say(v, JP_CHECK_FAIL,
		    _("%s: %s did not answer in time: the storage it is on seems hung (a network "
		      "mount that lost its server?). Fix or remount it on this machine, then "
		      "check again."),
		    s->field, s->path);
}

static int check_exists(struct verdict *v, const struct check_ctx *ctx, const struct subject *s,
			struct jp_error *err)
{
	struct stat st;
	int e = 0;
	int rc = jp_probe_stat(&st, &e, s->path, 0, 0, NULL);

	(void)ctx;
	(void)err;
	if (rc == JP_ETIMEOUT) {
		hung(v, s);
		return 0;
	}
	if (rc < 0)
		return rc;
	if (e) {
		v->stop = true;
		if (e == ENOENT && s->role == ROLE_OUTPUT) {
			char *quoted = NULL;

			if (jp_sh_quote(&quoted, s->path) < 0)
				return JP_ENOMEM;
			say(v, JP_CHECK_FAIL,
			    _("%s does not exist. Create it before submitting: mkdir -p %s"),
			    s->path, quoted);
			free(quoted);
		} else if (e == ENOENT)
			say(v, JP_CHECK_FAIL,
			    _("%s does not exist. Put it there before submitting, or correct the "
			      "path in the manifest."),
			    s->path);
		else
			say(v, JP_CHECK_FAIL, _("%s cannot be looked at: %s. Check the path and its "
						"permissions."),
			    s->path, strerror(e));
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

/* The looks at a path a check makes in a helper process: one request,
 * told which look to make. */
enum path_look { LOOK_READ, LOOK_WRITE };

/* A look's answer (flat: it travels as its bytes). */
struct path_answer {
	int errnum;
	int warn_errnum;  /* LOOK_WRITE: the probe file stayed behind */
	char probe[4096]; /* LOOK_WRITE: the probe file's name */
};

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

/* Really create and remove a file in path: permissions, read-only mounts,
 * quotas and full disks all show up here and nowhere else. */
static void write_a_little(struct path_answer *a, const char *path)
{
	unsigned r = 0;
	int fd;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) < 0)
		r = (unsigned)getpid();
	snprintf(a->probe, sizeof(a->probe), "%s/.jobprep-probe-%ld-%08x", path, (long)getpid(),
		 r);
	fd = open(a->probe, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, "x", 1) != 1 || fsync(fd) < 0) {
		a->errnum = errno;
		if (fd >= 0) {
			close(fd);
			unlink(a->probe);
		}
		return;
	}
	close(fd);
	if (unlink(a->probe) < 0)
		a->warn_errnum = errno;
}

/* inputs: the look (enum path_look), the path; answer: struct path_answer */
static void path_look_serve(struct probe_bytes *in, struct probe_bytes *out)
{
	struct path_answer a;
	int look = -1;
	char *path;

	probe_bytes_get(in, &look, sizeof(look));
	path = probe_bytes_get_str(in);
	memset(&a, 0, sizeof(a));
	if (in->bad || !path)
		out->bad = true; /* the caller reads it as a failed look */
	else if (look == LOOK_WRITE)
		write_a_little(&a, path);
	else
		a.errnum = read_a_little(path);
	if (!out->bad)
		probe_bytes_put(out, &a, sizeof(a));
	free(path);
}
JP_HELPER_REQUEST(check_path, path_look_serve, JP_HELPER_LOOK);

/* The look at s->path, in a helper in bounded time: 0 and *a, JP_ETIMEOUT
 * (the verdict then says the storage seems hung), or another negative
 * code. */
static int bounded(struct path_answer *a, struct verdict *v, const struct subject *s,
		   enum path_look look)
{
	struct probe_bytes in = {NULL, 0, 0, 0, false, false}, ans = {NULL, 0, 0, 0, false, false};
	int l = (int)look;
	int rc;

	memset(a, 0, sizeof(*a));
	probe_bytes_put(&in, &l, sizeof(l));
	probe_bytes_put_str(&in, s->path);
	rc = in.bad ? JP_ENOMEM : jp_helper_call(&ans, &jp_req_check_path, &in, s->path, 0, NULL);
	if (rc == 0) {
		probe_bytes_get(&ans, a, sizeof(*a));
		if (ans.bad)
			rc = JP_EINTERNAL;
	}
	if (rc == JP_ETIMEOUT)
		hung(v, s);
	free(in.p);
	free(ans.p);
	return rc;
}

static int check_readable(struct verdict *v, const struct check_ctx *ctx, const struct subject *s,
			  struct jp_error *err)
{
	struct path_answer a;
	int rc = bounded(&a, v, s, LOOK_READ);

	(void)ctx;
	(void)err;
	if (rc < 0)
		return rc == JP_ETIMEOUT ? 0 : rc;
	if (a.errnum == 0) {
		say(v, JP_CHECK_PASS, _("%s can be read."), s->path);
		return 0;
	}
	v->stop = true;
	say(v, JP_CHECK_FAIL,
	    _("%s cannot be read: %s. Fix its permissions (chmod/chown) so the job's user can "
	      "read it."),
	    s->path, strerror(a.errnum));
	return 0;
}

static int check_writable(struct verdict *v, const struct check_ctx *ctx, const struct subject *s,
			  struct jp_error *err)
{
	struct path_answer a;
	int rc;

	(void)ctx;
	(void)err;
	if (strlen(s->path) + 40 >= sizeof(a.probe)) {
		say(v, JP_CHECK_FAIL, _("%s is too long a path to write into."), s->path);
		return 0;
	}
	rc = bounded(&a, v, s, LOOK_WRITE);
	if (rc < 0)
		return rc == JP_ETIMEOUT ? 0 : rc;
	if (a.errnum)
		say(v, JP_CHECK_FAIL,
		    _("%s is not writable: %s. Choose a directory the job can write to, or fix "
		      "its permissions."),
		    s->path, strerror(a.errnum));
	else if (a.warn_errnum)
		say(v, JP_CHECK_WARN,
		    _("%s is writable, but the test file %s could not be removed: %s. Remove it "
		      "by hand."),
		    s->path, a.probe, strerror(a.warn_errnum));
	else
		say(v, JP_CHECK_PASS, _("%s is writable."), s->path);
	return 0;
}

/* --- storage: where each path lives, judged under the profile -----------------
 *
 * Without a profile the platform's layout is unknown: these checks then add
 * no result, and only the local facts above are checked. Each subject is
 * probed once, in bounded time (a hung network mount fails the subject
 * instead of hanging the check), and the later checks reuse that probe. */

struct storage_cache {
	bool probed;
	int rc;
	char error[512];
	struct jp_probe_result probe;
};

#define SPACE_FAIL_BYTES JP_CHECK_SPACE_FAIL_BYTES
#define INODES_WARN 10000ULL
#define EXAMPLES 3

/* Expand a profile template ({shared}, {job}, {output}) for advice. */
static void expand(char *buf, size_t len, const char *tmpl, const struct check_ctx *ctx,
		   const char *output)
{
	const char *shared = ctx->profile->shared_roots.n ? ctx->profile->shared_roots.v[0]
							  : _("<shared storage>");
	const char *job = ctx->m->job.name ? ctx->m->job.name : "JOB";
	size_t o = 0;

	buf[0] = '\0';
	for (const char *p = tmpl ? tmpl : ""; *p && o + 1 < len;) {
		const char *sub = NULL;
		size_t skip = 0;

		if (strncmp(p, "{shared}", 8) == 0) {
			sub = shared;
			skip = 8;
		} else if (strncmp(p, "{job}", 5) == 0) {
			sub = job;
			skip = 5;
		} else if (strncmp(p, "{output}", 8) == 0 && output) {
			sub = output;
			skip = 8;
		}
		if (sub) {
			o += (size_t)snprintf(buf + o, len - o, "%s", sub);
			if (o >= len)
				o = len - 1;
			p += skip;
		} else {
			buf[o++] = *p++;
			buf[o] = '\0';
		}
	}
}

/* Where this subject belongs on the platform, for "put it under ...". */
static void advice(char *buf, size_t len, const struct check_ctx *ctx, const struct subject *s)
{
	const struct jp_profile *p = ctx->profile;
	char output[PATH_MAX];

	expand(output, sizeof(output), p->output_dir, ctx, NULL);
	if (strcmp(s->field, "outputs.output_dir") == 0) {
		snprintf(buf, len, "%s", output);
	} else if (strcmp(s->field, "outputs.checkpoint_dir") == 0) {
		expand(buf, len, p->checkpoint_dir, ctx, output);
	} else if (strcmp(s->field, "outputs.log_dir") == 0) {
		expand(buf, len, p->log_dir, ctx, output);
	} else if (s->role == ROLE_CODE) {
		expand(buf, len, p->project_dir, ctx, NULL);
	} else if (s->data && s->data->kind == JP_DATA_PUBLIC && p->public_roots.n) {
		snprintf(buf, len, "%s/...", p->public_roots.v[0]);
	} else {
		char tmpl[256];
		snprintf(tmpl, sizeof(tmpl), "{shared}/datasets/%s",
			 s->data && s->data->name ? s->data->name : "NAME");
		expand(buf, len, tmpl, ctx, NULL);
	}
}

/* "/tmp" or "tmpfs at /scratch": what a path sits under, for messages. */
static void where(char *buf, size_t len, const struct jp_path_info *info)
{
	if (info->declared && info->declared_root)
		snprintf(buf, len, "%s", info->declared_root);
	else
		snprintf(buf, len, _("%s (%s at %s)"), info->mount_point ? info->mount_point : "?",
			 info->fstype ? info->fstype : "?",
			 info->mount_point ? info->mount_point : "?");
}

/* How the subject is named in a message: the field, and where it really
 * points when a symlink took it elsewhere. */
static void subject_name(char *buf, size_t len, const struct subject *s,
			 const struct jp_path_info *info)
{
	if (info->via_symlink)
		snprintf(buf, len, _("%s (%s, which resolves to %s)"), s->field, s->path,
			 info->resolved);
	else
		snprintf(buf, len, "%s (%s)", s->field, s->path);
}

static int storage_probe(const struct check_ctx *ctx, const struct subject *s,
			 struct jp_error *err)
{
	struct storage_cache *c = s->cache;
	struct jp_probe_opts o = JP_PROBE_OPTS_INIT;
	struct jp_error perr = JP_ERROR_INIT;

	if (c->probed)
		return 0;
	c->probed = true;
	o.flags = JP_PROBE_CLASSIFY;
	c->rc = jp_probe_path(&c->probe, ctx->profile, s->path, &o, &perr);
	snprintf(c->error, sizeof(c->error), "%s", c->rc < 0 ? jp_error_message(&perr) : "");
	jp_error_dispose(&perr);
	if (c->rc == JP_ENOMEM)
		return jp_error_oom(err);
	return 0;
}

/* The storage look a check stands on: 1 when it was made (s->cache holds
 * it), 0 when the check is skipped (no profile, or `needs` false), or a
 * negative code. */
static int probed(struct verdict *v, const struct check_ctx *ctx, const struct subject *s,
		  bool needs, struct jp_error *err)
{
	int rc;

	if (!ctx->profile || !needs) {
		v->skip = true;
		return 0;
	}
	rc = storage_probe(ctx, s, err);
	return rc < 0 ? rc : 1;
}

static int check_storage(struct verdict *v, const struct check_ctx *ctx, const struct subject *s,
			 struct jp_error *err)
{
	char name[PATH_MAX * 2 + 128], at[PATH_MAX + 64], to[PATH_MAX];
	int rc;

	rc = probed(v, ctx, s, true, err);
	if (rc <= 0)
		return rc;
	if (s->cache->rc == JP_ETIMEOUT) {
		hung(v, s);
		return 0;
	}
	if (s->cache->rc < 0) {
		v->stop = true;
		say(v, JP_CHECK_FAIL, _("%s: cannot tell where it lives: %s"), s->field,
		    s->cache->error);
		return 0;
	}
	const struct jp_path_info *info = &s->cache->probe.info;
	subject_name(name, sizeof(name), s, info);
	where(at, sizeof(at), info);
	advice(to, sizeof(to), ctx, s);

	switch (info->cls) {
	case JP_STORAGE_SHARED:
		/* a declared root that is a plain folder here: the Workers never
		 * see what is there, unless the profile is a sandbox (the demo) */
		if (info->warning && ctx->profile->sandbox)
			say(v, JP_CHECK_WARN, "%s: %s", s->field, info->warning);
		else if (info->warning)
			say(v, JP_CHECK_FAIL,
			    _("%s: %s (for a try-out on this machine: jobprep --demo, or a profile "
			      "with \"sandbox\": true)"),
			    s->field, info->warning);
		else if (s->role == ROLE_OUTPUT)
			say(v, JP_CHECK_PASS,
			    _("%s is on shared storage (%s on %s): every Worker writes to the same "
			      "place, and it is kept after the job."),
			    name, info->fstype ? info->fstype : "?", at);
		else
			say(v, JP_CHECK_PASS,
			    _("%s is on shared storage (%s on %s): every Worker sees it at the same "
			      "path."),
			    name, info->fstype ? info->fstype : "?", at);
		return 0;
	case JP_STORAGE_PUBLIC:
		if (s->role == ROLE_OUTPUT)
			say(v, JP_CHECK_FAIL,
			    _("%s is under the public data root %s, which is read-only in the job: "
			      "put it under %s"),
			    name, at, to);
		else if (info->warning)
			say(v, JP_CHECK_WARN, "%s: %s", s->field, info->warning);
		else
			say(v, JP_CHECK_PASS,
			    _("%s is platform public data under %s: every Worker reads it, "
			      "read-only, at the same path."),
			    name, at);
		return 0;
	case JP_STORAGE_EPHEMERAL:
		if (s->role == ROLE_OUTPUT)
			say(v, JP_CHECK_FAIL,
			    _("%s is under %s, which is wiped when the job ends: put it under %s"),
			    name, at, to);
		else
			say(v, JP_CHECK_FAIL,
			    _("%s is under %s, which is wiped when a job ends and which the job's "
			      "Workers do not share: put it on shared storage, e.g. %s"),
			    name, at, to);
		return 0;
	case JP_STORAGE_LOCAL:
		if (s->role == ROLE_OUTPUT)
			say(v, JP_CHECK_FAIL,
			    _("%s is on a local disk of this machine (%s at %s): the job's Workers "
			      "cannot write there and nothing there is kept for you: put it under %s"),
			    name, info->fstype ? info->fstype : "?",
			    info->mount_point ? info->mount_point : "?", to);
		else
			say(v, JP_CHECK_FAIL,
			    _("%s is on a local disk of this machine (%s at %s), which the job's "
			      "Workers cannot see: copy it to shared storage, e.g. %s"),
			    name, info->fstype ? info->fstype : "?",
			    info->mount_point ? info->mount_point : "?", to);
		return 0;
	case JP_STORAGE_UNKNOWN:
		break;
	}
	say(v, JP_CHECK_WARN,
	    _("%s: cannot tell where it lives (%s): make sure it is on storage every Worker "
	      "mounts, e.g. %s"),
	    name, info->reason ? info->reason : "?", to);
	return 0;
}

static int check_public(struct verdict *v, const struct check_ctx *ctx, const struct subject *s,
			struct jp_error *err)
{
	const struct jp_profile *p = ctx->profile;
	char at[PATH_MAX + 64];
	int rc;

	rc = probed(v, ctx, s, s->data != NULL, err);
	if (rc <= 0)
		return rc;
	if (s->cache->rc < 0) {
		v->skip = true;
		return 0;
	}
	const struct jp_path_info *info = &s->cache->probe.info;
	bool under_public = info->cls == JP_STORAGE_PUBLIC;
	const char *root = p->public_roots.n ? p->public_roots.v[0] : "/infini-data";
	const char *dfield = s->field; /* "data[i].path" */
	size_t base = strlen(dfield) > 5 ? strlen(dfield) - 5 : 0; /* without ".path" */

	if (s->data->kind != JP_DATA_PUBLIC && !under_public) {
		v->skip = true;
		return 0;
	}
	where(at, sizeof(at), info);
	if (s->data->kind == JP_DATA_PUBLIC && !under_public) {
		say(v, JP_CHECK_FAIL,
		    _("%.*s is marked public, but %s is not under the public data root %s: the "
		      "platform mounts public data sets read-only under %s/; for your own data "
		      "set kind to \"team\" and keep it on shared storage"),
		    (int)base, dfield, s->path, root, root);
	} else if (s->data->kind != JP_DATA_PUBLIC) {
		say(v, JP_CHECK_WARN,
		    _("%s is under the public data root %s: set %.*s.kind to \"public\" and "
		      "%.*s.read_only to true"),
		    s->path, at, (int)base, dfield, (int)base, dfield);
	} else if (!s->data->read_only) {
		say(v, JP_CHECK_FAIL,
		    _("%.*s is public data, which the job can only read: set %.*s.read_only to "
		      "true, and write nothing under %s"),
		    (int)base, dfield, (int)base, dfield, at);
	} else {
		say(v, JP_CHECK_PASS, _("%s is public data, read-only under %s%s."), s->path, at,
		    info->read_only ? "" : _(" (writable on this machine, read-only in the job)"));
	}
	return 0;
}

static int check_space(struct verdict *v, const struct check_ctx *ctx, const struct subject *s,
		       struct jp_error *err)
{
	char free_s[32], disk[32], need[32];
	int rc;

	rc = probed(v, ctx, s, true, err);
	if (rc <= 0)
		return rc;
	const struct jp_probe_result *r = &s->cache->probe;
	if (s->cache->rc < 0 || !r->has_space) {
		v->skip = true;
		return 0;
	}
	jp_units_format_bytes(free_s, sizeof(free_s), r->free_bytes);
	jp_units_format_bytes(disk, sizeof(disk), ctx->profile->system_disk_bytes);
	jp_units_format_bytes(need, sizeof(need), SPACE_FAIL_BYTES);
	if (r->free_bytes < SPACE_FAIL_BYTES)
		say(v, JP_CHECK_FAIL,
		    _("%s has only %s free on its storage, and a job needs at least %s there: "
		      "free some space there, or choose other shared storage, before the job "
		      "writes to it."),
		    s->path, free_s, need);
	else if (r->total_inodes && r->free_inodes < INODES_WARN)
		say(v, JP_CHECK_WARN,
		    _("%s has only %" PRIu64 " free inodes on its storage, and a job needs at "
		      "least %" PRIu64 " there: one writing many small files (logs, shards) will "
		      "fail; free some or choose other storage."),
		    s->path, r->free_inodes, (uint64_t)INODES_WARN);
	else if (r->free_bytes < ctx->profile->system_disk_bytes)
		say(v, JP_CHECK_WARN,
		    _("%s has %s free, less than a Worker's %s system disk: large checkpoints may "
		      "not fit; free some space or choose other shared storage."),
		    s->path, free_s, disk);
	else
		say(v, JP_CHECK_PASS, _("%s has %s free."), s->path, free_s);
	return 0;
}

/* What a data scan found worth telling, a few of each. */
struct findings {
	char archives[EXAMPLES][PATH_MAX];
	size_t n_archives;
	/* archives with the folder they unpack into beside them (as the scan
	 * looked them up, the first JP_SCAN_UNPACKED_LOOKUPS), and those still
	 * packed that jobprep stage --unpack-archives would unpack */
	uint64_t unpacked, stageable;
	char outside[EXAMPLES][PATH_MAX];
	char targets[EXAMPLES][PATH_MAX];
	size_t n_outside;
	char unreadable[EXAMPLES][PATH_MAX];
	size_t n_unreadable;
	char dangling[EXAMPLES][PATH_MAX];
	size_t n_dangling;
	char temps[EXAMPLES][PATH_MAX];
	size_t n_temps;
};

static int on_finding(const struct jp_scan_item *it, void *payload)
{
	struct findings *f = payload;

	switch (it->kind) {
	case JP_SCAN_ITEM_ARCHIVE: {
		char *beside = jp_stage_beside(it->path);

		if (beside && it->unpacked == 1) {
			f->unpacked++;
			free(beside);
			break;
		}
		f->stageable += beside != NULL;
		free(beside);
		if (f->n_archives < EXAMPLES)
			snprintf(f->archives[f->n_archives++], PATH_MAX, "%s", it->path);
		break;
	}
	case JP_SCAN_ITEM_LINK_OUTSIDE:
		if (f->n_outside < EXAMPLES) {
			snprintf(f->outside[f->n_outside], PATH_MAX, "%s", it->path);
			snprintf(f->targets[f->n_outside++], PATH_MAX, "%s", it->target);
		}
		break;
	case JP_SCAN_ITEM_UNREADABLE:
		if (f->n_unreadable < EXAMPLES)
			snprintf(f->unreadable[f->n_unreadable++], PATH_MAX, "%s", it->path);
		break;
	case JP_SCAN_ITEM_LINK_DANGLING:
		if (f->n_dangling < EXAMPLES)
			snprintf(f->dangling[f->n_dangling++], PATH_MAX, "%s", it->path);
		break;
	case JP_SCAN_ITEM_TEMPORARY:
		if (f->n_temps < EXAMPLES)
			snprintf(f->temps[f->n_temps++], PATH_MAX, "%s", it->path);
		break;
	}
	return 0;
}

/* One scan of a data set, shared by the checks that read its figures
 * (staging, contents, small_files): a quick look, or with --deep a full
 * scan; bounded in time either way (jp_scan). */
struct data_scan {
	bool done;
	int rc;
	char error[512];
	struct jp_scan_result r;
	struct findings f;
};

static int data_scanned(const struct check_ctx *ctx, const struct subject *s)
{
	struct data_scan *d = s->scan;
	struct jp_scan_opts o = JP_SCAN_OPTS_INIT;
	struct jp_scan_output out = { on_finding, &d->f };
	struct jp_error serr = JP_ERROR_INIT;

	if (d->done)
		return d->rc;
	d->done = true;
	o.mode = ctx->flags & JP_CHECK_DEEP ? JP_SCAN_FULL : JP_SCAN_QUICK;
	d->rc = jp_scan(&d->r, s->path, &o, &out, NULL, &serr);
	snprintf(d->error, sizeof(d->error), "%s", d->rc < 0 ? jp_error_message(&serr) : "");
	jp_error_dispose(&serr);
	return d->rc;
}

/* Append "; " + formatted text to the verdict's message. */
static void also(struct verdict *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void also(struct verdict *v, const char *fmt, ...)
{
	size_t o = strlen(v->message);
	va_list ap;

	if (o + 3 >= sizeof(v->message))
		return;
	if (o) {
		memcpy(v->message + o, "; ", 3);
		o += 2;
	}
	va_start(ap, fmt);
	vsnprintf(v->message + o, sizeof(v->message) - o, fmt, ap);
	va_end(ap);
}

static void worsen(struct verdict *v, enum jp_check_status st)
{
	if (st > v->status)
		v->status = st;
}

/* The `jobprep stage` line that unpacks a data set's archives where they
 * are, before the job. */
static void stage_hint(struct verdict *v, const char *path, uint64_t stageable)
{
	char *q = NULL;

	if (!stageable || jp_sh_quote(&q, path) < 0)
		return;
	also(v, _("to unpack each into the folder beside it (train.tar -> train/) before the job: "
		  "jobprep stage --unpack-archives %s"),
	     q);
	free(q);
}

static int check_contents(struct verdict *v, const struct check_ctx *ctx, const struct subject *s,
			  struct jp_error *err)
{
	char size[32], abytes[32], disk[32];

	(void)err;
	if (!ctx->profile || !s->data) {
		v->skip = true;
		return 0;
	}
	if (data_scanned(ctx, s) < 0) {
		say(v, JP_CHECK_WARN, _("%s could not be scanned: %s"), s->path, s->scan->error);
		return 0;
	}
	const struct jp_scan_result r = s->scan->r;
	const struct findings *f = &s->scan->f;
	const char *lb = r.complete ? "" : _("at least ");
	jp_units_format_bytes(size, sizeof(size), r.stats.bytes);
	v->status = JP_CHECK_PASS;
	v->message[0] = '\0';
	also(v, _("%s holds %s%" PRIu64 " files, %s%s"), s->path, lb, r.stats.files, size,
	     r.complete ? "" : _(" (a quick look; `jobprep check --deep` counts everything)"));
	/* nothing to read: the job reads nothing, or stops (issue 31) */
	if (r.complete && r.stats.files == 0 && !s->data->output) {
		char *q = NULL;

		worsen(v, JP_CHECK_FAIL);
		if (jp_sh_quote(&q, s->path) < 0)
			return JP_ENOMEM;
		also(v,
		     _("it is empty, so the job has nothing to read: put the data there first "
		       "(jobprep stage SOURCE %s), or, if the job fills it itself, mark it as an "
		       "output (\"output\": true on this data source)"),
		     q);
		free(q);
	}

	/* A symlink out of the data set is only as good as where it leads. */
	for (size_t i = 0; i < f->n_outside; i++) {
		struct jp_probe_result pr = JP_PROBE_RESULT_INIT;
		struct jp_probe_opts po = JP_PROBE_OPTS_INIT;

		po.flags = JP_PROBE_CLASSIFY;
		if (jp_probe_path(&pr, ctx->profile, f->targets[i], &po, NULL) == 0 &&
		    (pr.info.cls == JP_STORAGE_EPHEMERAL || pr.info.cls == JP_STORAGE_LOCAL)) {
			worsen(v, JP_CHECK_FAIL);
			also(v,
			     _("%s links to %s, which is %s storage the job's Workers cannot see: "
			       "copy what it points to into the data set, on shared storage"),
			     f->outside[i], f->targets[i], _(jp_storage_class_name(pr.info.cls)));
		}
		jp_probe_result_dispose(&pr);
	}
	if (r.symlinks_outside && v->status == JP_CHECK_PASS)
		also(v, _("%s%" PRIu64 " symlinks lead outside it, to shared or public storage "
			  "(e.g. %s -> %s)"),
		     lb, r.symlinks_outside, f->n_outside ? f->outside[0] : "?",
		     f->n_outside ? f->targets[0] : "?");
	if (r.stats.archives > f->unpacked) {
		jp_units_format_bytes(abytes, sizeof(abytes), r.archive_bytes);
		worsen(v, JP_CHECK_WARN);
		also(v,
		     _("%s%" PRIu64 " archives (%s, e.g. %s) would have to be unpacked in the job, "
		       "with the GPUs waiting: unpack them before submitting, unless the training "
		       "code reads them as they are (e.g. WebDataset shards)"),
		     lb, r.stats.archives - f->unpacked, abytes,
		     f->n_archives ? f->archives[0] : "?");
		stage_hint(v, s->path, f->stageable);
	}
	if (f->unpacked)
		also(v,
		     P_("%" PRIu64 " archive is unpacked already, in the folder beside it",
			"%" PRIu64 " archives are unpacked already, each in the folder beside it",
			f->unpacked),
		     f->unpacked);
	if (r.unreadable) {
		worsen(v, JP_CHECK_WARN);
		also(v, _("%s%" PRIu64 " entries cannot be read (e.g. %s): fix their permissions"),
		     lb, r.unreadable, f->n_unreadable ? f->unreadable[0] : "?");
	}
	if (r.symlinks_dangling) {
		worsen(v, JP_CHECK_WARN);
		also(v, _("%s%" PRIu64 " symlinks point at nothing (e.g. %s)"), lb,
		     r.symlinks_dangling, f->n_dangling ? f->dangling[0] : "?");
	}
	if (r.stats.bytes > ctx->profile->system_disk_bytes) {
		jp_units_format_bytes(disk, sizeof(disk), ctx->profile->system_disk_bytes);
		also(v,
		     _("larger than a Worker's %s system disk: read it in place, do not copy it "
		       "to the Worker"),
		     disk);
	}
	return 0;
}

/* data[i].path.count: the data set holds at least the files the manifest
 * recorded (its stats, from a whole scan when the job was prepared); every
 * Worker's preflight.sh counts them too. A quick look that has not seen
 * them all cannot tell: no result. */
static int check_count(struct verdict *v, const struct check_ctx *ctx, const struct subject *s,
		       struct jp_error *err)
{
	uint64_t want = s->data ? s->data->stats.files : 0;

	(void)err;
	if (!ctx->profile || !s->data || !s->data->has_stats || want == 0 ||
	    data_scanned(ctx, s) < 0) {
		v->skip = true;
		return 0;
	}
	const struct jp_scan_result *r = &s->scan->r;
	if (r->stats.files >= want)
		say(v, JP_CHECK_PASS,
		    _("%s holds %s%" PRIu64 " files, no fewer than the %" PRIu64 " the manifest "
		      "recorded."),
		    s->path, r->complete ? "" : _("at least "), r->stats.files, want);
	else if (!r->complete)
		v->skip = true;
	else
		say(v, JP_CHECK_FAIL,
		    _("%s holds %" PRIu64 " files, fewer than the %" PRIu64 " the manifest recorded: "
		      "part of the data set is missing; stage it again, or make the job again if the "
		      "data set changed on purpose."),
		    s->path, r->stats.files, want);
	return 0;
}

/* --- staging: a data set a `jobprep stage` has not finished ----------------- */

/* The look's answer (flat: it travels as its bytes). */
struct staging_answer {
	struct jp_stage_unfinished u;
	bool exists; /* the path itself */
};

/* inputs: the path; answer: struct staging_answer */
static void staging_serve(struct probe_bytes *in, struct probe_bytes *out)
{
	struct staging_answer *a = calloc(1, sizeof(*a));
	char *path = probe_bytes_get_str(in);
	struct stat sb;

	if (!a || in->bad || !path) {
		out->bad = true; /* the caller reads it as a failed look */
	} else {
		jp_stage_unfinished_look(&a->u, path);
		a->exists = lstat(path, &sb) == 0;
		probe_bytes_put(out, a, sizeof(*a));
	}
	free(a);
	free(path);
}
JP_HELPER_REQUEST(check_staging, staging_serve, JP_HELPER_LOOK);

/* The staging look at path in a helper, in bounded time, into *a: 0,
 * JP_ETIMEOUT or another negative code (err says why). */
static int staging_look(struct staging_answer *a, const char *path, struct jp_error *err)
{
	struct probe_bytes in = {NULL, 0, 0, 0, false, false}, ans = {NULL, 0, 0, 0, false, false};
	int rc;

	probe_bytes_put_str(&in, path);
	rc = in.bad ? jp_error_oom(err)
		    : jp_helper_call(&ans, &jp_req_check_staging, &in, path, 0, err);
	if (rc == 0) {
		probe_bytes_get(&ans, a, sizeof(*a));
		if (ans.bad)
			rc = jp_error_set(err, JP_EINTERNAL, "%s: %s", path,
					  _("the look at it failed"));
	}
	free(in.p);
	free(ans.p);
	return rc;
}

/* The verdict for a run's record: running, stopped, or cannot tell. */
static void say_run(struct verdict *v, const struct subject *s, const struct jp_stage_unfinished *u)
{
	const char *cmd = u->command[0] ? u->command : "jobprep stage SOURCE DEST";

	if (u->running == 1)
		say(v, JP_CHECK_FAIL,
		    _("%s is still being staged: `jobprep stage` (pid %ld on %s, since %s) is writing "
		      "%s; wait for it to finish and check again (if it is stopped, the same stage "
		      "finishes it: %s)"),
		    s->path, u->pid, u->host, u->started, u->dest, cmd);
	else if (u->running == 0)
		say(v, JP_CHECK_FAIL,
		    _("%s is not complete: the `jobprep stage` of %s (pid %ld on %s, started %s) "
		      "stopped before it finished; run the same stage again to finish it: %s"),
		    s->path, u->dest, u->pid, u->host, u->started, cmd);
	else
		say(v, JP_CHECK_FAIL,
		    _("%s is not complete: a `jobprep stage` of %s (pid %ld on %s, started %s) has "
		      "not finished; if it still runs, wait for it, else run the same stage again "
		      "to finish it: %s"),
		    s->path, u->dest, u->pid, u->host, u->started, cmd);
	if (u->runs > 1)
		also(v, _("%u runs (shards) have not finished"), u->runs);
	also(v, _("its record: %s"), u->where);
}

static int check_staging(struct verdict *v, const struct check_ctx *ctx, const struct subject *s,
			 struct jp_error *err)
{
	struct staging_answer *c;
	int rc;

	/* no path PATH_MAX long or longer can be opened: nothing to look at */
	if (!s->data || strlen(s->path) >= PATH_MAX) {
		v->skip = true;
		return 0;
	}
	if (!(c = calloc(1, sizeof(*c))))
		return JP_ENOMEM;
	rc = staging_look(c, s->path, err);
	if (rc == JP_ETIMEOUT) {
		hung(v, s);
		rc = 0;
		goto out;
	}
	if (rc < 0)
		goto out;
	if (c->u.kind == JP_UNFINISHED_RUN) {
		say_run(v, s, &c->u);
	} else if (c->u.kind != JP_UNFINISHED_NONE) {
		say(v, JP_CHECK_FAIL,
		    _("%s is not complete: %s, a temporary of `jobprep stage` (still running, or "
		      "stopped half-way), is there; run the stage of %s again to finish it "
		      "(jobprep stage SOURCE %s), or remove the temporary if that stage was given up"),
		    s->path, c->u.where, c->u.dest, c->u.dest);
	} else if (c->exists && data_scanned(ctx, s) == 0 && s->scan->r.temporaries) {
		const struct data_scan *d = s->scan;

		say(v, JP_CHECK_FAIL,
		    P_("%s holds %s%" PRIu64 " temporary of a `jobprep stage` (or clone) still "
		       "running or stopped half-way (%s): the job would read a partial data set; "
		       "run the same stage into it again to finish it, or remove it if that stage "
		       "was given up",
		       "%s holds %s%" PRIu64 " temporaries of a `jobprep stage` (or clone) still "
		       "running or stopped half-way (e.g. %s): the job would read a partial data "
		       "set; run the same stage into it again to finish it, or remove them if that "
		       "stage was given up",
		       d->r.temporaries),
		    s->path, d->r.complete ? "" : _("at least "), d->r.temporaries,
		    d->f.n_temps ? d->f.temps[0] : "?");
	} else {
		say(v, JP_CHECK_PASS, _("%s: no `jobprep stage` of it is unfinished."), s->path);
	}
out:
	free(c);
	return rc;
}

/* --- small files: a data set whose reading is bound by metadata ------------- *
 *
 * On network storage every file a job opens costs round trips (a lookup, an
 * open, a close); 30,000 files of 64 B make each epoch wait on the server,
 * not on bandwidth. Past the thresholds the scan's figures become a
 * warning, never a failure. */
#define SMALL_FILES_MIN 10000ULL   /* files counted (a whole scan) */
#define SMALL_FILES_SEEN 1000ULL   /* or seen by a quick look that did not finish */
#define SMALL_FILES_PER_GIB 16384.0 /* files per GiB (a mean under 64 KiB) */

static int check_small_files(struct verdict *v, const struct check_ctx *ctx,
			     const struct subject *s, struct jp_error *err)
{
	char median[32], size[32];
	int rc = probed(v, ctx, s, s->data != NULL, err);

	if (rc <= 0)
		return rc;
	const struct jp_path_info *info = &s->cache->probe.info;
	/* read over the network by every Worker: shared or public storage */
	if (s->cache->rc < 0 || (info->cls != JP_STORAGE_SHARED && info->cls != JP_STORAGE_PUBLIC) ||
	    data_scanned(ctx, s) < 0) {
		v->skip = true;
		return 0;
	}
	const struct jp_scan_result *r = &s->scan->r;
	uint64_t files = r->stats.files;
	double per_gib = r->stats.bytes ? (double)files * 1073741824.0 / (double)r->stats.bytes
					: (double)files * 1073741824.0;
	bool many = files >= SMALL_FILES_MIN || (!r->complete && files >= SMALL_FILES_SEEN);
	bool small = r->small_files * 2 > files || per_gib >= SMALL_FILES_PER_GIB;

	jp_units_format_bytes(median, sizeof(median), r->median_bytes);
	jp_units_format_bytes(size, sizeof(size), r->stats.bytes);
	if (!many || !small) {
		say(v, JP_CHECK_PASS, _("%s: %s%" PRIu64 " files, median size about %s: not many small files."),
		    s->path, r->complete ? "" : _("at least "), files, median);
		return 0;
	}
	say(v, JP_CHECK_WARN,
	    _("%s holds %s%" PRIu64 " files in %s (%.0f per GiB, median size about %s%s): on network "
	      "storage each file the job opens costs round trips to the server, so every epoch "
	      "waits on metadata, not on bandwidth; pack them into shards of 100 MiB to 1 GiB "
	      "(e.g. WebDataset tar shards) and read those"),
	    s->path, r->complete ? "" : _("at least "), files, size, per_gib, median,
	    r->complete ? "" : _(", from a quick look"));
	return 0;
}

/* The checks, in the order they run on each subject. */
static const struct path_check {
	const char *name;
	unsigned roles;
	path_check_fn run;
} path_checks[] = {
	{ "storage", ROLE_ALL, check_storage },
	{ "staging", ROLE_DATA, check_staging },
	{ "exists", ROLE_ALL, check_exists },
	{ "readable", ROLE_READ, check_readable },
	{ "public", ROLE_DATA, check_public },
	{ "contents", ROLE_DATA, check_contents },
	{ "count", ROLE_DATA, check_count },
	{ "small_files", ROLE_DATA, check_small_files },
	{ "writable", ROLE_OUTPUT, check_writable },
	{ "space", ROLE_OUTPUT, check_space },
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
	memset(&grown[ss->n], 0, sizeof(grown[ss->n]));
	snprintf(grown[ss->n].field, sizeof(grown[ss->n].field), "%s", field);
	grown[ss->n].path = path;
	grown[ss->n].role = role;
	grown[ss->n].read_only = read_only;
	ss->n++;
	return 0;
}

static int push_path(struct jp_check_path **v, size_t *n, const char *field, const char *path,
		     enum jp_check_role role, size_t data_index)
{
	struct jp_check_path *grown;

	if (!path)
		return 0;
	grown = realloc(*v, (*n + 1) * sizeof(*grown));
	if (!grown)
		return JP_ENOMEM;
	*v = grown;
	memset(&grown[*n], 0, sizeof(grown[*n]));
	snprintf(grown[*n].field, sizeof(grown[*n].field), "%s", field);
	grown[*n].path = path;
	grown[*n].role = role;
	grown[*n].data_index = data_index;
	(*n)++;
	return 0;
}

int jp_check_paths(struct jp_check_path **out, size_t *n, const struct jp_manifest *m)
{
	char field[64];
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (m->code.source == JP_CODE_SHARED_STORAGE)
		rc = push_path(out, n, "code.path", m->code.path, JP_CHECK_ROLE_CODE, 0);
	for (size_t i = 0; rc == 0 && i < m->n_data; i++) {
		snprintf(field, sizeof(field), "data[%zu].path", i);
		rc = push_path(out, n, field, m->data[i].path, JP_CHECK_ROLE_DATA, i);
	}
	if (rc == 0)
		rc = push_path(out, n, "outputs.output_dir", m->outputs.output_dir,
			       JP_CHECK_ROLE_OUTPUT, 0);
	if (rc == 0)
		rc = push_path(out, n, "outputs.checkpoint_dir", m->outputs.checkpoint_dir,
			       JP_CHECK_ROLE_OUTPUT, 0);
	if (rc == 0)
		rc = push_path(out, n, "outputs.log_dir", m->outputs.log_dir, JP_CHECK_ROLE_OUTPUT,
			       0);
	if (rc < 0) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

static int collect(struct subjects *ss, const struct jp_manifest *m)
{
	struct jp_check_path *paths = NULL;
	size_t n = 0;
	int rc = jp_check_paths(&paths, &n, m);

	for (size_t i = 0; rc == 0 && i < n; i++) {
		const struct jp_check_path *p = &paths[i];
		enum role role = p->role == JP_CHECK_ROLE_CODE	 ? ROLE_CODE
				 : p->role == JP_CHECK_ROLE_DATA ? ROLE_DATA
								 : ROLE_OUTPUT;
		bool ro = role == ROLE_DATA && m->data[p->data_index].read_only;

		rc = add_subject(ss, p->field, p->path, role, ro);
		if (rc == 0 && role == ROLE_DATA)
			ss->v[ss->n - 1].data = &m->data[p->data_index];
	}
	free(paths);
	return rc;
}

static bool under_root(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (strcmp(root, "/") == 0)
		return true;
	return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

const char *jp_check_env_path(char field[64], const struct jp_manifest *m,
			      const struct jp_profile *profile, size_t i)
{
	const struct jp_env_var *v = i < m->job.n_env ? &m->job.env[i] : NULL;
	char *normal;
	bool ok = false;

	if (!profile || !v || !v->name || !v->value || v->value[0] != '/' || strchr(v->value, ':') ||
	    strlen(v->name) > 48)
		return NULL;
	normal = jp_path_normalize(v->value);
	if (normal && strcmp(normal, v->value) == 0)
		for (size_t k = 0; !ok && k < profile->shared_roots.n; k++)
			ok = under_root(v->value, profile->shared_roots.v[k]);
	free(normal);
	if (!ok)
		return NULL;
	snprintf(field, 64, "job.env.%s", v->name);
	return v->value;
}

/* Where the path-valued job.env entries the Workers judge live, recorded
 * (those that exist: the job may make the others). */
static int record_env_storage(struct jp_manifest *m, const struct jp_profile *profile)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < m->job.n_env; i++) {
		struct jp_probe_result pr = JP_PROBE_RESULT_INIT;
		struct jp_probe_opts po = JP_PROBE_OPTS_INIT;
		char field[64];
		const char *path = jp_check_env_path(field, m, profile, i);

		if (!path)
			continue;
		po.flags = JP_PROBE_CLASSIFY;
		if (jp_probe_path(&pr, profile, path, &po, NULL) == 0 && pr.info.exists &&
		    pr.info.fstype && pr.info.mount_point && pr.info.mount_point[0] == '/')
			rc = jp_manifest_set_storage(m, field, path, pr.info.fstype,
						     pr.info.mount_point);
		jp_probe_result_dispose(&pr);
	}
	return rc;
}

/* The storage a probed subject was found on, recorded in the manifest. */
static int record_storage(struct jp_manifest *m, const struct subject *s)
{
	const struct jp_path_info *info = &s->cache->probe.info;

	if (!s->cache->probed || s->cache->rc < 0 || !info->exists || !info->fstype ||
	    !info->mount_point || info->mount_point[0] != '/')
		return 0;
	return jp_manifest_set_storage(m, s->field, s->path, info->fstype, info->mount_point);
}

/* job.env.identity: job.env may not set what the platform sets for each
 * Worker (its rank, the Worker count, rank 0's address): env.sh would give
 * every Worker the same value. */
static int check_identity(struct jp_manifest *m)
{
	char names[512] = "";
	size_t len = 0, n = 0;

	for (size_t i = 0; i < m->job.n_env; i++) {
		const char *name = m->job.env[i].name;

		if (!name || !jp_valid_env_name(name) || !jp_env_name_platform(name))
			continue;
		if (len + strlen(name) + 3 < sizeof(names))
			len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s",
						n ? ", " : "", name);
		n++;
	}
	if (n == 0)
		return 0; /* (no result: most jobs set none) */
	return jp_manifest_add_check(
		m, "job.env.identity", JP_CHECK_FAIL, NULL,
		_("job.env sets %s, which the platform sets for each Worker (its rank, the Worker "
		  "count, rank 0's address): one value from env.sh would make every Worker the "
		  "same, and env.sh leaves them to the platform. Remove them from job.env (the "
		  "launch command can read the platform's values, e.g. --node_rank=\"$RANK\")."),
		names);
}

int jp_check_manifest(struct jp_manifest *m, const struct jp_profile *profile, unsigned flags,
		      struct jp_error *err)
{
	struct check_ctx ctx = { m, profile, flags };
	struct subjects ss = { NULL, 0 };
	struct storage_cache *caches = NULL;
	struct data_scan *scans = NULL;
	char id[128];
	int rc;

	jp_manifest_clear_checks(m);
	rc = collect(&ss, m);
	if (rc == 0 && ss.n) {
		caches = calloc(ss.n, sizeof(*caches));
		scans = calloc(ss.n, sizeof(*scans));
		if (!caches || !scans)
			rc = JP_ENOMEM;
		for (size_t i = 0; caches && scans && i < ss.n; i++) {
			struct jp_probe_result empty = JP_PROBE_RESULT_INIT;
			caches[i].probe = empty;
			ss.v[i].cache = &caches[i];
			ss.v[i].scan = &scans[i];
		}
	}
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
			if (v.skip)
				continue;
			snprintf(id, sizeof(id), "%s.%s", s->field, path_checks[k].name);
			rc = jp_manifest_add_check(m, id, v.status, s->path, "%s", v.message);
			if (v.stop)
				break;
		}
	}
	/* where each path lives, for the Workers' preflight.sh to compare */
	for (size_t i = 0; rc == 0 && caches && i < ss.n; i++)
		rc = record_storage(m, &ss.v[i]);
	if (rc == 0)
		rc = record_env_storage(m, profile);
	for (size_t i = 0; caches && i < ss.n; i++)
		jp_probe_result_dispose(&caches[i].probe);
	free(caches);
	free(scans);
	free(ss.v);
	/* The launch command is judged with the paths: `check` and the
	 * wizard's review report the same launch.* findings. */
	if (rc == 0)
		rc = jp_lint_manifest(m, profile, err);
	if (rc == 0)
		rc = check_identity(m);
	if (rc == 0)
		rc = jp_check_runtime(m, err);
	if (rc == 0)
		rc = jp_check_repo(m, err);
	if (rc == JP_ENOMEM)
		return jp_error_oom(err);
	return rc;
}
