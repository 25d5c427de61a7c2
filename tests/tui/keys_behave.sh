#!/bin/sh
# Keys behave as documented: Tab completes a path once and the next Tab
# moves on (never down into the only subfolder); F2 on an empty path starts
# at the shared root, not at /; in the browser the cursor starts on the
# first folder, not on ../; the help overlay's key column fits its widest
# key ("Delete Ctrl-D"): every key's text starts in one column.
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init keys-behave
D=$T/work/jobprep-demo

col() {
	case $1 in
	*"$2"*) printf '%s' "${1%%"$2"*}" | LC_ALL=C.UTF-8 wc -L ;;
	esac
}

tui_start 100 30 -- --demo
tui_walk_to 3
# one folder holding exactly one subfolder
mkdir -p "$D/public/extra-corpus/only-sub"

tui_keys a
tui_must a_adds_a_source tui_wait "Data sources  (3)"
tui_type "$D/public/ex"
tui_keys Tab
tui_must tab_completes_once tui_wait "public/extra-corpus/"
tui_keys Tab
tui_must second_tab_moves_on tui_wait "▸   Name"
jp_expect second_tab_did_not_descend sh -c "! tmux -L '$TUI_SOCK' capture-pane -p | grep -q 'only-sub'"

# F2 on an empty path: the browser starts at the shared root
tui_keys IC
tui_must another_source tui_wait "Data sources  (4)"
tui_keys F2
tui_must browser_opens tui_wait "Choose a directory"
jp_expect browser_starts_at_the_shared_root tui_wait "jobprep-demo/shared " 2
jp_expect not_at_the_root sh -c "! tmux -L '$TUI_SOCK' capture-pane -p | grep -q '│ / *│'"
# Enter opens what the cursor is on: the first folder, not ../
tui_keys Enter
jp_expect cursor_was_on_the_first_folder tui_wait "jobprep-demo/shared/datasets " 5
tui_keys Escape
tui_must browser_closes tui_wait_gone "Choose a directory"

# the help overlay: one column for every key's text
tui_keys F1
tui_must help_opens tui_wait "Keys"
: >"$T/help"
for page in 1 2 3 4 5; do
	tui_screen >>"$T/help"
	tui_keys NPage
	sleep 0.3
done
tui_screen >>"$T/help"
tui_keys Escape
l1=$(grep -m1 '  Enter  ' "$T/help")
l2=$(grep -m1 '  Delete Ctrl-D ' "$T/help")
c1=$(col "$l1" "accept this step")
c2=$(col "$l2" "delete the character under")
jp_expect help_lists_enter [ -n "$c1" ]
jp_expect help_lists_delete_ctrl_d [ -n "$c2" ]
jp_expect help_texts_share_one_column [ "${c1:-x}" = "${c2:-y}" ]
tui_keys C-c
tui_finish
