#!/bin/sh
# Typing /tmp/... as the output directory is marked ✗ inline, with the
# reason, while it is typed; Enter refuses to leave the step; putting the
# default back (emptying the field) makes it pass again.
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init tmp-output

tui_start 100 30 -- --demo
tui_walk_to 4
tui_keys C-u
tui_type /tmp/out
tui_must tmp_output_is_marked_failed_as_typed tui_wait "✗ "
tui_must the_reason_names_the_wiped_disk tui_wait "/tmp"
grep_line() { tui_screen | grep -F "$1" | grep -qF "$2"; }
jp_expect the_field_shows_what_was_typed grep_line "Output directory" "/tmp/out"
tui_screen >"$T/verdict.txt"
jp_expect the_message_explains_why grep -qiE "wiped|ephemeral|not kept|lost|survive" "$T/verdict.txt"
tui_keys Enter
tui_must enter_is_refused_with_the_message tui_wait "Output directory:"
jp_expect still_on_the_outputs_step sh -c "tmux -L '$TUI_SOCK' capture-pane -p | grep -qF '4/6  Outputs'"
# Ctrl-U empties the field; leaving it empty gives the default back.
tui_keys C-u Tab
tui_must default_comes_back tui_wait "outputs/demo/run-001 "
tui_keys Enter
tui_must then_enter_goes_on tui_step 5 Launch
tui_keys C-c
rc=$(tui_wait_exit)
jp_expect ctrl_c_quits_with_130 [ "$rc" = 130 ]
jp_expect quitting_keeps_a_draft [ -s "$T/home/.local/state/jobprep/demo-draft.json" ]
jp_expect quitting_says_how_to_resume grep -q "resume" "$T/stderr"
jp_expect resume_command_names_the_demo grep -q "run jobprep --demo again to resume" "$T/stderr"
tui_finish
