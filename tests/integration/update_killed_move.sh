#!/bin/sh
# A move of an existing checkout that a killed jobprep left half-done (issue
# 10, found by the fault trials: kill -9 mid-checkout left the work tree
# between two commits, and the next prep refused it for "uncommitted
# changes"). While it moves the files jobprep keeps a journal,
# .git/jobprep-move ("FROM TO INDEX-COPY"); the next prep finishes the
# story: HEAD still at FROM, the files the move touched are put back and
# the move is made again (clean, at the ref, no journal or index copy
# left); HEAD already at TO, only the journal goes; HEAD elsewhere, refused
# with the way out and nothing touched. The half-done state is made here by
# hand, as the killed checkout leaves it (some files at TO, an added file,
# the index saved beside it); tests/integration/fault_trials.sh kills real
# moves at random moments.
set -u
: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/initscratch.sh"
S=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-killed-move.XXXXXX") || exit 99
trap '[ -n "${JP_KEEP:-}" ] || rm -rf "$S"' EXIT
jp_test_env "$S"
jp_init_scratch "$S" || exit 99

# the repository: v1, then v2 changes README, deletes src/train.py and adds
# new/dir/added.txt
W=$S/work
git init -q -b main "$W" || exit 99
mkdir -p "$W/src"
echo one >"$W/README"
echo 'print("v1")' >"$W/src/train.py"
git -C "$W" add -A && git $JP_GIT_ID -C "$W" commit -qm v1 && git -C "$W" tag v1 || exit 99
echo two >>"$W/README"
git -C "$W" rm -q src/train.py
mkdir -p "$W/new/dir" && echo added >"$W/new/dir/added.txt"
git -C "$W" add -A && git $JP_GIT_ID -C "$W" commit -qm v2 && git -C "$W" tag v2 || exit 99
V1=$(git -C "$W" rev-parse v1)
V2=$(git -C "$W" rev-parse v2)
git clone -q --bare "$W" "$S/repos/mv.git" || exit 99
URL=file://$S/repos/mv.git
P=$S/shared/projects

# prep NAME REF: jobprep init for job NAME at REF; output in $S/NAME.out/.err
prep() {
	cat >"$S/$1.json" <<J
{"job": {"name": "$1", "launch_command": "echo train"}, "code": {"source": "shared_storage", "repo": {"url": "$URL", "ref": "$2"}}}
J
	timeout -s KILL 120 "$JOBPREP" init --answers "$S/$1.json" --profile "$S/profile.json" \
		</dev/null >"$S/$1.out" 2>"$S/$1.err"
}
# half_done DIR: the work tree as a move from v1 to v2 killed mid-checkout
# leaves it, and its journal
half_done() {
	cp "$1/.git/index" "$1/.git/index.jobprep-999" &&
		git -C "$1" show v2:README >"$1/README" &&
		mkdir -p "$1/new/dir" && git -C "$1" show v2:new/dir/added.txt >"$1/new/dir/added.txt" &&
		printf '%s %s %s\n' "$V1" "$V2" "$1/.git/index.jobprep-999" >"$1/.git/jobprep-move"
}
clean_at() { # clean_at DIR COMMIT
	[ "$(git -C "$1" rev-parse HEAD)" = "$2" ] && [ -z "$(git -C "$1" status --porcelain)" ]
}
no_journal() { [ ! -e "$1/.git/jobprep-move" ] && [ -d "$1/.git" ] && ! ls "$1/.git" | grep -q '^index\.jobprep-'; }

# --- HEAD still at v1: put back, then moved again ---------------------------
prep back v1
jp_expect first_prep_at_v1 clean_at "$P/back" "$V1"
half_done "$P/back" || exit 99
jp_expect half_done_tree_is_dirty [ -n "$(git -C "$P/back" status --porcelain)" ]
prep back v2
rc=$?
jp_expect killed_move_is_finished_by_the_next_prep [ "$rc" = 0 ]
jp_expect killed_move_ends_clean_at_v2 clean_at "$P/back" "$V2"
jp_expect killed_move_leaves_no_journal no_journal "$P/back"
jp_expect killed_move_files_are_v2 sh -c '[ ! -e "$1/src/train.py" ] && [ "$(cat "$1/new/dir/added.txt")" = added ] && [ "$(git -C "$1" show v2:README)" = "$(cat "$1/README")" ]' sh "$P/back"

# --- the same, asking for v1 again: put back, and already there ------------
prep again v1
half_done "$P/again" || exit 99
prep again v1
rc=$?
jp_expect killed_move_back_to_from_exits_0 [ "$rc" = 0 ]
jp_expect killed_move_back_to_from_is_clean_at_v1 clean_at "$P/again" "$V1"
jp_expect killed_move_back_to_from_removes_the_added_folder [ ! -e "$P/again/new" ]
jp_expect killed_move_back_to_from_leaves_no_journal no_journal "$P/again"

# --- HEAD already at v2 (killed after the refs moved): the journal goes -----
prep done v2
printf '%s %s -\n' "$V1" "$V2" >"$P/done/.git/jobprep-move"
prep done v2
rc=$?
jp_expect killed_after_the_refs_exits_0 [ "$rc" = 0 ]
jp_expect killed_after_the_refs_is_clean_at_v2 clean_at "$P/done" "$V2"
jp_expect killed_after_the_refs_leaves_no_journal no_journal "$P/done"

# --- HEAD elsewhere: refused, with the way out, nothing touched -------------
prep other v1
echo local >>"$P/other/README"
printf '%s %s -\n' "$V2" "$V2" >"$P/other/.git/jobprep-move"
before=$(git -C "$P/other" status --porcelain; cat "$P/other/README")
prep other v2
rc=$?
jp_expect journal_elsewhere_is_refused [ "$rc" = 1 ]
jp_expect journal_elsewhere_says_what_to_do grep -q "was interrupted, and HEAD is now at $(echo "$V1" | cut -c1-7)" "$S/other.out" "$S/other.err"
jp_expect journal_elsewhere_touches_nothing sh -c '[ "$(git -C "$1" status --porcelain; cat "$1/README")" = "$2" ] && [ -e "$1/.git/jobprep-move" ]' sh "$P/other" "$before"
jp_done
