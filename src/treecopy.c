/* Parallel tree copy (and removal) for network filesystems: walk the source
 * on local disk, create directories level by level, then hand files and
 * symlinks to a pool of writers, biggest files first. A staging run goes
 * through the tree in batches of BATCH entries (a first walk only counts
 * them, for the room and the progress), so its memory does not grow with
 * the tree; a run that must see every file at once (a shard's cut, a
 * clone's record of what it wrote) takes the tree as one batch. A folder
 * gets its own mode (with stage, its times too) back once everything in
 * it is done. The calling thread only reports progress and watches for a
 * cancel. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "jobprep/i18n.h"
#include "jobprep/meter.h"
#include "jobprep/stage.h"
#include "jobprep/units.h"
#include "treecopy.h"
#include "treecopy_internal.h"
#include "deadline_internal.h"
#include "meter_internal.h"

#define DEFAULT_THREADS JP_STAGE_JOBS_DEFAULT
#define MAX_THREADS JP_STAGE_JOBS_MAX
#define BUF_SIZE (1 << 20)
#define TICK_NS 50000000L
#define PROGRESS_NS 100000000ULL
/* Entries a staging run holds at once: about 1 MiB of names and stats. */
#define BATCH 8192
/* Entries walked between two looks for a cancel. */
#define CANCEL_EVERY 64

enum kind { K_DIR, K_FILE, K_LINK };

/* A folder of the destination while anything in it is still to do. */
struct dnode {
	struct dnode *up;          /* NULL: the top */
	struct dnode *prev, *next; /* the live list (ctx.live), under ctx.lock */
	char *rel;                 /* "" for the top */
	const char *base;          /* last component, inside rel */
	mode_t mode;
	struct timespec atime, mtime;
	int dfd;    /* held open (O_PATH) so that what goes in is one lookup; -1 */
	bool fresh;   /* this run made it: empty but for what it puts */
	bool existed; /* there already, with mode was */
	bool widened; /* and read-only: made writable for this run */
	mode_t was;   /* put back if the run fails */
	/* There already with the source's mode and modification time: left
	 * as it is at the end unless this run puts something in it. */
	bool as_is;
	atomic_bool changed; /* this run made or replaced something in it */
	/* What still holds it: the walk while inside, its mkdir to come, and
	 * each entry in it not done yet (a subfolder until it is finished).
	 * The last to let go finishes it. */
	atomic_uint refs;
};

struct item {
	char *rel;
	const char *base;   /* last component, inside rel */
	struct dnode *up;   /* the folder it goes into (NULL: a removal's) */
	struct dnode *self; /* K_DIR: its own (NULL: a removal's) */
	mode_t mode;
	off_t size;
	struct timespec atime, mtime;
	unsigned depth;
	enum kind kind;
	bool other; /* another shard's file */
};

struct progress_state {
	const struct jp_port *port;
	uint64_t t_last;
	uint64_t done_before, total;
	uint64_t bytes_total; /* of the files to copy (this shard's) */
	struct jp_meter meter;
	bool canceled;
};

struct ctx {
	int src_fd, dst_fd;
	/* the batch */
	struct item *v;
	size_t n, cap;
	unsigned min_depth, max_depth; /* of its folders */
	/* the walk: counting only (a staging run's first), or the batches'
	 * size (SIZE_MAX: the whole tree at once) */
	bool counting;
	size_t batch;
	uint64_t total, need, seen; /* entries and file bytes counted; walked */
	uint64_t n_dirs, n_files, n_links; /* copied (of this shard) */
	struct dnode top;
	struct dnode *live;
	/* folders held open at most (each an open file), and now */
	int held_max;
	atomic_int held;
	mode_t umask;
	bool record;
	struct stat *stats; /* per item, with record */
	const char *const *skip;
	const char *skip_suffix;
	bool dst_exists;
	bool stage, verify;
	/* With stage, a dst not there yet is written whole into tree_tmp
	 * (".jobprep-tmp-stage-NAME" beside it), renamed to dst at the end. */
	char *tree_tmp;
	unsigned stage_flags; /* JP_TC_* for every entry */
	unsigned shard, shards;
	const struct jp_treecopy_result *already; /* copied by a stream */
	atomic_size_t skipped;
	atomic_uint_fast64_t skipped_bytes;
	char **outside; /* with stage: symlinks leaving the tree */
	size_t n_outside;
	/* the pool: its threads (pool_size at most), a phase each time gen
	 * moves on, until quit; own_buf when the caller's thread works alone */
	pthread_t tid[MAX_THREADS];
	unsigned started, gen, pool_size;
	bool pool_up, quit;
	pthread_cond_t work;
	char *own_buf;
	/* the phase running */
	unsigned threads;
	struct progress_state *ps;
	size_t *order;
	size_t n_order;
	int (*fn)(struct ctx *c, struct item *it, size_t idx, char *buf);
	atomic_size_t next;
	atomic_size_t done;
	atomic_uint_fast64_t bytes;
	atomic_bool stop;
	pthread_mutex_t lock;
	pthread_cond_t idle; /* signalled when the last worker of a phase ends */
	unsigned running;
	int err_code;
	char err_msg[1024];
};

static void fail(struct ctx *c, int code, const char *rel, int e)
{
	pthread_mutex_lock(&c->lock);
	if (!c->err_code) {
		c->err_code = code ? code : (e == ENOSPC || e == EDQUOT ? JP_ENOSPC : JP_EIO);
		snprintf(c->err_msg, sizeof(c->err_msg), "%s: %s", rel[0] ? rel : ".", strerror(e));
	}
	pthread_mutex_unlock(&c->lock);
	atomic_store(&c->stop, true);
}

/* Where to create what goes into folder up: its held descriptor and base,
 * or the top's descriptor and the whole relative path. */
static int dst_at(const struct ctx *c, const struct dnode *up, const char *rel,
		  const char *base, const char **name)
{
	if (up && up->dfd >= 0) {
		*name = base;
		return up->dfd;
	}
	*name = rel;
	return c->dst_fd;
}

/* Where folder d itself is: in its folder, or the top's own descriptor. */
static int node_at(const struct ctx *c, const struct dnode *d, const char **name)
{
	if (!d->up) {
		*name = ".";
		return c->dst_fd;
	}
	return dst_at(c, d->up, d->rel, d->base, name);
}

/* Folder d, there already and read-only (an earlier run gave it the
 * source's mode), when something must go in: opened up for the rest of
 * the run, and closed again when it is done. A re-run that puts nothing
 * in it leaves it alone. False when it is not such a folder (or cannot be
 * opened up: someone else's). */
static bool widen(struct ctx *c, struct dnode *d)
{
	const char *name;
	int at = node_at(c, d, &name), e = errno;
	bool ok;

	pthread_mutex_lock(&c->lock);
	ok = d->widened;
	if (!ok && d->existed && (d->was & S_IRWXU) != S_IRWXU &&
	    fchmodat(at, name, d->was | S_IRWXU, 0) == 0)
		ok = d->widened = true;
	pthread_mutex_unlock(&c->lock);
	if (!ok)
		errno = e; /* the denial stands, as it was */
	return ok;
}

/* Whether folder d's mode is to be set when it is done: one this run made
 * when mkdir's umask or the u+rwx it was made with changed it; one there
 * already when it differs from the source's or was opened up. */
static bool mode_to_set(const struct ctx *c, const struct dnode *d)
{
	mode_t m = d->mode & 07777;

	if (d->existed)
		return d->widened || d->was != m;
	return ((m | S_IRWXU) & ~c->umask) != m;
}

/* A folder and all in it done: its own mode back (it was made writable
 * for us), and with stage its times (writing into it changed them). A
 * re-run's folder nothing went into, with them already, costs no round
 * trip. */
static void finish_dir(struct ctx *c, struct dnode *d)
{
	const char *name;
	int at = node_at(c, d, &name);
	bool times = c->stage && !(d->as_is && !atomic_load(&d->changed));

	if (atomic_load(&c->stop)) {
		/* the run failed: one it opened up is put back as it was */
		if (d->widened)
			(void)fchmodat(at, name, d->was, 0);
		return;
	}
	/* one there already that is someone else's keeps its own mode */
	if (mode_to_set(c, d) && fchmodat(at, name, d->mode & 07777, 0) != 0 &&
	    !(errno == EPERM && d->existed && !d->widened)) {
		fail(c, 0, d->rel, errno);
		return;
	}
	if (times) {
		struct timespec t[2] = { d->atime, d->mtime };

		if (utimensat(at, name, t, AT_SYMLINK_NOFOLLOW) != 0)
			fail(c, 0, d->rel, errno);
	}
}

static void node_free(struct ctx *c, struct dnode *d)
{
	if (d->dfd >= 0) {
		close(d->dfd);
		atomic_fetch_sub(&c->held, 1);
	}
	free(d->rel);
	free(d);
}

/* Let go of folder d; the last to let go finishes it, which lets go of
 * its own folder in turn. The top is finished by the run itself. */
static void release(struct ctx *c, struct dnode *d)
{
	while (d && d->up && atomic_fetch_sub(&d->refs, 1) == 1) {
		struct dnode *up = d->up;

		finish_dir(c, d);
		pthread_mutex_lock(&c->lock);
		if (d->prev)
			d->prev->next = d->next;
		else
			c->live = d->next;
		if (d->next)
			d->next->prev = d->prev;
		pthread_mutex_unlock(&c->lock);
		node_free(c, d);
		d = up;
	}
}

/* The last component of a relative path, inside it. */
static const char *base_of(const char *rel)
{
	const char *slash = strrchr(rel, '/');

	return slash ? slash + 1 : rel;
}

/* A folder's node, held by the walk (inside it) and its mkdir to come;
 * it holds its own folder up. */
static struct dnode *node_new(struct ctx *c, const char *rel, const struct stat *st,
			      struct dnode *up)
{
	struct dnode *d = calloc(1, sizeof(*d));

	if (!d || !(d->rel = strdup(rel))) {
		free(d);
		return NULL;
	}
	d->base = base_of(d->rel);
	d->up = up;
	d->mode = st->st_mode;
	d->atime = st->st_atim;
	d->mtime = st->st_mtim;
	d->dfd = -1;
	atomic_init(&d->refs, 2);
	atomic_init(&d->changed, false);
	pthread_mutex_lock(&c->lock);
	d->next = c->live;
	if (c->live)
		c->live->prev = d;
	c->live = d;
	pthread_mutex_unlock(&c->lock);
	return d;
}

/* An entry into the batch, in folder up; a folder's node (node not NULL)
 * is made too. */
static int push(struct ctx *c, const char *rel, const struct stat *st, unsigned depth,
		enum kind k, struct dnode *up, struct dnode **node)
{
	struct item *it;

	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 1024;
		struct item *v = realloc(c->v, cap * sizeof(*v));

		if (!v)
			return JP_ENOMEM;
		c->v = v;
		c->cap = cap;
	}
	it = &c->v[c->n];
	memset(it, 0, sizeof(*it));
	if (!(it->rel = strdup(rel)))
		return JP_ENOMEM;
	if (node && !(*node = it->self = node_new(c, rel, st, up))) {
		free(it->rel);
		return JP_ENOMEM;
	}
	it->base = base_of(it->rel);
	it->up = up;
	it->mode = st->st_mode;
	it->size = st->st_size;
	it->atime = st->st_atim;
	it->mtime = st->st_mtim;
	it->depth = depth;
	it->kind = k;
	if (up)
		atomic_fetch_add(&up->refs, 1);
	c->n++;
	if (k == K_DIR) {
		if (!c->min_depth || depth < c->min_depth)
			c->min_depth = depth;
		if (depth > c->max_depth)
			c->max_depth = depth;
	}
	return 0;
}

static int done_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct jp_treecopy_file *)elem)->path);
}

static bool skipped(const struct ctx *c, const char *rel)
{
	for (const char *const *s = c->skip; s && *s; s++)
		if (strcmp(*s, rel) == 0)
			return true;
	if (c->skip_suffix) {
		size_t n = strlen(rel), k = strlen(c->skip_suffix);

		if (n >= k && strcmp(rel + n - k, c->skip_suffix) == 0)
			return true;
	}
	return false;
}

static bool already_done(const struct ctx *c, const char *rel)
{
	return c->already && c->already->n_copied &&
	       bsearch(rel, c->already->copied, c->already->n_copied, sizeof(*c->already->copied),
		       done_cmp);
}

/* With stage: a symlink whose target leaves the tree is listed. */
static int note_link(struct ctx *c, int at, const char *name, const char *rel)
{
	char target[PATH_MAX];
	ssize_t n = readlinkat(at, name, target, sizeof(target) - 1);
	char **v;

	if (n < 0)
		return 0; /* the copy reports it */
	target[n] = '\0';
	if (!jp_tc_link_leaves(rel, target))
		return 0;
	if (!(v = realloc(c->outside, (c->n_outside + 1) * sizeof(*v))))
		return JP_ENOMEM;
	c->outside = v;
	if (!(v[c->n_outside] = strdup(rel)))
		return JP_ENOMEM;
	c->n_outside++;
	return 0;
}

static int run_batch(struct ctx *c);
static void batch_free(struct ctx *c);

/* Has the user asked to stop? (looked at by the walk now and then) */
static bool poll_cancel(struct ctx *c)
{
	const struct jp_port *port = c->ps ? c->ps->port : NULL;

	if (port && port->cancelled && !c->ps->canceled && port->cancelled(port->payload)) {
		c->ps->canceled = true;
		atomic_store(&c->stop, true);
	}
	return c->ps && c->ps->canceled;
}

/* An entry the walk found in folder up: counted, and unless counting
 * only, into the batch, which is copied first when full. */
static int add(struct ctx *c, const char *rel, const struct stat *st, unsigned depth,
	       enum kind k, struct dnode *up, struct dnode **node)
{
	int rc;

	if (node)
		*node = NULL;
	if (c->counting || c->batch == SIZE_MAX) {
		c->total++;
		if (k == K_FILE)
			c->need += (uint64_t)st->st_size;
	}
	if (++c->seen % CANCEL_EVERY == 0 && poll_cancel(c))
		return JP_ECANCELED;
	if (c->counting)
		return 0;
	if (c->n >= c->batch) {
		rc = run_batch(c);
		batch_free(c);
		if (rc != 0)
			return rc;
	}
	return push(c, rel, st, depth, k, up, k == K_DIR ? node : NULL);
}

/* Walk the source below rel (a folder, "" for the top; self: its node). */
static int walk(struct ctx *c, const char *rel, struct dnode *self, unsigned depth,
		struct jp_error *err)
{
	/* (the top opened anew: a dup would share where an earlier walk
	 * stopped reading it) */
	int fd = openat(c->src_fd, rel[0] ? rel : ".", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if (fd < 0 || !(d = fdopendir(fd))) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return jp_error_set(err, JP_EIO, _("%s: cannot read the directory: %s"),
				    rel[0] ? rel : ".", strerror(e));
	}
	while ((de = readdir(d)) != NULL) {
		char child[8192];
		struct stat st;
		struct dnode *sub;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (snprintf(child, sizeof(child), "%s%s%s", rel, rel[0] ? "/" : "", de->d_name) >=
		    (int)sizeof(child)) {
			rc = jp_error_set(err, JP_EIO, _("%s/%s: path too long"), rel, de->d_name);
			break;
		}
		if (skipped(c, child))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			rc = jp_error_set(err, JP_EIO, "%s: %s", child, strerror(errno));
			break;
		}
		if (S_ISDIR(st.st_mode)) {
			if ((rc = add(c, child, &st, depth + 1, K_DIR, self, &sub)) != 0)
				break;
			rc = walk(c, child, sub, depth + 1, err);
			release(c, sub); /* the walk is out of it */
			if (rc != 0)
				break;
		} else if (S_ISREG(st.st_mode) && !already_done(c, child)) {
			if ((rc = add(c, child, &st, depth + 1, K_FILE, self, NULL)) != 0)
				break;
		} else if (S_ISLNK(st.st_mode) && !already_done(c, child)) {
			if ((rc = add(c, child, &st, depth + 1, K_LINK, self, NULL)) != 0 ||
			    (c->stage && !c->counting &&
			     (rc = note_link(c, dirfd(d), de->d_name, child)) != 0))
				break;
		}
		/* sockets, fifos, devices: nothing a checkout makes */
	}
	closedir(d);
	if (rc == JP_ENOMEM)
		jp_error_oom(err);
	return rc;
}

/* A folder is held open while the open files allow it. */
static void hold_dir(struct ctx *c, struct dnode *d, int at, const char *name)
{
	if (atomic_fetch_add(&c->held, 1) >= c->held_max ||
	    (d->dfd = openat(at, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		d->dfd = -1;
		atomic_fetch_sub(&c->held, 1);
	}
}

/* Folder d, already there and open (fd, O_PATH): its mode and times as
 * the look-up that opened it brought them. */
static int adopt_dir(struct ctx *c, struct dnode *d, int fd)
{
	struct statx x;
	struct timespec mt;
	mode_t have;

	if (statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_MODE | STATX_MTIME, &x) != 0) {
		fail(c, 0, d->rel, errno);
		close(fd);
		return -1;
	}
	have = x.stx_mode & 07777;
	mt.tv_sec = x.stx_mtime.tv_sec;
	mt.tv_nsec = x.stx_mtime.tv_nsec;
	d->existed = true;
	d->was = have;
	d->as_is = have == (d->mode & 07777) && jp_tc_same_time(&d->mtime, &mt);
	if (atomic_fetch_add(&c->held, 1) >= c->held_max) {
		atomic_fetch_sub(&c->held, 1);
		close(fd);
	} else {
		d->dfd = fd;
	}
	return 0;
}

/* Open folder it where it is there already: 1 adopted, 0 not there, -1
 * failed. Never into what is there unless it is a folder: a symlink there
 * would lead the copy out of dst. */
static int open_existing(struct ctx *c, struct item *it, int at, const char *name)
{
	int fd = openat(at, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0)
		return adopt_dir(c, it->self, fd) == 0 ? 1 : -1;
	if (errno == ENOENT)
		return 0;
	fail(c, 0, it->rel, errno == ELOOP ? ENOTDIR : errno);
	return -1;
}

static int do_mkdir(struct ctx *c, struct item *it, size_t idx, char *buf)
{
	const char *name;
	int at = dst_at(c, it->up, it->rel, it->base, &name);
	mode_t mode = (it->mode & 07777) | S_IRWXU;
	int r;

	(void)buf;
	(void)idx;
	/* on a re-run most are there: one look-up opens it */
	if (c->dst_exists && !it->up->fresh && (r = open_existing(c, it, at, name)) != 0)
		return r > 0 ? 0 : -1;
	if (mkdirat(at, name, mode) != 0 &&
	    !(errno == EACCES && widen(c, it->up) && mkdirat(at, name, mode) == 0)) {
		/* made meanwhile by another shard's run into the same dst */
		if (errno == EEXIST && c->dst_exists) {
			if ((r = open_existing(c, it, at, name)) == 0)
				fail(c, 0, it->rel, ENOENT); /* and gone again */
			return r > 0 ? 0 : -1;
		}
		fail(c, 0, it->rel, errno);
		return -1;
	}
	it->self->fresh = true;
	atomic_store(&it->up->changed, true);
	hold_dir(c, it->self, at, name);
	return 0;
}

static int stage_one(struct ctx *c, const struct item *it, const struct stat *sst, int at,
		     const char *name, bool fresh, char *buf, enum jp_tc_staged *what)
{
	return jp_tc_stage_entry(c->src_fd, it->rel, sst, at, name, c->verify,
				 c->stage_flags | (fresh ? JP_TC_FRESH : 0), c->umask, buf, BUF_SIZE,
				 &c->bytes, &c->stop, what);
}

/* An entry staged; into a read-only folder of an earlier run (denied), once
 * more after the folder is opened up. */
static int do_stage(struct ctx *c, struct item *it, char *buf)
{
	const char *name;
	int at = dst_at(c, it->up, it->rel, it->base, &name);
	enum jp_tc_staged what;
	struct stat sst;
	bool fresh = it->up->fresh;

	memset(&sst, 0, sizeof(sst));
	sst.st_mode = it->mode;
	sst.st_size = it->size;
	sst.st_atim = it->atime;
	sst.st_mtim = it->mtime;
	if (stage_one(c, it, &sst, at, name, fresh, buf, &what) != 0 &&
	    !(errno == EACCES && widen(c, it->up) &&
	      stage_one(c, it, &sst, at, name, fresh, buf, &what) == 0)) {
		if (errno != ECANCELED)
			fail(c, 0, it->rel, errno);
		return -1;
	}
	if (what == JP_TC_WRITTEN)
		atomic_store(&it->up->changed, true);
	if (what == JP_TC_SKIPPED) {
		atomic_fetch_add(&c->skipped, 1);
		atomic_fetch_add(&c->skipped_bytes, (uint_fast64_t)(it->kind == K_FILE ? it->size : 0));
	}
	return 0;
}

static int do_copy(struct ctx *c, struct item *it, size_t idx, char *buf)
{
	const char *name;
	int at = dst_at(c, it->up, it->rel, it->base, &name);

	if (c->stage)
		return do_stage(c, it, buf);

	if (it->kind == K_LINK) {
		ssize_t n = readlinkat(c->src_fd, it->rel, buf, BUF_SIZE - 1);

		if (n < 0) {
			fail(c, 0, it->rel, errno);
			return -1;
		}
		buf[n] = '\0';
		if (symlinkat(buf, at, name) != 0 ||
		    (c->record && fstatat(at, name, &c->stats[idx], AT_SYMLINK_NOFOLLOW) != 0)) {
			fail(c, 0, it->rel, errno);
			return -1;
		}
		return 0;
	}
	if (jp_tc_copy_file(c->src_fd, it->rel, at, name, it->mode & 07777, c->umask, buf, BUF_SIZE,
			    &c->bytes, &c->stop, c->record ? &c->stats[idx] : NULL) != 0) {
		if (errno != ECANCELED)
			fail(c, 0, it->rel, errno);
		return -1;
	}
	return 0;
}

/* Run c->fn over the phase's order until it is done or the run stops. */
static void drain(struct ctx *c, char *buf)
{
	while (!atomic_load(&c->stop)) {
		size_t i = atomic_fetch_add(&c->next, 1);

		if (i >= c->n_order)
			break;
		struct item *it = &c->v[c->order[i]];

		if (c->fn(c, it, c->order[i], buf) != 0)
			break;
		/* its mkdir, or a file of its folder, done */
		release(c, it->kind == K_DIR ? it->self : it->up);
		atomic_fetch_add(&c->done, 1);
	}
}

/* One of the pool: a phase each time c->gen moves on, until c->quit. */
static void *worker(void *arg)
{
	struct ctx *c = arg;
	char *buf = malloc(BUF_SIZE);
	unsigned seen = 0;

	if (!buf)
		fail(c, JP_ENOMEM, "copy", ENOMEM);
	pthread_mutex_lock(&c->lock);
	for (;;) {
		while (c->gen == seen && !c->quit)
			pthread_cond_wait(&c->work, &c->lock);
		if (c->quit)
			break;
		seen = c->gen;
		pthread_mutex_unlock(&c->lock);
		if (buf)
			drain(c, buf);
		pthread_mutex_lock(&c->lock);
		if (--c->running == 0)
			pthread_cond_signal(&c->idle);
	}
	pthread_mutex_unlock(&c->lock);
	free(buf);
	return NULL;
}

/* The pool's threads, the same for every phase of the run: n of them
 * (fewer when the system gives fewer; none: the caller's thread works). */
static void pool_start(struct ctx *c, unsigned n)
{
	if (n > MAX_THREADS)
		n = MAX_THREADS;
	while (c->started < n && pthread_create(&c->tid[c->started], NULL, worker, c) == 0)
		c->started++;
	c->pool_up = true;
}

static void pool_stop(struct ctx *c)
{
	pthread_mutex_lock(&c->lock);
	c->quit = true;
	pthread_cond_broadcast(&c->work);
	pthread_mutex_unlock(&c->lock);
	for (unsigned i = 0; i < c->started; i++)
		pthread_join(c->tid[i], NULL);
	c->started = 0;
	free(c->own_buf);
	c->own_buf = NULL;
}

static void report(struct progress_state *ps, struct ctx *c, bool force)
{
	struct jp_progress p;
	uint64_t now = jp_now_ns(), moved;

	if (!ps->port || ps->canceled)
		return;
	if (ps->port->cancelled && ps->port->cancelled(ps->port->payload)) {
		ps->canceled = true;
		atomic_store(&c->stop, true);
		return;
	}
	if (!ps->port->progress)
		return;
	if (!force && now - ps->t_last < PROGRESS_NS)
		return;
	ps->t_last = now;
	moved = atomic_load(&c->bytes);
	p.phase = JP_PHASE_COPY;
	p.done = ps->done_before + atomic_load(&c->done);
	p.total = ps->total;
	/* done: written, or found complete (their bytes not moved: no rate) */
	p.bytes = moved + atomic_load(&c->skipped_bytes);
	p.bytes_total = ps->bytes_total;
	if (p.bytes > p.bytes_total)
		p.bytes_total = p.bytes; /* grown since the walk */
	p.rate = jp_meter_rate(&ps->meter, now, moved);
	p.what = NULL;
	if (ps->port->progress(&p, ps->port->payload) < 0) {
		ps->canceled = true;
		atomic_store(&c->stop, true);
	}
}

/* Run c->fn over c->order on the pool (started with the first phase:
 * threads, at most c->pool_size: the run's entries); the caller's thread
 * reports. */
static int run_phase(struct ctx *c, unsigned threads, struct progress_state *ps)
{
	atomic_store(&c->next, 0);
	atomic_store(&c->done, 0);
	if (c->n_order == 0)
		return 0;
	if (!c->pool_up)
		pool_start(c, threads < c->pool_size ? threads : c->pool_size);
	if (c->started == 0) {
		if (!c->own_buf && !(c->own_buf = malloc(BUF_SIZE)))
			fail(c, JP_ENOMEM, "copy", ENOMEM);
		else
			drain(c, c->own_buf);
	}
	pthread_mutex_lock(&c->lock);
	c->running = c->started;
	c->gen++;
	pthread_cond_broadcast(&c->work);
	pthread_mutex_unlock(&c->lock);
	/* Wake when the phase ends, or every tick to report and see a cancel. */
	pthread_mutex_lock(&c->lock);
	while (c->running > 0) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += TICK_NS;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		if (pthread_cond_timedwait(&c->idle, &c->lock, &ts) != 0) {
			pthread_mutex_unlock(&c->lock);
			report(ps, c, false);
			pthread_mutex_lock(&c->lock);
		}
	}
	pthread_mutex_unlock(&c->lock);
	/* counted once: the final report adds c->done again */
	ps->done_before += atomic_exchange(&c->done, 0);
	if (ps->canceled)
		return JP_ECANCELED;
	return c->err_code;
}

/* Fail before writing anything when the destination's filesystem plainly
 * lacks the room (a network filesystem may still refuse later: quotas). */
static int check_room(const struct ctx *c, const char *dst, struct jp_error *err)
{
	char dir[PATH_MAX], need_s[32], avail_s[32];
	struct statvfs vfs;
	uint64_t need = c->need, avail;
	char *slash;

	snprintf(dir, sizeof(dir), "%s", dst);
	if ((!c->dst_exists || access(dst, F_OK) != 0) && (slash = strrchr(dir, '/')) != NULL)
		*(slash == dir ? slash + 1 : slash) = '\0';
	if (statvfs(dir, &vfs) != 0 || vfs.f_frsize == 0)
		return 0; /* cannot tell: let the writes say */
	avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	if (avail >= need)
		return 0;
	return jp_error_set(err, JP_ENOSPC, _("%s: not enough room: %s to copy, %s free there"), dir,
			    jp_units_format_bytes(need_s, sizeof(need_s), need),
			    jp_units_format_bytes(avail_s, sizeof(avail_s), avail));
}

static int by_size_desc(const void *a, const void *b, void *arg)
{
	const struct item *v = arg;
	off_t sa = v[*(const size_t *)a].size, sb = v[*(const size_t *)b].size;

	return sa < sb ? 1 : sa > sb ? -1 : 0;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct jp_treecopy_file *)a)->path,
		      ((const struct jp_treecopy_file *)b)->path);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void jp_treecopy_result_dispose(struct jp_treecopy_result *res)
{
	if (!res)
		return;
	for (size_t i = 0; i < res->n_copied; i++)
		free(res->copied[i].path);
	free(res->copied);
	for (size_t i = 0; i < res->n_outside; i++)
		free(res->outside[i]);
	free(res->outside);
	*res = (struct jp_treecopy_result)JP_TREECOPY_RESULT_INIT;
}

static void ctx_init(struct ctx *c, const struct jp_treecopy_options *opts)
{
	memset(c, 0, sizeof(*c));
	c->src_fd = c->dst_fd = -1;
	c->top.rel = (char *)"";
	c->top.base = "";
	c->top.dfd = -1;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->idle, NULL);
	pthread_cond_init(&c->work, NULL);
	c->record = opts && opts->record_stats;
	c->skip = opts ? opts->skip : NULL;
	c->skip_suffix = opts ? opts->skip_suffix : NULL;
	c->stage = opts && opts->stage;
	c->verify = c->stage && opts->verify;
	c->dst_exists = (opts && opts->dst_exists) || c->stage;
	c->already = opts ? opts->done : NULL;
	c->umask = jp_tc_umask();
	if (c->stage && opts->shards > 1 && opts->shard < opts->shards) {
		c->shard = opts->shard;
		c->shards = opts->shards;
	}
	/* in batches, unless every file must be seen at once */
	c->batch = c->stage && !c->shards && !c->record ? BATCH : SIZE_MAX;
}

static void batch_free(struct ctx *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].rel);
	c->n = 0;
	c->min_depth = c->max_depth = 0;
}

/* A run that failed or was canceled: the folders it opened up that are
 * not done get their modes back (those done have the source's). */
static void close_widened(struct ctx *c)
{
	for (struct dnode *d = c->live; d; d = d->next) {
		const char *name = NULL;
		int at = dst_at(c, d->up, d->rel, d->base, &name);

		if (d->widened)
			(void)fchmodat(at, name, d->was, 0);
	}
	if (c->top.widened && c->dst_fd >= 0)
		(void)fchmod(c->dst_fd, c->top.was);
}

static void ctx_free(struct ctx *c)
{
	pool_stop(c);
	batch_free(c);
	close_widened(c);
	while (c->live) {
		struct dnode *d = c->live;

		c->live = d->next;
		node_free(c, d);
	}
	free(c->v);
	free(c->order);
	free(c->stats);
	for (size_t i = 0; i < c->n_outside; i++)
		free(c->outside[i]);
	free(c->outside);
	free(c->tree_tmp);
	if (c->src_fd >= 0)
		close(c->src_fd);
	if (c->dst_fd >= 0)
		close(c->dst_fd);
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->idle);
	pthread_cond_destroy(&c->work);
}

/* How many folders may be held open: well within the limit on open
 * files (the rest are created into by path). */
static void hold_budget(struct ctx *c)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		c->held_max = 0;
	else if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur / 2 > INT_MAX)
		c->held_max = INT_MAX / 2;
	else
		c->held_max = rl.rlim_cur / 2 > 256 ? (int)(rl.rlim_cur / 2 - 256) : 0;
}

/* With shards: every file and symlink not of this shard marked other. */
static int mark_shard(struct ctx *c, struct jp_error *err)
{
	size_t n = 0, k = 0;
	uint64_t *sizes;
	const char **names;
	unsigned *where;
	int rc = 0;

	if (!c->shards)
		return 0;
	for (size_t i = 0; i < c->n; i++)
		n += c->v[i].kind != K_DIR;
	sizes = malloc((n + 1) * sizeof(*sizes));
	names = malloc((n + 1) * sizeof(*names));
	where = malloc((n + 1) * sizeof(*where));
	if (!sizes || !names || !where) {
		rc = JP_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].kind != K_DIR) {
			sizes[k] = (uint64_t)c->v[i].size;
			names[k++] = c->v[i].rel;
		}
	if (jp_tc_shard_plan(n, sizes, names, c->shards, where) != 0) {
		rc = JP_ENOMEM;
		goto out;
	}
	k = 0;
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].kind != K_DIR && (c->v[i].other = where[k++] != c->shard)) {
			/* the room and the progress: this shard's */
			c->total--;
			if (c->v[i].kind == K_FILE)
				c->need -= (uint64_t)c->v[i].size;
		}
out:
	free(sizes);
	free(names);
	free(where);
	return rc ? jp_error_oom(err) : 0;
}

/* c->tree_tmp for dst: ".jobprep-tmp-stage-NAME" in dst's folder; none
 * (files then staged one by one under temporaries) when NAME is too long. */
static int tree_tmp_path(struct ctx *c, const char *dst, struct jp_error *err)
{
	size_t n = strlen(dst), b;

	while (n > 1 && dst[n - 1] == '/')
		n--;
	for (b = n; b > 0 && dst[b - 1] != '/'; b--)
		;
	if (n - b + sizeof(JP_TREECOPY_TMP_PREFIX "stage-") > NAME_MAX ||
	    (n - b == 1 && dst[b] == '.') || (n - b == 2 && dst[b] == '.' && dst[b + 1] == '.'))
		return 0;
	if (asprintf(&c->tree_tmp, "%.*s%s%.*s", (int)b, dst, JP_TREECOPY_TMP_PREFIX "stage-",
		     (int)(n - b), dst + b) < 0) {
		c->tree_tmp = NULL;
		return jp_error_oom(err);
	}
	return 0;
}

/* A whole-tree temporary, complete: flushed, then renamed to dst. */
static int finish_tree(struct ctx *c, const char *dst, struct jp_error *err)
{
	if (!c->tree_tmp)
		return 0;
	if (syncfs(c->dst_fd) != 0)
		return jp_error_set(err, errno == ENOSPC || errno == EDQUOT ? JP_ENOSPC : JP_EIO,
				    "%s: %s", dst, strerror(errno)); /* the name given, not ours */
	if (rename(c->tree_tmp, dst) != 0)
		return jp_error_set(err, JP_EIO, _("%s: cannot create: %s"), dst, strerror(errno));
	return 0;
}

/* Walk the source (a staging run's walk only counts), check the room,
 * make dst and open both tops. */
static int prepare(struct ctx *c, const char *src, const char *dst, struct stat *top,
		   struct jp_error *err)
{
	struct stat sb;
	const char *make;
	bool exists;
	int rc;

	c->src_fd = open(src, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->src_fd < 0 || fstat(c->src_fd, top) != 0)
		return jp_error_set(err, JP_EIO, _("%s: cannot open: %s"), src, strerror(errno));
	c->top.mode = top->st_mode;
	c->top.atime = top->st_atim;
	c->top.mtime = top->st_mtim;
	c->counting = c->batch != SIZE_MAX;
	rc = walk(c, "", &c->top, 0, err);
	c->counting = false;
	if (rc != 0 || (rc = mark_shard(c, err)) != 0)
		return rc;
	/* A staging run onto an existing dst may need little more room. */
	exists = lstat(dst, &sb) == 0;
	if (!(c->stage && exists) && (rc = check_room(c, dst, err)) != 0)
		return rc;
	if (c->stage && !exists && !c->shards && (rc = tree_tmp_path(c, dst, err)) != 0)
		return rc;
	make = c->tree_tmp ? c->tree_tmp : dst;
	if (mkdir(make, (top->st_mode & 07777) | S_IRWXU) == 0) {
		c->top.fresh = true;
	} else if (!(errno == EEXIST && c->dst_exists)) {
		int e = errno;
		/* dst, the name the person gave, even while it is made as make */
		return jp_error_set(err, e == ENOSPC ? JP_ENOSPC : JP_EIO, _("%s: cannot create: %s"),
				    dst, strerror(e));
	}
	c->dst_fd = open(make, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (c->dst_fd < 0)
		return jp_error_set(err, JP_EIO, _("%s: cannot open: %s"), dst, strerror(errno));
	/* a top there already: its folders' rules (as_is, opened up when
	 * something must go in) */
	if (!c->top.fresh && fstat(c->dst_fd, &sb) == 0) {
		c->top.existed = true;
		c->top.was = sb.st_mode & 07777;
		c->top.as_is = c->top.was == (top->st_mode & 07777) &&
			       jp_tc_same_time(&top->st_mtim, &sb.st_mtim);
	}
	/* No fsync per file where it is a round trip (network storage), nor in
	 * a whole-tree temporary (flushed once before its rename). */
	if (c->tree_tmp)
		c->stage_flags |= JP_TC_INPLACE | JP_TC_NOSYNC;
	if (c->stage && jp_tc_on_network(c->dst_fd))
		c->stage_flags |= JP_TC_NOSYNC;
	if (c->stage && jp_tc_on_fuse(c->dst_fd))
		c->stage_flags |= JP_TC_QUICKSTAT;
	if (!(c->order = malloc(((c->batch == SIZE_MAX ? c->n : c->batch) + 1) * sizeof(*c->order))) ||
	    (c->record && !(c->stats = calloc(c->n + 1, sizeof(*c->stats)))))
		return jp_error_oom(err);
	hold_budget(c);
	return 0;
}

/* The batch: its folders level by level (a level's parents exist), then
 * its files and symlinks, the biggest first so no writer is left with a
 * large file at the end. */
static int run_batch(struct ctx *c)
{
	int rc = 0;

	c->fn = do_mkdir;
	for (unsigned depth = c->min_depth; depth && depth <= c->max_depth && rc == 0; depth++) {
		c->n_order = 0;
		for (size_t i = 0; i < c->n; i++)
			if (c->v[i].kind == K_DIR && c->v[i].depth == depth)
				c->order[c->n_order++] = i;
		rc = run_phase(c, c->threads, c->ps);
	}
	if (rc != 0)
		return rc;
	c->fn = do_copy;
	c->n_order = 0;
	for (size_t i = 0; i < c->n; i++) {
		struct item *it = &c->v[i];

		if (it->kind == K_DIR)
			c->n_dirs++;
		else if (it->other)
			release(c, it->up); /* another shard's */
		else
			c->order[c->n_order++] = i;
		c->n_files += it->kind == K_FILE && !it->other;
		c->n_links += it->kind == K_LINK && !it->other;
	}
	qsort_r(c->order, c->n_order, sizeof(*c->order), by_size_desc, c->v);
	return run_phase(c, c->threads, c->ps);
}

/* The top, all in it done: as any folder. */
static int finish_top(struct ctx *c)
{
	finish_dir(c, &c->top);
	if (!c->err_code)
		c->top.widened = false; /* its mode is the source's now */
	return c->err_code;
}

/* The batches (a staging run walks again, copying as it goes; any other
 * has the whole tree in one), then the top. */
static int copy_all(struct ctx *c, struct jp_error *err)
{
	int rc = 0;

	if (c->batch != SIZE_MAX)
		rc = walk(c, "", &c->top, 0, err);
	if (rc == 0)
		rc = run_batch(c);
	if (rc == 0)
		rc = finish_top(c);
	return rc;
}

static int fill_result(struct ctx *c, struct jp_treecopy_result *out, struct jp_error *err)
{
	out->dirs = c->n_dirs;
	out->files = c->n_files;
	out->symlinks = c->n_links;
	out->bytes = atomic_load(&c->bytes);
	out->skipped = atomic_load(&c->skipped);
	out->skipped_bytes = atomic_load(&c->skipped_bytes);
	if (c->n_outside > 1) /* qsort(NULL, 0) is undefined */
		qsort(c->outside, c->n_outside, sizeof(*c->outside), str_cmp);
	out->outside = c->outside;
	out->n_outside = c->n_outside;
	c->outside = NULL;
	c->n_outside = 0;
	if (!c->record)
		return 0;
	out->copied = calloc(out->files + out->symlinks + 1, sizeof(*out->copied));
	if (!out->copied)
		return jp_error_oom(err);
	for (size_t i = 0; i < c->n; i++) {
		if (c->v[i].kind == K_DIR)
			continue;
		out->copied[out->n_copied].path = c->v[i].rel;
		out->copied[out->n_copied].st = c->stats[i];
		c->v[i].rel = NULL;
		out->n_copied++;
	}
	qsort(out->copied, out->n_copied, sizeof(*out->copied), by_path);
	return 0;
}

/* rc from a walk or a phase as the run's error: a cancel, a writer's
 * failure (its message), or the walk's own (already in err). */
static int copy_error(struct ctx *c, int rc, const struct progress_state *ps, const char *dst,
		      struct jp_error *err)
{
	if (rc == JP_ECANCELED || ps->canceled)
		return jp_error_set(err, JP_ECANCELED, _("%s: copy canceled"), dst);
	if (c->err_code)
		return jp_error_set(err, c->err_code, _("copying onto %s: %s"), dst, c->err_msg);
	return rc;
}

int jp_treecopy(struct jp_treecopy_result *out, const char *src, const char *dst,
		const struct jp_treecopy_options *opts, const struct jp_port *port,
		struct jp_error *err)
{
	struct ctx c;
	struct progress_state ps = { .port = port, .meter = JP_METER_INIT };
	unsigned threads = opts && opts->threads ? opts->threads : DEFAULT_THREADS;
	struct stat top;
	int rc;

	if (out)
		*out = (struct jp_treecopy_result)JP_TREECOPY_RESULT_INIT;
	ctx_init(&c, opts);
	c.threads = threads > MAX_THREADS ? MAX_THREADS : threads;
	c.ps = &ps;
	if ((rc = prepare(&c, src, dst, &top, err)) != 0) {
		if (rc == JP_ECANCELED)
			rc = copy_error(&c, rc, &ps, dst, err);
		goto out;
	}
	ps.total = c.total;
	ps.bytes_total = c.need;
	c.pool_size = c.total < MAX_THREADS ? (unsigned)(c.total ? c.total : 1) : MAX_THREADS;
	if ((rc = copy_all(&c, err)) != 0) {
		rc = copy_error(&c, rc, &ps, dst, err);
		goto out;
	}
	report(&ps, &c, true);
	if (ps.canceled) {
		rc = copy_error(&c, JP_ECANCELED, &ps, dst, err);
		goto out;
	}
	if ((rc = finish_tree(&c, dst, err)) == 0 && out)
		rc = fill_result(&c, out, err);
out:
	ctx_free(&c);
	if (rc != 0 && out)
		jp_treecopy_result_dispose(out);
	return rc;
}

/* ---- parallel removal ---- */

static int walk_dst(struct ctx *c, const char *rel, unsigned depth)
{
	int fd = rel[0] ? openat(c->dst_fd, rel, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
			: dup(c->dst_fd);
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return 0; /* removed what we can; rmdir reports the rest */
	}
	while ((de = readdir(d)) != NULL) {
		char child[8192];
		struct stat st;
		unsigned char type = de->d_type;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (snprintf(child, sizeof(child), "%s%s%s", rel, rel[0] ? "/" : "", de->d_name) >=
		    (int)sizeof(child))
			continue;
		memset(&st, 0, sizeof(st));
		if (type == DT_UNKNOWN) {
			if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
				continue;
			type = S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
		}
		st.st_mode = type == DT_DIR ? S_IFDIR : S_IFREG;
		if ((rc = push(c, child, &st, depth + 1, type == DT_DIR ? K_DIR : K_FILE, NULL, NULL)) != 0)
			break;
		if (type == DT_DIR && (rc = walk_dst(c, child, depth + 1)) != 0)
			break;
	}
	closedir(d);
	return rc;
}

static int do_unlink(struct ctx *c, struct item *it, size_t idx, char *buf)
{
	(void)idx;
	(void)buf;
	if (unlinkat(c->dst_fd, it->rel, it->kind == K_DIR ? AT_REMOVEDIR : 0) != 0 &&
	    errno != ENOENT) {
		int e = errno;

		/* Note it, and keep going: remove as much as possible. */
		pthread_mutex_lock(&c->lock);
		if (!c->err_code) {
			c->err_code = JP_EIO;
			snprintf(c->err_msg, sizeof(c->err_msg), "%s: %s", it->rel, strerror(e));
		}
		pthread_mutex_unlock(&c->lock);
	}
	return 0;
}

int jp_treecopy_remove(const char *path, unsigned threads, struct jp_error *err)
{
	struct ctx c;
	struct progress_state ps = { .port = NULL };
	struct stat sb;
	int rc = 0;

	if (lstat(path, &sb) != 0)
		return errno == ENOENT ? 0 : jp_error_set(err, JP_EIO, "%s: %s", path, strerror(errno));
	if (!S_ISDIR(sb.st_mode))
		return unlink(path) == 0 ? 0 : jp_error_set(err, JP_EIO, "%s: %s", path, strerror(errno));
	memset(&c, 0, sizeof(c));
	pthread_mutex_init(&c.lock, NULL);
	pthread_cond_init(&c.idle, NULL);
	pthread_cond_init(&c.work, NULL);
	if (!threads)
		threads = DEFAULT_THREADS;
	if (threads > MAX_THREADS)
		threads = MAX_THREADS;
	c.dst_fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (c.dst_fd < 0) {
		rc = jp_error_set(err, JP_EIO, "%s: %s", path, strerror(errno));
		goto out;
	}
	if ((rc = walk_dst(&c, "", 0)) != 0 || !(c.order = malloc((c.n + 1) * sizeof(*c.order)))) {
		rc = jp_error_oom(err);
		goto out;
	}
	c.fn = do_unlink;
	c.pool_size = c.n < MAX_THREADS ? (unsigned)(c.n ? c.n : 1) : MAX_THREADS;
	c.n_order = 0;
	for (size_t i = 0; i < c.n; i++)
		if (c.v[i].kind != K_DIR)
			c.order[c.n_order++] = i;
	run_phase(&c, threads, &ps);
	for (unsigned depth = c.max_depth; depth >= 1; depth--) {
		c.n_order = 0;
		for (size_t i = 0; i < c.n; i++)
			if (c.v[i].kind == K_DIR && c.v[i].depth == depth)
				c.order[c.n_order++] = i;
		run_phase(&c, threads, &ps);
	}
	close(c.dst_fd);
	c.dst_fd = -1;
	if (rmdir(path) != 0 && errno != ENOENT)
		rc = jp_error_set(err, JP_EIO, _("%s: could not remove everything: %s"), path,
				  c.err_code ? c.err_msg : strerror(errno));
out:
	pool_stop(&c);
	for (size_t i = 0; i < c.n; i++)
		free(c.v[i].rel);
	free(c.v);
	free(c.order);
	if (c.dst_fd >= 0)
		close(c.dst_fd);
	pthread_mutex_destroy(&c.lock);
	pthread_cond_destroy(&c.idle);
	pthread_cond_destroy(&c.work);
	return rc;
}
