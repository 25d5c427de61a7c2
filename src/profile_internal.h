/* The core's side of jobprep/profile.h: what only src/ (and the unit tests)
 * call. The front ends use include/jobprep/profile.h. */
#ifndef JOBPREP_PROFILE_INTERNAL_H
#define JOBPREP_PROFILE_INTERNAL_H

#include "jobprep/profile.h"

struct cJSON;

/* A new profile holding the embedded default (the source document's
 * platform). *out is the caller's, free with jp_profile_free. */
int jp_profile_new_default(struct jp_profile **out, struct jp_error *err);
/* Read a profile from JSON text; `origin` names the file in messages. */
int jp_profile_from_json(struct jp_profile **out, const struct cJSON *json,
			 const char *origin, struct jp_error *err);

/* A new cJSON object for the profile; NULL when out of memory. */
struct cJSON *jp_profile_to_json(const struct jp_profile *profile);

/* One word an #SBATCH line can hold: not empty, printable ASCII, no space,
 * quote, backslash or '#' (the rule for "slurm" values, and for export's
 * --partition and the like). */
bool jp_profile_sbatch_word(const char *s);

#endif
