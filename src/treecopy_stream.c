/* Streaming tree copy: files are copied onto shared storage as soon as they
 * are named (by a checkout writing them on scratch disk), so the copy runs
 * while the checkout does instead of after it. Directories are created on
 * demand and held open; whatever was not streamed is left to jp_treecopy. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobprep/i18n.h"
#include "treecopy.h"
#include "treecopy_internal.h"

#define MAX_THREADS 64
#define BUF_SIZE (1 << 20)

/* A created directory, held open (O_PATH) to create its entries. */
struct dirent_fd {
	char *rel; /* NULL: empty slot */
	int fd;
};

struct jp_treecopy_stream {
	int src_fd, dst_fd;
	mode_t umask;
	pthread_t tid[MAX_THREADS];
	unsigned nthreads;
	pthread_mutex_t lock;
	pthread_cond_t more;
	char **queue;       /* paths waiting */
	size_t head, tail, cap;
	bool closing;
	atomic_bool stop;
	/* directories made: open-addressing hash set keyed by rel */
	pthread_mutex_t dir_lock;
	struct dirent_fd *dirs;
	size_t ndirs, dircap;
	/* results */
	struct jp_treecopy_file *done;
	size_t ndone, donecap;
	int err_code;
	char err_msg[1024];
};

static void set_error(struct jp_treecopy_stream *s, const char *rel, int e)
{
	pthread_mutex_lock(&s->lock);
	if (!s->err_code) {
		s->err_code = e == ENOSPC || e == EDQUOT ? JP_ENOSPC : e == ENOMEM ? JP_ENOMEM : JP_EIO;
		snprintf(s->err_msg, sizeof(s->err_msg), "%s: %s", rel, strerror(e));
	}
	pthread_mutex_unlock(&s->lock);
	atomic_store(&s->stop, true);
}

static size_t hash(const char *p, size_t n)
{
	size_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ULL;
	return h;
}

/* The slot of directory rel[0..n) (found, or empty where it belongs). */
static struct dirent_fd *dir_slot(struct jp_treecopy_stream *s, const char *rel, size_t n)
{
	size_t i = hash(rel, n) & (s->dircap - 1);

	while (s->dirs[i].rel && !(strlen(s->dirs[i].rel) == n && memcmp(s->dirs[i].rel, rel, n) == 0))
		i = (i + 1) & (s->dircap - 1);
	return &s->dirs[i];
}

static int dir_grow(struct jp_treecopy_stream *s)
{
	struct dirent_fd *old = s->dirs;
	size_t oldcap = s->dircap;

	s->dircap = oldcap ? oldcap * 2 : 256;
	s->dirs = calloc(s->dircap, sizeof(*s->dirs));
	if (!s->dirs) {
		s->dirs = old;
		s->dircap = oldcap;
		return -1;
	}
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].rel)
			*dir_slot(s, old[i].rel, strlen(old[i].rel)) = old[i];
	free(old);
	return 0;
}

/* The descriptor of directory rel[0..n) on the destination, made (with
 * its parents) if needed; the top for n == 0. -1 with errno on failure. */
static int dir_fd(struct jp_treecopy_stream *s, const char *rel, size_t n)
{
	struct dirent_fd *slot;
	const char *slash;
	struct stat sb;
	char path[4096];
	int parent, fd;

	if (n == 0)
		return s->dst_fd;
	if (n >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	slot = dir_slot(s, rel, n);
	if (slot->rel)
		return slot->fd;
	/* Its parent first (recursion depth = path depth). */
	slash = memrchr(rel, '/', n);
	parent = dir_fd(s, rel, slash ? (size_t)(slash - rel) : 0);
	if (parent < 0)
		return -1;
	memcpy(path, rel, n);
	path[n] = '\0';
	if (fstatat(s->src_fd, path, &sb, AT_SYMLINK_NOFOLLOW) != 0)
		sb.st_mode = 0755;
	const char *name = slash ? path + (slash - rel) + 1 : path;
	if (mkdirat(parent, name, (sb.st_mode & 07777) | S_IRWXU) != 0 && errno != EEXIST)
		return -1;
	fd = openat(parent, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (s->ndirs * 2 >= s->dircap && dir_grow(s) != 0) {
		close(fd);
		errno = ENOMEM;
		return -1;
	}
	slot = dir_slot(s, rel, n);
	if (!(slot->rel = strndup(rel, n))) {
		close(fd);
		errno = ENOMEM;
		return -1;
	}
	slot->fd = fd;
	s->ndirs++;
	return fd;
}

static void record(struct jp_treecopy_stream *s, const char *rel, const struct stat *st)
{
	pthread_mutex_lock(&s->lock);
	if (s->ndone == s->donecap) {
		size_t cap = s->donecap ? s->donecap * 2 : 1024;
		struct jp_treecopy_file *grown = realloc(s->done, cap * sizeof(*grown));

		if (!grown)
			goto out;
		s->done = grown;
		s->donecap = cap;
	}
	if ((s->done[s->ndone].path = strdup(rel)) != NULL) {
		s->done[s->ndone].st = *st;
		s->ndone++;
	}
out:
	pthread_mutex_unlock(&s->lock);
}

static void copy_one(struct jp_treecopy_stream *s, const char *rel, char *buf)
{
	const char *slash = strrchr(rel, '/');
	const char *name = slash ? slash + 1 : rel;
	struct stat sb, st;
	int at;

	if (fstatat(s->src_fd, rel, &sb, AT_SYMLINK_NOFOLLOW) != 0) {
		set_error(s, rel, errno);
		return;
	}
	pthread_mutex_lock(&s->dir_lock);
	at = S_ISDIR(sb.st_mode) ? dir_fd(s, rel, strlen(rel))
				 : dir_fd(s, rel, slash ? (size_t)(slash - rel) : 0);
	pthread_mutex_unlock(&s->dir_lock);
	if (at < 0) {
		set_error(s, rel, errno);
		return;
	}
	if (S_ISDIR(sb.st_mode))
		return; /* e.g. a submodule's empty directory */
	if (S_ISLNK(sb.st_mode)) {
		ssize_t n = readlinkat(s->src_fd, rel, buf, BUF_SIZE - 1);

		if (n < 0) {
			set_error(s, rel, errno);
			return;
		}
		buf[n] = '\0';
		if (symlinkat(buf, at, name) != 0 || fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			set_error(s, rel, errno);
			return;
		}
	} else if (!S_ISREG(sb.st_mode)) {
		return;
	} else if (jp_tc_copy_file(s->src_fd, rel, at, name, sb.st_mode & 07777, s->umask, buf,
				   BUF_SIZE, NULL, &s->stop, &st) != 0) {
		if (errno != ECANCELED)
			set_error(s, rel, errno);
		return;
	}
	record(s, rel, &st);
}

static void *worker(void *arg)
{
	struct jp_treecopy_stream *s = arg;
	char *buf = malloc(BUF_SIZE);

	if (!buf) {
		set_error(s, "copy", ENOMEM);
		return NULL;
	}
	for (;;) {
		char *rel = NULL;

		pthread_mutex_lock(&s->lock);
		while (s->head == s->tail && !s->closing && !atomic_load(&s->stop))
			pthread_cond_wait(&s->more, &s->lock);
		if (s->head != s->tail && !atomic_load(&s->stop))
			rel = s->queue[s->head++];
		pthread_mutex_unlock(&s->lock);
		if (!rel)
			break;
		copy_one(s, rel, buf);
		free(rel);
	}
	free(buf);
	return NULL;
}

static void release(struct jp_treecopy_stream *s)
{
	for (size_t i = s->head; i < s->tail; i++)
		free(s->queue[i]);
	free(s->queue);
	for (size_t i = 0; i < s->dircap; i++)
		if (s->dirs[i].rel) {
			free(s->dirs[i].rel);
			close(s->dirs[i].fd);
		}
	free(s->dirs);
	for (size_t i = 0; i < s->ndone; i++)
		free(s->done[i].path);
	free(s->done);
	if (s->src_fd >= 0)
		close(s->src_fd);
	if (s->dst_fd >= 0)
		close(s->dst_fd);
	pthread_mutex_destroy(&s->lock);
	pthread_mutex_destroy(&s->dir_lock);
	pthread_cond_destroy(&s->more);
	free(s);
}

int jp_treecopy_stream_start(struct jp_treecopy_stream **out, const char *src, const char *dst,
			     unsigned threads, struct jp_error *err)
{
	struct jp_treecopy_stream *s = calloc(1, sizeof(*s));
	struct stat sb;

	*out = NULL;
	if (!s)
		return jp_error_oom(err);
	s->src_fd = s->dst_fd = -1;
	pthread_mutex_init(&s->lock, NULL);
	pthread_mutex_init(&s->dir_lock, NULL);
	pthread_cond_init(&s->more, NULL);
	s->umask = jp_tc_umask();
	if (dir_grow(s) != 0) {
		release(s);
		return jp_error_oom(err);
	}
	s->src_fd = open(src, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->src_fd < 0 || fstat(s->src_fd, &sb) != 0) {
		int e = errno;
		release(s);
		return jp_error_set(err, JP_EIO, _("%s: cannot open: %s"), src, strerror(e));
	}
	if (mkdir(dst, (sb.st_mode & 07777) | S_IRWXU) != 0 && errno != EEXIST) {
		int e = errno;
		release(s);
		return jp_error_set(err, e == ENOSPC ? JP_ENOSPC : JP_EIO, _("%s: cannot create: %s"),
				    dst, strerror(e));
	}
	s->dst_fd = open(dst, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (s->dst_fd < 0) {
		int e = errno;
		release(s);
		return jp_error_set(err, JP_EIO, _("%s: cannot open: %s"), dst, strerror(e));
	}
	if (threads == 0)
		threads = 16;
	if (threads > MAX_THREADS)
		threads = MAX_THREADS;
	for (; s->nthreads < threads; s->nthreads++)
		if (pthread_create(&s->tid[s->nthreads], NULL, worker, s) != 0)
			break;
	if (s->nthreads == 0) {
		release(s);
		return jp_error_set(err, JP_EINTERNAL, "%s", _("cannot start a thread"));
	}
	*out = s;
	return 0;
}

int jp_treecopy_stream_add(struct jp_treecopy_stream *s, const char *rel)
{
	char *copy;
	int rc = 0;

	if (atomic_load(&s->stop))
		return 0; /* finish reports the error */
	if (!(copy = strdup(rel)))
		return JP_ENOMEM;
	pthread_mutex_lock(&s->lock);
	if (s->tail == s->cap) {
		if (s->head > 0) {
			memmove(s->queue, s->queue + s->head, (s->tail - s->head) * sizeof(*s->queue));
			s->tail -= s->head;
			s->head = 0;
		}
		if (s->tail == s->cap) {
			size_t cap = s->cap ? s->cap * 2 : 1024;
			char **grown = realloc(s->queue, cap * sizeof(*grown));

			if (!grown) {
				rc = JP_ENOMEM;
				goto out;
			}
			s->queue = grown;
			s->cap = cap;
		}
	}
	s->queue[s->tail++] = copy;
	copy = NULL;
	pthread_cond_signal(&s->more);
out:
	pthread_mutex_unlock(&s->lock);
	free(copy);
	return rc;
}

static int path_cmp(const void *a, const void *b)
{
	return strcmp(((const struct jp_treecopy_file *)a)->path,
		      ((const struct jp_treecopy_file *)b)->path);
}

static void stop_and_join(struct jp_treecopy_stream *s, bool stop)
{
	pthread_mutex_lock(&s->lock);
	s->closing = true;
	if (stop)
		atomic_store(&s->stop, true);
	pthread_cond_broadcast(&s->more);
	pthread_mutex_unlock(&s->lock);
	for (unsigned i = 0; i < s->nthreads; i++)
		pthread_join(s->tid[i], NULL);
	s->nthreads = 0;
}

int jp_treecopy_stream_finish(struct jp_treecopy_stream *s, struct jp_treecopy_result *out,
			      struct jp_error *err)
{
	int rc;

	*out = (struct jp_treecopy_result)JP_TREECOPY_RESULT_INIT;
	stop_and_join(s, false);
	rc = s->err_code;
	if (rc != 0) {
		jp_error_set(err, rc, _("copying onto shared storage: %s"), s->err_msg);
	} else {
		qsort(s->done, s->ndone, sizeof(*s->done), path_cmp);
		for (size_t i = 0; i < s->ndone; i++) {
			if (S_ISLNK(s->done[i].st.st_mode))
				out->symlinks++;
			else
				out->files++;
			out->bytes += (uint64_t)s->done[i].st.st_size;
		}
		out->dirs = s->ndirs;
		out->copied = s->done;
		out->n_copied = s->ndone;
		s->done = NULL;
		s->ndone = 0;
	}
	release(s);
	return rc;
}

void jp_treecopy_stream_abort(struct jp_treecopy_stream *s)
{
	if (!s)
		return;
	stop_and_join(s, true);
	release(s);
}
