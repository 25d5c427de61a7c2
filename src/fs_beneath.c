/* A path opened under a folder without leaving it and without following a
 * symlink on the way (fs_internal.h): openat2 with RESOLVE_BENEATH and
 * RESOLVE_NO_SYMLINKS where the kernel has it, else the same rule walked
 * one component at a time, each opened with O_NOFOLLOW. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* the kernel headers that number openat2 have its struct (Linux 5.6) */
#ifdef SYS_openat2
#include <linux/openat2.h>
#define HAVE_OPENAT2 1
#endif

#include "fs_internal.h"

int jp_fs_walk_beneath(int dirfd, const char *rel, int flags)
{
	int at = dirfd, fd = -1, e;
	const char *p = rel;

	if (!rel || rel[0] == '/') {
		errno = EXDEV;
		return -1;
	}
	for (;;) {
		size_t k = strcspn(p, "/");
		const char *next = p + k;
		char name[4096];

		while (*next == '/')
			next++;
		if (k >= sizeof(name)) {
			e = ENAMETOOLONG;
			break;
		}
		if (k == 2 && p[0] == '.' && p[1] == '.') {
			e = EXDEV; /* the callers' names never climb */
			break;
		}
		memcpy(name, p, k);
		name[k] = '\0';
		if (k == 0)
			strcpy(name, ".");
		if (!*next) {
			fd = openat(at, name, flags | O_NOFOLLOW | O_CLOEXEC, 0);
			e = errno;
		} else {
			fd = openat(at, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			e = errno;
		}
		if (fd < 0) {
			/* a symlink says ENOTDIR to O_DIRECTORY | O_NOFOLLOW */
			struct stat st;

			if (e == ENOTDIR && fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode))
				e = ELOOP;
			break;
		}
		if (!*next)
			break;
		if (at != dirfd)
			close(at);
		at = fd;
		fd = -1;
		p = next;
	}
	if (at != dirfd)
		close(at);
	errno = e;
	return fd;
}

int jp_fs_open_beneath(int dirfd, const char *rel, int flags)
{
#ifdef HAVE_OPENAT2
	struct open_how how;
	long fd;

	memset(&how, 0, sizeof(how));
	how.flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC);
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
	fd = syscall(SYS_openat2, dirfd, rel && rel[0] ? rel : ".", &how, sizeof(how));
	/* ENOTDIR: the walk says whether a symlink was in the way (ELOOP) */
	if (fd >= 0 || (errno != ENOSYS && errno != EPERM && errno != E2BIG && errno != ENOTDIR))
		return (int)fd;
#endif
	return jp_fs_walk_beneath(dirfd, rel && rel[0] ? rel : ".", flags);
}
