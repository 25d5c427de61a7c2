#!/bin/sh
# Every launch finding is shown whole on the Launch step, wrapped over as
# many lines as it needs (never cut with "…" at 80 or 120 columns), with
# its fix; F1 shows the focused field's findings in full; at Review, Down
# on the write button goes round to the first check and F1 shows the
# selected check in full. The healthy twin: a command with no finding
# shows no finding and F1 has no "What the check found".
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init findings-whole

# Two Workers and a plain torchrun: launch.launcher's finding is long and
# ends with its fix ("(the platform sets these variables on every Worker)").
launch='torchrun --nproc_per_node=2 scripts/train.sh'
fix_end='the platform sets these variables on every Worker'

for size in "120 40" "80 40"; do
	n=${size% *}
	rm -rf "$T/work/jobprep-demo"
	mkdir -p "$T/home.$n"
	tui_start $size HOME="$T/home.$n" -- --demo
	tui_must "${n}_starts" tui_step 1 Job
	tui_must "${n}_two_workers" tui_set "Workers" "2"
	for step in "2 Code" "3 Data" "4 Outputs" "5 Launch"; do
		tui_keys Enter
		tui_must "${n}_${step#* }" tui_step $step
	done
	tui_must "${n}_typed" tui_set "Launch command" "$launch"
	# the finding's last words, its fix, are on the step itself
	jp_expect "${n}_launcher_finding_whole" tui_wait_wrapped "$fix_end" 10
	tmux -L "$TUI_SOCK" capture-pane -p >"$T/launch.$n"
	# the step's body, above the status line (background news there, a
	# clone's path, may end in … on a slow build; it is no finding)
	awk '{ l[NR] = $0 } /^├/ { last = NR } END { for (i = 1; i < last; i++) print l[i] }' \
		"$T/launch.$n" >"$T/launch-body.$n"
	jp_expect "${n}_no_finding_cut" sh -c '[ -s "$1" ] && ! grep -qF "…" "$1"' sh "$T/launch-body.$n"
	tui_keys F1
	jp_expect "${n}_f1_shows_the_finding" tui_wait "What the check found" 5
	jp_expect "${n}_f1_gives_the_fix" tui_wait_modal "$fix_end" 5
	tui_keys Escape
	jp_expect "${n}_f1_closes" tui_wait_gone "What the check found" 5
	tui_keys C-c
	tui_wait_exit >/dev/null
done

# --- Review: Down goes round from the button; F1 on a check -----------------------
rm -rf "$T/work/jobprep-demo"
mkdir -p "$T/home.review"
tui_start 100 30 HOME="$T/home.review" -- --demo
tui_walk_to 6
tui_must review_asks_to_create tui_wait_modal "Create the run's directories" 60
tui_keys Enter
jp_expect review_checks_shown tui_wait "Write the manifest" 60
# the demo has warnings and no failure: the focus starts on the button
tui_keys Down
jp_expect review_down_from_the_button_goes_to_the_first_check \
	sh -c "sleep 0.3; tmux -L '$TUI_SOCK' capture-pane -p >'$T/review.screen'; grep -q '^│ code.path.storage  → ' '$T/review.screen'"
tui_keys F1
jp_expect review_f1_shows_the_check tui_wait "What the check found" 5
jp_expect review_f1_gives_its_id tui_wait_modal "path.storage" 5
tui_keys Escape
jp_show_if_failed "$T/review.screen" "$T/launch.80" "$T/launch.120"
tui_keys C-c
tui_wait_exit >/dev/null

# --- the healthy twin ---------------------------------------------------------------
rm -rf "$T/work/jobprep-demo"
mkdir -p "$T/home.twin"
tui_start 120 40 HOME="$T/home.twin" -- --demo
tui_walk_to 5
tui_must twin_focus tui_field "Launch command"
tui_keys F1
jp_expect twin_f1_opens tui_wait "Help: Launch" 5
jp_expect twin_f1_has_no_finding sh -c "sleep 0.3; ! tmux -L '$TUI_SOCK' capture-pane -p | grep -q 'What the check found'"
tui_keys Escape
tui_keys C-c
tui_wait_exit >/dev/null
tui_finish
