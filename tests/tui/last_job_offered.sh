#!/bin/sh
# The wizard offers the last job prepared on this account: started with no
# job named (no --demo, no answers), the Job step holds the last job's name
# and says so on the status line, and its last run's answers are offered. The healthy twin: an account that prepared nothing starts
# with an empty name and no such line.
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
. "$TOP_SRCDIR/tests/lib/initscratch.sh"
tui_init last-job
command -v python3 >/dev/null 2>&1 || jp_skip_all "python3 is not installed"

S=$T/scratch
jp_init_scratch "$S" || { echo "not ok - scratch platform: cannot lay it out"; exit 99; }
jp_answers shared-existing "$S" "$S/answers.json"
HOME=$T/home "$JOBPREP" init --answers "$S/answers.json" --profile "$S/profile.json" \
	>"$T/init.out" 2>&1
tui_must first_prep_written [ -f "$S/shared/outputs/existing-job/run-001/job.json" ]

# --- the account has prepared existing-job: it is offered ---------------------
tui_start 100 30 -- --profile "$S/profile.json"
tui_must starts tui_step 1 Job
# its name is filled in, so its last run is offered at once
jp_expect last_run_of_the_last_job_offered tui_wait_modal "Start from run-001" 30
tui_keys n
jp_expect offer_declined tui_wait_gone "Start afresh" 10
jp_expect last_job_filled_in sh -c "sleep 0.3; tmux -L '$TUI_SOCK' capture-pane -p | grep -q '▸ Job name  *existing-job'"
jp_expect last_job_named_on_the_status_line \
	tui_wait "existing-job is the job you prepared last" 10
tui_keys C-c
tui_wait_exit >/dev/null

# --- the healthy twin: nothing prepared, nothing offered -----------------------
mkdir -p "$T/fresh-home"
tui_start 100 30 HOME="$T/fresh-home" -- --profile "$S/profile.json"
tui_must twin_starts tui_step 1 Job
jp_expect twin_name_empty sh -c "sleep 0.5; tmux -L '$TUI_SOCK' capture-pane -p >'$T/twin.screen'; grep -q '▸ Job name' '$T/twin.screen' && ! grep -q 'existing-job' '$T/twin.screen'"
jp_show_if_failed "$T/twin.screen" "$T/init.out"
tui_keys C-c
tui_wait_exit >/dev/null
tui_finish
