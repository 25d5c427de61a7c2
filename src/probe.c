/* Probes in bounded time: the real operations (stat, list, write + fsync,
 * statvfs) in a helper process (helper.c) the caller stops waiting for;
 * and jobs on a thread of their own, for work of this process's that a
 * front end must not wait on (the wizard's field checks, whose looks are
 * helpers' too). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "jobprep/i18n.h"
#include "jobprep/path.h"
#include "jobprep/probe.h"
#include "deadline_internal.h"
#include "probe_internal.h"
#include "helper_internal.h"
#include "error_internal.h"
#include "pathclass_internal.h"

#define PROBE_WRITE_BYTES 4096

void jp_probe_result_dispose(struct jp_probe_result *r)
{
	free(r->write_dir);
	jp_path_info_dispose(&r->info);
	struct jp_probe_result empty = JP_PROBE_RESULT_INIT;
	*r = empty;
}

/* The nearest existing ancestor of an absolute path (or the path). */
static char *existing_ancestor(const char *path)
{
	char *p = strdup(path);
	struct stat st;
	if (!p)
		return NULL;
	while (stat(p, &st) != 0 && strcmp(p, "/") != 0) {
		char *s = strrchr(p, '/');
		if (!s)
			break;
		if (s == p)
			s[1] = '\0';
		else
			*s = '\0';
	}
	return p;
}

static void probe_read(struct jp_probe_result *r, const char *path)
{
	if (r->is_dir) {
		DIR *d = opendir(path);
		if (!d) {
			r->read_errno = errno;
			return;
		}
		errno = 0;
		if (!readdir(d) && errno) {
			r->read_errno = errno;
		} else {
			r->readable = true;
		}
		closedir(d);
		return;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		r->read_errno = errno;
		return;
	}
	char c;
	/* A fifo without a writer answers EAGAIN: it opened, so it is readable. */
	if (read(fd, &c, 1) < 0 && errno != EAGAIN)
		r->read_errno = errno;
	else
		r->readable = true;
	close(fd);
}

/* Write a probe file in dir: create, write, fsync, close, remove. */
static int probe_write(const char *dir)
{
	static const char text[] = "jobprep write probe: safe to delete\n";
	char buf[PROBE_WRITE_BYTES];
	char *name = NULL;
	int fd = -1;
	int e = 0;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	if (asprintf(&name, "%s%s.jobprep-probe-%ld-%lx", dir, strcmp(dir, "/") ? "/" : "",
		     (long)getpid(), (unsigned long)ts.tv_nsec ^ (unsigned long)pthread_self()) < 0)
		return ENOMEM;
	fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		e = errno;
		goto out;
	}
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = text[i % (sizeof(text) - 1)];
	for (size_t off = 0; off < sizeof(buf);) {
		ssize_t w = write(fd, buf + off, sizeof(buf) - off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			goto out;
		}
		off += (size_t)w;
	}
	/* Quotas and full disks often answer only here or at close. */
	if (fsync(fd) < 0 && errno != EINVAL) {
		e = errno;
		goto out;
	}
	int c = close(fd);
	fd = -1;
	if (c < 0) {
		e = errno;
		goto out;
	}
out:
	if (fd >= 0)
		close(fd);
	if (name) {
		if (unlink(name) < 0 && !e && errno != ENOENT)
			e = errno;
		free(name);
	}
	return e;
}

static int probe_run(struct jp_probe_result *r, const struct jp_profile *profile,
		     const char *path, unsigned flags, struct jp_error *err)
{
	struct stat st;
	char *dir = NULL;
	int rc = 0;

	if (flags & JP_PROBE_CLASSIFY) {
		rc = jp_path_classify(&r->info, profile, path, err);
		if (rc < 0)
			goto out;
	}
	if (stat(path, &st) == 0) {
		r->exists = true;
		r->is_dir = S_ISDIR(st.st_mode);
		probe_read(r, path);
	} else {
		r->exists_errno = errno;
	}

	dir = r->exists && r->is_dir ? strdup(path) : existing_ancestor(path);
	if (!dir) {
		rc = jp_error_oom(err);
		goto out;
	}
	if (flags & JP_PROBE_WRITE) {
		r->write_tested = true;
		r->write_errno = probe_write(dir);
		r->writable = r->write_errno == 0;
		r->write_dir = dir;
		dir = NULL;
	}
	struct statvfs sv;
	if (statvfs(r->write_dir ? r->write_dir : dir, &sv) == 0) {
		uint64_t frsize = sv.f_frsize ? (uint64_t)sv.f_frsize : (uint64_t)sv.f_bsize;
		r->has_space = true;
		r->free_bytes = (uint64_t)sv.f_bavail * frsize;
		r->total_bytes = (uint64_t)sv.f_blocks * frsize;
		r->free_inodes = (uint64_t)sv.f_favail;
		r->total_inodes = (uint64_t)sv.f_files;
	}
out:
	free(dir);
	return rc;
}

/* --- bounded calls ------------------------------------------------------------ */

/* Shared by the caller and the call's thread; the last one out frees it. */
struct jp_probe_job {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int refs;
	bool done;
	jp_probe_fn fn;
	void *arg;
	void (*release)(void *arg);
};

static void job_release(struct jp_probe_job *j)
{
	pthread_mutex_lock(&j->lock);
	bool last = --j->refs == 0;
	pthread_mutex_unlock(&j->lock);
	if (!last)
		return;
	/* Still holding arg: the caller stopped waiting for it. */
	if (j->arg && j->release)
		j->release(j->arg);
	pthread_mutex_destroy(&j->lock);
	pthread_cond_destroy(&j->cond);
	free(j);
}

static void *job_thread(void *data)
{
	struct jp_probe_job *j = data;

	j->fn(j->arg);
	pthread_mutex_lock(&j->lock);
	j->done = true;
	pthread_cond_broadcast(&j->cond);
	pthread_mutex_unlock(&j->lock);
	job_release(j);
	return NULL;
}

int jp_probe_start(struct jp_probe_job **out, jp_probe_fn fn, void *arg,
		   void (*release)(void *arg), struct jp_error *err)
{
	struct jp_probe_job *j = calloc(1, sizeof(*j));
	pthread_condattr_t ca;
	pthread_attr_t ta;
	sigset_t all, old;
	pthread_t tid;

	*out = NULL;
	if (!j)
		return jp_error_oom(err);
	j->fn = fn;
	j->arg = arg;
	j->release = release;
	j->refs = 2;
	pthread_mutex_init(&j->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&j->cond, &ca);
	pthread_condattr_destroy(&ca);
	pthread_attr_init(&ta);
	pthread_attr_setdetachstate(&ta, PTHREAD_CREATE_DETACHED);
	/* The call's thread takes no signals: they belong to the front end. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int e = pthread_create(&tid, &ta, job_thread, j);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&ta);
	if (e) {
		pthread_mutex_destroy(&j->lock);
		pthread_cond_destroy(&j->cond);
		free(j);
		return jp_error_set(err, JP_EINTERNAL, _("cannot start a thread: %s"), strerror(e));
	}
	*out = j;
	return 0;
}

bool jp_probe_wait(struct jp_probe_job *j, unsigned timeout_ms)
{
	struct timespec deadline;
	bool done;

	deadline_after_ms(&deadline, CLOCK_MONOTONIC, timeout_ms);
	pthread_mutex_lock(&j->lock);
	while (!j->done) {
		if (pthread_cond_timedwait(&j->cond, &j->lock, &deadline) == ETIMEDOUT)
			break;
	}
	done = j->done;
	pthread_mutex_unlock(&j->lock);
	return done;
}

void *jp_probe_end(struct jp_probe_job *j)
{
	void *arg = NULL;

	if (!j)
		return NULL;
	pthread_mutex_lock(&j->lock);
	if (j->done) {
		arg = j->arg;
		j->arg = NULL;
	}
	pthread_mutex_unlock(&j->lock);
	job_release(j);
	return arg;
}

/* --- stat ------------------------------------------------------------------ */

/* inputs: path, follow; answer: errnum, then struct stat */
static void stat_serve(struct probe_bytes *in, struct probe_bytes *out)
{
	char *path = probe_bytes_get_str(in);
	bool follow = false;
	struct stat st;
	int errnum = 0;

	probe_bytes_get(in, &follow, sizeof(follow));
	memset(&st, 0, sizeof(st));
	if (!in->bad && path && (follow ? stat(path, &st) : lstat(path, &st)) != 0)
		errnum = errno;
	probe_bytes_put(out, &errnum, sizeof(errnum));
	probe_bytes_put(out, &st, sizeof(st));
	free(path);
}
JP_HELPER_REQUEST(probe_stat, stat_serve, JP_HELPER_LOOK);

int jp_probe_stat(struct stat *out, int *errnum, const char *path, unsigned flags,
		  unsigned timeout_ms, struct jp_error *err)
{
	struct probe_bytes in = {NULL, 0, 0, 0, false, false}, ans;
	bool follow = !(flags & JP_PROBE_NOFOLLOW);
	struct stat st;
	int rc, e = 0;

	probe_bytes_put_str(&in, path);
	probe_bytes_put(&in, &follow, sizeof(follow));
	rc = jp_helper_call(&ans, &jp_req_probe_stat, &in, path,
			    timeout_ms, err);
	free(in.p);
	if (rc < 0)
		return rc;
	probe_bytes_get(&ans, &e, sizeof(e));
	probe_bytes_get(&ans, &st, sizeof(st));
	free(ans.p);
	if (ans.bad)
		return jp_error_set(err, JP_EINTERNAL, "%s: %s", path, _("the look at it failed"));
	if (out)
		*out = st;
	*errnum = e;
	return 0;
}

/* --- the full probe ------------------------------------------------------------- */

/* The answer's fields, listed once for both sides (probe_bytes_field): rc
 * and its error, the booleans and numbers (as bytes: the pointers are each
 * side's own), then every string; read back, its strings are the
 * caller's. false when the bytes are short. */
static bool probe_result_wire(struct probe_bytes *b, int *rc, struct jp_error *err,
			      struct jp_probe_result *r)
{
	struct jp_probe_result raw = *r;
	struct jp_path_info *i = &r->info;
	char **strs[] = {&r->write_dir,	  &i->resolved, &i->mount_point,
			 &i->fstype,	  &i->reason,	&i->declared_root,
			 &i->source,	  &i->existing, &i->warning};

	PROBE_FIELD(b, *rc);
	probe_bytes_field_error(b, *rc < 0 ? err : NULL, *rc);
	PROBE_FIELD(b, raw);
	if (b->reading)
		*r = raw; /* each of its strings is read below */
	for (size_t k = 0; k < sizeof(strs) / sizeof(*strs); k++)
		probe_bytes_field_str(b, strs[k]);
	return !b->bad;
}

/* inputs: path, flags, the profile; answer: probe_result_wire's */
static void probe_path_serve(struct probe_bytes *in, struct probe_bytes *out)
{
	struct jp_probe_result res = JP_PROBE_RESULT_INIT;
	struct jp_error err = JP_ERROR_INIT;
	struct jp_profile *profile = NULL;
	char *path = probe_bytes_get_str(in);
	unsigned flags = 0;
	int rc;

	probe_bytes_get(in, &flags, sizeof(flags));
	rc = probe_bytes_get_profile(&profile, in, &err);
	if (!in->bad && path && rc == 0)
		rc = probe_run(&res, profile, path, flags, &err);
	probe_result_wire(out, &rc, &err, &res);
	jp_probe_result_dispose(&res);
	jp_error_dispose(&err);
	jp_profile_free(profile);
	free(path);
}
JP_HELPER_REQUEST(probe_path, probe_path_serve, JP_HELPER_LOOK);

int jp_probe_path(struct jp_probe_result *out, const struct jp_profile *profile,
		  const char *path, const struct jp_probe_opts *opts, struct jp_error *err)
{
	struct probe_bytes in = {NULL, 0, 0, 0, false, false}, ans;
	struct jp_probe_result res = JP_PROBE_RESULT_INIT;
	struct jp_error child = JP_ERROR_INIT;
	unsigned flags = opts ? opts->flags : 0;
	int rc, child_rc = 0;

	if (!path || !*path)
		return jp_error_set(err, JP_EUSAGE, "%s", _("empty path"));
	probe_bytes_put_str(&in, path);
	probe_bytes_put(&in, &flags, sizeof(flags));
	probe_bytes_put_profile(&in, profile);
	rc = jp_helper_call(&ans, &jp_req_probe_path, &in, path,
			    opts ? opts->timeout_ms : 0,
			    err);
	free(in.p);
	if (rc < 0)
		return rc;
	if (!probe_result_wire(&ans, &child_rc, &child, &res)) {
		rc = jp_error_set(err, JP_EINTERNAL, "%s: %s", path, _("the look at it failed"));
	} else if ((rc = child_rc) < 0) {
		for (size_t i = 0; i < child.n; i++)
			jp_error_set(err, rc, "%s", child.msgs[i]);
	} else {
		jp_probe_result_dispose(out);
		*out = res;
		res = (struct jp_probe_result)JP_PROBE_RESULT_INIT;
	}
	free(ans.p);
	jp_probe_result_dispose(&res);
	jp_error_dispose(&child);
	return rc;
}
