/* The resume offer taken as the same folder (init --resume-in): the
 * earlier run's checkpoint folder becomes this run's. Apart from
 * flow_resume.c, which flow.c calls: this one calls flow.c. */
#include "config.h"

#include <stdlib.h>

#include "jobprep/flow.h"
#include "error_internal.h"
#include "flow_internal.h"
#include "resume_internal.h"

int jp_flow_resume_in(struct jp_flow *flow, const char *run, struct jp_error *err)
{
	char *path = NULL;
	int rc = jp_resume_resolve(&path, flow->profile, flow->m->job.name,
				   flow->m->outputs.output_dir, run, err);

	if (rc == JP_ENOENT) {
		char *why = jp_error_take_last(err);

		rc = jp_error_set(err, JP_EUSAGE, "%s", why ? why : run);
		free(why);
	}
	if (rc == 0)
		rc = jp_flow_set(NULL, flow, "outputs.checkpoint_dir", path, err);
	free(path);
	return rc;
}
