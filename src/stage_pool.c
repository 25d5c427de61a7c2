/* The writers of an unpack: the thread reading the archive (decompressing)
 * hands each small member, its bytes in memory, to a pool that writes many
 * at once, so on network storage (a round trip per create, per time set,
 * per close) the writes overlap each other and the decompression. The
 * bytes held are bounded: put() waits while the pool holds too many. */
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
	pthread_cond_t more, room, idle;
	struct jp_stage_job **q; /* ring */
	size_t head, n, cap;
	size_t held, max_held; /* bytes of the jobs queued or being written */
	unsigned busy;
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

int jp_stage_job_write(const struct jp_stage_job *j, mode_t umask_bits)
{
	int fd, e;
	size_t w = 0;

	/* a file a killed run left (maybe read-only): replaced whole */
	if (!j->fresh && unlinkat(j->at, j->name, 0) != 0 && errno != ENOENT)
		return -1;
	fd = openat(j->at, j->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, j->mode);
	if (fd < 0)
		return -1;
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
	return close(fd);
bad:
	e = errno;
	close(fd);
	unlinkat(j->at, j->name, 0);
	errno = e;
	return -1;
}

void jp_stage_job_free(struct jp_stage_job *j)
{
	if (!j)
		return;
	free(j->data);
	free(j->rel);
	free(j);
}

static void run_job(struct jp_stage_pool *p, struct jp_stage_job *j, mode_t umask_bits)
{
	if ((j->check_dest >= 0 && complete_at(j->check_dest, j->rel, j)) ||
	    (!j->fresh && complete_at(j->at, j->name, j))) {
		atomic_fetch_add(&p->skipped, 1);
		atomic_fetch_add(&p->bytes_skipped, j->size);
		return;
	}
	if (jp_stage_job_write(j, umask_bits) != 0) {
		int e = errno;

		pthread_mutex_lock(&p->lock);
		if (!p->err_code) {
			p->err_code = e == ENOSPC || e == EDQUOT ? JP_ENOSPC : JP_EIO;
			snprintf(p->err_msg, sizeof(p->err_msg), "%s: %s", j->rel, strerror(e));
		}
		pthread_mutex_unlock(&p->lock);
		atomic_store(&p->stop, true);
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
		while (p->n == 0 && !p->closing)
			pthread_cond_wait(&p->more, &p->lock);
		if (p->n > 0) {
			j = p->q[p->head];
			p->head = (p->head + 1) % p->cap;
			p->n--;
			p->busy++;
		}
		pthread_mutex_unlock(&p->lock);
		if (!j)
			break;
		if (!atomic_load(&p->stop))
			run_job(p, j, umask_bits);
		pthread_mutex_lock(&p->lock);
		p->busy--;
		p->held -= j->len;
		pthread_cond_signal(&p->room);
		if (p->n == 0 && p->busy == 0)
			pthread_cond_broadcast(&p->idle);
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
	free(p);
	return rc;
}
