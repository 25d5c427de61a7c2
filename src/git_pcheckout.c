/* The parallel checkout writer: blobs of the object database written as
 * files into a work tree by many threads at once. On network storage every
 * create, rename and stat is a round trip; libgit2's checkout makes them
 * one after the other, here up to `threads` are in flight. Only for trees
 * no filter applies to (jp_git_plain_tree): the bytes written are the
 * blobs' bytes. libgit2 is called from the calling thread only (the
 * objects are read there, in order); the writers do file I/O alone. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "jobprep/i18n.h"
#include "git_internal.h"
#include "treecopy.h"

#define MAX_THREADS 64
/* Blob bytes read ahead of the writers at most. */
#define INFLIGHT_MAX (64u << 20)

struct pco {
	struct jp_git_pco_file *v;
	size_t n;
	bool replace;
	int top_fd;
	int *dir_fd;  /* per file: the descriptor of its folder */
	size_t *dir_ix; /* per file: its folder's number */
	size_t *order;  /* the files in the order they are read and written */
	char **data;  /* per file: the blob, read ahead; NULL once written */
	size_t *len;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	size_t ready;  /* files read so far (0..ready-1 may be written) */
	size_t next;   /* the next file a writer takes */
	size_t done;
	size_t inflight;
	bool stop, reading_done;
	uint64_t bytes;
	int err_no;
	char err_path[1024];
	/* non-NULL: each writer reads its blobs itself, from an object
	 * database of its own opened on this objects folder (a deep history's
	 * delta chains make reading as costly as writing) */
	const char *objects;
};

static void fail(struct pco *p, const char *path, int e)
{
	pthread_mutex_lock(&p->lock);
	if (!p->err_no) {
		p->err_no = e ? e : EIO;
		snprintf(p->err_path, sizeof(p->err_path), "%s", path);
	}
	p->stop = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t k = write(fd, buf, len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? errno : EIO;
		buf += k;
		len -= (size_t)k;
	}
	return 0;
}

/* Modes as libgit2 gives them: 0666 or 0777 less the umask, and jobprep's
 * exec pattern adds x where r is. */
static mode_t file_mode(const struct jp_git_pco_file *f)
{
	mode_t m = f->mode == GIT_FILEMODE_BLOB_EXECUTABLE ? 0777 : 0666;

	if (f->exec)
		m |= (m & 0444) >> 2;
	return m;
}

/* One regular file under its name. Over an old one (replace), the old one
 * is unlinked first, as git's checkout does: a job still reading it (sh
 * reads a script as it goes) keeps it, and so does another hard link to
 * it. The move's journal puts back whatever a kill leaves half-done. */
static int put_file(struct pco *p, size_t i)
{
	struct jp_git_pco_file *f = &p->v[i];
	const char *name = base_name(f->path);
	mode_t mode = file_mode(f);
	int at = p->dir_fd[i], fd, e;

	if (p->replace && !f->is_new && unlinkat(at, name, 0) != 0 && errno != ENOENT)
		return errno;
	fd = openat(at, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return errno;
	/* (the umask applies, as in libgit2's checkout and jobprep's chmod +x) */
	e = write_all(fd, p->data[i], p->len[i]);
	/* the stat for the index, before close: one more lookup per file is
	 * one more round trip */
	if (e == 0 && fstat(fd, &f->st) != 0)
		e = errno;
	/* network filesystems report write errors (quota, space) at close */
	if (close(fd) != 0 && e == 0)
		e = errno;
	if (e != 0)
		unlinkat(at, name, 0); /* (no half-made file under its name) */
	return e;
}

static int put_link(struct pco *p, size_t i, const char *tmp)
{
	struct jp_git_pco_file *f = &p->v[i];
	const char *name = p->replace ? tmp : base_name(f->path);
	int at = p->dir_fd[i];

	if (symlinkat(p->data[i], at, name) != 0) {
		if (errno != EEXIST || !p->replace)
			return errno;
		unlinkat(at, name, 0);
		if (symlinkat(p->data[i], at, name) != 0)
			return errno;
	}
	if (p->replace && renameat(at, tmp, at, base_name(f->path)) != 0) {
		int e = errno;

		unlinkat(at, tmp, 0);
		return e;
	}
	return 0;
}

static int put(struct pco *p, size_t i)
{
	struct jp_git_pco_file *f = &p->v[i];
	char tmp[1024];
	int e;

	if (f->mode == 0) {
		if (unlinkat(p->dir_fd[i], base_name(f->path), 0) != 0 && errno != ENOENT)
			return errno;
		return 0;
	}
	if (snprintf(tmp, sizeof(tmp), JP_TREECOPY_TMP_PREFIX "%s", base_name(f->path)) >=
	    (int)sizeof(tmp))
		return ENAMETOOLONG;
	e = f->mode == GIT_FILEMODE_LINK ? put_link(p, i, tmp) : put_file(p, i);
	if (e == 0 && f->mode == GIT_FILEMODE_LINK &&
	    fstatat(p->dir_fd[i], base_name(f->path), &f->st, AT_SYMLINK_NOFOLLOW) != 0)
		e = errno;
	return e;
}

static void *writer(void *arg)
{
	struct pco *p = arg;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->stop && p->next >= p->ready && !(p->reading_done && p->next >= p->n))
			pthread_cond_wait(&p->cond, &p->lock);
		if (p->stop || p->next >= p->n)
			break;
		size_t i = p->order[p->next++];

		pthread_mutex_unlock(&p->lock);
		int e = put(p, i);

		pthread_mutex_lock(&p->lock);
		if (e != 0) {
			pthread_mutex_unlock(&p->lock);
			fail(p, p->v[i].path, e);
			pthread_mutex_lock(&p->lock);
			break;
		}
		p->v[i].done = true;
		p->done++;
		p->bytes += p->len[i];
		p->inflight -= p->len[i];
		free(p->data[i]);
		p->data[i] = NULL;
		pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* ---- folders --------------------------------------------------------------- */

static int by_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every folder the files are in, and their parents: sorted, unique, a
 * parent before its children. */
static int list_dirs(const struct pco *p, struct jp_strv *dirs)
{
	for (size_t i = 0; i < p->n; i++) {
		const char *path = p->v[i].path;

		for (const char *s = strchr(path, '/'); s; s = strchr(s + 1, '/')) {
			char *d = strndup(path, (size_t)(s - path));

			if (!d || jp_strv_push(dirs, d) < 0) {
				free(d);
				return -1;
			}
			free(d);
		}
	}
	if (dirs->n > 1)
		qsort(dirs->v, dirs->n, sizeof(*dirs->v), by_str);
	size_t k = 0;

	for (size_t i = 0; i < dirs->n; i++) {
		if (k && strcmp(dirs->v[k - 1], dirs->v[i]) == 0) {
			free(dirs->v[i]);
			continue;
		}
		dirs->v[k++] = dirs->v[i];
	}
	dirs->n = k;
	return 0;
}

/* A folder made unless there, and held open. */
static int open_dir(int top, const char *rel, bool make)
{
	if (make && mkdirat(top, rel, 0777) != 0 && errno != EEXIST)
		return -1;
	return openat(top, rel, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* Each file's folder descriptor (dfds[k] for dirs->v[k]). */
static int open_dirs(struct pco *p, struct jp_strv *dirs, int *dfds, char *bad, size_t badlen)
{
	for (size_t k = 0; k < dirs->n; k++) {
		bool make = !p->replace;

		for (size_t i = 0; i < p->n && !make; i++) {
			const char *path = p->v[i].path;
			size_t dl = strlen(dirs->v[k]);

			make = p->v[i].is_new && strncmp(path, dirs->v[k], dl) == 0 &&
			       path[dl] == '/';
		}
		if ((dfds[k] = open_dir(p->top_fd, dirs->v[k], make)) < 0) {
			snprintf(bad, badlen, "%s", dirs->v[k]);
			return errno;
		}
	}
	for (size_t i = 0; i < p->n; i++) {
		const char *s = strrchr(p->v[i].path, '/');
		char key[4096];
		char *kp = key;
		char **hit;

		if (!s) {
			p->dir_fd[i] = p->top_fd;
			p->dir_ix[i] = dirs->n;
			continue;
		}
		snprintf(key, sizeof(key), "%.*s", (int)(s - p->v[i].path), p->v[i].path);
		hit = dirs->n ? bsearch(&kp, dirs->v, dirs->n, sizeof(*dirs->v), by_str) : NULL;
		p->dir_fd[i] = hit ? dfds[hit - dirs->v] : -1;
		p->dir_ix[i] = hit ? (size_t)(hit - dirs->v) : dirs->n;
	}
	return 0;
}

struct slot {
	size_t rank, dir, i;
};

static int by_rank(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->dir < y->dir ? -1 : x->dir > y->dir;
}

/* The files dealt out folder by folder (the first of each folder, then the
 * second of each ...): a create or an unlink holds its folder's lock for a
 * whole round trip, so writers in one folder would wait for each other. */
static int deal_out(struct pco *p, size_t ndirs)
{
	size_t *count = calloc(ndirs + 1, sizeof(*count));
	struct slot *sl = malloc((p->n + 1) * sizeof(*sl));

	if (!count || !sl) {
		free(count);
		free(sl);
		return -1;
	}
	for (size_t i = 0; i < p->n; i++)
		sl[i] = (struct slot){ count[p->dir_ix[i]]++, p->dir_ix[i], i };
	qsort(sl, p->n, sizeof(*sl), by_rank);
	for (size_t j = 0; j < p->n; j++)
		p->order[j] = sl[j].i;
	free(count);
	free(sl);
	return 0;
}

/* ---- the reader: the calling thread -------------------------------------- */

static int read_blob(struct pco *p, git_odb *odb, size_t i)
{
	git_odb_object *o = NULL;
	size_t len;
	int gerr;

	if (p->v[i].mode == 0) {
		p->len[i] = 0;
		return 0;
	}
	if ((gerr = git_odb_read(&o, odb, &p->v[i].id)) != 0)
		return gerr;
	len = git_odb_object_size(o);
	if (!(p->data[i] = malloc(len + 1))) {
		git_odb_object_free(o);
		return GIT_ERROR;
	}
	memcpy(p->data[i], git_odb_object_data(o), len);
	p->data[i][len] = '\0';
	p->len[i] = len;
	git_odb_object_free(o);
	return 0;
}

static int report(struct pco *p, struct jp_git_op *op, bool force)
{
	size_t done;
	uint64_t bytes;

	pthread_mutex_lock(&p->lock);
	done = p->done;
	bytes = p->bytes;
	pthread_mutex_unlock(&p->lock);
	if (op && jp_git_op_progress(op, JP_PHASE_CHECKOUT, done, p->n, bytes, force) < 0) {
		pthread_mutex_lock(&p->lock);
		p->stop = true;
		pthread_cond_broadcast(&p->cond);
		pthread_mutex_unlock(&p->lock);
		return -1;
	}
	return 0;
}

static void wait_a_little(struct pco *p)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 100 * 1000 * 1000;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&p->cond, &p->lock, &ts);
}

/* Read every blob in order, at most INFLIGHT_MAX ahead of the writers;
 * then wait for them. 0, a libgit2 error, or -1 once canceled. */
static int feed(struct pco *p, git_odb *odb, struct jp_git_op *op)
{
	int gerr = 0;

	for (size_t j = 0; j < p->n; j++) {
		size_t i = p->order[j];

		pthread_mutex_lock(&p->lock);
		while (!p->stop && p->inflight > INFLIGHT_MAX) {
			wait_a_little(p);
			pthread_mutex_unlock(&p->lock);
			if (report(p, op, false) < 0)
				return -1;
			pthread_mutex_lock(&p->lock);
		}
		bool stop = p->stop;

		pthread_mutex_unlock(&p->lock);
		if (stop)
			return 0;
		if ((gerr = read_blob(p, odb, i)) != 0)
			break;
		pthread_mutex_lock(&p->lock);
		p->inflight += p->len[i];
		p->ready = j + 1;
		pthread_cond_broadcast(&p->cond);
		pthread_mutex_unlock(&p->lock);
		if ((j & 63) == 0 && report(p, op, false) < 0)
			return -1;
	}
	pthread_mutex_lock(&p->lock);
	p->reading_done = true;
	if (gerr != 0)
		p->stop = true;
	pthread_cond_broadcast(&p->cond);
	while (!p->stop && p->done < p->n) {
		wait_a_little(p);
		pthread_mutex_unlock(&p->lock);
		if (report(p, op, false) < 0)
			return -1;
		pthread_mutex_lock(&p->lock);
	}
	pthread_mutex_unlock(&p->lock);
	return gerr;
}

/* Out of blocks or inodes: sshfs says EPERM for it (SFTP has no code
 * for a full disk). */
static bool looks_full(const char *top, int e)
{
	struct statvfs vfs;

	if (e == ENOSPC || e == EDQUOT)
		return true;
	if (statvfs(top, &vfs) != 0)
		return false;
	return (uint64_t)vfs.f_bavail * vfs.f_frsize < 65536 ||
	       (vfs.f_files > 0 && vfs.f_favail == 0);
}

static int set_error(struct pco *p, int gerr, bool canceled, const char *top,
		     struct jp_git_op *op, struct jp_error *err)
{
	if (canceled)
		return jp_error_set(err, JP_ECANCELED, _("%s: canceled"), top);
	if (gerr != 0)
		return jp_git_op_error(op, gerr, NULL, err, top);
	if (looks_full(top, p->err_no))
		return jp_error_set(err, JP_ENOSPC, _("%s/%s: the disk is full: %s"), top,
				    p->err_path, strerror(p->err_no));
	return jp_error_set(err, p->err_no == ENOMEM ? JP_ENOMEM : JP_EIO,
			    _("%s/%s: cannot write it: %s"), top, p->err_path, strerror(p->err_no));
}

/* A writer that reads its blobs itself (p->objects). */
static void *reader_writer(void *arg)
{
	struct pco *p = arg;
	git_odb *odb = NULL;

	if (git_odb_open(&odb, p->objects) != 0) {
		git_error_clear();
		fail(p, p->objects, EIO);
		return NULL;
	}
	pthread_mutex_lock(&p->lock);
	while (!p->stop && p->next < p->n) {
		size_t i = p->order[p->next++];
		int e;

		pthread_mutex_unlock(&p->lock);
		e = read_blob(p, odb, i) != 0 ? (git_error_clear(), EIO) : put(p, i);
		if (e != 0) {
			fail(p, p->v[i].path, e);
			pthread_mutex_lock(&p->lock);
			break;
		}
		pthread_mutex_lock(&p->lock);
		p->v[i].done = true;
		p->done++;
		p->bytes += p->len[i];
		free(p->data[i]);
		p->data[i] = NULL;
		pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	git_odb_free(odb);
	return NULL;
}

/* While the reader_writers work: progress, and the cancel. -1 once canceled. */
static int watch(struct pco *p, struct jp_git_op *op)
{
	pthread_mutex_lock(&p->lock);
	while (!p->stop && p->done < p->n) {
		wait_a_little(p);
		pthread_mutex_unlock(&p->lock);
		if (report(p, op, false) < 0)
			return -1;
		pthread_mutex_lock(&p->lock);
	}
	pthread_mutex_unlock(&p->lock);
	return 0;
}

static int run(struct pco *p, git_repository *repo, unsigned threads, struct jp_git_op *op,
	       const char *top, struct jp_error *err)
{
	pthread_t tid[MAX_THREADS];
	unsigned started = 0;
	git_odb *odb = NULL;
	int gerr;
	bool canceled = false;

	if ((gerr = git_repository_odb(&odb, repo)) != 0)
		return jp_git_op_error(op, gerr, NULL, err, top);
	for (; started < threads; started++)
		if (pthread_create(&tid[started], NULL, p->objects ? reader_writer : writer, p) != 0)
			break;
	if (started == 0) {
		git_odb_free(odb);
		return jp_error_oom(err);
	}
	gerr = p->objects ? watch(p, op) : feed(p, odb, op);
	canceled = gerr == -1;
	if (canceled)
		gerr = 0;
	pthread_mutex_lock(&p->lock);
	p->reading_done = true;
	if (gerr != 0 || canceled)
		p->stop = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	for (unsigned t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	git_odb_free(odb);
	if (!canceled && !gerr && !p->err_no) {
		report(p, op, true);
		return 0;
	}
	return set_error(p, gerr, canceled, top, op, err);
}

static int pcheckout(git_repository *repo, const char *top, struct jp_git_pco_file *v, size_t n,
		     unsigned threads, bool replace, const char *objects, struct jp_git_op *op,
		     struct jp_error *err)
{
	struct pco p;
	struct jp_strv dirs = JP_STRV_INIT;
	int *dfds = NULL, rc = 0, e;
	char bad[1024] = "";

	memset(&p, 0, sizeof(p));
	p.v = v;
	p.n = n;
	p.replace = replace;
	p.objects = objects;
	if (threads == 0)
		threads = 16;
	if (threads > MAX_THREADS)
		threads = MAX_THREADS;
	if (n == 0)
		return 0;
	p.top_fd = open(top, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (p.top_fd < 0)
		return jp_error_set(err, JP_EIO, _("%s: cannot open it: %s"), top, strerror(errno));
	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.cond, NULL);
	p.dir_fd = calloc(n, sizeof(*p.dir_fd));
	p.dir_ix = calloc(n, sizeof(*p.dir_ix));
	p.order = calloc(n, sizeof(*p.order));
	p.data = calloc(n, sizeof(*p.data));
	p.len = calloc(n, sizeof(*p.len));
	if (!p.dir_fd || !p.dir_ix || !p.order || !p.data || !p.len || list_dirs(&p, &dirs) < 0 ||
	    !(dfds = malloc((dirs.n + 1) * sizeof(*dfds)))) {
		rc = jp_error_oom(err);
		goto out;
	}
	for (size_t k = 0; k < dirs.n; k++)
		dfds[k] = -1;
	if ((e = open_dirs(&p, &dirs, dfds, bad, sizeof(bad))) != 0) {
		rc = jp_error_set(err, e == ENOSPC || e == EDQUOT ? JP_ENOSPC : JP_EIO,
				  _("%s/%s: cannot make the folder: %s"), top, bad, strerror(e));
		goto out;
	}
	if (deal_out(&p, dirs.n) < 0) {
		rc = jp_error_oom(err);
		goto out;
	}
	rc = run(&p, repo, threads, op, top, err);
out:
	for (size_t k = 0; dfds && k < dirs.n; k++)
		if (dfds[k] >= 0)
			close(dfds[k]);
	for (size_t i = 0; p.data && i < n; i++)
		free(p.data[i]);
	free(dfds);
	free(p.dir_fd);
	free(p.dir_ix);
	free(p.order);
	free(p.data);
	free(p.len);
	jp_strv_dispose(&dirs);
	pthread_mutex_destroy(&p.lock);
	pthread_cond_destroy(&p.cond);
	close(p.top_fd);
	return rc;
}

int jp_git_pcheckout(git_repository *repo, const char *top, struct jp_git_pco_file *v, size_t n,
		     unsigned threads, bool replace, struct jp_git_op *op, struct jp_error *err)
{
	return pcheckout(repo, top, v, n, threads, replace, NULL, op, err);
}

/* ---- a fresh checkout of a whole tree ---------------------------------------- */


void jp_git_entry_stat(git_index_entry *ne, const struct stat *st, time_t *newest)
{
	ne->ctime.seconds = (int32_t)st->st_ctim.tv_sec;
	ne->ctime.nanoseconds = (uint32_t)st->st_ctim.tv_nsec;
	ne->mtime.seconds = (int32_t)st->st_mtim.tv_sec;
	ne->mtime.nanoseconds = (uint32_t)st->st_mtim.tv_nsec;
	ne->dev = (uint32_t)st->st_dev;
	ne->ino = (uint32_t)st->st_ino;
	ne->uid = st->st_uid;
	ne->gid = st->st_gid;
	ne->file_size = (uint32_t)st->st_size;
	/* just written with this stat: not racy, and libgit2's index write
	 * need not read it again (it would, one file after the other, for
	 * every entry newer than the index it read) */
	ne->flags_extended |= GIT_INDEX_ENTRY_UPTODATE;
	if (st->st_mtim.tv_sec > *newest)
		*newest = st->st_mtim.tv_sec;
	if (st->st_ctim.tv_sec > *newest)
		*newest = st->st_ctim.tv_sec;
}

static int index_with_stats(git_index *idx, const struct jp_git_pco_file *v, size_t n,
			    time_t *newest)
{
	int gerr = 0;

	for (size_t i = 0; gerr == 0 && i < n; i++) {
		const git_index_entry *e = git_index_get_bypath(idx, v[i].path, 0);
		git_index_entry ne;
		const struct stat *st = &v[i].st;

		if (!e)
			return GIT_ENOTFOUND;
		ne = *e;
		jp_git_entry_stat(&ne, st, newest);
		gerr = git_index_add(idx, &ne);
	}
	return gerr;
}

/* The index written. Not dated after the files: one changed in the same
 * second as its entry was written, to the same size, would look clean
 * (sshfs keeps whole seconds); those entries stay racily clean. */
static int write_dated(git_index *idx, time_t newest)
{
	(void)newest;
	return git_index_write(idx);
}

static int tree_files(git_index *idx, struct jp_git_pco_file **out, size_t *n)
{
	struct jp_git_pco_file *v;

	*n = git_index_entrycount(idx);
	if (!(v = calloc(*n + 1, sizeof(*v))))
		return -1;
	for (size_t i = 0; i < *n; i++) {
		const git_index_entry *e = git_index_get_byindex(idx, i);

		if (e->mode != GIT_FILEMODE_BLOB && e->mode != GIT_FILEMODE_BLOB_EXECUTABLE &&
		    e->mode != GIT_FILEMODE_LINK) {
			free(v);
			return 1; /* a submodule */
		}
		v[i].path = e->path;
		v[i].mode = e->mode;
		git_oid_cpy(&v[i].id, &e->id);
		v[i].is_new = true;
	}
	*out = v;
	return 0;
}

int jp_git_pcheckout_tree(git_repository *repo, git_tree *tree, const char *dir, unsigned threads,
			  struct jp_git_op *op, struct jp_error *err)
{
	struct jp_git_pco_file *v = NULL;
	git_index *idx = NULL, *fresh = NULL;
	size_t n = 0;
	time_t newest = 0;
	char objects[4096];
	int gerr, rc;

	if (!jp_git_plain_tree(repo, tree))
		return 1;
	/* the tree's index in memory: its paths stay put while written */
	if ((gerr = git_index_new(&fresh)) != 0 || (gerr = git_index_read_tree(fresh, tree)) != 0)
		goto fail;
	if ((rc = tree_files(fresh, &v, &n)) != 0) {
		git_index_free(fresh);
		return rc < 0 ? jp_error_oom(err) : 1;
	}
	/* (the clone's own objects, on local disk: each writer reads its own) */
	if (snprintf(objects, sizeof(objects), "%sobjects", git_repository_path(repo)) >=
	    (int)sizeof(objects))
		objects[0] = '\0';
	if ((rc = pcheckout(repo, dir, v, n, threads, false, objects[0] ? objects : NULL, op,
			    err)) != 0) {
		free(v);
		git_index_free(fresh);
		return rc;
	}
	if ((gerr = git_repository_index(&idx, repo)) != 0 ||
	    (gerr = git_index_read_tree(idx, tree)) != 0 ||
	    (gerr = index_with_stats(idx, v, n, &newest)) != 0 || (gerr = write_dated(idx, newest)) != 0)
		goto fail;
	free(v);
	git_index_free(fresh);
	git_index_free(idx);
	return 0;
fail:
	free(v);
	git_index_free(fresh);
	git_index_free(idx);
	return jp_git_op_error(op, gerr, dir, err, dir);
}
