/* The core's side of jobprep/error.h: what only src/ (and the unit tests)
 * call. The front ends use include/jobprep/error.h. */
#ifndef JOBPREP_ERROR_INTERNAL_H
#define JOBPREP_ERROR_INTERNAL_H

#include "jobprep/error.h"

void jp_error_init(struct jp_error *err);

#endif
