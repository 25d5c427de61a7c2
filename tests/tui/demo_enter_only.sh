#!/bin/sh
# The whole --demo flow by pressing Enter alone: every default is accepted,
# the manifest and env.sh are written, the summary names them, and
# `jobprep check` passes on the manifest.
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init demo-enter

tui_start 100 30 -- --demo
tui_must starts_on_the_job_step tui_step 1 Job
tui_must job_name_defaults_to_demo tui_wait "Job name"
tui_keys Enter
tui_must enter_goes_to_code tui_step 2 Code
tui_keys Enter
tui_must enter_goes_to_data tui_step 3 Data
tui_must demo_data_sources_listed tui_wait "demo-corpus"
tui_keys Enter
tui_must enter_goes_to_outputs tui_step 4 Outputs
tui_must output_dir_defaults_to_run_001 tui_wait "outputs/demo/run-001"
tui_keys Enter
tui_must enter_goes_to_launch tui_step 5 Launch
tui_must launch_command_defaults_to_train_sh tui_wait 'bash scripts/train.sh'
tui_keys Enter
tui_must enter_goes_to_review tui_step 6 Review
tui_must review_asks_before_creating_directories tui_wait "Create the run's directories"
tui_keys Enter
tui_must checks_are_shown tui_wait "Checks:"
tui_must no_check_failed tui_wait " 0 failed" 60
tui_keys Enter
tui_must manifest_written_screen tui_wait "Manifest written:"
tui_must preflight_sh_named_on_the_written_screen tui_wait "preflight.sh: "
tui_must launch_command_to_paste_shown tui_wait 'cd "$PROJECT_DIR" && bash scripts/train.sh'
tui_keys Enter
rc=$(tui_wait_exit)
jp_expect exits_0_after_writing [ "$rc" = 0 ]

m=$(sed -n 's/^Manifest written: //p' "$T/stdout")
jp_expect summary_names_the_manifest [ -n "$m" ]
jp_expect manifest_is_in_the_run_directory [ "$m" = "$T/work/jobprep-demo/shared/outputs/demo/run-001/job.json" ]
jp_expect env_sh_written_next_to_it [ -f "$T/work/jobprep-demo/shared/outputs/demo/run-001/env.sh" ]
run="$T/work/jobprep-demo/shared/outputs/demo/run-001"
jp_expect preflight_sh_written_next_to_it [ -x "$run/preflight.sh" ]
jp_expect launch_line_runs_env_sh_then_preflight_sh \
	grep -qF "exec </dev/null && . '$run/env.sh' && sh '$run/preflight.sh' && cd \"\$PROJECT_DIR\" && bash scripts/train.sh" "$T/stdout"
jp_expect the_demo_run_passes_its_preflight sh "$run/preflight.sh"
jp_expect code_was_cloned [ -x "$T/work/jobprep-demo/shared/projects/demo/scripts/train.sh" ]
"$JOBPREP" check "$m" >"$T/check.out" 2>&1
jp_expect jobprep_check_passes_on_the_written_manifest [ $? = 0 ]
jp_expect terminal_modes_restored cmp -s "$T/stty.before" "$T/stty.after"
jp_expect draft_removed_after_writing [ ! -e "$T/home/.local/state/jobprep/demo-draft.json" ]
tui_finish
