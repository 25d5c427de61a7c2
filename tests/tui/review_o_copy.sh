#!/bin/sh
# The wizard's -o FILE outside the run's folder: Review writes the manifest
# and env.sh into the run's folder and a byte-identical copy at FILE (the
# written screen names all three). The next run with the same -o asks before
# replacing run-001's manifest at FILE: "no" writes nothing (FILE and run-001
# untouched, the refusal a failed check whose Enter goes to the manifest's
# path), "yes" makes FILE run-002's copy, run-001 still untouched.
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init review-o-copy

runs=$T/work/jobprep-demo/shared/outputs/demo
copy=$T/work/jobprep-demo/shared/job.json # on the shared root: /tmp is refused

# walk Enter through the five steps, then let Review make the directories
to_review() {
	tui_must "$1_starts_on_the_job_step" tui_step 1 Job
	# the second: from run-001's answers (-o stays asked for)
	[ "$1" = first ] || tui_must "$1_starts_from_run_001" tui_earlier_run Enter
	for step in "2 Code" "3 Data" "4 Outputs" "5 Launch" "6 Review"; do
		tui_keys Enter
		tui_must "$1_goes_to_${step#* }" tui_step $step
	done
	tui_must "$1_review_asks_before_creating_directories" tui_wait "Create the run's directories"
	tui_keys Enter
	tui_must "$1_checks_are_shown" tui_wait "Checks:"
}

tui_start 160 40 -- --demo -o "$copy"
to_review first
tui_keys Enter
tui_must first_written tui_wait "Manifest written:"
tui_must written_screen_names_the_copy tui_wait "Copy: $copy"
tui_keys Enter
rc=$(tui_wait_exit)
jp_expect first_exits_0 [ "$rc" = 0 ]
jp_expect first_manifest_is_in_run_001 \
	[ "$(sed -n 's/^Manifest written: //p' "$T/stdout")" = "$runs/run-001/job.json" ]
jp_expect first_env_sh_is_in_run_001 [ -s "$runs/run-001/env.sh" -a ! -e "$T/work/env.sh" ]
jp_expect copy_is_the_run_manifest cmp -s "$copy" "$runs/run-001/job.json"
cp "$copy" "$T/copy.1"
cp "$runs/run-001/job.json" "$T/job.1"
cp "$runs/run-001/env.sh" "$T/env.1"

# the next run, the same -o
tui_start 160 40 -- --demo -o "$copy"
to_review second
tui_keys Enter
tui_must asks_before_replacing_another_runs_manifest tui_wait "holds the manifest of another run"
tui_keys n
tui_must no_writes_nothing tui_wait "was not replaced: nothing was written"
jp_expect declined_copy_untouched cmp -s "$copy" "$T/copy.1"
jp_expect declined_made_no_run_002_manifest [ ! -e "$runs/run-002/job.json" ]
tui_must refusal_is_a_failed_check tui_wait "review.write"
tui_keys Enter
tui_must refusal_goes_to_the_manifest_path tui_wait "▸ Manifest"
tui_keys Enter
tui_must asks_again tui_wait "holds the manifest of another run"
tui_keys y
tui_must second_written tui_wait "Manifest written:"
tui_keys Enter
rc=$(tui_wait_exit)
jp_expect second_exits_0 [ "$rc" = 0 ]
jp_expect copy_is_now_run_002s cmp -s "$copy" "$runs/run-002/job.json"
jp_expect run_001_untouched cmp -s "$runs/run-001/job.json" "$T/job.1"
jp_expect run_001_env_sh_untouched cmp -s "$runs/run-001/env.sh" "$T/env.1"
jp_expect runs_have_their_own_env_sh [ -s "$runs/run-002/env.sh" ]
tui_finish
