#!/bin/sh
# A terminal below the minimum (30x10) shows a "too small" notice instead
# of a garbled wizard; growing it brings the wizard back; Ctrl-C still quits.
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init small

tui_start 30 10 -- --demo
tui_must notice_shown_at_30x10 tui_wait "Terminal too small"
tui_must notice_says_the_minimum tui_wait "50x16"
jp_expect no_frame_drawn_when_too_small sh -c "! tmux -L '$TUI_SOCK' capture-pane -p | grep -q '1/6'"
tui_resize 100 30
tui_must wizard_back_when_large_enough tui_step 1 Job
tui_resize 40 12
tui_must notice_again_when_shrunk tui_wait "Terminal too small: 40x12"
tui_keys C-c
rc=$(tui_wait_exit)
jp_expect ctrl_c_quits_from_the_notice [ "$rc" = 130 ]
jp_expect terminal_modes_restored tui_stty_same
tui_finish
