#!/bin/sh
# The second prep of a job starts from its last run (issue 22): the first
# demo prep by Enter alone; a prep that sets Workers=2, a third data
# source, a launch command and a job.env variable; then the same job again
# by Enter alone keeps them all (the wizard offers "Start from run-NNN",
# Enter takes it), in its own run folder; changing one thing costs only
# that change. The keys each prep took are counted (TUI_KEYS) and printed.
# Also: `jobprep runs demo` finds the demo's runs without its profile; the
# launch line on the closing screen breaks only after "&&" at 80 columns.
# (The old build fails 3 of the first 16 cases and stops at the offer.)
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init second-prep
# A short folder for the sandbox: the run's paths are then as short as a
# platform's, and each piece of the launch line fits 80 columns.
W=$(mktemp -d /tmp/jXXXXXX) || exit 99
tui_on_exit "rm -rf '$W'"
TUI_CWD=$W
D=$W/jobprep-demo
runs=$D/shared/outputs/demo
runs_cmd() { HOME=$T/home "$JOBPREP" runs "$@"; }
# field FILE PYTHON-EXPR: a value of the manifest, printed
field() { python3 -c "import json,sys; m=json.load(open(sys.argv[1])); print($2)" "$1"; }
command -v python3 >/dev/null 2>&1 || jp_skip_all "python3 is not installed"

# finish_review: Create, the checks, write, the closing screen, exit 0
finish_review() {
	tui_must "$1_asks_to_create" tui_wait "Create the run's directories" 60
	tui_keys Enter
	tui_must "$1_nothing_fails" tui_wait " 0 failed" 60
	tui_keys Enter
	tui_must "$1_written" tui_wait "Manifest written:"
	tui_keys Enter
	tui_must "$1_exits_0" [ "$(tui_wait_exit)" = 0 ]
}

# --- 1. the first prep, Enter only, 80x24 ---------------------------------
tui_start 80 24 -- --demo
TUI_KEYS=0
tui_walk_to 6
tui_must first_asks_to_create tui_wait "Create the run's directories" 60
tui_keys Enter
tui_must first_nothing_fails tui_wait " 0 failed" 60
tui_keys Enter
tui_must first_written tui_wait "Manifest written:"
# the launch line, as the closing screen shows it: every line but the last
# ends with "&&" (a line break the shell reads through), and the lines
# joined by a space are the command printed when the wizard ends
tui_screen | awk -F'│' '/Launch command for the platform/ { on = 1; next }
	on && $2 ~ /^ *$/ { exit }
	on { sub(/^ +/, "", $2); sub(/ +$/, "", $2); print $2 }' >"$T/launch.lines"
tui_keys Enter
tui_must first_exits_0 [ "$(tui_wait_exit)" = 0 ]
K1=$TUI_KEYS
sed -n '/^Launch command for/{n;s/^  //;p;}' "$T/stdout" >"$T/launch.printed"
jp_expect launch_line_over_several_lines [ "$(wc -l <"$T/launch.lines")" -ge 2 ]
jp_expect launch_line_breaks_only_after_and_and \
	sh -c '[ "$(sed "\$d" "$1" | grep -cv "&&\$")" = 0 ]' sh "$T/launch.lines"
jp_expect launch_lines_joined_are_the_command \
	[ "$(paste -sd ' ' "$T/launch.lines")" = "$(cat "$T/launch.printed")" ]
jp_expect first_prep_is_run_001 [ -s "$runs/run-001/job.json" ]

# `runs` without --profile: the profile the demo's runs were made with
runs_cmd demo >"$T/runs1.out" 2>&1
jp_expect runs_finds_the_demo_runs_without_its_profile grep -qx "$runs/run-001" "$T/runs1.out"

# --- 2. a prep that sets Workers, a third source, the command, job.env -----
mkdir -p "$D/shared/datasets/extra" && echo 1 >"$D/shared/datasets/extra/a.txt"
launch='cd "$PROJECT_DIR" && bash scripts/train.sh --epochs "$EPOCHS"'
tui_start 100 30 -- --demo
tui_must rich_offered_the_earlier_run tui_wait_modal "Start from run-001"
TUI_KEYS=0
tui_keys n
tui_must rich_starts_afresh tui_wait_gone "Start afresh"
tui_must rich_workers tui_set "Workers" 2
tui_keys Enter
tui_must rich_code tui_step 2 Code
tui_keys Enter
tui_must rich_data tui_step 3 Data
tui_must rich_two_sources tui_wait "Data sources  (2)"
tui_keys a
tui_must rich_adds_a_source tui_wait "Data sources  (3)"
tui_type "$D/shared/datasets/extra"
tui_keys Enter
tui_must rich_outputs tui_step 4 Outputs
tui_keys Enter
tui_must rich_launch tui_step 5 Launch
tui_must rich_command tui_set "Launch command" "$launch"
tui_must rich_env tui_field "Environment variables"
tui_keys a
tui_must rich_env_name tui_wait "▸   Name"
tui_type EPOCHS
tui_keys Tab
tui_type 3
tui_must rich_env_row_follows_the_typing tui_wait " 1  EPOCHS=3"
tui_keys Enter
tui_must rich_review tui_step 6 Review
finish_review rich
K_RICH=$TUI_KEYS
m2=$runs/run-002/job.json
jp_expect rich_run_is_run_002 [ -s "$m2" ]
jp_expect rich_run_has_it_all [ "$(field "$m2" 'm["job"]["workers"], len(m["data"]), m["job"]["env"]')" = "2 3 {'EPOCHS': '3'}" ]

# --- 3. the same job again, Enter only --------------------------------------
tui_start 100 30 -- --demo
tui_must again_offered_run_002 tui_wait_modal "Start from run-002"
TUI_KEYS=0
tui_keys Enter
tui_must again_job tui_step 1 Job
tui_must again_says_where_from tui_wait "started from run-002"
tui_walk_on 1 6
finish_review again
K_AGAIN=$TUI_KEYS
m3=$runs/run-003/job.json
jp_expect again_is_run_003 [ -s "$m3" ]
jp_expect again_keeps_workers_data_launch_env \
	[ "$(field "$m3" 'm["job"]["workers"], len(m["data"]), m["job"]["launch_command"], m["job"]["env"]')" = \
	  "$(field "$m2" 'm["job"]["workers"], len(m["data"]), m["job"]["launch_command"], m["job"]["env"]')" ]
jp_expect again_outputs_in_its_own_run \
	[ "$(field "$m3" 'm["outputs"]["output_dir"], m["outputs"]["checkpoint_dir"]')" = "$runs/run-003 $runs/run-003/checkpoints" ]
jp_expect run_002_left_alone [ "$(field "$m2" 'm["outputs"]["output_dir"]')" = "$runs/run-002" ]

# --- 4. one thing changed: Workers 3 ----------------------------------------
tui_start 100 30 -- --demo
tui_must one_offered tui_wait_modal "Start from run-003"
TUI_KEYS=0
tui_keys Enter
tui_must one_job tui_wait "started from run-003"
tui_must one_workers tui_set "Workers" 3
tui_walk_on 1 6
finish_review one
K_ONE=$TUI_KEYS
m4=$runs/run-004/job.json
jp_expect one_change_kept_the_rest \
	[ "$(field "$m4" 'm["job"]["workers"], len(m["data"]), m["job"]["env"]')" = "3 3 {'EPOCHS': '3'}" ]

# --- 5. jobprep --answers: a run's manifest pre-fills the wizard --------------
# (no --demo, no --profile: the manifest's own profile; no offer: the
# answers were named)
tui_start 100 30 -- --answers "$m2"
tui_must answers_starts tui_step 1 Job
jp_expect answers_asks_nothing sh -c '! tmux -L "$1" capture-pane -p | grep -q "Start afresh"' sh "$TUI_SOCK"
tui_must answers_workers_prefilled tui_wait "Workers          2"
tui_walk_on 1 3
tui_must answers_third_source tui_wait "Data sources  (3)"
tui_walk_on 3 4
tui_must answers_next_run_folder tui_wait "outputs/demo/run-005"
tui_keys C-c
tui_wait_modal "Quit" 5 >/dev/null 2>&1 && tui_keys y
tui_wait_exit >/dev/null
tui_start 100 30 -- --answers "$T/nothing.json"
jp_expect answers_unreadable_exits_3 [ "$(tui_wait_exit)" = 3 ]
jp_expect answers_unreadable_names_the_file grep -q "nothing.json" "$T/stderr"

echo "# keys: first prep (Enter only) $K1; prep setting Workers, a 3rd source, the command, job.env $K_RICH; the same again $K_AGAIN; one change (Workers) $K_ONE"
jp_expect the_same_again_costs_one_key_more_than_the_first [ "$K_AGAIN" = $((K1 + 1)) ]
tui_finish
