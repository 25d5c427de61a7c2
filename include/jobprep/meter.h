/* The figures of a progress report (jobprep/port.h) every front end shows
 * alike: the rate, smoothed over the last few seconds (what the work
 * measures, with a struct jp_meter of its own), the fraction done and the
 * time to go (what a front end reads from a report). */
#ifndef JOBPREP_METER_H
#define JOBPREP_METER_H

#include <stdint.h>

#include "jobprep/port.h"

#define JP_METER_SLOTS 8

/* The last few samples of one stream of work (bytes at a time). */
struct jp_meter {
	uint64_t t[JP_METER_SLOTS], b[JP_METER_SLOTS]; /* ns, bytes */
	unsigned n, last;
};

#define JP_METER_INIT { { 0 }, { 0 }, 0, 0 }

/* The fraction of p done, 0 to 1: by bytes when their total is known,
 * else by items; -1 when neither total is known. */
double jp_progress_fraction(const struct jp_progress *p);
/* Seconds to go for the bytes still to come at p's rate; -1 when the
 * total or the rate is unknown. */
double jp_progress_eta(const struct jp_progress *p);

#endif
