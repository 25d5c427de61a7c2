/* The core's side of jobprep/preflight.h: what only src/ (and the unit tests)
 * call. The front ends use include/jobprep/preflight.h. */
#ifndef JOBPREP_PREFLIGHT_INTERNAL_H
#define JOBPREP_PREFLIGHT_INTERNAL_H

#include "jobprep/preflight.h"

/* The ids the script can report for a path of `role` (jp_check_role), in
 * order, NULL-terminated; static. */
const char *const *jp_preflight_checks(unsigned role);

#endif
