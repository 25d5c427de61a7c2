#!/bin/sh
# The review runs every check: a data set that vanished after its step was
# accepted fails there, the failure is selected, writing is refused, and
# Enter on the failed check goes back to the field it is about.
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init review-jump

tui_start 100 30 -- --demo
tui_walk_to 4
rm -rf "$T/work/jobprep-demo/shared/datasets/demo-data"
tui_walk_on 4 6
tui_must asks_to_create tui_wait "Create the run's directories"
tui_keys Enter
tui_must check_fails tui_wait " failed"
tui_must grouped_under_data tui_wait "Data"
tui_must failure_selected_with_its_field tui_wait "data[0].path.exists"
tui_must write_refused_while_failing tui_wait "fix the failed checks first"
tui_keys Enter
tui_must enter_goes_to_the_data_step tui_step 3 Data
tui_must focus_on_the_path_field tui_wait "▸   Path"
jp_expect nothing_written [ ! -e "$T/work/jobprep-demo/shared/outputs/demo/run-001/job.json" ]
tui_keys C-c
# the run's folders were made, no manifest yet: it asks first
tui_must asks_before_quitting tui_wait_modal "no manifest is written yet"
tui_keys y
rc=$(tui_wait_exit)
jp_expect quits [ "$rc" = 130 ]
tui_finish
