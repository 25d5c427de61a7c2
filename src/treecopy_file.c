/* One regular file's bytes: the read/write loop every copy of treecopy*.c
 * and stage*.c goes through, a copy under a new name with its mode kept,
 * and the process umask that mode is measured against. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "treecopy_internal.h"

/* The process umask, read without changing it (umask(2) would race with
 * other threads creating files). */
mode_t jp_tc_umask(void)
{
	char buf[4096];
	mode_t m = 022;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return m;
	while (fgets(buf, sizeof(buf), f))
		if (strncmp(buf, "Umask:", 6) == 0) {
			m = (mode_t)strtoul(buf + 6, NULL, 8);
			break;
		}
	fclose(f);
	return m;
}

int jp_tc_pump(int in, int out, char *buf, size_t bufsz, atomic_uint_fast64_t *bytes,
	       atomic_bool *stop)
{
	for (;;) {
		ssize_t r = read(in, buf, bufsz), w = 0;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno;
		if (r == 0)
			return 0;
		while (w < r) {
			ssize_t k = write(out, buf + w, (size_t)(r - w));

			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				return k < 0 ? errno : EIO;
			w += k;
		}
		if (bytes)
			atomic_fetch_add(bytes, (uint_fast64_t)r);
		if (stop && atomic_load(stop))
			return ECANCELED;
	}
}

int jp_tc_copy_file(int src_at, const char *src_name, int dst_at, const char *dst_name,
		    mode_t mode, mode_t umask_bits, char *buf, size_t bufsz,
		    atomic_uint_fast64_t *bytes, atomic_bool *stop, struct stat *st_out)
{
	int in, out, e = 0;

	in = openat(src_at, src_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (in < 0)
		return -1;
	out = openat(dst_at, dst_name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (out < 0) {
		e = errno;
		close(in);
		errno = e;
		return -1;
	}
	if ((e = jp_tc_pump(in, out, buf, bufsz, bytes, stop)) != 0)
		goto bad;
	/* open(2) applied the umask; bits it took away come back here. */
	if ((mode & ~umask_bits) != mode && fchmod(out, mode) != 0) {
		e = errno;
		goto bad;
	}
	if (st_out && fstat(out, st_out) != 0) {
		e = errno;
		goto bad;
	}
	close(in);
	/* Network filesystems report write errors (quota, space) at close. */
	if (close(out) != 0)
		return -1;
	return 0;
bad:
	close(in);
	close(out);
	errno = e;
	return -1;
}
