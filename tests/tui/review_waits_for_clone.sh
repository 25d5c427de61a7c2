#!/bin/sh
# The clone runs while the person goes on; the review step waits for it,
# showing its progress; Esc there asks before stopping it ("let it run"
# keeps waiting); once it is done the review goes on to the checks and the
# manifest records the commit the clone checked out.
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init review-wait
jp_git_big_repo "$T/srv/big.git" 6 || exit 99
jp_gitd_start "$T/gitd" "$T/srv" slow || exit 99
tui_on_exit 'jp_gitd_stop "$T/gitd"'
URL=git://127.0.0.1:$JP_GITD_PORT/big.git
COMMIT=$(git --git-dir="$T/srv/big.git" rev-parse main)

tui_start 100 30 -- --demo
tui_walk_to 2
tui_must url_typed_in_its_field tui_set "Repository URL" "$URL"
tui_keys Enter
tui_must data tui_step 3 Data
tui_keys Enter
tui_must outputs_while_cloning tui_step 4 Outputs
tui_keys Enter
tui_must launch_while_cloning tui_step 5 Launch

tui_keys Enter
tui_must review tui_step 6 Review
tui_must review_waits_for_the_clone tui_wait "Waiting for the background work"
tui_must shows_its_progress tui_wait "receiving"
tui_keys Escape
tui_must esc_asks_before_stopping tui_wait "Stop the work?"
tui_keys n
tui_must let_it_run_keeps_waiting tui_wait "Waiting for the background work"
tui_must then_asks_to_create tui_wait "Create the run's directories" 120
tui_keys Enter
tui_must checks tui_wait "Checks:"
tui_must nothing_failed tui_wait " 0 failed" 60
tui_keys Enter
tui_must written tui_wait "Manifest written:"
tui_keys Enter
rc=$(tui_wait_exit)
jp_expect exits_0 [ "$rc" = 0 ]
m=$T/work/jobprep-demo/shared/outputs/demo/run-001/job.json
commit_of() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["code"]["repo"]["commit"])' "$1"
}
jp_expect manifest_records_the_cloned_commit [ "$(commit_of "$m")" = "$COMMIT" ]
tui_finish
