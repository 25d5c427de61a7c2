/* Checks: every path of a manifest judged the way every Worker will see it. */
#ifndef JOBPREP_CHECK_H
#define JOBPREP_CHECK_H

#include "jobprep/error.h"
#include "jobprep/manifest.h"
#include "jobprep/profile.h"

enum jp_check_flags {
	JP_CHECK_DEEP = 1 << 0, /* also scan data sets fully */
};

/* Replace m->checks with fresh results, judged under `profile`. Returns 0
 * when the checks ran (look at jp_manifest_worst for their verdict), or a
 * negative code when they could not run at all. */
int jp_check_manifest(struct jp_manifest *m, const struct jp_profile *profile,
		      unsigned flags, struct jp_error *err);

#endif
