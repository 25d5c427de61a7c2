#!/bin/sh
# Nothing is lost without a question (issue 22): Esc on the first screen
# asks before quitting ("no" stays, "yes" quits with 130); Ctrl-C after
# Create (the run's folders made, no manifest yet) asks too; the folder
# left without a manifest is shown as unfinished by `jobprep runs` and the
# next prep takes it again instead of skipping its number.
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init quit-asks
runs=$T/work/jobprep-demo/shared/outputs/demo
draft=$T/home/.local/state/jobprep/demo-draft.json

# --- Esc on the first screen ------------------------------------------------
tui_start 100 30 -- --demo
tui_must starts tui_step 1 Job
tui_keys Escape
tui_must esc_asks_before_quitting tui_wait_modal "Quit jobprep?"
tui_keys n
tui_must esc_no_closes_the_question tui_wait_gone "Keep going"
jp_expect esc_no_did_not_exit [ ! -e "$T/exit" ]
jp_expect esc_no_still_on_the_job_step tui_step 1 Job
tui_keys Escape
tui_must esc_asks_again tui_wait_modal "Quit jobprep?"
tui_keys y
jp_expect esc_yes_quits_130 [ "$(tui_wait_exit)" = 130 ]
rm -f "$draft" # (quitting kept the answers)

# --- Ctrl-C after Create ----------------------------------------------------
tui_start 100 30 -- --demo
tui_walk_to 6
tui_must asks_to_create tui_wait "Create the run's directories" 60
tui_keys Enter
tui_must checks_shown tui_wait " 0 failed" 60
jp_expect folders_made [ -d "$runs/run-001/checkpoints" ]
tui_keys C-c
tui_must ctrl_c_asks tui_wait_modal "no manifest is written yet"
tui_must ctrl_c_says_the_next_prep_takes_it tui_wait_modal "The next prep takes the folder again"
tui_keys n
tui_must ctrl_c_no_stays tui_wait_gone "Keep going"
jp_expect ctrl_c_no_did_not_exit [ ! -e "$T/exit" ]
tui_keys C-c
tui_must ctrl_c_asks_again tui_wait_modal "no manifest is written yet"
tui_keys y
jp_expect ctrl_c_yes_quits_130 [ "$(tui_wait_exit)" = 130 ]
jp_expect the_folder_is_left_without_a_manifest [ -d "$runs/run-001" -a ! -e "$runs/run-001/job.json" ]

HOME=$T/home "$JOBPREP" runs demo >"$T/runs.out" 2>&1
jp_expect runs_lists_it grep -qx "$runs/run-001" "$T/runs.out"
jp_expect runs_says_it_is_unfinished_and_taken_again \
	grep -q "^  state  *unfinished: .*the next prep takes this folder again\$" "$T/runs.out"

# --- the next prep takes it again ---------------------------------------------
rm -f "$draft"
tui_start 100 30 -- --demo
tui_walk_to 4
tui_must next_prep_takes_run_001_again tui_wait "outputs/demo/run-001"
jp_expect no_run_002 [ ! -e "$runs/run-002" ]
tui_walk_on 4 6
tui_must again_asks_to_create tui_wait "Create the run's directories" 60
tui_keys Enter
tui_must again_nothing_fails tui_wait " 0 failed" 60
tui_keys Enter
tui_must written tui_wait "Manifest written:"
tui_keys Enter
jp_expect exits_0 [ "$(tui_wait_exit)" = 0 ]
jp_expect written_into_run_001 [ "$(sed -n 's/^Manifest written: //p' "$T/stdout")" = "$runs/run-001/job.json" ]
tui_finish
