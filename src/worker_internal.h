/* The core's side of jobprep/worker.h: what only src/ (and the unit tests)
 * call. The front ends use include/jobprep/worker.h. */
#ifndef JOBPREP_WORKER_INTERNAL_H
#define JOBPREP_WORKER_INTERNAL_H

#include "jobprep/worker.h"

/* Whether the work has finished. Never blocks on the work itself. */
bool jp_worker_is_done(struct jp_worker *t);

/* Wait for the work to finish, at most timeout_ms (< 0: forever). Returns 0
 * when it has finished, JP_ETIMEOUT otherwise. */
int jp_worker_wait(struct jp_worker *t, int timeout_ms);

#endif
