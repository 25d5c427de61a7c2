/* Writing a file atomically: readers see the old file or the new one, never
 * a mix, and a crash at any point leaves the old file intact. */
#include "config.h"

#include <errno.h>
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

int jp_file_write_atomic(const char *path, const char *data, size_t len, unsigned mode,
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
	 * target: nothing is ever written through a link. */
	if (renameat(dfd, tmp, dfd, base) < 0) {
		rc = jp_error_set(err, errno_code(errno), _("%s: cannot put it in place: %s"), path,
				  strerror(errno));
		goto out;
	}
	created = false;
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
