/* Time for bounded waits and progress rates. deadline_after_ms: the
 * absolute time pthread_cond_timedwait wants, `ms` from now on `clock` (the
 * clock the condition variable was made with), for the threads that wait
 * in bounded time (probe.c, scan.c, worker.c, git_stream.c). jp_now_ns: the
 * monotonic clock in nanoseconds, for elapsed times and rates. */
#ifndef JOBPREP_DEADLINE_INTERNAL_H
#define JOBPREP_DEADLINE_INTERNAL_H

#include <stdint.h>
#include <time.h>

static inline void deadline_after_ms(struct timespec *out, clockid_t clock, unsigned long ms)
{
	clock_gettime(clock, out);
	out->tv_sec += (time_t)(ms / 1000);
	out->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (out->tv_nsec >= 1000000000L) {
		out->tv_sec++;
		out->tv_nsec -= 1000000000L;
	}
}

static inline uint64_t jp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

#endif
