#!/bin/sh
# The help overlay (F1 anywhere, ? outside text fields), the directory
# browser (F2), and wide characters: a CJK path completes with Tab and
# takes two columns per character, so the frame stays aligned.
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init help-cjk

# width_ok W: every line of the screen is W columns wide on the terminal
# (East Asian wide characters count two).
width_ok() {
	tui_screen | python3 -c '
import sys, unicodedata
w = int(sys.argv[1])
def cols(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
lines = [l for l in sys.stdin.read().split("\n") if l]
sys.exit(0 if lines and all(cols(l) == w for l in lines) else 1)' "$1"
}

tui_start 100 30 -- --demo
tui_must starts tui_step 1 Job
D=$T/work/jobprep-demo
mkdir -p "$D/shared/数据集/图像"

tui_keys F1
tui_must f1_opens_help tui_wait "Help: Job"
tui_must help_lists_the_keys tui_wait "accept this step and go on"
tui_keys Escape
tui_must esc_closes_help tui_wait_gone "Help: Job"
tui_keys '?'
tui_must question_mark_types_in_a_text_field tui_wait "demo?"
tui_keys BSpace Enter
tui_must code tui_step 2 Code
tui_keys '?'
tui_must question_mark_opens_help_on_a_choice tui_wait "Help: Code"
tui_keys Escape
tui_walk_on 2 4

tui_keys C-u
tui_type "$D/shared/数"
tui_keys Tab
tui_must tab_completes_a_cjk_name tui_wait "shared/数据集/"
# (a second Tab would move on: going into the folder takes a keystroke)
tui_type "图"
tui_keys Tab
tui_must tab_completes_the_only_subdirectory tui_wait "shared/数据集/图像/"
tui_must wide_characters_take_two_columns width_ok 100

tui_keys F2
tui_must f2_opens_the_browser tui_wait "Choose a directory"
tui_must browser_starts_in_the_typed_directory tui_wait "shared/数据集/图像"
tui_keys BSpace BSpace
tui_must backspace_goes_up tui_wait "datasets/"
tui_must browser_lists_cjk_names tui_wait "数据集/"
tui_must browser_frame_aligned width_ok 100
tui_keys Space
tui_must space_chooses_the_directory tui_wait_gone "Choose a directory"
# (the field's end: a long $TMPDIR scrolls the path's start out of sight)
grep_field() { tui_screen | grep -F "Output directory" | grep -qF "jobprep-demo/shared "; }
tui_must chosen_directory_in_the_field grep_field
tui_keys C-c
rc=$(tui_wait_exit)
jp_expect quits [ "$rc" = 130 ]
tui_finish
