/* Step 1, Job: the job's name, Workers and GPUs. The name is the one every
 * default below follows (project and output directories). */
#include "config.h"

#include "jobprep/i18n.h"
#include "tui/wizard.h"

/* The job has runs already: start from the last one's answers? */
static void job_accepted(struct jp_wizard *w)
{
	jp_wizard_offer_run(w, true);
}

const struct jp_step_ops jp_step_job_ops = {
	.step = JP_STEP_JOB,
	.help = N_("Name the job and say how big it is. The name becomes part of the project "
		   "and output directories on shared storage, so change it here and those "
		   "defaults follow. With more than one Worker every path the job uses must be "
		   "on shared storage: each Worker is a different machine. When the job has "
		   "been prepared before, jobprep offers to start from the last run's answers."),
	.accepted = job_accepted,
};
