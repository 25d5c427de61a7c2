/* Step 4, Outputs: where this run's weights, checkpoints and logs go. The
 * inline check rejects ephemeral places (/tmp, /root, /workspace) as they
 * are typed, with the reason. The directories are made on the review step,
 * after asking. */
#include "config.h"

#include "jobprep/i18n.h"
#include "tui/wizard.h"

const struct jp_step_ops jp_step_outputs_ops = {
	.step = JP_STEP_OUTPUTS,
	.help = N_("The Worker's system disk is a fixed 50 GiB and is wiped when the job stops, "
		   "succeeds or fails. Weights, checkpoints, TensorBoard logs and debug logs "
		   "must go to shared storage: never only to /tmp, /root, /workspace or another "
		   "container-local directory. By default each run gets its own run-NNN "
		   "directory, with checkpoints/ and logs/ inside it. jobprep creates them "
		   "(mkdir -p) on the review step, after asking."),
};
