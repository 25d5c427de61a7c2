#!/bin/sh
# Resizing the terminal while the clone runs in the background redraws the
# whole frame at the new size (60x20, then back to 100x30), and the clone
# goes on to the end.
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init resize
jp_git_big_repo "$T/srv/big.git" 8 || exit 99
jp_gitd_start "$T/gitd" "$T/srv" slow || exit 99
tui_on_exit 'jp_gitd_stop "$T/gitd"'
URL=git://127.0.0.1:$JP_GITD_PORT/big.git

tui_start 100 30 -- --demo
tui_walk_to 2
tui_must url_typed_in_its_field tui_set "Repository URL" "$URL"
tui_keys Enter
tui_must data tui_step 3 Data
tui_must clone_runs_in_the_background tui_wait "receiving"

# frame_fits W H: every line is W columns, the frame closes on line H.
frame_fits() {
	tui_screen | python3 -c '
import sys
w, h = int(sys.argv[1]), int(sys.argv[2])
lines = sys.stdin.read().split("\n")[:h]
ok = len(lines) == h and lines[0].startswith("\u250c") and lines[0].endswith("\u2510") \
    and lines[h - 1].startswith("\u2514") and lines[h - 1].endswith("\u2518") \
    and all(len(l) == w for l in lines)
sys.exit(0 if ok else 1)' "$1" "$2"
}
wait_frame() {
	_i=0
	while [ $_i -lt 200 ]; do
		frame_fits "$1" "$2" && return 0
		sleep 0.05
		_i=$((_i + 1))
	done
	_tui_dump "frame $1x$2"
	return 1
}

tui_resize 60 20
tui_must frame_redrawn_at_60x20 wait_frame 60 20
tui_must step_still_shown_at_60x20 tui_wait "3/6  Data"
tui_must progress_still_shown_at_60x20 tui_wait "clone"
tui_must hints_still_shown_at_60x20 tui_wait "Enter next"
tui_resize 100 30
tui_must frame_redrawn_at_100x30 wait_frame 100 30
tui_must step_shown_again tui_wait "3/6  Data"
tui_must clone_finishes_after_the_resizes tui_wait "cloned into" 120
jp_expect clone_complete [ -f "$T/work/jobprep-demo/shared/projects/demo/scripts/train.sh" ]
tui_keys C-c
rc=$(tui_wait_exit)
jp_expect quits_130 [ "$rc" = 130 ]
jp_expect terminal_modes_restored tui_stty_same
tui_finish
