/* Parallel tree copy (and removal) for network filesystems: walk the source
 * once on local disk, create directories level by level, then hand files and
 * symlinks to a pool of writers, biggest files first. The calling thread
 * only reports progress and watches for a cancel. */
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
#include "jobprep/stage.h"
#include "jobprep/units.h"
#include "treecopy.h"
#include "treecopy_internal.h"
#include "deadline_internal.h"

#define DEFAULT_THREADS JP_STAGE_JOBS_DEFAULT
#define MAX_THREADS JP_STAGE_JOBS_MAX
#define BUF_SIZE (1 << 20)
#define TICK_NS 50000000L
#define PROGRESS_NS 100000000ULL

enum kind { K_DIR, K_FILE, K_LINK };

struct item {
	char *rel;
	const char *base; /* last component, inside rel */
	ssize_t parent;   /* index of the parent directory's item; -1: the top */
	mode_t mode;
	off_t size;
	struct timespec atime, mtime;
	unsigned depth;
	enum kind kind;
	bool fresh; /* a directory this run made: empty but for what it puts */
	bool other; /* another shard's file */
};

struct ctx {
	int src_fd, dst_fd;
	struct item *v;
	size_t n, cap;
	unsigned max_depth;
	mode_t umask;
	bool record;
	struct stat *stats; /* per item, with record */
	/* Created directories held open (O_PATH), so a file is created with
	 * one lookup, not one per path component: on an uncached network
	 * filesystem each is a round trip. -1 when not held. */
	int *dfd;
	const char *const *skip;
	const char *skip_suffix;
	bool dst_exists;
	bool stage, verify;
	/* With stage, a dst not there yet is written whole into tree_tmp
	 * (".jobprep-tmp-stage-NAME" beside it), renamed to dst at the end. */
	char *tree_tmp;
	bool top_fresh;
	unsigned stage_flags; /* JP_TC_* for every entry */
	unsigned shard, shards;
	const struct jp_treecopy_result *already; /* copied by a stream */
	atomic_size_t skipped;
	atomic_uint_fast64_t skipped_bytes;
	char **outside; /* with stage: symlinks leaving the tree */
	size_t n_outside;
	/* the phase running */
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
		snprintf(c->err_msg, sizeof(c->err_msg), "%s: %s", rel, strerror(e));
	}
	pthread_mutex_unlock(&c->lock);
	atomic_store(&c->stop, true);
}

static int push(struct ctx *c, const char *rel, const struct stat *st, unsigned depth,
		enum kind k, ssize_t parent)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 1024;
		struct item *v = realloc(c->v, cap * sizeof(*v));

		if (!v)
			return JP_ENOMEM;
		c->v = v;
		c->cap = cap;
	}
	if (!(c->v[c->n].rel = strdup(rel)))
		return JP_ENOMEM;
	const char *slash = strrchr(c->v[c->n].rel, '/');
	c->v[c->n].base = slash ? slash + 1 : c->v[c->n].rel;
	c->v[c->n].parent = parent;
	c->v[c->n].mode = st->st_mode;
	c->v[c->n].size = st->st_size;
	c->v[c->n].atime = st->st_atim;
	c->v[c->n].mtime = st->st_mtim;
	c->v[c->n].depth = depth;
	c->v[c->n].kind = k;
	c->v[c->n].fresh = false;
	c->v[c->n].other = false;
	c->n++;
	if (depth > c->max_depth)
		c->max_depth = depth;
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

/* Walk the source below rel (a directory, "" for the top; self is its
 * item, -1 for the top). */
static int walk(struct ctx *c, const char *rel, ssize_t self, unsigned depth,
		struct jp_error *err)
{
	int fd = rel[0] ? openat(c->src_fd, rel, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
			: dup(c->src_fd);
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
			if ((rc = push(c, child, &st, depth + 1, K_DIR, self)) != 0 ||
			    (rc = walk(c, child, (ssize_t)c->n - 1, depth + 1, err)) != 0)
				break;
		} else if (S_ISREG(st.st_mode) && !already_done(c, child)) {
			if ((rc = push(c, child, &st, depth + 1, K_FILE, self)) != 0)
				break;
		} else if (S_ISLNK(st.st_mode) && !already_done(c, child)) {
			if ((rc = push(c, child, &st, depth + 1, K_LINK, self)) != 0 ||
			    (c->stage && (rc = note_link(c, dirfd(d), de->d_name, child)) != 0))
				break;
		}
		/* sockets, fifos, devices: nothing a checkout makes */
	}
	closedir(d);
	if (rc == JP_ENOMEM)
		jp_error_oom(err);
	return rc;
}

/* Where to create an item: its parent's held descriptor and its own name,
 * or the top's descriptor and its whole relative path. */
static int dst_at(const struct ctx *c, const struct item *it, const char **name)
{
	if (c->dfd && it->parent >= 0 && c->dfd[it->parent] >= 0) {
		*name = it->base;
		return c->dfd[it->parent];
	}
	*name = it->rel;
	return c->dst_fd;
}

static int do_mkdir(struct ctx *c, struct item *it, size_t idx, char *buf)
{
	const char *name;
	int at = dst_at(c, it, &name);

	(void)buf;
	if (mkdirat(at, name, (it->mode & 07777) | S_IRWXU) == 0) {
		it->fresh = true;
	} else {
		struct stat st;

		if (!(errno == EEXIST && c->dst_exists)) {
			fail(c, 0, it->rel, errno);
			return -1;
		}
		/* Never into what is there unless it is a folder: a symlink
		 * there would lead the copy out of dst. */
		if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode)) {
			fail(c, 0, it->rel, ENOTDIR);
			return -1;
		}
	}
	if (c->dfd)
		c->dfd[idx] = openat(at, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return 0;
}

static int do_stage(struct ctx *c, struct item *it, char *buf)
{
	const char *name;
	int at = dst_at(c, it, &name);
	enum jp_tc_staged what;
	struct stat sst;
	bool fresh = it->parent >= 0 ? c->v[it->parent].fresh : c->top_fresh;

	memset(&sst, 0, sizeof(sst));
	sst.st_mode = it->mode;
	sst.st_size = it->size;
	sst.st_atim = it->atime;
	sst.st_mtim = it->mtime;
	if (jp_tc_stage_entry(c->src_fd, it->rel, &sst, at, name, c->verify,
			      c->stage_flags | (fresh ? JP_TC_FRESH : 0), c->umask, buf, BUF_SIZE,
			      &c->bytes, &c->stop, &what) != 0) {
		if (errno != ECANCELED)
			fail(c, 0, it->rel, errno);
		return -1;
	}
	if (what == JP_TC_SKIPPED) {
		atomic_fetch_add(&c->skipped, 1);
		atomic_fetch_add(&c->skipped_bytes, (uint_fast64_t)(it->kind == K_FILE ? it->size : 0));
	}
	return 0;
}

static int do_copy(struct ctx *c, struct item *it, size_t idx, char *buf)
{
	const char *name;
	int at = dst_at(c, it, &name);

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

static void *worker(void *arg)
{
	struct ctx *c = arg;
	char *buf = malloc(BUF_SIZE);

	if (!buf) {
		fail(c, JP_ENOMEM, "copy", ENOMEM);
		return NULL;
	}
	while (!atomic_load(&c->stop)) {
		size_t i = atomic_fetch_add(&c->next, 1);

		if (i >= c->n_order)
			break;
		if (c->fn(c, &c->v[c->order[i]], c->order[i], buf) != 0)
			break;
		atomic_fetch_add(&c->done, 1);
	}
	free(buf);
	pthread_mutex_lock(&c->lock);
	if (--c->running == 0)
		pthread_cond_signal(&c->idle);
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

struct progress_state {
	const struct jp_port *port;
	uint64_t t_last, t_start;
	uint64_t done_before, total;
	bool canceled;
};

static void report(struct progress_state *ps, struct ctx *c, bool force)
{
	struct jp_progress p;
	uint64_t now = jp_now_ns();
	double secs;

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
	secs = (double)(now - ps->t_start) / 1e9;
	p.phase = JP_PHASE_COPY;
	p.done = ps->done_before + atomic_load(&c->done);
	p.total = ps->total;
	p.bytes = atomic_load(&c->bytes);
	p.rate = secs > 0.2 ? (double)p.bytes / secs : 0;
	p.what = NULL;
	if (ps->port->progress(&p, ps->port->payload) < 0) {
		ps->canceled = true;
		atomic_store(&c->stop, true);
	}
}

/* Run c->fn over c->order with n threads; the caller's thread reports. */
static int run_phase(struct ctx *c, unsigned threads, struct progress_state *ps)
{
	pthread_t tid[MAX_THREADS];
	unsigned started = 0;

	atomic_store(&c->next, 0);
	atomic_store(&c->done, 0);
	if (c->n_order == 0)
		return 0;
	if (threads > c->n_order)
		threads = (unsigned)c->n_order;
	pthread_mutex_lock(&c->lock);
	c->running = threads;
	for (unsigned i = 0; i < threads; i++) {
		if (pthread_create(&tid[started], NULL, worker, c) != 0)
			break;
		started++;
	}
	c->running = started;
	pthread_mutex_unlock(&c->lock);
	if (started == 0) {
		c->running = 1;
		worker(c);
	}
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
	for (unsigned i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
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
	uint64_t need = 0, avail;
	char *slash;

	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].kind == K_FILE)
			need += (uint64_t)c->v[i].size;
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

/* With stage: directories get the source's mtimes back, deepest first
 * (writing into a folder changed its mtime). */
static int restore_dir_times(struct ctx *c, const struct stat *top, const char *dst)
{
	for (unsigned depth = c->max_depth; depth >= 1; depth--)
		for (size_t i = 0; i < c->n; i++) {
			struct timespec t[2] = { c->v[i].atime, c->v[i].mtime };

			if (c->v[i].kind != K_DIR || c->v[i].depth != depth)
				continue;
			if (utimensat(c->dst_fd, c->v[i].rel, t, AT_SYMLINK_NOFOLLOW) != 0) {
				fail(c, 0, c->v[i].rel, errno);
				return c->err_code;
			}
		}
	struct timespec t[2] = { top->st_atim, top->st_mtim };
	if (futimens(c->dst_fd, t) != 0) {
		fail(c, 0, dst, errno);
		return c->err_code;
	}
	return 0;
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
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->idle, NULL);
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
}

static void ctx_free(struct ctx *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].rel);
		if (c->dfd && c->dfd[i] >= 0)
			close(c->dfd[i]);
	}
	free(c->dfd);
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
}

/* Hold the directories open if they fit well within the limit on open
 * files; otherwise create by path. */
static void hold_dirs(struct ctx *c)
{
	struct rlimit rl;
	size_t ndirs = 0;

	for (size_t i = 0; i < c->n; i++)
		ndirs += c->v[i].kind == K_DIR;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    ndirs + 256 < rl.rlim_cur / 2 && (c->dfd = malloc((c->n + 1) * sizeof(int)))) {
		for (size_t i = 0; i <= c->n; i++)
			c->dfd[i] = -1;
	}
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
		if (c->v[i].kind != K_DIR)
			c->v[i].other = where[k++] != c->shard;
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
				    "%s: %s", c->tree_tmp, strerror(errno));
	if (rename(c->tree_tmp, dst) != 0)
		return jp_error_set(err, JP_EIO, _("%s: cannot create: %s"), dst, strerror(errno));
	return 0;
}

/* Walk the source, check the room, make dst and open both tops. */
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
	if ((rc = walk(c, "", -1, 0, err)) != 0 || (rc = mark_shard(c, err)) != 0)
		return rc;
	/* A staging run onto an existing dst may need little more room. */
	exists = lstat(dst, &sb) == 0;
	if (!(c->stage && exists) && (rc = check_room(c, dst, err)) != 0)
		return rc;
	if (c->stage && !exists && !c->shards && (rc = tree_tmp_path(c, dst, err)) != 0)
		return rc;
	make = c->tree_tmp ? c->tree_tmp : dst;
	if (mkdir(make, (top->st_mode & 07777) | S_IRWXU) == 0) {
		c->top_fresh = true;
	} else if (!(errno == EEXIST && c->dst_exists)) {
		int e = errno;
		return jp_error_set(err, e == ENOSPC ? JP_ENOSPC : JP_EIO, _("%s: cannot create: %s"),
				    make, strerror(e));
	}
	c->dst_fd = open(make, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (c->dst_fd < 0)
		return jp_error_set(err, JP_EIO, _("%s: cannot open: %s"), make, strerror(errno));
	/* No fsync per file where it is a round trip (network storage), nor in
	 * a whole-tree temporary (flushed once before its rename). */
	if (c->tree_tmp)
		c->stage_flags |= JP_TC_INPLACE | JP_TC_NOSYNC;
	if (c->stage && jp_tc_on_network(c->dst_fd))
		c->stage_flags |= JP_TC_NOSYNC;
	if (c->stage && jp_tc_on_fuse(c->dst_fd))
		c->stage_flags |= JP_TC_QUICKSTAT;
	if (!(c->order = malloc((c->n + 1) * sizeof(*c->order))) ||
	    (c->record && !(c->stats = calloc(c->n + 1, sizeof(*c->stats)))))
		return jp_error_oom(err);
	hold_dirs(c);
	return 0;
}

/* Directories level by level, then files and symlinks, then the
 * directories' own modes (and with stage, times). */
static int copy_all(struct ctx *c, unsigned threads, struct progress_state *ps,
		    const struct stat *top, const char *dst)
{
	int rc = 0;

	/* Directories, one depth at a time: a level's parents exist. */
	c->fn = do_mkdir;
	for (unsigned depth = 1; depth <= c->max_depth && rc == 0; depth++) {
		c->n_order = 0;
		for (size_t i = 0; i < c->n; i++)
			if (c->v[i].kind == K_DIR && c->v[i].depth == depth)
				c->order[c->n_order++] = i;
		rc = run_phase(c, threads, ps);
	}
	/* Files and symlinks, the biggest first so no writer is left with a
	 * large file at the end. */
	if (rc == 0) {
		c->fn = do_copy;
		c->n_order = 0;
		for (size_t i = 0; i < c->n; i++)
			if (c->v[i].kind != K_DIR && !c->v[i].other)
				c->order[c->n_order++] = i;
		qsort_r(c->order, c->n_order, sizeof(*c->order), by_size_desc, c->v);
		rc = run_phase(c, threads, ps);
	}
	/* Directories created writable for us get their own modes back. */
	for (size_t i = 0; rc == 0 && i < c->n; i++) {
		mode_t m = c->v[i].mode & 07777;

		if (c->v[i].kind == K_DIR && ((m | S_IRWXU) & ~c->umask) != m &&
		    fchmodat(c->dst_fd, c->v[i].rel, m, 0) != 0)
			fail(c, 0, c->v[i].rel, errno), rc = c->err_code;
	}
	if (rc == 0 && (((top->st_mode & 07777) | S_IRWXU) & ~c->umask) != (top->st_mode & 07777) &&
	    fchmod(c->dst_fd, top->st_mode & 07777) != 0)
		fail(c, 0, dst, errno), rc = c->err_code;
	if (rc == 0 && c->stage)
		rc = restore_dir_times(c, top, dst);
	return rc;
}

static int fill_result(struct ctx *c, struct jp_treecopy_result *out, struct jp_error *err)
{
	for (size_t i = 0; i < c->n; i++) {
		if (c->v[i].other)
			continue;
		if (c->v[i].kind == K_DIR)
			out->dirs++;
		else if (c->v[i].kind == K_LINK)
			out->symlinks++;
		else
			out->files++;
	}
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

int jp_treecopy(struct jp_treecopy_result *out, const char *src, const char *dst,
		const struct jp_treecopy_options *opts, const struct jp_port *port,
		struct jp_error *err)
{
	struct ctx c;
	struct progress_state ps = { port, 0, jp_now_ns(), 0, 0, false };
	unsigned threads = opts && opts->threads ? opts->threads : DEFAULT_THREADS;
	struct stat top;
	int rc;

	if (out)
		*out = (struct jp_treecopy_result)JP_TREECOPY_RESULT_INIT;
	if (threads > MAX_THREADS)
		threads = MAX_THREADS;
	ctx_init(&c, opts);
	if ((rc = prepare(&c, src, dst, &top, err)) != 0)
		goto out;
	ps.total = c.n;
	rc = copy_all(&c, threads, &ps, &top, dst);
	if (rc == JP_ECANCELED) {
		jp_error_set(err, rc, _("%s: copy canceled"), dst);
		goto out;
	}
	if (rc != 0) {
		jp_error_set(err, rc, _("copying onto %s: %s"), dst, c.err_msg);
		goto out;
	}
	report(&ps, &c, true);
	if (ps.canceled) {
		rc = jp_error_set(err, JP_ECANCELED, _("%s: copy canceled"), dst);
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
		if ((rc = push(c, child, &st, depth + 1, type == DT_DIR ? K_DIR : K_FILE, -1)) != 0)
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
	struct progress_state ps = { NULL, 0, jp_now_ns(), 0, 0, false };
	struct stat sb;
	int rc = 0;

	if (lstat(path, &sb) != 0)
		return errno == ENOENT ? 0 : jp_error_set(err, JP_EIO, "%s: %s", path, strerror(errno));
	if (!S_ISDIR(sb.st_mode))
		return unlink(path) == 0 ? 0 : jp_error_set(err, JP_EIO, "%s: %s", path, strerror(errno));
	memset(&c, 0, sizeof(c));
	pthread_mutex_init(&c.lock, NULL);
	pthread_cond_init(&c.idle, NULL);
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
	for (size_t i = 0; i < c.n; i++)
		free(c.v[i].rel);
	free(c.v);
	free(c.order);
	if (c.dst_fd >= 0)
		close(c.dst_fd);
	pthread_mutex_destroy(&c.lock);
	pthread_cond_destroy(&c.idle);
	return rc;
}
