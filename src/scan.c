/* Data-set scans: a pool of threads walking a tree through directory file
 * descriptors.
 *
 * The work is a shared stack (a queue for a quick look) of two kinds of
 * items: a directory to list, and a batch of names from one directory to
 * examine. Listing a big directory hands batches to the other threads, so
 * one directory of 100,000 files on network storage is examined in parallel.
 * The stack is bounded: when it is full a thread does the work itself,
 * depth first, so memory and open descriptors stay bounded by the number of
 * threads, the nesting and the stack's capacity, never by the number of
 * files. There is no allocation per file: names travel in fixed batches. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "jobprep/i18n.h"
#include "mountinfo.h"
#include "jobprep/scan.h"
#include "scan_internal.h"
#include "jobprep/probe.h"
#include "probe_internal.h"
#include "deadline_internal.h"
#include "path_internal.h"
#include "treecopy.h"

#define BATCH_SLOTS 128        /* names per batch on local storage */
#define BATCH_SLOTS_NET 16     /* smaller batches spread latency across threads */
#define BATCH_BYTES 8192
#define DENTS_TOP_BYTES 32768  /* getdents buffer of a thread's outermost directory */
#define DENTS_BYTES 8192       /* ... and of directories done inline below it */
#define INLINE_MAX 24          /* nesting a thread does inline before sharing anyway */
#define QUEUE_CAP_MAX 256
#define THREADS_NET 48
#define THREADS_MAX 256
#define TICK_MS 20
#define STOP_GRACE_MS 60     /* after a stop, how long to wait for the threads */
#define DEFAULT_PROGRESS_MS 200
#define DEFAULT_QUICK_MS 150
#define DEFAULT_QUICK_ENTRIES 50000
/* File sizes, counted in buckets: four per power of two, so a median is
 * known to within a fifth and JP_SCAN_SMALL_BYTES (a power of two) is a
 * bucket's edge; memory per thread, not per file. */
#define HIST_BUCKETS 252

enum stop_reason {
	RUNNING = 0,
	STOP_CANCEL,
	STOP_BUDGET,
	STOP_ERROR,
	STOP_STALL, /* nothing answered for the probe timeout: a hung mount */
};

enum work_kind {
	WORK_DIR,
	WORK_BATCH,
};

struct work {
	struct work *next;
	enum work_kind kind;
};

/* An open directory; freed when the last batch naming it is done. */
struct dnode {
	struct work w;
	atomic_uint refs;
	int fd;
	unsigned depth;
	char *path;
};

struct batch {
	struct work w;
	struct dnode *dir;
	unsigned n;
	unsigned used;
	uint16_t off[BATCH_SLOTS];
	unsigned char type[BATCH_SLOTS];
	char names[BATCH_BYTES];
};

/* Counters written by their thread only, read by the monitor. */
struct counters {
	_Atomic uint64_t files, bytes, archives, archive_bytes, dirs, symlinks, outside,
		dangling, unreadable, others, top, temps;
	_Atomic uint64_t hist[HIST_BUCKETS];
};

struct scan;

struct worker {
	struct scan *s;
	pthread_t tid;
	bool started;
	unsigned level;
	char *bufs[INLINE_MAX + 2];
	char *pathbuf; /* for messages: dir + "/" + name */
	size_t pathcap;
	struct batch *spare; /* one cached free batch */
	pthread_mutex_t what_lock;
	char what[256];
	struct counters c;
} __attribute__((aligned(64)));

struct scan {
	pthread_mutex_t lock;
	pthread_cond_t work_cond;
	pthread_cond_t done_cond;
	struct work *head, *tail;
	size_t queued, cap;
	bool fifo;
	unsigned active;
	bool finished;
	atomic_int stop;
	atomic_int *cancel_ext;
	unsigned batch_slots;
	char *root_real;
	bool have_proc;
	uid_t euid;
	gid_t egid;
	gid_t *groups;
	int ngroups;
	pthread_mutex_t out_lock;
	/* Copies: the caller's structs are gone once it returns. */
	int (*item_fn)(const struct jp_scan_item *item, void *payload);
	void *item_payload;
	bool abandoned; /* under out_lock: the caller has returned */
	struct worker *workers;
	unsigned nthreads;
	int error_code;  /* first internal error (ENOMEM), under lock */
	uint64_t budget; /* a quick look's entries; 0: no limit */
	_Atomic uint64_t examined;
	/* The caller and each running thread hold a reference: a thread stuck
	 * in a hung file system outlives a cancelled jp_scan safely. */
	atomic_uint refs;
};

/* Owner-only increment: a plain load and store, visible to the monitor. */
#define ADD(wk, field, v)                                                                    \
	atomic_store_explicit(&(wk)->c.field,                                                \
			      atomic_load_explicit(&(wk)->c.field, memory_order_relaxed) + (v), \
			      memory_order_relaxed)

static const char *const archive_suffixes[] = {
	".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz", ".tbz2", ".tar.xz", ".txz", ".tar.zst",
	".tzst", ".tar.lz4", ".tar.lz", ".tar.lzma", ".tar.z", ".zip", ".7z", ".rar", ".gz",
	".bz2", ".xz", ".zst", ".zstd", ".lz4", ".lz", ".lzma", ".z", ".cpio", ".zipx", ".cab",
	".arj", ".lzh",
};

bool jp_scan_is_archive_name(const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < sizeof(archive_suffixes) / sizeof(archive_suffixes[0]); i++) {
		size_t sl = strlen(archive_suffixes[i]);
		/* A bare ".gz" is a hidden file, not an archive. */
		if (n > sl && strcasecmp(name + n - sl, archive_suffixes[i]) == 0)
			return true;
	}
	return false;
}

/* The bucket of a file of `size` bytes: sizes 0-3 their own, then four
 * per power of two. */
static unsigned hist_bucket(uint64_t size)
{
	unsigned l;

	if (size < 4)
		return (unsigned)size;
	l = 63u - (unsigned)__builtin_clzll(size);
	return 4u * (l - 1u) + (unsigned)((size >> (l - 2u)) & 3u);
}

/* The smallest size in bucket b. */
static uint64_t hist_floor(unsigned b)
{
	if (b < 4)
		return b;
	return (uint64_t)(4u + b % 4u) << (b / 4u - 1u);
}

static bool stopped(const struct scan *s)
{
	if (atomic_load_explicit(&s->stop, memory_order_relaxed))
		return true;
	return s->cancel_ext && atomic_load_explicit(s->cancel_ext, memory_order_relaxed);
}

static void set_stop(struct scan *s, int why)
{
	int expected = RUNNING;
	atomic_compare_exchange_strong(&s->stop, &expected, why);
}

static void fail(struct scan *s, int code)
{
	pthread_mutex_lock(&s->lock);
	if (!s->error_code)
		s->error_code = code;
	pthread_mutex_unlock(&s->lock);
	set_stop(s, STOP_ERROR);
}

static struct dnode *dnode_new(int fd, const struct dnode *parent, const char *name)
{
	struct dnode *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->w.kind = WORK_DIR;
	atomic_init(&d->refs, 1);
	d->fd = fd;
	if (parent) {
		d->depth = parent->depth + 1;
		size_t pl = strlen(parent->path);
		bool slash = pl > 0 && parent->path[pl - 1] == '/';
		if (asprintf(&d->path, "%s%s%s", parent->path, slash ? "" : "/", name) < 0)
			d->path = NULL;
	} else {
		d->path = strdup(name);
	}
	if (!d->path) {
		free(d);
		return NULL;
	}
	return d;
}

static void dnode_unref(struct dnode *d)
{
	if (atomic_fetch_sub_explicit(&d->refs, 1, memory_order_acq_rel) != 1)
		return;
	close(d->fd);
	free(d->path);
	free(d);
}

static struct batch *batch_get(struct worker *wk, struct dnode *d)
{
	struct batch *b = wk->spare;
	if (b) {
		wk->spare = NULL;
	} else {
		b = malloc(sizeof(*b));
		if (!b)
			return NULL;
	}
	b->w.kind = WORK_BATCH;
	b->w.next = NULL;
	b->dir = d;
	b->n = 0;
	b->used = 0;
	atomic_fetch_add_explicit(&d->refs, 1, memory_order_relaxed);
	return b;
}

static void batch_put(struct worker *wk, struct batch *b)
{
	dnode_unref(b->dir);
	if (!wk->spare)
		wk->spare = b;
	else
		free(b);
}

static bool batch_add(struct batch *b, unsigned slots, const char *name, unsigned char type)
{
	size_t len = strlen(name) + 1;
	if (b->n >= slots || b->used + len > BATCH_BYTES)
		return false;
	b->off[b->n] = (uint16_t)b->used;
	b->type[b->n] = type;
	memcpy(b->names + b->used, name, len);
	b->used += (unsigned)len;
	b->n++;
	return true;
}

/* Share work unless the stack is full (force: share anyway). */
static bool try_push(struct scan *s, struct work *w, bool force)
{
	pthread_mutex_lock(&s->lock);
	if (!force && s->queued >= s->cap) {
		pthread_mutex_unlock(&s->lock);
		return false;
	}
	w->next = NULL;
	if (!s->head) {
		s->head = s->tail = w;
	} else if (s->fifo) {
		s->tail->next = w;
		s->tail = w;
	} else {
		w->next = s->head;
		s->head = w;
	}
	s->queued++;
	pthread_cond_signal(&s->work_cond);
	pthread_mutex_unlock(&s->lock);
	return true;
}

/* The next work item, or NULL when everything is done. */
static struct work *take(struct scan *s)
{
	pthread_mutex_lock(&s->lock);
	for (;;) {
		if (s->head) {
			struct work *w = s->head;
			s->head = w->next;
			if (!s->head)
				s->tail = NULL;
			s->queued--;
			s->active++;
			pthread_mutex_unlock(&s->lock);
			return w;
		}
		if (s->active == 0) {
			s->finished = true;
			pthread_cond_broadcast(&s->work_cond);
			pthread_cond_signal(&s->done_cond);
			pthread_mutex_unlock(&s->lock);
			return NULL;
		}
		pthread_cond_wait(&s->work_cond, &s->lock);
	}
}

static void done_one(struct scan *s)
{
	pthread_mutex_lock(&s->lock);
	s->active--;
	if (!s->head && s->active == 0)
		pthread_cond_broadcast(&s->work_cond);
	pthread_mutex_unlock(&s->lock);
}

static void release(struct worker *wk, struct work *w)
{
	if (w->kind == WORK_DIR)
		dnode_unref((struct dnode *)w);
	else
		batch_put(wk, (struct batch *)w);
}

static const char *entry_path(struct worker *wk, const struct dnode *d, const char *name)
{
	size_t need = strlen(d->path) + strlen(name) + 2;
	if (need > wk->pathcap) {
		char *grown = realloc(wk->pathbuf, need);
		if (!grown)
			return name;
		wk->pathbuf = grown;
		wk->pathcap = need;
	}
	size_t pl = strlen(d->path);
	bool slash = pl > 0 && d->path[pl - 1] == '/';
	snprintf(wk->pathbuf, wk->pathcap, "%s%s%s", d->path, slash ? "" : "/", name);
	return wk->pathbuf;
}

static void emit(struct worker *wk, const struct jp_scan_item *item)
{
	struct scan *s = wk->s;
	if (!s->item_fn)
		return;
	pthread_mutex_lock(&s->out_lock);
	int r = s->abandoned ? 0 : s->item_fn(item, s->item_payload);
	pthread_mutex_unlock(&s->out_lock);
	if (r < 0)
		set_stop(s, STOP_CANCEL);
}

static void unreadable(struct worker *wk, const char *path, int errnum)
{
	ADD(wk, unreadable, 1);
	struct jp_scan_item it = { JP_SCAN_ITEM_UNREADABLE, path, NULL, 0, errnum, -1 };
	emit(wk, &it);
}

static bool may_read(const struct scan *s, const struct statx *stx)
{
	if (s->euid == 0)
		return true;
	if (stx->stx_uid == s->euid)
		return stx->stx_mode & S_IRUSR;
	bool in_group = stx->stx_gid == s->egid;
	for (int i = 0; !in_group && i < s->ngroups; i++)
		in_group = stx->stx_gid == s->groups[i];
	if (in_group)
		return stx->stx_mode & S_IRGRP;
	return stx->stx_mode & S_IROTH;
}

static void check_link(struct worker *wk, const struct dnode *d, const char *name)
{
	struct scan *s = wk->s;
	char proc[64 + NAME_MAX];
	char real[PATH_MAX];

	if (!s->have_proc || !s->root_real)
		return;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d/%s", d->fd, name);
	if (!realpath(proc, real)) {
		int e = errno;
		if (e == ENOENT || e == ENOTDIR || e == ELOOP) {
			ADD(wk, dangling, 1);
			struct jp_scan_item it = { JP_SCAN_ITEM_LINK_DANGLING,
						   entry_path(wk, d, name), NULL, 0, e, -1 };
			emit(wk, &it);
		} else {
			/* Where it leads cannot be told (EACCES, EPERM...). */
			unreadable(wk, entry_path(wk, d, name), e);
		}
		return;
	}
	if (!jp_path_is_under(real, s->root_real)) {
		ADD(wk, outside, 1);
		struct jp_scan_item it = { JP_SCAN_ITEM_LINK_OUTSIDE, entry_path(wk, d, name),
					   real, 0, 0, -1 };
		emit(wk, &it);
	}
}

static void do_dir(struct worker *wk, struct dnode *d);

/* A directory found while examining names: share it, or list it now. */
static void submit_dir(struct worker *wk, struct dnode *d)
{
	bool force = wk->level > INLINE_MAX;
	if (try_push(wk->s, &d->w, force))
		return;
	do_dir(wk, d);
}

#define STATX_WANT (STATX_TYPE | STATX_MODE | STATX_SIZE | STATX_UID | STATX_GID)

static void examine(struct worker *wk, struct dnode *d, const char *name, unsigned char type)
{
	struct scan *s = wk->s;
	struct statx stx;
	bool have = false;
	/* DONT_SYNC: on FUSE and NFS the lookup just done brought fresh
	 * attributes; asking again would cost a second round trip. */
	const int sflags = AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC;

	/* a temporary of a stage or clone that has not finished (or was
	 * killed): named, and counted with the rest */
	if (strncmp(name, JP_TREECOPY_TMP_PREFIX, sizeof(JP_TREECOPY_TMP_PREFIX) - 1) == 0) {
		struct jp_scan_item it = { JP_SCAN_ITEM_TEMPORARY, entry_path(wk, d, name), NULL, 0,
					   0, -1 };

		ADD(wk, temps, 1);
		emit(wk, &it);
	}
	if (type == DT_UNKNOWN) {
		if (statx(d->fd, name, sflags, STATX_WANT, &stx) < 0) {
			if (errno != ENOENT)
				unreadable(wk, entry_path(wk, d, name), errno);
			return;
		}
		have = true;
		type = (unsigned char)IFTODT(stx.stx_mode);
	}
	switch (type) {
	case DT_DIR: {
		ADD(wk, dirs, 1);
		int fd = openat(d->fd, name,
				O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
		if (fd < 0) {
			if (errno != ENOENT)
				unreadable(wk, entry_path(wk, d, name), errno);
			return;
		}
		struct dnode *c = dnode_new(fd, d, name);
		if (!c) {
			close(fd);
			fail(s, JP_ENOMEM);
			return;
		}
		submit_dir(wk, c);
		return;
	}
	case DT_REG:
		if (!have && statx(d->fd, name, sflags, STATX_WANT, &stx) < 0) {
			if (errno != ENOENT)
				unreadable(wk, entry_path(wk, d, name), errno);
			return;
		}
		if (!S_ISREG(stx.stx_mode)) {
			ADD(wk, others, 1);
			return;
		}
		ADD(wk, files, 1);
		ADD(wk, bytes, stx.stx_size);
		ADD(wk, hist[hist_bucket(stx.stx_size)], 1);
		if (!may_read(s, &stx))
			unreadable(wk, entry_path(wk, d, name), EACCES);
		if (jp_scan_is_archive_name(name)) {
			ADD(wk, archives, 1);
			ADD(wk, archive_bytes, stx.stx_size);
			struct jp_scan_item it = { JP_SCAN_ITEM_ARCHIVE, entry_path(wk, d, name),
						   NULL, stx.stx_size, 0, -1 };
			emit(wk, &it);
		}
		return;
	case DT_LNK:
		ADD(wk, symlinks, 1);
		check_link(wk, d, name);
		return;
	default:
		ADD(wk, others, 1);
		return;
	}
}

static void do_batch(struct worker *wk, struct batch *b)
{
	struct scan *s = wk->s;
	unsigned i;
	for (i = 0; i < b->n && !stopped(s); i++)
		examine(wk, b->dir, b->names + b->off[i], b->type[i]);
	batch_put(wk, b);
	if (s->budget && atomic_fetch_add_explicit(&s->examined, i, memory_order_relaxed) + i >=
				 s->budget)
		set_stop(s, STOP_BUDGET);
}

static void submit_batch(struct worker *wk, struct batch *b)
{
	if (try_push(wk->s, &b->w, false))
		return;
	do_batch(wk, b);
}

static void set_what(struct worker *wk, const char *path)
{
	pthread_mutex_lock(&wk->what_lock);
	snprintf(wk->what, sizeof(wk->what), "%s", path);
	pthread_mutex_unlock(&wk->what_lock);
}

static void do_dir(struct worker *wk, struct dnode *d)
{
	struct scan *s = wk->s;
	unsigned lvl = wk->level < INLINE_MAX + 1 ? wk->level : INLINE_MAX + 1;
	size_t size = lvl == 0 ? DENTS_TOP_BYTES : DENTS_BYTES;
	struct batch *b = NULL;

	if (!wk->bufs[lvl]) {
		wk->bufs[lvl] = malloc(size);
		if (!wk->bufs[lvl]) {
			fail(s, JP_ENOMEM);
			dnode_unref(d);
			return;
		}
	}
	char *buf = wk->bufs[lvl];
	wk->level++;
	if (lvl == 0)
		set_what(wk, d->path);
	if (d->depth == 0)
		ADD(wk, dirs, 1);
	while (!stopped(s)) {
		ssize_t n = getdents64(d->fd, buf, size);
		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			unreadable(wk, d->path, errno);
			break;
		}
		for (ssize_t off = 0; off < n;) {
			struct dirent64 *de = (struct dirent64 *)(buf + off);
			off += de->d_reclen;
			const char *name = de->d_name;
			if (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2])))
				continue;
			if (d->depth == 0)
				ADD(wk, top, 1);
			if (!b) {
				b = batch_get(wk, d);
				if (!b) {
					fail(s, JP_ENOMEM);
					goto out;
				}
			}
			if (!batch_add(b, s->batch_slots, name, de->d_type)) {
				submit_batch(wk, b);
				b = batch_get(wk, d);
				if (!b) {
					fail(s, JP_ENOMEM);
					goto out;
				}
				batch_add(b, s->batch_slots, name, de->d_type);
			}
		}
	}
out:
	/* The last batch is done here: no hand-over for small directories. */
	if (b)
		do_batch(wk, b);
	wk->level--;
	dnode_unref(d);
}

static void scan_free(struct scan *s)
{
	struct work *w;
	while ((w = s->head)) {
		s->head = w->next;
		if (w->kind == WORK_DIR)
			dnode_unref((struct dnode *)w);
		else {
			struct batch *b = (struct batch *)w;
			dnode_unref(b->dir);
			free(b);
		}
	}
	if (s->workers) {
		for (unsigned i = 0; i < s->nthreads; i++) {
			struct worker *wk = &s->workers[i];
			for (size_t j = 0; j < sizeof(wk->bufs) / sizeof(wk->bufs[0]); j++)
				free(wk->bufs[j]);
			free(wk->pathbuf);
			free(wk->spare);
			pthread_mutex_destroy(&wk->what_lock);
		}
		free(s->workers);
	}
	pthread_mutex_destroy(&s->lock);
	pthread_mutex_destroy(&s->out_lock);
	pthread_cond_destroy(&s->work_cond);
	pthread_cond_destroy(&s->done_cond);
	free(s->root_real);
	free(s->groups);
	free(s);
}

static void scan_release(struct scan *s)
{
	if (atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) == 1)
		scan_free(s);
}

static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	struct scan *s = wk->s;
	struct work *w;

	while ((w = take(s))) {
		if (stopped(s))
			release(wk, w);
		else if (w->kind == WORK_DIR)
			do_dir(wk, (struct dnode *)w);
		else
			do_batch(wk, (struct batch *)w);
		done_one(s);
	}
	scan_release(s);
	return NULL;
}

/* The median file size (the smallest size of its bucket) and the files
 * below JP_SCAN_SMALL_BYTES, from the buckets. */
static void sizes(struct jp_scan_result *r, const uint64_t *hist)
{
	uint64_t seen = 0, middle = r->stats.files ? (r->stats.files - 1) / 2 : 0;
	bool found = false;

	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		if (hist_floor(b) < JP_SCAN_SMALL_BYTES)
			r->small_files += hist[b];
		seen += hist[b];
		if (!found && r->stats.files && seen > middle) {
			r->median_bytes = hist_floor(b);
			found = true;
		}
	}
}

static void sum(struct jp_scan_result *r, const struct scan *s)
{
	uint64_t hist[HIST_BUCKETS] = { 0 };

#define GET(wk, f) atomic_load_explicit(&(wk)->c.f, memory_order_relaxed)
	for (unsigned i = 0; i < s->nthreads; i++) {
		const struct worker *wk = &s->workers[i];
		r->stats.files += GET(wk, files);
		r->stats.bytes += GET(wk, bytes);
		r->stats.archives += GET(wk, archives);
		r->archive_bytes += GET(wk, archive_bytes);
		r->dirs += GET(wk, dirs);
		r->symlinks += GET(wk, symlinks);
		r->symlinks_outside += GET(wk, outside);
		r->symlinks_dangling += GET(wk, dangling);
		r->unreadable += GET(wk, unreadable);
		r->others += GET(wk, others);
		r->top_entries += GET(wk, top);
		r->temporaries += GET(wk, temps);
		for (unsigned b = 0; b < HIST_BUCKETS; b++)
			hist[b] += GET(wk, hist[b]);
	}
#undef GET
	sizes(r, hist);
}

/* Entries counted so far, by every thread: it moves while the walk does. */
static uint64_t entries_seen(const struct scan *s)
{
	struct jp_scan_result r;

	memset(&r, 0, sizeof(r));
	sum(&r, s);
	return r.stats.files + r.dirs + r.symlinks + r.others + r.unreadable;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static unsigned auto_threads(bool network)
{
	if (network)
		return THREADS_NET;
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		n = 1;
	n *= 2;
	return n < 2 ? 2 : n > 16 ? 16 : (unsigned)n;
}

/* A single file given as the data set. */
static int scan_file(struct jp_scan_result *out, const char *path, const struct statx *sx,
		     const struct jp_scan_output *o, struct jp_error *err)
{
	struct statx stx = *sx;
	if (S_ISREG(stx.stx_mode)) {
		out->stats.files = 1;
		out->stats.bytes = stx.stx_size;
		out->median_bytes = stx.stx_size;
		out->small_files = stx.stx_size < JP_SCAN_SMALL_BYTES;
		const char *base = strrchr(path, '/');
		if (jp_scan_is_archive_name(base ? base + 1 : path)) {
			out->stats.archives = 1;
			out->archive_bytes = stx.stx_size;
			if (o && o->item) {
				struct jp_scan_item it = { JP_SCAN_ITEM_ARCHIVE, path, NULL,
							   stx.stx_size, 0, -1 };
				if (o->item(&it, o->payload) < 0)
					return jp_error_set(err, JP_ECANCELED, _("%s: scan cancelled"),
							    path);
			}
		}
	} else {
		out->others = 1;
	}
	out->complete = true;
	return 0;
}

static void progress(const struct jp_port *port, struct scan *s, const char *path, double t0,
		     enum jp_phase phase)
{
	struct jp_scan_result now;
	char what[256] = "";
	memset(&now, 0, sizeof(now));
	sum(&now, s);
	for (unsigned i = 0; i < s->nthreads && !what[0]; i++) {
		pthread_mutex_lock(&s->workers[i].what_lock);
		memcpy(what, s->workers[i].what, sizeof(what));
		pthread_mutex_unlock(&s->workers[i].what_lock);
	}
	double dt = now_s() - t0;
	uint64_t entries = now.stats.files + now.dirs + now.symlinks + now.others;
	struct jp_progress p = { phase,
				 entries,
				 phase == JP_PHASE_DONE ? entries : 0,
				 now.stats.bytes,
				 0,
				 dt > 0 ? (double)now.stats.bytes / dt : 0,
				 what[0] ? what : path };
	if (port->progress(&p, port->payload) < 0)
		set_stop(s, STOP_CANCEL);
}

/* Keep open descriptors within RLIMIT_NOFILE: each thread may hold its
 * inline nesting, the stack one per shared directory. Returns the stack's
 * capacity and may lower *nthreads. */
static size_t fd_budget(unsigned *nthreads)
{
	struct rlimit rl;
	long budget = 1024;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
		budget = rl.rlim_cur == RLIM_INFINITY ? 1L << 20 : (long)rl.rlim_cur;
	budget -= 64;
	while (*nthreads > 1 && budget - (long)*nthreads * (INLINE_MAX + 2) < 32)
		*nthreads /= 2;
	long cap = (budget - (long)*nthreads * (INLINE_MAX + 2)) / 2;
	return cap < 8 ? 8 : cap > QUEUE_CAP_MAX ? QUEUE_CAP_MAX : (size_t)cap;
}

/* The first look at the top (open, statfs, realpath). jp_scan_now runs in
 * a helper (scan_bounded.c): a hung mount holds that process, which its
 * caller gives up, never the caller. */
struct first_look {
	int fd;          /* the top directory, or -1 */
	char *root_real; /* its real path */
	bool network, is_file;
	int open_errno, stat_errno;
	struct statx stx;
};

static void first_look(struct first_look *fl, const char *path)
{
	memset(fl, 0, sizeof(*fl));
	fl->fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY);
	fl->open_errno = fl->fd < 0 ? errno : 0;
	if (fl->fd < 0 && fl->open_errno == ENOTDIR) {
		fl->is_file = true;
		if (statx(AT_FDCWD, path, 0, STATX_WANT, &fl->stx) < 0)
			fl->stat_errno = errno;
	}
	if (fl->fd >= 0) {
		struct statfs sfs;
		if (fstatfs(fl->fd, &sfs) == 0) {
			bool known;
			enum jp_fs_kind k = jp_fs_kind_of_magic((int64_t)sfs.f_type, &known, NULL);
			/* FUSE is unknown to statfs: treat it as remote, like sshfs. */
			fl->network = k == JP_FS_NETWORK || (uint32_t)sfs.f_type == 0x65735546u;
		}
		fl->root_real = realpath(path, NULL);
	}
}

static bool cancel_requested(struct scan *s, const struct jp_port *port)
{
	return (s->cancel_ext && atomic_load(s->cancel_ext)) ||
	       (port && port->cancelled && port->cancelled(port->payload));
}

/* Watch a running scan until it finishes, or stops and its threads have
 * had STOP_GRACE_MS to notice: progress, cancellation, a quick look's time,
 * and a stall (nothing at all answering for the probe timeout is a hung
 * mount, not a slow one). Returns true when the threads are to be left
 * behind. */
static bool watch(struct scan *s, const struct jp_port *port, const char *path, double t0,
		  unsigned progress_ms, unsigned quick_ms)
{
	double next_progress = t0 + progress_ms / 1000.0;
	double stop_seen = 0;
	unsigned stall_ms = jp_probe_default_timeout_ms();
	uint64_t seen = 0;
	double seen_at = t0;
	bool abandon = false;

	if (port)
		progress(port, s, path, t0, JP_PHASE_SCAN);
	pthread_mutex_lock(&s->lock);
	while (!s->finished) {
		struct timespec ts;
		deadline_after_ms(&ts, CLOCK_MONOTONIC, TICK_MS);
		pthread_cond_timedwait(&s->done_cond, &s->lock, &ts);
		if (s->finished)
			break;
		pthread_mutex_unlock(&s->lock);
		double t = now_s();
		if (cancel_requested(s, port))
			set_stop(s, STOP_CANCEL);
		if (s->fifo && (t - t0) * 1000.0 >= quick_ms)
			set_stop(s, STOP_BUDGET);
		uint64_t now_seen = entries_seen(s);
		if (now_seen != seen) {
			seen = now_seen;
			seen_at = t;
		} else if ((t - seen_at) * 1000.0 >= stall_ms) {
			set_stop(s, STOP_STALL);
		}
		if (port && t >= next_progress && !atomic_load(&s->stop)) {
			progress(port, s, path, t0, JP_PHASE_SCAN);
			next_progress = t + progress_ms / 1000.0;
		}
		if (atomic_load(&s->stop)) {
			if (!stop_seen) {
				stop_seen = t;
			} else if ((t - stop_seen) * 1000.0 >= STOP_GRACE_MS) {
				abandon = true;
				pthread_mutex_lock(&s->lock);
				break;
			}
		}
		pthread_mutex_lock(&s->lock);
	}
	pthread_mutex_unlock(&s->lock);
	return abandon;
}

/* A new scan of the tree whose real path is root_real (the scan owns it),
 * its locks and counters ready, no workers yet; *nthreads cut to what the
 * descriptors allow. NULL when out of memory (root_real is then freed). */
static struct scan *scan_new(const struct jp_scan_opts *o, bool network, unsigned *nthreads,
			     const struct jp_scan_output *output, char *root_real)
{
	struct scan *s = calloc(1, sizeof(*s));
	pthread_condattr_t ca;
	int ng;

	if (!s) {
		free(root_real);
		return NULL;
	}
	s->cap = fd_budget(nthreads);
	s->fifo = o->mode == JP_SCAN_QUICK;
	s->budget = o->mode == JP_SCAN_QUICK
			    ? (o->quick_entries ? o->quick_entries : DEFAULT_QUICK_ENTRIES)
			    : 0;
	s->batch_slots = network ? BATCH_SLOTS_NET : BATCH_SLOTS;
	s->cancel_ext = o->cancel;
	if (output) {
		s->item_fn = output->item;
		s->item_payload = output->payload;
	}
	atomic_init(&s->stop, RUNNING);
	atomic_init(&s->examined, 0);
	atomic_init(&s->refs, 1);
	s->root_real = root_real;
	s->have_proc = access("/proc/self/fd", X_OK) == 0;
	s->euid = geteuid();
	s->egid = getegid();
	ng = getgroups(0, NULL);
	if (ng > 0) {
		s->groups = calloc((size_t)ng, sizeof(*s->groups));
		if (s->groups)
			s->ngroups = getgroups(ng, s->groups);
		if (s->ngroups < 0)
			s->ngroups = 0;
	}
	pthread_mutex_init(&s->lock, NULL);
	pthread_mutex_init(&s->out_lock, NULL);
	pthread_cond_init(&s->work_cond, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->done_cond, &ca);
	pthread_condattr_destroy(&ca);
	return s;
}

/* s->workers for nthreads, each knowing s. 0, or -1 when out of memory. */
static int scan_alloc_workers(struct scan *s, unsigned nthreads)
{
	size_t wsize = ((nthreads * sizeof(*s->workers)) + 63) & ~(size_t)63;

	s->workers = aligned_alloc(64, wsize);
	if (!s->workers)
		return -1;
	memset(s->workers, 0, wsize);
	s->nthreads = nthreads;
	for (unsigned i = 0; i < nthreads; i++) {
		s->workers[i].s = s;
		pthread_mutex_init(&s->workers[i].what_lock, NULL);
	}
	return 0;
}

/* Start the workers, every signal blocked in them; with none started, do
 * the work on this thread. The threads that worked. */
static unsigned start_workers(struct scan *s)
{
	pthread_attr_t ta;
	sigset_t all, old;
	unsigned started = 0;

	pthread_attr_init(&ta);
	pthread_attr_setstacksize(&ta, 256 * 1024);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (unsigned i = 0; i < s->nthreads; i++) {
		atomic_fetch_add(&s->refs, 1);
		if (pthread_create(&s->workers[i].tid, &ta, worker_main, &s->workers[i]) == 0) {
			s->workers[i].started = true;
			started++;
		} else {
			atomic_fetch_sub(&s->refs, 1);
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&ta);
	if (!started) {
		/* Nobody to do the work: do it on this thread. */
		atomic_fetch_add(&s->refs, 1);
		worker_main(&s->workers[0]);
		return 1;
	}
	return started;
}

/* Wait for the workers; a thread stuck in a hung file system (abandon) is
 * left behind, detached. */
static void finish_workers(struct scan *s, bool abandon)
{
	if (abandon) {
		pthread_mutex_lock(&s->out_lock);
		s->abandoned = true;
		pthread_mutex_unlock(&s->out_lock);
	}
	for (unsigned i = 0; i < s->nthreads; i++) {
		if (!s->workers[i].started)
			continue;
		if (abandon)
			pthread_detach(s->workers[i].tid);
		else
			pthread_join(s->workers[i].tid, NULL);
	}
}

/* Why the scan stopped, as jp_scan's result: 0 when it finished. */
static int scan_verdict(struct scan *s, struct jp_scan_result *out, const char *path,
			struct jp_error *err)
{
	int why = atomic_load(&s->stop);

	if (why == RUNNING && s->cancel_ext && atomic_load(s->cancel_ext))
		why = STOP_CANCEL;
	out->complete = why == RUNNING;
	if (why == STOP_ERROR) {
		pthread_mutex_lock(&s->lock);
		int code = s->error_code ? s->error_code : JP_EINTERNAL;
		pthread_mutex_unlock(&s->lock);
		return jp_error_set(err, code, _("%s: %s"), path, jp_strerror(code));
	}
	if (why == STOP_CANCEL)
		return jp_error_set(err, JP_ECANCELED, _("%s: scan cancelled"), path);
	if (why == STOP_STALL) {
		unsigned stall_ms = jp_probe_default_timeout_ms();
		return jp_error_set(err, JP_ETIMEOUT,
				    _("%s: no answer within %u.%u s (is a network mount hung?)"), path,
				    stall_ms / 1000, (stall_ms % 1000) / 100);
	}
	return 0;
}

int jp_scan_now(struct jp_scan_result *out, const char *path, const struct jp_scan_opts *opts,
		const struct jp_scan_output *output, const struct jp_port *port,
		struct jp_error *err)
{
	struct jp_scan_opts o = JP_SCAN_OPTS_INIT;
	struct first_look fl;
	struct scan *s = NULL;
	struct dnode *root = NULL;
	int rc = 0;
	double t0 = now_s();

	memset(out, 0, sizeof(*out));
	if (opts)
		o = *opts;
	if (!path || !*path)
		return jp_error_set(err, JP_EUSAGE, "%s", _("empty path"));
	if (port && !port->progress)
		port = NULL;
	unsigned progress_ms = o.progress_ms ? o.progress_ms : DEFAULT_PROGRESS_MS;
	unsigned quick_ms = o.quick_ms ? o.quick_ms : DEFAULT_QUICK_MS;

	if (port && port->progress) {
		struct jp_progress pr = {JP_PHASE_SCAN, 0, 0, 0, 0, 0, path};
		if (port->progress(&pr, port->payload) < 0)
			return jp_error_set(err, JP_ECANCELED, _("%s: scan cancelled"), path);
	}
	first_look(&fl, path);
	if (fl.fd < 0) {
		free(fl.root_real);
		int e = fl.is_file ? fl.stat_errno : fl.open_errno;
		if (fl.is_file && !e) {
			rc = scan_file(out, path, &fl.stx, output, err);
			out->seconds = now_s() - t0;
			return rc;
		}
		return jp_error_set(err, e == ENOENT ? JP_ENOENT : JP_EIO, _("%s: %s"), path,
				    strerror(e));
	}

	unsigned nthreads = o.threads ? o.threads : auto_threads(fl.network);
	if (nthreads > THREADS_MAX)
		nthreads = THREADS_MAX;
	s = scan_new(&o, fl.network, &nthreads, output, fl.root_real);
	if (!s) {
		close(fl.fd);
		return jp_error_oom(err);
	}
	if (scan_alloc_workers(s, nthreads) < 0 || !(root = dnode_new(fl.fd, NULL, path))) {
		rc = jp_error_oom(err);
		goto out;
	}
	fl.fd = -1;
	try_push(s, &root->w, true);
	root = NULL;
	out->threads = start_workers(s);

	/* Watch: progress, cancellation, a quick look's time, a stall. Once
	 * stopped, wait a little for the threads. */
	finish_workers(s, watch(s, port, path, t0, progress_ms, quick_ms));
	sum(out, s);
	out->seconds = now_s() - t0;
	rc = scan_verdict(s, out, path, err);
	if (port && rc == 0)
		progress(port, s, path, t0, JP_PHASE_DONE);
out:
	if (fl.fd >= 0)
		close(fl.fd);
	scan_release(s);
	return rc;
}
