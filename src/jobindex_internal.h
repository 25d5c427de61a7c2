/* Of jobprep/jobindex.h, what no front end calls: the core's own. */
#ifndef JOBPREP_JOBINDEX_INTERNAL_H
#define JOBPREP_JOBINDEX_INTERNAL_H

#include "jobprep/jobindex.h"

/* Where the index lives; *out the caller's (free()). JP_ENOENT when neither
 * XDG_STATE_HOME nor HOME is an absolute path. */
int jp_jobindex_path(char **out, struct jp_error *err);

#endif
