/* The core's side of jobprep/error.h: what only src/ (and the unit tests)
 * call. The front ends use include/jobprep/error.h. */
#ifndef JOBPREP_ERROR_INTERNAL_H
#define JOBPREP_ERROR_INTERNAL_H

#include "jobprep/error.h"

void jp_error_init(struct jp_error *err);
/* Remove the last message and hand it over (the caller frees it), for a
 * caller that says the same thing with its context around it ("staging X
 * failed: <it>") instead of a second line; NULL when there is none (or
 * err is NULL). The code stays. */
char *jp_error_take_last(struct jp_error *err);

#endif
