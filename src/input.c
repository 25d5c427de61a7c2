/* Opening and reading a file a person named, on this thread; see
 * jobprep/input.h. The bounded jp_input_read is probe_file.c's. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobprep/i18n.h"
#include "jobprep/input.h"
#include "input_internal.h"

int jp_input_open(int *fd, struct stat *st, const char *path, struct jp_error *err)
{
	int f, flags;

	*fd = -1;
	/* O_NONBLOCK: opening a FIFO with no writer would wait forever. */
	f = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (f < 0) {
		int e = errno, rc = jp_error_set(err, JP_EFORMAT, _("%s: cannot read it: %s"),
						 path, strerror(e));

		errno = e; /* the draft tells "none yet" (ENOENT) from a failure */
		return rc;
	}
	if (fstat(f, st) < 0) {
		int rc = jp_error_set(err, JP_EFORMAT, _("%s: cannot read it: %s"), path,
				      strerror(errno));
		close(f);
		return rc;
	}
	if (!S_ISREG(st->st_mode)) {
		close(f);
		return jp_error_set(err, JP_EFORMAT, _("%s: not a regular file"), path);
	}
	flags = fcntl(f, F_GETFL);
	if (flags < 0 || fcntl(f, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		int rc = jp_error_set(err, JP_EFORMAT, _("%s: cannot read it: %s"), path,
				      strerror(errno));
		close(f);
		return rc;
	}
	*fd = f;
	return 0;
}

int jp_input_read_now(char **text, size_t *len, const char *path, size_t max,
		      struct jp_error *err)
{
	struct stat st;
	size_t cap, n = 0;
	char *buf = NULL;
	int fd, rc;

	*text = NULL;
	*len = 0;
	if ((rc = jp_input_open(&fd, &st, path, err)) != 0)
		return rc;
	if ((uint64_t)st.st_size > (uint64_t)max) {
		rc = jp_error_set(err, JP_EFORMAT, _("%s: expected at most %zu bytes, got %lld"),
				  path, max, (long long)st.st_size);
		goto out;
	}
	/* Read to the end, not just st_size: the file may be growing. */
	cap = (size_t)st.st_size + 1;
	if (!(buf = malloc(cap + 1))) {
		rc = jp_error_oom(err);
		goto out;
	}
	for (;;) {
		ssize_t r = read(fd, buf + n, cap - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = jp_error_set(err, JP_EFORMAT, _("%s: cannot read it: %s"), path,
					  strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n == cap) {
			rc = jp_error_set(err, JP_EFORMAT,
					  _("%s: cannot read it: it changed while being read"), path);
			goto out;
		}
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	buf = NULL;
out:
	free(buf);
	close(fd);
	return rc;
}
