#!/bin/sh
# Resuming from the last run, in the wizard (issue 29): the demo's training
# script resumes (--init_from=resume) and run-001 left a checkpoint; the
# Review lists the failed launch.resume, and one key, Enter on it, takes the
# offer: job.resume_from is run-001's checkpoint folder, the checks pass,
# and the run's env.sh exports RESUME_FROM.
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init review-resume
(cd "$T/work" && HOME=$T/home "$JOBPREP" init --demo >"$T/init.out" 2>&1) || {
	cat "$T/init.out"
	exit 99
}
demo=$T/work/jobprep-demo
proj=$demo/shared/projects/demo
runs=$demo/shared/outputs/demo
# the training script resumes from its checkpoint folder; run-001 left one
sed -i 's|exec python3 train.py |exec python3 train.py --init_from=resume |' "$proj/scripts/train.sh" &&
	grep -q -- --init_from=resume "$proj/scripts/train.sh" || exit 99
mkdir -p "$runs/run-001/checkpoints" && printf 'weights\n' >"$runs/run-001/checkpoints/ckpt.pt" || exit 99

tui_start 100 30 -- --demo
tui_must starts tui_step 1 Job
tui_must offers_the_earlier_run tui_earlier_run n
tui_walk_on 1 6
tui_wait "Create the run's directories" 5 >/dev/null 2>&1 && tui_keys Enter
tui_must review_lists_the_failure tui_wait "launch.resume" 60
tui_must one_failed tui_wait "1 failed"
tui_must enter_offers_the_resume tui_wait "resume from the earlier run's checkpoint"
tui_keys Enter
tui_must nothing_fails_after_it tui_wait " 0 failed" 60
tui_keys Enter
tui_must written tui_wait "Manifest written:"
tui_keys Enter
rc=$(tui_wait_exit)
jp_expect exits_0 [ "$rc" = 0 ]
jp_expect env_sh_exports_resume_from \
	[ "$(sh -c '. "$1" && printf %s "$RESUME_FROM"' sh "$runs/run-002/env.sh")" = \
	  "$runs/run-001/checkpoints" ]
jp_expect manifest_records_resume_from \
	grep -q "\"resume_from\":[[:space:]]*\"$runs/run-001/checkpoints\"" "$runs/run-002/job.json"
tui_finish
