/* The flow's job.resume_from: a run's name or "last" is looked up among
 * the job's earlier runs when it is answered, so the draft (and the
 * manifest) hold the checkpoint folder itself. */
#include "config.h"

#include <stdlib.h>

#include "flow_internal.h"
#include "resume_internal.h"
#include "str.h"

int flow_resume_store(struct jp_flow *flow, const char *value, struct jp_verdict *why)
{
	struct jp_error err = JP_ERROR_INIT;
	char *path = NULL;
	int rc;

	if (!value || !*value)
		return jp_set_str(&flow->m->job.resume_from, NULL);
	rc = jp_resume_resolve(&path, flow->profile, flow->m->job.name,
			       flow->m->outputs.output_dir, value, &err);
	if (rc == JP_ENOMEM) {
		jp_error_dispose(&err);
		return rc;
	}
	if (rc < 0) {
		flow_verdict_set(why, JP_CHECK_FAIL, "%s", jp_error_message(&err));
		jp_error_dispose(&err);
		return JP_EUSAGE;
	}
	jp_error_dispose(&err);
	rc = jp_set_str(&flow->m->job.resume_from, path);
	free(path);
	return rc;
}

