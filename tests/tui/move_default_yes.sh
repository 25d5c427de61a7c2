#!/bin/sh
# "Move the checkout to the new commit?" (issue 22): when the checkout's
# tree is clean and the move is a fast-forward, Yes is the focused answer,
# so Enter on every screen brings the code to the new commit; with an
# untracked file in the tree, No is (Enter keeps the old code).
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init move-default-yes
(cd "$T/work" && HOME=$T/home "$JOBPREP" init --demo >"$T/init.out" 2>&1) || {
	cat "$T/init.out"
	exit 99
}
demo=$T/work/jobprep-demo
proj=$demo/shared/projects/demo
OLD=$(git -C "$proj" rev-parse HEAD)
echo "# v2" >>"$demo/repo/README.md"
git -C "$demo/repo" add README.md
# shellcheck disable=SC2086
git $JP_GIT_ID -C "$demo/repo" commit -qm v2 || exit 99
NEW=$(git -C "$demo/repo" rev-parse HEAD)

# to_the_question NAME: the wizard up to the move's question
to_the_question() {
	rm -rf "$T/home/.local/state/jobprep"
	tui_start 100 30 -- --demo
	tui_must "$1_starts" tui_step 1 Job
	# (the job has a run: start from it if asked)
	tui_wait_modal "Start from run-" 5 >/dev/null 2>&1 && tui_keys Enter
	tui_wait_gone "Start afresh"
	tui_keys Enter
	tui_must "$1_code" tui_step 2 Code
	tui_keys Enter
	tui_must "$1_asks" tui_wait_modal "Move the checkout in" 60
}

# an untracked file: No is focused, Enter keeps the old code
echo scratch >"$proj/notes.txt"
to_the_question untracked
tui_must untracked_no_is_focused tui_wait "[ No ]"
tui_keys Enter
tui_must untracked_stays tui_wait "stays at main"
jp_expect untracked_checkout_not_moved [ "$(git -C "$proj" rev-parse HEAD)" = "$OLD" ]
tui_keys C-c
tui_wait_modal "Quit" 5 >/dev/null 2>&1 && tui_keys y
tui_wait_exit >/dev/null
rm -f "$proj/notes.txt"

# clean and a fast-forward: Yes is focused, Enter moves it
to_the_question clean
tui_must clean_yes_is_focused tui_wait "[ Yes ]"
tui_keys Enter
tui_must clean_moved tui_wait "✓ moved " 60
jp_expect clean_checkout_at_the_new_commit [ "$(git -C "$proj" rev-parse HEAD)" = "$NEW" ]
tui_keys C-c
tui_wait_modal "Quit" 5 >/dev/null 2>&1 && tui_keys y
tui_wait_exit >/dev/null
tui_finish
