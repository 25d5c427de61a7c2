/* The core's side of jobprep/envsh.h: what only src/ (and the unit tests)
 * call. The front ends use include/jobprep/envsh.h. */
#ifndef JOBPREP_ENVSH_INTERNAL_H
#define JOBPREP_ENVSH_INTERNAL_H

#include "jobprep/envsh.h"

/* The variable env.sh gives data source i: DATA_DIR_ + its name in upper
 * case with every character but ASCII letters and digits as '_'
 * ("sft-data" -> DATA_DIR_SFT_DATA); DATA_DIR_<i> for a name without a
 * letter or digit, or one an earlier source already took. */
void jp_envsh_data_var(char buf[JP_ENVSH_NAME_MAX], const struct jp_manifest *m, size_t i);

#endif
