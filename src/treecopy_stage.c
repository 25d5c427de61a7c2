/* Staging one entry of a tree onto shared storage: skip it when the copy
 * there is already complete, else write it under a temporary name beside
 * its final one, flush it and rename it over, so that whatever stops the
 * work (a signal, kill -9, a full disk) no file is ever half-made under its
 * final name, and the next run picks up where this one stopped. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <xxhash.h>

#include "mountinfo.h"
#include "treecopy.h"
#include "treecopy_internal.h"

/* XXH3-64 of the file at/name, read through buf; 0 or -1 with errno. */
static int digest(int at, const char *name, char *buf, size_t bufsz, atomic_bool *stop,
		  XXH64_hash_t *out)
{
	XXH3_state_t *st = XXH3_createState();
	int fd, e = 0;

	*out = 0;
	if (!st) {
		errno = ENOMEM;
		return -1;
	}
	fd = openat(at, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		e = errno ? errno : EIO;
		goto out;
	}
	XXH3_64bits_reset(st);
	for (;;) {
		ssize_t r = read(fd, buf, bufsz);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			e = errno;
			break;
		}
		if (r == 0)
			break;
		XXH3_64bits_update(st, buf, (size_t)r);
		if (stop && atomic_load(stop)) {
			e = ECANCELED;
			break;
		}
	}
	close(fd);
	*out = XXH3_64bits_digest(st);
out:
	XXH3_freeState(st);
	errno = e;
	return e ? -1 : 0;
}

bool jp_tc_same_time(const struct timespec *a, const struct timespec *b)
{
	/* Storage that keeps whole seconds only (some network filesystems)
	 * gives back nanoseconds 0. */
	return a->tv_sec == b->tv_sec && (a->tv_nsec == b->tv_nsec || b->tv_nsec == 0);
}

/* Is the regular file at dst_at/dst_name (dst: its lstat) already a
 * complete copy? -1 with errno on a read error. */
static int file_complete(int src_at, const char *src_name, const struct stat *sst, int dst_at,
			 const char *dst_name, const struct stat *dst, bool verify, char *buf,
			 size_t bufsz, atomic_bool *stop)
{
	XXH64_hash_t a = 0, b = 0;

	if (!S_ISREG(dst->st_mode) || dst->st_size != sst->st_size)
		return 0;
	if (!verify)
		return jp_tc_same_time(&sst->st_mtim, &dst->st_mtim) &&
		       (dst->st_mode & 07777) == (sst->st_mode & 07777);
	if (digest(src_at, src_name, buf, bufsz, stop, &a) != 0 ||
	    digest(dst_at, dst_name, buf, bufsz, stop, &b) != 0)
		return -1;
	if (a != b)
		return 0;
	/* The same bytes: give it the source's mode and times if it lacks them. */
	if (!jp_tc_same_time(&sst->st_mtim, &dst->st_mtim)) {
		struct timespec times[2] = { sst->st_atim, sst->st_mtim };

		if (utimensat(dst_at, dst_name, times, AT_SYMLINK_NOFOLLOW) != 0)
			return -1;
	}
	if ((dst->st_mode & 07777) != (sst->st_mode & 07777) &&
	    fchmodat(dst_at, dst_name, sst->st_mode & 07777, 0) != 0)
		return -1;
	return 1;
}

/* The temporary's path for dst_name (a name, or a path below the folder it
 * is relative to): the same folder, the prefix and the name, or the prefix
 * and a digest of the name when that would pass NAME_MAX. */
static int tmp_path(char *out, size_t n, const char *dst_name)
{
	const char *slash = strrchr(dst_name, '/');
	const char *base = slash ? slash + 1 : dst_name;
	int dir = slash ? (int)(slash - dst_name) + 1 : 0;
	size_t len = strlen(base);
	int w;

	if (len + sizeof(JP_TREECOPY_TMP_PREFIX) <= NAME_MAX)
		w = snprintf(out, n, "%.*s%s%s", dir, dst_name, JP_TREECOPY_TMP_PREFIX, base);
	else
		w = snprintf(out, n, "%.*s%s%016llx", dir, dst_name, JP_TREECOPY_TMP_PREFIX,
			     (unsigned long long)XXH3_64bits(base, len));
	if (w < 0 || (size_t)w >= n) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

static int stage_link(int src_at, const char *src_name, const struct stat *sst, int dst_at,
		      const char *dst_name, const char *tmp, unsigned flags, char *buf,
		      size_t bufsz, enum jp_tc_staged *what)
{
	char *have = buf + bufsz / 2;
	ssize_t n = readlinkat(src_at, src_name, buf, bufsz / 2 - 1), m;
	struct timespec times[2] = { sst->st_atim, sst->st_mtim };

	if (n < 0)
		return -1;
	buf[n] = '\0';
	*what = JP_TC_WRITTEN;
	if ((flags & JP_TC_INPLACE) && (flags & JP_TC_FRESH)) {
		if (symlinkat(buf, dst_at, dst_name) != 0)
			return -1;
		(void)utimensat(dst_at, dst_name, times, AT_SYMLINK_NOFOLLOW);
		return 0;
	}
	m = readlinkat(dst_at, dst_name, have, bufsz / 2 - 1);
	if (m == n && memcmp(buf, have, (size_t)n) == 0) {
		*what = JP_TC_SKIPPED;
		return 0;
	}
	if ((unlinkat(dst_at, tmp, 0) != 0 && errno != ENOENT) || symlinkat(buf, dst_at, tmp) != 0)
		return -1;
	/* A link's own times (not its target's); refused on some filesystems. */
	(void)utimensat(dst_at, tmp, times, AT_SYMLINK_NOFOLLOW);
	if (renameat(dst_at, tmp, dst_at, dst_name) != 0) {
		int e = errno;

		unlinkat(dst_at, tmp, 0);
		errno = e;
		return -1;
	}
	return 0;
}

static bool not_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec >= b->tv_nsec);
}

static bool same_range(int a, int b, off_t at, char *buf, size_t n)
{
	ssize_t x = pread(a, buf, n, at), y = x == (ssize_t)n ? pread(b, buf + n, n, at) : -1;

	return x == (ssize_t)n && y == (ssize_t)n && memcmp(buf, buf + n, n) == 0;
}

/* Where to go on from in a partial copy (pst: its lstat, open at out): all
 * of it but its last chunk (which may be torn), if it was written after
 * the source last changed and the chunk before the cut (or what there is)
 * matches the source's; else 0. So at most one chunk is written twice. */
static off_t resume_point(int in, int out, const struct stat *sst, const struct stat *pst,
			  char *buf, size_t bufsz)
{
	off_t chunk = (off_t)(bufsz / 2);
	off_t keep = pst->st_size - chunk, from = keep > chunk ? keep - chunk : 0;

	if (keep <= 0 || pst->st_size > sst->st_size || !not_before(&pst->st_mtim, &sst->st_mtim))
		return 0;
	return same_range(in, out, from, buf, (size_t)(keep - from)) ? keep : 0;
}

/* Write the source (open at in) into part at dst_at: a new file, or (pst
 * set) the partial one there, continued. */
static int write_part(int in, const struct stat *sst, int dst_at, const char *part,
		      const struct stat *pst, unsigned flags, mode_t umask_bits, char *buf,
		      size_t bufsz, atomic_uint_fast64_t *bytes, atomic_bool *stop)
{
	mode_t mode = sst->st_mode & 07777;
	struct timespec times[2] = { sst->st_atim, sst->st_mtim };
	off_t keep = 0;
	bool chmod;
	int out, e;

	if (pst && S_ISREG(pst->st_mode)) {
		out = openat(dst_at, part, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
		if (out < 0)
			return -1;
		keep = resume_point(in, out, sst, pst, buf, bufsz);
		if (ftruncate(out, keep) != 0 || lseek(out, keep, SEEK_SET) < 0 ||
		    lseek(in, keep, SEEK_SET) < 0)
			goto bad;
		chmod = (pst->st_mode & 07777) != mode;
	} else {
		if (pst && unlinkat(dst_at, part, 0) != 0 && errno != ENOENT)
			return -1;
		out = openat(dst_at, part, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (out < 0)
			return -1;
		/* open(2) applied the umask; bits it took away come back */
		chmod = (mode & ~umask_bits) != mode;
	}
	if ((e = jp_tc_pump(in, out, buf, bufsz, bytes, stop)) != 0) {
		errno = e;
		goto bad;
	}
	if ((chmod && fchmod(out, mode) != 0) || futimens(out, times) != 0 ||
	    (!(flags & JP_TC_NOSYNC) && fsync(out) != 0))
		goto bad;
	/* Network filesystems report write errors (quota, space) at close. */
	return close(out);
bad:
	e = errno;
	close(out);
	errno = e;
	return -1;
}

bool jp_tc_on_network(int fd)
{
	struct statfs sfs;
	bool known;

	if (fstatfs(fd, &sfs) != 0)
		return false;
	/* FUSE (sshfs, and the like) is unknown to statfs: taken as remote */
	return (uint32_t)sfs.f_type == 0x65735546u ||
	       jp_fs_kind_of_magic((int64_t)sfs.f_type, &known, NULL) == JP_FS_NETWORK;
}

/* lstat of at/name; with quick (FUSE), the attributes the look-up itself
 * brought back, not a second round trip to ask for them again. */
static int lstat_at(int at, const char *name, struct stat *st, bool quick)
{
	struct statx x;

	if (!quick)
		return fstatat(at, name, st, AT_SYMLINK_NOFOLLOW);
	if (statx(at, name, AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC, STATX_BASIC_STATS, &x) != 0)
		return -1;
	memset(st, 0, sizeof(*st));
	st->st_mode = x.stx_mode;
	st->st_size = (off_t)x.stx_size;
	st->st_ino = x.stx_ino;
	st->st_nlink = x.stx_nlink;
	st->st_uid = x.stx_uid;
	st->st_gid = x.stx_gid;
	st->st_blocks = (blkcnt_t)x.stx_blocks;
	st->st_atim.tv_sec = x.stx_atime.tv_sec;
	st->st_atim.tv_nsec = x.stx_atime.tv_nsec;
	st->st_mtim.tv_sec = x.stx_mtime.tv_sec;
	st->st_mtim.tv_nsec = x.stx_mtime.tv_nsec;
	st->st_ctim.tv_sec = x.stx_ctime.tv_sec;
	st->st_ctim.tv_nsec = x.stx_ctime.tv_nsec;
	return 0;
}

bool jp_tc_on_fuse(int fd)
{
	struct statfs sfs;

	return fstatfs(fd, &sfs) == 0 && (uint32_t)sfs.f_type == 0x65735546u;
}

/* What a previous run left of dst_name: *dst its lstat (have_dst), *pst
 * that of the partial copy to go on from (have_part). 1: complete already;
 * 0; -1 with errno. */
static int look(int src_at, const char *src_name, const struct stat *sst, int dst_at,
		const char *dst_name, const char *tmp, bool verify, unsigned flags, char *buf,
		size_t bufsz, atomic_bool *stop, struct stat *pst, bool *have_part)
{
	struct stat dst;
	int done;

	*have_part = false;
	if (lstat_at(dst_at, dst_name, &dst, flags & JP_TC_QUICKSTAT) == 0) {
		done = file_complete(src_at, src_name, sst, dst_at, dst_name, &dst, verify, buf,
				     bufsz, stop);
		if (done != 0)
			return done;
		if (flags & JP_TC_INPLACE) {
			*pst = dst;
			*have_part = true;
			return 0;
		}
	} else if (errno != ENOENT) {
		return -1;
	}
	if (flags & JP_TC_INPLACE)
		return 0;
	if (lstat_at(dst_at, tmp, pst, flags & JP_TC_QUICKSTAT) == 0)
		*have_part = true;
	else if (errno != ENOENT)
		return -1;
	return 0;
}

int jp_tc_stage_entry(int src_at, const char *src_name, const struct stat *sst, int dst_at,
		      const char *dst_name, bool verify, unsigned flags, mode_t umask_bits,
		      char *buf, size_t bufsz, atomic_uint_fast64_t *bytes, atomic_bool *stop,
		      enum jp_tc_staged *what)
{
	char tmp[PATH_MAX];
	const char *part = (flags & JP_TC_INPLACE) ? dst_name : tmp;
	struct stat pst;
	bool have_part = false;
	int e, in;

	if (tmp_path(tmp, sizeof(tmp), dst_name) != 0)
		return -1;
	if (S_ISLNK(sst->st_mode))
		return stage_link(src_at, src_name, sst, dst_at, dst_name, tmp, flags, buf, bufsz,
				  what);
	if (!(flags & JP_TC_FRESH)) {
		int done = look(src_at, src_name, sst, dst_at, dst_name, tmp, verify, flags, buf,
				bufsz, stop, &pst, &have_part);

		if (done < 0)
			return -1;
		if (done) {
			*what = JP_TC_SKIPPED;
			return 0;
		}
	}
	in = openat(src_at, src_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (in < 0)
		return -1;
	if (write_part(in, sst, dst_at, part, have_part ? &pst : NULL, flags, umask_bits, buf,
		       bufsz, bytes, stop) != 0 ||
	    (!(flags & JP_TC_INPLACE) && renameat(dst_at, tmp, dst_at, dst_name) != 0)) {
		e = errno;
		close(in);
		/* never half a file under its final name, nor a temporary */
		unlinkat(dst_at, part, 0);
		errno = e;
		return -1;
	}
	close(in);
	*what = JP_TC_WRITTEN;
	return 0;
}

bool jp_tc_link_leaves(const char *rel, const char *target)
{
	long depth = 0;
	const char *p;

	if (target[0] == '/' || target[0] == '\0')
		return true;
	/* the folder the link is in: one level per '/' in rel */
	for (p = rel; *p; p++)
		depth += *p == '/';
	for (p = target; *p;) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (--depth < 0)
				return true;
		} else if (n > 0 && !(n == 1 && p[0] == '.')) {
			depth++;
		}
		p += n;
		while (*p == '/')
			p++;
	}
	return false;
}
