/* The writers of an unpack: the thread reading the archive (decompressing)
 * hands each small member, its bytes in memory, to a pool that writes many
 * at once, so on network storage (a round trip per create, per time set,
 * per close) the writes overlap each other and the decompression. The
 * bytes held are bounded: put() waits while the pool holds too many.
 *
 * An archive lists a folder's files one after the other, and the kernel
 * makes the creates in one folder wait for each other (two round trips
 * each, under the folder's lock). So a writer takes the first job whose
 * folder has no create under way, not simply the next one: the others
 * work on the folders queued behind, instead of all waiting in one. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "stage_internal.h"
#include "treecopy_internal.h"

#define MAX_THREADS JP_STAGE_JOBS_MAX

struct jp_stage_pool {
	pthread_t tid[MAX_THREADS];
	unsigned nthreads;
	pthread_mutex_t lock;
	pthread_cond_t more, room, idle, folder_free;
	struct jp_stage_job **q; /* ring */
	size_t head, n, cap;
	size_t held, max_held; /* bytes of the jobs queued or being written */
	unsigned busy;
	int creating[MAX_THREADS]; /* the folders (their fds) a create is under way in */
	unsigned ncreating;
	bool closing;
	atomic_bool stop;
	atomic_uint_fast64_t bytes, written, skipped, bytes_skipped;
	int err_code;
	char err_msg[1024];
};

static bool complete_at(int at, const char *name, const struct jp_stage_job *j)
{
	struct stat st;

	return at >= 0 && fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	       st.st_size == (off_t)j->size && st.st_mtim.tv_sec == j->times[1].tv_sec &&
	       (st.st_mtim.tv_nsec == j->times[1].tv_nsec || st.st_mtim.tv_nsec == 0);
}

int jp_stage_job_create(const struct jp_stage_job *j)
{
	/* a file a killed run left (maybe read-only): replaced whole */
	if (!j->fresh && unlinkat(j->at, j->name, 0) != 0 && errno != ENOENT)
		return -1;
	return openat(j->at, j->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, j->mode);
}

int jp_stage_job_fill(const struct jp_stage_job *j, int fd, mode_t umask_bits)
{
	size_t w = 0;
	int e;

	while (w < j->len) {
		ssize_t k = pwrite(fd, j->data + w, j->len - w, (off_t)w);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			errno = k < 0 ? errno : EIO;
			goto bad;
		}
		w += (size_t)k;
	}
	if ((off_t)j->size > (off_t)j->len && ftruncate(fd, (off_t)j->size) != 0)
		goto bad;
	/* open(2) applied the umask; bits it took away come back here */
	if (((j->mode & ~umask_bits) != j->mode && fchmod(fd, j->mode) != 0) ||
	    futimens(fd, j->times) != 0)
		goto bad;
	/* network filesystems report write errors (quota, space) at close */
	if (close(fd) == 0)
		return 0;
	e = errno;
	unlinkat(j->at, j->name, 0);
	errno = e;
	return -1;
bad:
	e = errno;
	close(fd);
	unlinkat(j->at, j->name, 0);
	errno = e;
	return -1;
}

int jp_stage_job_write(const struct jp_stage_job *j, mode_t umask_bits)
{
	int fd = jp_stage_job_create(j);

	return fd < 0 ? -1 : jp_stage_job_fill(j, fd, umask_bits);
}

void jp_stage_job_free(struct jp_stage_job *j)
{
	if (!j)
		return;
	free(j->data);
	free(j->rel);
	free(j);
}

static bool creating_in(const struct jp_stage_pool *p, int at)
{
	for (unsigned i = 0; i < p->ncreating; i++)
		if (p->creating[i] == at)
			return true;
	return false;
}

/* A job that looks at what is there first (a re-run's): most are found
 * complete, with a look-up that needs no folder to itself. */
static bool looks_first(const struct jp_stage_job *j)
{
	return j->check_dest >= 0 || !j->fresh;
}

/* Under the lock: the first queued job whose folder has no create under
 * way (or that looks first), out of the queue, the others' order kept; its
 * folder taken for its create. NULL when there is none. */
static struct jp_stage_job *take(struct jp_stage_pool *p)
{
	int busy_at = -1;

	for (size_t k = 0; k < p->n; k++) {
		struct jp_stage_job *j = p->q[(p->head + k) % p->cap];

		/* a folder's jobs come in a row: one look for all of them */
		if (!looks_first(j) && (j->at == busy_at || creating_in(p, j->at))) {
			busy_at = j->at;
			continue;
		}
		for (size_t m = k; m > 0; m--)
			p->q[(p->head + m) % p->cap] = p->q[(p->head + m - 1) % p->cap];
		p->head = (p->head + 1) % p->cap;
		p->n--;
		p->busy++;
		if (!looks_first(j))
			p->creating[p->ncreating++] = j->at;
		return j;
	}
	return NULL;
}

/* j's folder, for its create: taken (waiting while another writer creates
 * there), or let go of. */
static void hold_folder(struct jp_stage_pool *p, int at)
{
	pthread_mutex_lock(&p->lock);
	while (creating_in(p, at))
		pthread_cond_wait(&p->folder_free, &p->lock);
	p->creating[p->ncreating++] = at;
	pthread_mutex_unlock(&p->lock);
}

static void let_go(struct jp_stage_pool *p, int at)
{
	pthread_mutex_lock(&p->lock);
	for (unsigned i = 0; i < p->ncreating; i++)
		if (p->creating[i] == at) {
			p->creating[i] = p->creating[--p->ncreating];
			break;
		}
	/* the next job in this folder can go now */
	pthread_cond_broadcast(&p->folder_free);
	pthread_cond_signal(&p->more);
	pthread_mutex_unlock(&p->lock);
}

static void write_failed(struct jp_stage_pool *p, const struct jp_stage_job *j, int e)
{
	pthread_mutex_lock(&p->lock);
	if (!p->err_code) {
		p->err_code = e == ENOSPC || e == EDQUOT ? JP_ENOSPC : JP_EIO;
		snprintf(p->err_msg, sizeof(p->err_msg), "%s: %s", j->rel, strerror(e));
	}
	pthread_mutex_unlock(&p->lock);
	atomic_store(&p->stop, true);
}

/* j, taken (its folder too unless it looks first). */
static void run_job(struct jp_stage_pool *p, struct jp_stage_job *j, mode_t umask_bits)
{
	int fd;

	if (looks_first(j)) {
		if ((j->check_dest >= 0 && complete_at(j->check_dest, j->rel, j)) ||
		    (!j->fresh && complete_at(j->at, j->name, j))) {
			atomic_fetch_add(&p->skipped, 1);
			atomic_fetch_add(&p->bytes_skipped, j->size);
			return;
		}
		hold_folder(p, j->at);
	}
	fd = atomic_load(&p->stop) ? (errno = ECANCELED, -1) : jp_stage_job_create(j);
	let_go(p, j->at);
	if (fd < 0 || jp_stage_job_fill(j, fd, umask_bits) != 0) {
		if (!atomic_load(&p->stop))
			write_failed(p, j, errno);
		return;
	}
	atomic_fetch_add(&p->written, 1);
	atomic_fetch_add(&p->bytes, j->len);
}

static void *worker(void *arg)
{
	struct jp_stage_pool *p = arg;
	mode_t umask_bits = jp_tc_umask();

	for (;;) {
		struct jp_stage_job *j = NULL;

		pthread_mutex_lock(&p->lock);
		while (!(j = take(p)) && !(p->closing && p->n == 0))
			pthread_cond_wait(&p->more, &p->lock);
		pthread_mutex_unlock(&p->lock);
		if (!j)
			break;
		if (!atomic_load(&p->stop))
			run_job(p, j, umask_bits);
		else if (!looks_first(j))
			let_go(p, j->at);
		pthread_mutex_lock(&p->lock);
		p->busy--;
		p->held -= j->len;
		pthread_cond_signal(&p->room);
		if (p->n == 0 && p->busy == 0)
			pthread_cond_broadcast(&p->idle);
		/* closing: the others, asleep while the rest was in busy
		 * folders, may have nothing left to wait for */
		if (p->closing)
			pthread_cond_broadcast(&p->more);
		pthread_mutex_unlock(&p->lock);
		jp_stage_job_free(j);
	}
	return NULL;
}

int jp_stage_pool_start(struct jp_stage_pool **out, unsigned threads, size_t max_bytes)
{
	struct jp_stage_pool *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (!p)
		return JP_ENOMEM;
	if (threads == 0)
		threads = JP_STAGE_JOBS_DEFAULT;
	if (threads > MAX_THREADS)
		threads = MAX_THREADS;
	p->cap = 4096;
	p->max_held = max_bytes;
	if (!(p->q = calloc(p->cap, sizeof(*p->q)))) {
		free(p);
		return JP_ENOMEM;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->more, NULL);
	pthread_cond_init(&p->room, NULL);
	pthread_cond_init(&p->idle, NULL);
	pthread_cond_init(&p->folder_free, NULL);
	for (; p->nthreads < threads; p->nthreads++)
		if (pthread_create(&p->tid[p->nthreads], NULL, worker, p) != 0)
			break;
	if (p->nthreads == 0) {
		jp_stage_pool_finish(p, NULL, NULL, 0);
		return JP_EINTERNAL;
	}
	*out = p;
	return 0;
}

static void deadline(struct timespec *ts, long ns)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_nsec += ns;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

int jp_stage_pool_put(struct jp_stage_pool *p, struct jp_stage_job *j, long wait_ns)
{
	struct timespec ts;
	int rc = 0;

	deadline(&ts, wait_ns);
	pthread_mutex_lock(&p->lock);
	/* one job bigger than the bound still goes, alone */
	while (!atomic_load(&p->stop) &&
	       (p->n == p->cap || (p->held > 0 && p->held + j->len > p->max_held)))
		if (pthread_cond_timedwait(&p->room, &p->lock, &ts) != 0) {
			rc = 1;
			break;
		}
	if (rc == 0 && !atomic_load(&p->stop)) {
		p->q[(p->head + p->n) % p->cap] = j;
		p->n++;
		p->held += j->len;
		pthread_cond_signal(&p->more);
	} else if (rc == 0) {
		rc = -1;
	}
	pthread_mutex_unlock(&p->lock);
	return rc;
}

int jp_stage_pool_drain(struct jp_stage_pool *p, long wait_ns)
{
	struct timespec ts;
	int rc = 0;

	deadline(&ts, wait_ns);
	pthread_mutex_lock(&p->lock);
	while ((p->n > 0 || p->busy > 0) && rc == 0)
		if (pthread_cond_timedwait(&p->idle, &p->lock, &ts) != 0)
			rc = 1;
	pthread_mutex_unlock(&p->lock);
	return rc;
}

bool jp_stage_pool_failed(struct jp_stage_pool *p)
{
	return atomic_load(&p->stop);
}

void jp_stage_pool_stop(struct jp_stage_pool *p)
{
	atomic_store(&p->stop, true);
}

uint64_t jp_stage_pool_bytes(struct jp_stage_pool *p)
{
	return atomic_load(&p->bytes);
}

int jp_stage_pool_finish(struct jp_stage_pool *p, struct jp_stage_result *out, char *msg,
			 size_t msgsz)
{
	int rc;

	pthread_mutex_lock(&p->lock);
	p->closing = true;
	pthread_cond_broadcast(&p->more);
	pthread_mutex_unlock(&p->lock);
	for (unsigned i = 0; i < p->nthreads; i++)
		pthread_join(p->tid[i], NULL);
	for (; p->n > 0; p->n--, p->head = (p->head + 1) % p->cap)
		jp_stage_job_free(p->q[p->head]);
	rc = p->err_code;
	if (rc && msg)
		snprintf(msg, msgsz, "%s", p->err_msg);
	if (out) {
		out->written += atomic_load(&p->written);
		out->bytes_written += atomic_load(&p->bytes);
		out->skipped += atomic_load(&p->skipped);
		out->bytes_skipped += atomic_load(&p->bytes_skipped);
	}
	free(p->q);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->more);
	pthread_cond_destroy(&p->room);
	pthread_cond_destroy(&p->idle);
	pthread_cond_destroy(&p->folder_free);
	free(p);
	return rc;
}
