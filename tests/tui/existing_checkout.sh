#!/bin/sh
# An existing checkout in the wizard (issue 10): the same answers again say
# "already at main (...)"; once the branch has moved on, leaving the Code
# step asks before moving the checkout, showing from -> to and what
# changes; "no" leaves it as it was and is a failed check in the review's
# list, Enter on it goes to the ref; asked again (the answers changed),
# "yes" moves it and the manifest records the new commit.
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init existing-checkout
(cd "$T/work" && HOME=$T/home "$JOBPREP" init --demo >"$T/init.out" 2>&1) || {
	cat "$T/init.out"
	exit 99
}
demo=$T/work/jobprep-demo
proj=$demo/shared/projects/demo
OLD=$(git -C "$proj" rev-parse HEAD)
draft() { rm -rf "$T/home/.local/state/jobprep"; }

# --- the same answers again: already there
draft
tui_start 100 30 -- --demo
tui_must offers_the_earlier_run tui_earlier_run n
tui_walk_to 2
tui_keys Enter
tui_must says_already_there tui_wait "already at main ($(echo "$OLD" | cut -c1-7))"
tui_keys C-c
tui_wait "Quit?" 2 >/dev/null 2>&1 && tui_keys y
rc=$(tui_wait_exit)
jp_expect quits [ "$rc" = 130 ]

# --- the branch moves on
echo "# v2" >>"$demo/repo/README.md" 2>/dev/null || echo "# v2" >"$demo/repo/README.md"
git -C "$demo/repo" add README.md
# shellcheck disable=SC2086
git $JP_GIT_ID -C "$demo/repo" commit -qm v2 || exit 99
NEW=$(git -C "$demo/repo" rev-parse HEAD)

draft
tui_start 100 30 -- --demo
tui_must offers_the_earlier_run_again tui_earlier_run n
tui_must starts_again tui_step 1 Job
tui_keys Enter
tui_must code_again tui_step 2 Code
tui_keys Enter
tui_must asks_before_moving tui_wait "Move the checkout in" 60
tui_must shows_from tui_wait "from main ($(echo "$OLD" | cut -c1-7))"
tui_must shows_to tui_wait "to   main ($(echo "$NEW" | cut -c1-7))"
tui_must shows_what_changes tui_wait "1 commit(s) forward, 1 file(s) changed"
tui_keys n
tui_must says_it_stays tui_wait "stays at main"
jp_expect no_leaves_the_checkout [ "$(git -C "$proj" rev-parse HEAD)" = "$OLD" ]
tui_must data tui_step 3 Data
tui_walk_on 3 6
tui_wait "Create the run's directories" 5 >/dev/null 2>&1 && tui_keys Enter
tui_must refusal_is_a_failed_check tui_wait "1 failed"
tui_must refusal_is_in_the_list tui_wait "code.repo.ref"
tui_keys Enter
tui_must enter_goes_to_the_code_step tui_step 2 Code
tui_must focus_on_the_ref tui_wait "▸ Branch, tag or commit"
# Enter there tries again: it asks again
tui_keys Enter
tui_must asks_again tui_wait "Move the checkout in"
tui_keys y
# (the line may wrap inside the path, at a space of $TMPDIR's: its end only)
tui_must says_what_moved tui_wait "✓ moved "
tui_must says_where_it_moved tui_wait "jobprep-demo/shared/projects/demo from"
jp_expect yes_moves_the_checkout [ "$(git -C "$proj" rev-parse HEAD)" = "$NEW" ]
tui_must data_again tui_step 3 Data
tui_keys Enter
tui_must outputs_again tui_step 4 Outputs
tui_keys Enter
tui_must launch_again tui_step 5 Launch
tui_keys Enter
tui_must review_again tui_step 6 Review
tui_must nothing_fails tui_wait " 0 failed" 60
tui_keys Enter
tui_must written tui_wait "Manifest written:"
tui_keys Enter
rc=$(tui_wait_exit)
jp_expect exits_0 [ "$rc" = 0 ]
m=$(ls "$demo"/shared/outputs/demo/run-*/job.json | tail -1)
commit_of() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["code"]["repo"]["commit"])' "$1"
}
jp_expect manifest_records_the_new_commit [ "$(commit_of "$m")" = "$NEW" ]
# the review's check set is `jobprep check`'s (the checkout's code.repo.*
# checks included), apart from what only the wizard's move of the checkout
# learnt (code.repo.ref.update)
ids_of() {
	python3 -c 'import json,sys
d = json.load(sys.stdin if sys.argv[1] == "-" else open(sys.argv[1]))
cs = d["checks"] if isinstance(d, dict) else d
print("\n".join(sorted(c["id"] for c in cs if c["id"] != "code.repo.ref.update")))' "$1"
}
"$JOBPREP" check --json "$m" >"$T/check.json" 2>/dev/null
ids_of "$m" >"$T/review.ids"
ids_of - <"$T/check.json" >"$T/check.ids"
jp_expect review_lists_code_repo_clean grep -qx code.repo.clean "$T/review.ids"
jp_expect review_and_check_have_one_check_set cmp -s "$T/review.ids" "$T/check.ids"
tui_finish
