/* The absolute time pthread_cond_timedwait wants: `ms` from now on `clock`
 * (the clock the condition variable was made with). Used by the threads
 * that wait in bounded time: probe.c, scan.c, worker.c. */
#ifndef JOBPREP_DEADLINE_INTERNAL_H
#define JOBPREP_DEADLINE_INTERNAL_H

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

#endif
