#!/bin/sh
# The review's check list is a real scrolling list: with ~30 checks (a
# launch command full of lint findings, a data set removed after its step)
# in a 100x30 and an 80x24 terminal, the failures come first, Down walks
# every check with the position indicator ("12–26 of 30") following, every
# failure is reachable, no message is cut without an ellipsis (paths hold
# CJK characters: widths in columns), and Enter on a failure goes to its
# field. A refusal to write is a failed row of its own (never "0 failed"
# beside it), and "Not now" on the directories dialog shows the run's
# folders as to create, not as failures.
set -u
. "$TOP_SRCDIR/tests/lib/report.sh"
# every path the checks name holds CJK characters (two columns each)
cjk=$(mktemp -d "${TMPDIR:-/tmp}/jp-数据集-XXXXXX") || exit 99
TMPDIR=$cjk
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init review-long
tui_on_exit "rm -rf '$cjk'"

# An output under /tmp and a config not in the code fail the launch command
# (issue 21): behind a test's && they are warnings, so the wizard reaches
# the review with every finding.
launch='cd /tmp && pip install torch && wget http://example.com/d.tar.gz && tar xf d.tar.gz && [ -w /tmp ] && python train.py --out /tmp/out && rsync -a /tmp/out /root/keep && [ -w /tmp ] && python3 "$PROJECT_DIR/train.py" --config "$PROJECT_DIR/configs/none.yaml"'

# _rows: the check list's rows on the screen (glyph after the frame).
_rows() {
	tui_screen | grep -E '^│   (✓|!|✗|\+) '
}

# _cut_silently: a row that reaches the frame without an ellipsis (the
# last column before the frame's padding is taken).
_cut_silently() {
	_rows | grep -E '[^ ] │$' | grep -v '… │$'
}

_first_row_failed() {
	_rows | head -n 1 | grep -q '✗'
}

_no_fail_row() {
	! _rows | grep -q '✗'
}

# _no_space_added: the paths on the screen are the paths (the manifest
# path's verdict, cut to its last line, once joined the wrapped lines of a
# path broken after a CJK character with a space: "jp-数据集 -XXXXXX").
_no_space_added() {
	! tui_screen | grep -qF '数据集 -'
}

_not_0_failed() {
	! tui_screen | grep -q ' 0 failed'
}

# _screen_moved OLD: wait until the screen (with attributes) differs.
_screen_moved() {
	_n=0
	while [ "$(tui_screen_esc)" = "$1" ] && [ $_n -lt 200 ]; do
		sleep 0.05
		_n=$((_n + 1))
	done
	[ $_n -lt 200 ]
}

to_review() {
	tui_must "$1_job" tui_step 1 Job
	tui_keys Enter
	tui_must "$1_code" tui_step 2 Code
	tui_keys Enter
	tui_must "$1_data" tui_step 3 Data
	tui_keys Enter
	tui_must "$1_outputs" tui_step 4 Outputs
	tui_keys Enter
	tui_must "$1_launch" tui_step 5 Launch
	# surely run, it fails: Enter stays on the step and says why
	tui_set "Launch command" 'cd "$PROJECT_DIR" && bash scripts/train.sh --out /tmp/out'
	tui_keys Enter
	tui_must "$1_tmp_output_fails" tui_wait "✗ Launch command: '--out /tmp/out' writes to /tmp/out"
	jp_expect "$1_tmp_output_stays_on_launch" tui_step 5 Launch
	tui_set "Launch command" 'cd "$PROJECT_DIR" && python3 train.py --config configs/none.yaml'
	tui_keys Enter
	tui_must "$1_missing_config_fails" tui_wait "✗ Launch command: 'configs/none.yaml': "
	jp_expect "$1_missing_config_stays_on_launch" tui_step 5 Launch
	tui_set "Launch command" "$launch"
	rm -rf "$T/work/jobprep-demo/shared/datasets/demo-data"
	tui_keys Enter
	# the lint's findings may ask first: go on anyway
	_n=0
	while ! tui_screen | grep -qF "6/6  Review" && [ $_n -lt 5 ]; do
		tui_wait "Review" 2 >/dev/null 2>&1 || tui_keys Enter
		_n=$((_n + 1))
	done
	tui_must "$1_review" tui_step 6 Review
}

# fresh_start COLS ROWS ARGS...: a new wizard with no draft nor demo left
FRESH=0
fresh_start() {
	_c=$1
	_r=$2
	shift 2
	[ "${1:-}" = "--" ] && shift
	tmux -L "$TUI_SOCK" kill-server 2>/dev/null
	FRESH=$((FRESH + 1))
	mkdir -p "$T/home.$FRESH"
	rm -rf "$T/work/jobprep-demo"
	tui_start "$_c" "$_r" HOME="$T/home.$FRESH" -- "$@"
}

walk() { # NAME COLS ROWS
	fresh_start "$2" "$3" -- --demo
	to_review "$1"
	tui_must "$1_asks_to_create" tui_wait "Create the run's directories"
	tui_keys Enter
	tui_must "$1_checks" tui_wait "Checks:"
	total=$(tui_screen | sed -n 's/.*[0-9]–[0-9]* of \([0-9]*\) .*/\1/p' | head -n 1)
	failed=$(tui_screen | sed -n 's/.*Checks: .*, \([0-9]*\) failed.*/\1/p' | head -n 1)
	jp_expect "$1_position_indicator" [ -n "$total" ]
	jp_expect "$1_about_30_checks" [ "${total:-0}" -ge 26 ]
	jp_expect "$1_some_failed" [ "${failed:-0}" -ge 1 ]
	jp_expect "$1_more_checks_than_rows" [ "${total:-0}" -gt "$(_rows | wc -l)" ]
	jp_expect "$1_failure_first" _first_row_failed
	: >"$T/seen"
	: >"$T/cut"
	i=1
	while [ "$i" -le "${total:-0}" ]; do
		_rows >>"$T/seen"
		_cut_silently >>"$T/cut"
		old=$(tui_screen_esc)
		tui_keys Down
		_screen_moved "$old" || break
		i=$((i + 1))
	done
	_rows >>"$T/seen"
	jp_expect "$1_down_walks_every_check" [ "$i" -gt "${total:-0}" ]
	jp_expect "$1_indicator_reaches_the_end" tui_wait "–$total of $total" 2
	jp_expect "$1_down_ends_on_the_button" tui_wait "Enter creates the run's directories" 2
	jp_expect "$1_every_failure_seen" [ "$(grep '✗' "$T/seen" | sort -u | wc -l)" = "$failed" ]
	jp_expect "$1_no_cut_without_ellipsis" [ ! -s "$T/cut" ]
	[ -s "$T/cut" ] && sed 's/^/# cut: /' "$T/cut"
	jp_expect "$1_long_messages_end_with_an_ellipsis" grep -q '…' "$T/seen"
	jp_expect "$1_cjk_paths_shown" grep -q '数据集' "$T/seen"
	jp_expect "$1_review_lists_the_missing_config" grep -q "configs/none.yaml'" "$T/seen"
	tui_keys Home
	tui_must "$1_home_on_a_failure" tui_wait "data[0].path.exists"
	tui_keys Enter
	tui_must "$1_enter_goes_to_the_data_step" tui_step 3 Data
	tui_must "$1_focus_on_the_path" tui_wait "▸   Path"
}

walk big 100 30
walk small 80 24

# "Not now": the run's folders are to create, not failures; Enter on one
# makes them.
fresh_start 100 30 -- --demo
tui_must notnow_job tui_step 1 Job
for step in "2 Code" "3 Data" "4 Outputs" "5 Launch" "6 Review"; do
	tui_keys Enter
	tui_must "notnow_${step#* }" tui_step $step
done
tui_must notnow_asks tui_wait "Create the run's directories"
tui_keys Right Enter
tui_must notnow_folders_to_create tui_wait "3 folders to create"
jp_expect notnow_nothing_failed tui_wait " 0 failed" 2
jp_expect notnow_no_fail_rows _no_fail_row
tui_must notnow_says_missing tui_wait "is missing:"
tui_keys Enter
tui_must notnow_enter_creates tui_wait "Checks: " 
tui_must notnow_created tui_wait_gone "folders to create"
jp_expect notnow_dirs_made [ -d "$T/work/jobprep-demo/shared/outputs/demo/run-001/logs" ]

# A refusal to write is a failed row: the second run's -o copy would
# replace run-001's manifest, and "n" refuses.
copy=$T/work/jobprep-demo/shared/job.json
# (no demo left from before; not through fresh_start with --version: that
# run's shell could write its exit file after the next start removed it,
# and the next wait then gave up on a screen not yet drawn)
tmux -L "$TUI_SOCK" kill-server 2>/dev/null
rm -rf "$T/work/jobprep-demo"
for run in first second; do
	tui_start 100 30 -- --demo -o "$copy"
	tui_must "${run}_job" tui_step 1 Job
	[ $run = second ] && tui_must second_from_run_001 tui_earlier_run Enter
	for step in "2 Code" "3 Data" "4 Outputs" "5 Launch" "6 Review"; do
		tui_keys Enter
		tui_must "${run}_${step#* }" tui_step $step
	done
	tui_must "${run}_asks" tui_wait "Create the run's directories"
	tui_keys Enter
	tui_must "${run}_checks" tui_wait "Checks:"
	# (Enter writes only from the button: no check may have failed)
	tui_must "${run}_nothing_failed" tui_wait " 0 failed" 2
	[ $run = second ] &&
		jp_expect second_paths_shown_as_they_are _no_space_added
	tui_keys Enter
	[ $run = first ] && tui_must first_written tui_wait "Manifest written:"
done
# (the box wraps its text to its width, a long path anywhere)
tui_must asks_before_replacing tui_wait_modal "holds the manifest of another run"
tui_keys n
tui_must refusal_is_a_row tui_wait "Write    "
jp_expect refusal_counted_as_failed tui_wait "1 failed" 2
jp_expect never_0_failed_with_a_refusal _not_0_failed
jp_expect refusal_row_says_why tui_wait "review.write" 2
tui_keys Enter
tui_must refusal_enter_goes_to_the_manifest_path tui_wait "▸ Manifest"
tui_finish
