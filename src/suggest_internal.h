/* Of jobprep/suggest.h, what no front end calls: the core's own. */
#ifndef JOBPREP_SUGGEST_INTERNAL_H
#define JOBPREP_SUGGEST_INTERNAL_H

#include "jobprep/suggest.h"

/* The distance itself (SIZE_MAX past 64 bytes). */
size_t jp_suggest_distance(const char *a, const char *b);

#endif
