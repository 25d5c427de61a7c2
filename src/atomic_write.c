/* Writing a file atomically: readers see the old file or the new one, never
 * a mix, and a crash at any point leaves the old file intact. */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jobprep/i18n.h"
#include "jobprep/manifest.h"
#include "manifest_internal.h"
#include "jobprep/probe.h"
#include "probe_internal.h"
#include "helper_internal.h"

void (*jp_file_write_atomic_hook)(const char *tmp_path) = NULL;

static int errno_code(int e)
{
	return (e == ENOSPC || e == EDQUOT) ? JP_ENOSPC : JP_EIO;
}

static unsigned tmp_suffix(void)
{
	static unsigned counter;
	unsigned r;
	struct timespec ts;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) == (ssize_t)sizeof(r))
		return r;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned)getpid() * 2654435761u ^ (unsigned)ts.tv_nsec ^ ++counter;
}

static int write_all(int fd, const char *data, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, data, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

static int write_now(const char *path, const char *data, size_t len, unsigned mode,
		     struct jp_error *err);

/* The write in a watched helper process (helper.c): it tells where it
 * is (PHASE_*), so a rename or a flush that hangs has a deadline of its own
 * and the message says what became of the file; the answer is the status
 * and the message. */
enum { PHASE_WRITING, PHASE_RENAMING = 'W', PHASE_RENAMED = 'R' };

struct write_call {
	const char *path;
	int phase; /* the last phase the helper told */
};

/* inputs: path, mode, the data; answer: the status and its message */
static void write_serve(struct probe_bytes *in, struct probe_bytes *out)
{
	struct jp_error e = JP_ERROR_INIT;
	char *path = probe_bytes_get_str(in);
	unsigned mode = 0;
	uint64_t len = 0;
	int rc = JP_EINTERNAL;

	probe_bytes_get(in, &mode, sizeof(mode));
	probe_bytes_get(in, &len, sizeof(len));
	if (!in->bad && path && len == in->n - in->off)
		rc = write_now(path, in->p + in->off, (size_t)len, mode, &e);
	probe_bytes_put(out, &rc, sizeof(rc));
	probe_bytes_put_error(out, rc ? &e : NULL);
	jp_error_dispose(&e);
	free(path);
}
JP_HELPER_REQUEST(atomic_write, write_serve, JP_HELPER_WATCHED);

static int write_report(const void *msg, size_t n, void *payload)
{
	struct write_call *c = payload;

	if (n == 1)
		c->phase = *(const char *)msg;
	return 1; /* each phase begun is a sign of life: it has a deadline of its own */
}

unsigned jp_file_write_timeout_ms(void)
{
	/* a flush on a slow but living network mount takes its time */
	return 4 * jp_probe_default_timeout_ms();
}

/* A write that did not answer: what became of the file, by the phase. */
static int write_timed_out(void *payload, unsigned ms, struct jp_error *err)
{
	const struct write_call *c = payload;

	if (c->phase == PHASE_RENAMING)
		return jp_error_set(err, JP_ETIMEOUT,
				    _("%s: no answer within %u.%u s while putting the new file in "
				      "place (is a network mount hung?): once the mount answers, it "
				      "holds the old file or the new one, whole"),
				    c->path, ms / 1000, (ms % 1000) / 100);
	if (c->phase == PHASE_RENAMED)
		return jp_error_set(err, JP_ETIMEOUT,
				    _("%s: written and put in place, but its folder did not answer a "
				      "flush within %u.%u s (is a network mount hung?)"),
				    c->path, ms / 1000, (ms % 1000) / 100);
	/* the rename was never asked for: the old file stays */
	return jp_helper_no_answer(err, c->path, ms);
}

int jp_file_write_atomic(const char *path, const char *data, size_t len, unsigned mode,
			 struct jp_error *err)
{
	struct probe_bytes in = {NULL, 0, 0, 0, false, false}, ans = {NULL, 0, 0, 0, false, false};
	struct write_call c;
	struct jp_watch w;
	uint64_t len64 = len;
	bool cancel_sent;
	int rc, child_rc = 0;

	/* The test hook watches the write in this process. */
	if (jp_file_write_atomic_hook)
		return write_now(path, data, len, mode, err);
	c.path = path;
	c.phase = PHASE_WRITING;
	memset(&w, 0, sizeof(w));
	w.report = write_report;
	w.stalled = write_timed_out;
	w.payload = &c;
	/* each phase (write and flush, rename, the folder's flush) within it */
	w.stall_ms = jp_file_write_timeout_ms();
	w.grace_ms = w.stall_ms;
	w.path = path;
	w.keep = true; /* nothing of it runs on once it has answered */
	probe_bytes_put_str(&in, path);
	probe_bytes_put(&in, &mode, sizeof(mode));
	probe_bytes_put(&in, &len64, sizeof(len64));
	probe_bytes_put(&in, data, len);
	rc = in.bad ? jp_error_oom(err)
		    : jp_helper_watch(&ans, &jp_req_atomic_write, &in, &w, &cancel_sent, err);
	free(in.p);
	if (rc == 0) {
		probe_bytes_get(&ans, &child_rc, sizeof(child_rc));
		probe_bytes_get_error(&ans, child_rc < 0 ? err : NULL, child_rc);
		if (ans.bad)
			rc = jp_error_set(err, JP_EINTERNAL, "%s",
					  _("the work's process ended without an answer"));
		else if (child_rc < 0)
			rc = child_rc;
	}
	free(ans.p);
	return rc;
}

static int write_now(const char *path, const char *data, size_t len, unsigned mode,
		     struct jp_error *err)
{
	char *dir = NULL;
	const char *base, *slash;
	char tmp[256 + 32], tmp_path[4096 + 300];
	struct stat st;
	int dfd = -1, fd = -1, rc = 0;
	bool created = false;

	slash = path ? strrchr(path, '/') : NULL;
	base = slash ? slash + 1 : path;
	if (!path || !*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
		return jp_error_set(err, JP_EUSAGE, _("%s: expected the path of a file"),
				    path ? path : "");
	if (!slash)
		dir = strdup(".");
	else if (slash == path)
		dir = strdup("/");
	else
		dir = strndup(path, (size_t)(slash - path));
	if (!dir)
		return jp_error_oom(err);

	/* Work relative to the directory, so a renamed parent cannot split
	 * the temporary from its target. */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		rc = jp_error_set(err, errno_code(errno), _("%s: cannot open its directory: %s"),
				  path, strerror(errno));
		goto out;
	}
	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISLNK(st.st_mode)) {
			rc = jp_error_set(err, JP_EREFUSED,
					  _("%s: is a symbolic link; refusing to write through it "
					    "(give the path of the file itself)"),
					  path);
			goto out;
		}
		if (!S_ISREG(st.st_mode)) {
			rc = jp_error_set(err, JP_EREFUSED,
					  _("%s: exists and is not a regular file; refusing to "
					    "replace it"),
					  path);
			goto out;
		}
	} else if (errno != ENOENT) {
		rc = jp_error_set(err, errno_code(errno), _("%s: cannot look at it: %s"), path,
				  strerror(errno));
		goto out;
	}

	for (int tries = 0; tries < 100 && fd < 0; tries++) {
		snprintf(tmp, sizeof(tmp), ".%.200s.%08x.tmp", base, tmp_suffix());
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    (mode_t)(mode & 0777));
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		rc = jp_error_set(err, errno_code(errno),
				  _("%s: cannot create a temporary file beside it: %s"), path,
				  strerror(errno));
		goto out;
	}
	created = true;
	snprintf(tmp_path, sizeof(tmp_path), "%s/%s", dir, tmp);

	/* The umask must not decide the mode: set it explicitly. */
	if (fchmod(fd, (mode_t)(mode & 0777)) < 0 || write_all(fd, data, len) < 0 ||
	    fsync(fd) < 0) {
		rc = jp_error_set(err, errno_code(errno), _("%s: cannot write it: %s"), path,
				  strerror(errno));
		goto out;
	}
	if (close(fd) < 0) {
		fd = -1;
		rc = jp_error_set(err, errno_code(errno), _("%s: cannot write it: %s"), path,
				  strerror(errno));
		goto out;
	}
	fd = -1;

	if (jp_file_write_atomic_hook)
		jp_file_write_atomic_hook(tmp_path);

	/* rename() replaces a symlink that appeared since fstatat, never its
	 * target: nothing is ever written through a link. The parent is told
	 * before and after (no-ops in this process): the rename and the
	 * folder's flush each have a deadline of their own. */
	jp_watch_send("W", 1);
	if (renameat(dfd, tmp, dfd, base) < 0) {
		rc = jp_error_set(err, errno_code(errno), _("%s: cannot put it in place: %s"), path,
				  strerror(errno));
		goto out;
	}
	created = false;
	jp_watch_send("R", 1);
	/* Make the rename itself durable. Some filesystems cannot sync a
	 * directory (EINVAL); the rename is then as durable as they allow. */
	if (fsync(dfd) < 0 && errno != EINVAL && errno != ENOTSUP)
		rc = jp_error_set(err, JP_EIO,
				  _("%s: written, but its directory could not be synced: %s"), path,
				  strerror(errno));
out:
	if (fd >= 0)
		close(fd);
	if (created)
		unlinkat(dfd, tmp, 0);
	if (dfd >= 0)
		close(dfd);
	free(dir);
	return rc;
}
