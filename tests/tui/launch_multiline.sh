#!/bin/sh
# The launch command is edited in a multi-line editor: a long command is
# wrapped over several lines (its start and its end on screen at once, not
# a single line scrolling sideways), and every lint finding is listed under
# it on the same screen, in a 100x30 and an 80x24 terminal.
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init launch-multiline

launch='cd /tmp && pip install torch && wget http://example.com/d.tar.gz && tar xf d.tar.gz && python train.py --out /tmp/out && rsync -a /tmp/out /root/keep-it-here'

for size in "100 30" "80 24"; do
	n=${size% *}
	rm -rf "$T/work/jobprep-demo"
	mkdir -p "$T/home.$n"
	tui_start $size HOME="$T/home.$n" -- --demo
	tui_must "${n}_starts" tui_step 1 Job
	for step in "2 Code" "3 Data" "4 Outputs" "5 Launch"; do
		tui_keys Enter
		tui_must "${n}_${step#* }" tui_step $step
	done
	tui_must "${n}_typed" tui_set "Launch command" "$launch"
	tui_must "${n}_end_shown" tui_wait "/root/keep-it-here"
	jp_expect "${n}_start_shown_too" tui_wait "cd /tmp && pip install" 2
	jp_expect "${n}_wrapped_over_lines" [ "$(tui_screen | grep -c '&&')" -ge 2 ]
	jp_expect "${n}_finding_cd" tui_wait "leaves the project directory" 5
	jp_expect "${n}_finding_tar_too" tui_wait "'tar' unpacks" 2
	jp_expect "${n}_findings_not_folded" sh -c "! tmux -L '$TUI_SOCK' capture-pane -p | grep -q 'more)'"
	# Home goes to the start of the text; typed there, it lands first
	tui_keys Home
	tui_type "X"
	jp_expect "${n}_edits_at_the_start" tui_wait "Xcd /tmp" 2
	tui_keys C-c
	tui_wait_exit >/dev/null
done
tui_finish
