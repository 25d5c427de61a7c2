/* The core's side of jobprep/strv.h: what only src/ (and the unit tests)
 * call. The front ends use include/jobprep/strv.h. */
#ifndef JOBPREP_STRV_INTERNAL_H
#define JOBPREP_STRV_INTERNAL_H

#include "jobprep/strv.h"

/* Replace dst's contents with copies of src's. */
int jp_strv_copy(struct jp_strv *dst, const struct jp_strv *src);

#endif
