/* Step 5, Launch: the launch command and extra environment variables. The
 * lint's findings (downloads, installs, unpacking at job start...) show
 * inline under the command. */
#include "config.h"

#include "jobprep/i18n.h"
#include "tui/wizard.h"

const struct jp_step_ops jp_step_launch_ops = {
	.step = JP_STEP_LAUNCH,
	.help = N_("The job runs only this command; it does not sync your local files. It "
		   "should only train: no downloading, installing or unpacking while the GPUs "
		   "wait. env.sh (written on the review step) exports PROJECT_DIR, OUTPUT_DIR, "
		   "CHECKPOINT_DIR, LOG_DIR and DATA_DIR, plus the variables listed here; the "
		   "command offered for the platform's form sources it first. In distributed "
		   "code, let rank 0 prepare shared state and put a barrier before the others "
		   "read it."),
};
