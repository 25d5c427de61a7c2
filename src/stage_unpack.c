/* Filling the unpack folder of an archive (stage_archive.c reads and vets
 * the members): folders made on demand and held open, so a member is
 * created with one look-up; small members handed with their bytes to the
 * writers of stage_pool.c, large ones written here as they are read; the
 * folders' modes and times set last, deepest first. A folder the archive
 * does not list is made as mkdir(1) would (the umask's mode). A name the
 * archive holds twice (`tar -r`, a file then a folder) is written once
 * what was queued before it is, replacing what is there: the last member
 * wins, as with GNU tar. Nothing here follows a symlink: every folder is
 * opened with O_NOFOLLOW, component by component, and a hard link's
 * target is looked up with jp_fs_open_beneath. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "fs_internal.h"
#include "stage_internal.h"
#include "treecopy_internal.h"

/* members up to this size go to the writers, their bytes in memory */
#define SMALL (4u << 20)
/* the bytes the writers may hold in all */
#define HELD (64u << 20)
#define TICK_NS 50000000L

struct held_dir {
	char *rel; /* NULL: an empty slot */
	int fd;    /* -1: removed (a member of its name replaced it) */
	bool fresh;
};

struct dir_attr {
	char *rel;
	mode_t perm;
	struct timespec times[2];
	unsigned depth;
	size_t order; /* in the archive: a folder listed twice, the last wins */
};

struct jp_unpack {
	int tmp_fd, dest_fd;
	bool tmp_fresh;
	mode_t umask;
	struct jp_stage_pool *pool;
	struct held_dir *dirs; /* open addressing, keyed by rel */
	size_t ndirs, dircap, maxdirs;
	struct dir_attr *attrs;
	size_t nattrs, attrcap;
	uint64_t *seen; /* the members' names so far, hashed (0: an empty slot) */
	size_t nseen, seencap;
	uint64_t written, bytes, skipped, bytes_skipped; /* by this thread */
	bool (*tick)(void *arg);
	void *tick_arg;
};

static size_t hash(const char *p, size_t n)
{
	size_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ULL;
	return h;
}

static struct held_dir *slot_of(struct jp_unpack *u, const char *rel, size_t n)
{
	size_t i = hash(rel, n) & (u->dircap - 1);

	while (u->dirs[i].rel &&
	       !(strlen(u->dirs[i].rel) == n && memcmp(u->dirs[i].rel, rel, n) == 0))
		i = (i + 1) & (u->dircap - 1);
	return &u->dirs[i];
}

static int grow(struct jp_unpack *u)
{
	struct held_dir *old = u->dirs;
	size_t oldcap = u->dircap;

	u->dircap = oldcap ? oldcap * 2 : 256;
	if (!(u->dirs = calloc(u->dircap, sizeof(*u->dirs)))) {
		u->dirs = old;
		u->dircap = oldcap;
		errno = ENOMEM;
		return -1;
	}
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].rel)
			*slot_of(u, old[i].rel, strlen(old[i].rel)) = old[i];
	free(old);
	return 0;
}

/* The folder rel[0..n) of the unpack folder, made (with its parents) if
 * missing; *own: the caller must close it (no room to hold it). -1 with
 * errno (ENOTDIR/ELOOP where a component is not a folder). */
static int dir_at(struct jp_unpack *u, const char *rel, size_t n, bool *fresh, bool *own)
{
	struct held_dir *s;
	const char *slash;
	char name[4096];
	bool pfresh, pown, made;
	int parent, fd, e;

	*own = false;
	if (n == 0) {
		*fresh = u->tmp_fresh;
		return u->tmp_fd;
	}
	s = slot_of(u, rel, n);
	if (s->rel && s->fd >= 0) {
		*fresh = s->fresh;
		return s->fd;
	}
	slash = memrchr(rel, '/', n);
	if ((parent = dir_at(u, rel, slash ? (size_t)(slash - rel) : 0, &pfresh, &pown)) < 0)
		return -1;
	snprintf(name, sizeof(name), "%.*s", (int)(n - (slash ? (size_t)(slash + 1 - rel) : 0)),
		 slash ? slash + 1 : rel);
	/* a person's mkdir (the umask's mode, a set-gid folder's group),
	 * with room to write in it */
	made = mkdirat(parent, name, 0777) == 0;
	if (made && (u->umask & S_IRWXU))
		(void)fchmodat(parent, name, (0777 & ~u->umask) | S_IRWXU, 0);
	if (!made && errno != EEXIST)
		fd = -1;
	else
		fd = openat(parent, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	e = errno;
	if (pown)
		close(parent);
	if (fd < 0) {
		errno = e;
		return -1;
	}
	*fresh = made;
	s = slot_of(u, rel, n);
	if (s->rel) {
		/* made again after a member of its name replaced it */
		s->fd = fd;
		s->fresh = made;
		return fd;
	}
	if (u->ndirs >= u->maxdirs) {
		*own = true;
		return fd;
	}
	if ((u->ndirs + 1) * 2 > u->dircap && grow(u) != 0) {
		close(fd);
		return -1;
	}
	s = slot_of(u, rel, n);
	if (!(s->rel = strndup(rel, n))) {
		close(fd);
		errno = ENOMEM;
		return -1;
	}
	s->fd = fd;
	s->fresh = made;
	u->ndirs++;
	return fd;
}

/* The folder rel is in (its name there in *base). */
static int parent_at(struct jp_unpack *u, const char *rel, const char **base, bool *fresh,
		     bool *own)
{
	const char *slash = strrchr(rel, '/');

	*base = slash ? slash + 1 : rel;
	return dir_at(u, rel, slash ? (size_t)(slash - rel) : 0, fresh, own);
}

int jp_unpack_start(struct jp_unpack **out, int tmp_fd, bool tmp_fresh, int dest_fd,
		    unsigned jobs, bool (*tick)(void *arg), void *tick_arg)
{
	struct jp_unpack *u = calloc(1, sizeof(*u));
	struct rlimit rl;
	int rc;

	*out = NULL;
	if (!u || grow(u) != 0) {
		free(u);
		return JP_ENOMEM;
	}
	u->tmp_fd = tmp_fd;
	u->tmp_fresh = tmp_fresh;
	u->dest_fd = dest_fd;
	u->umask = jp_tc_umask();
	u->tick = tick;
	u->tick_arg = tick_arg;
	/* folders held open: half the room for open files, less the writers' */
	u->maxdirs = 256;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur > 512)
		u->maxdirs = (size_t)(rl.rlim_cur / 2 - 128);
	if ((rc = jp_stage_pool_start(&u->pool, jobs, HELD)) != 0) {
		free(u->dirs);
		free(u);
		return rc;
	}
	*out = u;
	return 0;
}

/* Wait for the writers to have room for j (or to be idle, j NULL),
 * ticking; 0, 1 canceled, -1 a writer failed. */
static int wait_pool(struct jp_unpack *u, struct jp_stage_job *j)
{
	for (;;) {
		int r = j ? jp_stage_pool_put(u->pool, j, TICK_NS) : jp_stage_pool_drain(u->pool, TICK_NS);

		/* j queued is the writers' own, failed pool or not: the caller
		 * asks jp_stage_pool_failed itself (and never frees j) */
		if (r == 0)
			return !j && jp_stage_pool_failed(u->pool) ? -1 : 0;
		if (r < 0)
			return -1;
		if (u->tick && u->tick(u->tick_arg)) {
			jp_stage_pool_stop(u->pool);
			return 1;
		}
	}
}

/* Is rel among the members' names so far (by a 64-bit hash: a false
 * "seen" costs a wait, never a wrong tree)? It is added. 1 seen, 0 not,
 * -1 ENOMEM. */
static int seen_before(struct jp_unpack *u, const char *rel)
{
	uint64_t h = (uint64_t)hash(rel, strlen(rel)) | 1;
	size_t i;

	if ((u->nseen + 1) * 2 > u->seencap) {
		size_t cap = u->seencap ? u->seencap * 2 : 1024;
		uint64_t *v = calloc(cap, sizeof(*v));

		if (!v) {
			errno = ENOMEM;
			return -1;
		}
		for (size_t k = 0; k < u->seencap; k++) {
			if (!u->seen[k])
				continue;
			for (i = u->seen[k] & (cap - 1); v[i]; i = (i + 1) & (cap - 1))
				;
			v[i] = u->seen[k];
		}
		free(u->seen);
		u->seen = v;
		u->seencap = cap;
	}
	for (i = h & (u->seencap - 1); u->seen[i] && u->seen[i] != h; i = (i + 1) & (u->seencap - 1))
		;
	if (u->seen[i])
		return 1;
	u->seen[i] = h;
	u->nseen++;
	return 0;
}

/* The folder rel, removed: no longer held. */
static void forget_dir(struct jp_unpack *u, const char *rel)
{
	struct held_dir *s = slot_of(u, rel, strlen(rel));

	if (s->rel && s->fd >= 0) {
		close(s->fd);
		s->fd = -1;
	}
}

/* A member named rel: when an earlier one had its name, what was queued
 * is written first, then what is at rel in the unpack folder goes (a
 * folder only when empty, as GNU tar; kept for a folder member), so the
 * last member wins. 0, -1 errno. */
static int replace_earlier(struct jp_unpack *u, const char *rel, bool dir)
{
	const char *base;
	struct stat st;
	bool fresh, own;
	int at, rc, e;

	if ((rc = seen_before(u, rel)) <= 0)
		return rc;
	if ((rc = wait_pool(u, NULL)) != 0) {
		errno = rc == 1 ? ECANCELED : EIO;
		return -1;
	}
	if ((at = parent_at(u, rel, &base, &fresh, &own)) < 0)
		return -1;
	if (fstatat(at, base, &st, AT_SYMLINK_NOFOLLOW) != 0)
		rc = errno == ENOENT ? 0 : -1;
	else if (S_ISDIR(st.st_mode) && !dir && (rc = unlinkat(at, base, AT_REMOVEDIR)) == 0)
		forget_dir(u, rel);
	else if (!S_ISDIR(st.st_mode))
		rc = unlinkat(at, base, 0);
	e = errno;
	if (own)
		close(at);
	errno = e;
	return rc;
}

int jp_unpack_dir(struct jp_unpack *u, const char *rel, mode_t perm,
		  const struct timespec times[2])
{
	bool fresh, own;
	unsigned depth = 0;
	int fd;

	if (replace_earlier(u, rel, true) != 0 || (fd = dir_at(u, rel, strlen(rel), &fresh, &own)) < 0)
		return -1;
	if (own)
		close(fd);
	if (u->nattrs == u->attrcap) {
		size_t cap = u->attrcap ? u->attrcap * 2 : 256;
		struct dir_attr *v = realloc(u->attrs, cap * sizeof(*v));

		if (!v) {
			errno = ENOMEM;
			return -1;
		}
		u->attrs = v;
		u->attrcap = cap;
	}
	for (const char *p = rel; *p; p++)
		depth += *p == '/';
	if (!(u->attrs[u->nattrs].rel = strdup(rel))) {
		errno = ENOMEM;
		return -1;
	}
	u->attrs[u->nattrs].perm = perm;
	u->attrs[u->nattrs].times[0] = times[0];
	u->attrs[u->nattrs].times[1] = times[1];
	u->attrs[u->nattrs].depth = depth;
	u->attrs[u->nattrs].order = u->nattrs;
	u->nattrs++;
	return 0;
}

static bool complete_at(int at, const char *name, uint64_t size, const struct timespec *mtime)
{
	struct stat st;

	return at >= 0 && fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	       (uint64_t)st.st_size == size && st.st_mtim.tv_sec == mtime->tv_sec &&
	       (st.st_mtim.tv_nsec == mtime->tv_nsec || st.st_mtim.tv_nsec == 0);
}

static int put_block(int fd, const void *b, size_t n, int64_t off)
{
	size_t w = 0;

	while (w < n) {
		ssize_t k = pwrite(fd, (const char *)b + w, n - w, (off_t)(off + (int64_t)w));

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			errno = k < 0 ? errno : EIO;
			return -1;
		}
		w += (size_t)k;
	}
	return 0;
}

/* The rest of a large member (j->data: what was read of it so far) read
 * and written here, straight into the file. 0, -1 errno, -2 the archive
 * (*msg its error). */
static int write_large(struct jp_unpack *u, struct archive *r, struct jp_stage_job *j,
		       const char **msg)
{
	const void *b;
	size_t n;
	la_int64_t off;
	uint64_t end = j->len;
	int fd, rr, e;

	if (!j->fresh && unlinkat(j->at, j->name, 0) != 0 && errno != ENOENT)
		return -1;
	fd = openat(j->at, j->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, j->mode);
	if (fd < 0)
		return -1;
	if (j->len && put_block(fd, j->data, j->len, 0) != 0)
		goto bad;
	u->bytes += j->len;
	while ((rr = archive_read_data_block(r, &b, &n, &off)) != ARCHIVE_EOF) {
		if (rr < ARCHIVE_WARN) {
			*msg = archive_error_string(r);
			close(fd);
			unlinkat(j->at, j->name, 0);
			return -2;
		}
		if (n && put_block(fd, b, n, off) != 0)
			goto bad;
		u->bytes += n;
		if ((uint64_t)off + n > end)
			end = (uint64_t)off + n;
		if (u->tick && u->tick(u->tick_arg)) {
			errno = ECANCELED;
			goto bad;
		}
	}
	if (end < j->size)
		end = j->size;
	/* a sparse member: its holes stay holes */
	if (ftruncate(fd, (off_t)end) != 0 ||
	    ((j->mode & ~u->umask) != j->mode && fchmod(fd, j->mode) != 0) ||
	    futimens(fd, j->times) != 0)
		goto bad;
	if (close(fd) != 0) {
		e = errno;
		unlinkat(j->at, j->name, 0);
		errno = e;
		return -1;
	}
	u->written++;
	return 0;
bad:
	e = errno;
	close(fd);
	unlinkat(j->at, j->name, 0);
	errno = e;
	return -1;
}

/* Read the member's bytes into j (up to SMALL): 1 all read, 0 more to
 * come (a large member), -2 the archive. */
static int read_small(struct archive *r, struct jp_stage_job *j, size_t *cap, const char **msg)
{
	const void *b;
	size_t n;
	la_int64_t off;
	int rr;

	while ((rr = archive_read_data_block(r, &b, &n, &off)) != ARCHIVE_EOF) {
		size_t need;

		if (rr < ARCHIVE_WARN) {
			*msg = archive_error_string(r);
			return -2;
		}
		need = (size_t)off + n;
		if (need > *cap) {
			size_t c = *cap ? *cap : 65536;
			char *d;

			while (c < need)
				c *= 2;
			if (!(d = realloc(j->data, c))) {
				errno = ENOMEM;
				return -1;
			}
			j->data = d;
			*cap = c;
		}
		if ((size_t)off > j->len)
			memset(j->data + j->len, 0, (size_t)off - j->len); /* a hole */
		if (n) /* a zip member's last block may be empty, b NULL */
			memcpy(j->data + off, b, n);
		if (need > j->len)
			j->len = need;
		if (j->len > SMALL)
			return 0;
	}
	return 1;
}

int jp_unpack_file(struct jp_unpack *u, struct archive *r, const char *rel, int64_t size,
		   mode_t perm, const struct timespec times[2], const char **msg)
{
	struct jp_stage_job *j = calloc(1, sizeof(*j));
	size_t cap = 0;
	bool own = false;
	int rc;

	*msg = NULL;
	if (!j || !(j->rel = strdup(rel))) {
		jp_stage_job_free(j);
		errno = ENOMEM;
		return -1;
	}
	j->size = size >= 0 ? (uint64_t)size : 0;
	j->mode = perm;
	j->times[0] = times[0];
	j->times[1] = times[1];
	j->check_dest = size >= 0 ? u->dest_fd : -1;
	if (replace_earlier(u, rel, false) != 0 ||
	    (j->at = parent_at(u, j->rel, &j->name, &j->fresh, &own)) < 0) {
		rc = -1;
		goto out;
	}
	if (size >= 0 && (uint64_t)size > SMALL) {
		/* checked here, not by a writer: it is written here */
		if (complete_at(u->dest_fd, rel, j->size, &times[1]) ||
		    (!j->fresh && complete_at(j->at, j->name, j->size, &times[1]))) {
			u->skipped++;
			u->bytes_skipped += j->size;
			rc = archive_read_data_skip(r) < ARCHIVE_WARN ? (*msg = archive_error_string(r), -2) : 0;
			goto out;
		}
		rc = write_large(u, r, j, msg);
		goto out;
	}
	if ((rc = read_small(r, j, &cap, msg)) < 0)
		goto out;
	if (rc == 0) {
		/* bigger than it said (or than SMALL, its size unknown) */
		j->check_dest = -1;
		rc = write_large(u, r, j, msg);
		goto out;
	}
	if (j->len > j->size)
		j->size = j->len;
	if (own) {
		/* its folder is not held: written here, where the fd lives */
		rc = jp_stage_job_write(j, u->umask);
		if (rc == 0) {
			u->written++;
			u->bytes += j->len;
		}
		goto out;
	}
	rc = wait_pool(u, j);
	if (rc == 0) {
		/* the writers own j (and free it), also when one of them failed */
		if (!jp_stage_pool_failed(u->pool))
			return 0;
		errno = EIO; /* the writer's own error is reported at finish */
		return -1;
	}
	if (rc == 1) {
		errno = ECANCELED;
		rc = -1;
	} else if (rc < 0) {
		errno = EIO; /* the writer's own error is reported at finish */
	}
out:
	if (own)
		close(j->at);
	jp_stage_job_free(j);
	return rc;
}

/* The folder a hard link's target (a clean member name) is in, looked up
 * under root with no symlink followed (*base: its name there), or -1 with
 * errno (ELOOP: through a symlink). */
static int target_dir(int root, const char *hard, const char **base)
{
	const char *slash = strrchr(hard, '/');
	char dir[4096];

	*base = slash ? slash + 1 : hard;
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - hard) : 0, hard);
	return jp_fs_open_beneath(root, dir, O_PATH | O_DIRECTORY);
}

/* Where a hard link's target is: the unpack folder, or what dest holds
 * complete. Its folder's descriptor (the caller closes it), or -1 with
 * errno; -3 with errno ELOOP when the way to it in either goes through a
 * symlink: no link is made through one. */
static int link_from(struct jp_unpack *u, const char *hard, const char **base)
{
	struct stat st;
	int fd = target_dir(u->tmp_fd, hard, base);

	if (fd < 0 && errno == ELOOP)
		return -3;
	if (fd >= 0 && (u->dest_fd < 0 || fstatat(fd, *base, &st, AT_SYMLINK_NOFOLLOW) == 0))
		return fd;
	if (fd >= 0)
		close(fd);
	if (u->dest_fd < 0)
		return -1;
	if ((fd = target_dir(u->dest_fd, hard, base)) < 0 && errno == ELOOP)
		return -3;
	return fd;
}

int jp_unpack_link(struct jp_unpack *u, const char *rel, const char *target, const char *hard,
		   const struct timespec times[2])
{
	const char *base, *hbase;
	bool fresh, own = false;
	int at = -1, rc = -1, e, from = -1;

	if (replace_earlier(u, rel, false) != 0 || (at = parent_at(u, rel, &base, &fresh, &own)) < 0)
		return -1;
	/* a hard link's target must be written first */
	if (hard && (rc = wait_pool(u, NULL)) != 0) {
		errno = rc == 1 ? ECANCELED : EIO;
		rc = -1;
		goto out;
	}
	if (hard && (from = link_from(u, hard, &hbase)) < 0) {
		rc = from;
		goto out;
	}
	if (!fresh && unlinkat(at, base, 0) != 0 && errno != ENOENT) {
		rc = -1;
		goto out;
	}
	if (hard) {
		rc = linkat(from, hbase, at, base, 0);
	} else {
		rc = symlinkat(target, at, base);
		/* a link's own times; refused on some filesystems */
		if (rc == 0)
			(void)utimensat(at, base, times, AT_SYMLINK_NOFOLLOW);
	}
	if (rc == 0)
		u->written++;
out:
	e = errno;
	if (from >= 0)
		close(from);
	if (own)
		close(at);
	errno = e;
	return rc;
}

uint64_t jp_unpack_bytes(struct jp_unpack *u)
{
	return u->bytes + jp_stage_pool_bytes(u->pool);
}

bool jp_unpack_failed(struct jp_unpack *u)
{
	return jp_stage_pool_failed(u->pool);
}

/* The deepest first; of one depth, in the archive's order (a folder
 * listed twice gets the last listing's mode). */
static int by_depth_desc(const void *a, const void *b)
{
	const struct dir_attr *x = a, *y = b;

	if (x->depth != y->depth)
		return x->depth < y->depth ? 1 : -1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* A listed folder's mode and times, if it is still a folder (a member of
 * its name may have replaced it); the set-gid bit it was made with (a
 * set-gid parent's) kept, as GNU tar keeps it for a user. 0, -1 errno. */
static int dir_attrs(struct jp_unpack *u, const struct dir_attr *a)
{
	const char *base;
	struct stat st;
	int at = target_dir(u->tmp_fd, a->rel, &base), rc = 0, e;

	if (at < 0)
		return errno == ENOENT || errno == ENOTDIR || errno == ELOOP ? 0 : -1;
	if (fstatat(at, base, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) &&
	    (fchmodat(at, base, a->perm | (st.st_mode & S_ISGID), 0) != 0 ||
	     utimensat(at, base, a->times, AT_SYMLINK_NOFOLLOW) != 0))
		rc = -1;
	e = errno;
	close(at);
	errno = e;
	return rc;
}

int jp_unpack_finish(struct jp_unpack *u, bool ok, struct jp_stage_result *out, char *msg,
		     size_t msgsz)
{
	int rc = 0;

	if (!ok)
		jp_stage_pool_stop(u->pool);
	else if (wait_pool(u, NULL) == 1)
		rc = JP_ECANCELED;
	int prc = jp_stage_pool_finish(u->pool, out, msg, msgsz);

	if (prc != 0 && !rc)
		rc = prc;
	if (out) {
		out->written += u->written;
		out->bytes_written += u->bytes;
		out->skipped += u->skipped;
		out->bytes_skipped += u->bytes_skipped;
	}
	/* folders: their modes and times last (writing in them changed
	 * their mtime), the deepest first */
	if (ok && rc == 0 && u->nattrs > 1)
		qsort(u->attrs, u->nattrs, sizeof(*u->attrs), by_depth_desc);
	for (size_t i = 0; ok && rc == 0 && i < u->nattrs; i++)
		if (dir_attrs(u, &u->attrs[i]) != 0) {
			snprintf(msg, msgsz, "%s: %s", u->attrs[i].rel, strerror(errno));
			rc = JP_EIO;
		}
	for (size_t i = 0; i < u->nattrs; i++)
		free(u->attrs[i].rel);
	free(u->attrs);
	for (size_t i = 0; i < u->dircap; i++)
		if (u->dirs[i].rel) {
			free(u->dirs[i].rel);
			if (u->dirs[i].fd >= 0)
				close(u->dirs[i].fd);
		}
	free(u->dirs);
	free(u->seen);
	free(u);
	return rc;
}
