#!/bin/sh
# What a prep does to the live checkout (issue 29): a refused prep changes
# nothing (the checkout moved to the new commit is put back, branch and
# all, no run folder is made, the earlier run still runs); uncommitted
# edits go with a move as with git checkout when the new commit does not
# change their files (and the run records them as its changes); a real
# conflict is refused naming the file and the ways out, the edit kept; a
# short id of a commit the checkout has (its own HEAD too) is a valid ref.
# The repository is the test's own: A, then B renames the script; served
# by a git daemon on loopback.
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
for tool in git python3 sha256sum; do
	command -v "$tool" >/dev/null 2>&1 || jp_skip_all "$tool is not installed"
done
jp_scratch run-code-moves 'jp_gitd_stop "$T/gitd"'
mkdir -p "$T/repos" "$T/shared/projects" "$T/shared/outputs" "$T/gitd" || exit 99
cat >"$T/profile.json" <<EOF
{"sandbox": true, "shared_roots": ["$T/shared"]}
EOF

W=$T/work
git init -q -b main "$W" && mkdir -p "$W/scripts" || exit 99
printf '#!/bin/sh\necho "code A"\n' >"$W/scripts/train.sh"
echo "notes" >"$W/NOTES"
git -C "$W" add -A && git $JP_GIT_ID -C "$W" commit -qm A || exit 99
A=$(git -C "$W" rev-parse HEAD)
git clone -q --bare "$W" "$T/repos/train.git" || exit 99
git -C "$W" remote add origin "$T/repos/train.git"
jp_gitd_start "$T/gitd" "$T/repos" || exit 99
URL=git://127.0.0.1:$JP_GITD_PORT/train.git
P=$T/shared/projects
O=$T/shared/outputs

# answers JOB SCRIPT [REF]
answers() {
	cat >"$T/$1.json" <<EOF
{"job": {"name": "$1", "launch_command": "cd \"\$PROJECT_DIR\" && sh scripts/$2"},
 "code": {"source": "shared_storage", "repo": {"url": "$URL", "ref": "${3:-main}"}}}
EOF
}
# prep JOB [ANSWERS]: init; output in $T/JOB.out/.err, status in $T/JOB.rc
prep() {
	timeout -s KILL 120 "$JOBPREP" init --answers "${2:-$T/$1.json}" --profile "$T/profile.json" \
		</dev/null >"$T/$1.out" 2>"$T/$1.err"
	echo $? >"$T/$1.rc"
}
rc_is() { [ "$(cat "$T/$1.rc")" = "$2" ]; }
field() {
	python3 -c 'import json,sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): v = v.get(k) if isinstance(v, dict) else None
print(v if v is not None else "")' "$1" "$2"
}
# state DIR: HEAD, the branch, main's commit, git status, every file's bytes
state() {
	git -C "$1" rev-parse HEAD
	git -C "$1" symbolic-ref -q HEAD || echo detached
	git -C "$1" rev-parse main
	git -C "$1" -c core.fileMode=false status --porcelain
	(cd "$1" && find . -path ./.git -prune -o -type f -print | sort | xargs sha256sum)
}

# every checkout at A on main first
for job in refused edit conflict short other; do
	answers "$job" train.sh
	prep "$job"
	rc_is "$job" 0 || jp_fail "${job}_first_prep" "$(cat "$T/$job.err")"
done
git -C "$W" mv scripts/train.sh scripts/run.sh &&
	printf '#!/bin/sh\necho "code B"\n' >"$W/scripts/run.sh" &&
	git $JP_GIT_ID -C "$W" commit -qam B && git -C "$W" push -q origin main || exit 99
B=$(git -C "$W" rev-parse HEAD)

# --- a refused prep changes nothing: run-001's answers again, whose script
# B renamed away
before=$(state "$P/refused")
prep refused "$O/refused/run-001/job.json"
jp_expect refused_prep_exits_1 rc_is refused 1
jp_expect refused_prep_names_the_missing_script grep -q "scripts/train.sh" "$T/refused.err"
jp_expect refused_prep_leaves_the_checkout_as_it_was [ "$before" = "$(state "$P/refused")" ]
jp_expect refused_prep_checkout_still_at_a [ "$(git -C "$P/refused" rev-parse HEAD)" = "$A" ]
jp_expect refused_prep_says_the_move_is_taken_back grep -q "is back at $(echo "$A" | cut -c1-7)" "$T/refused.err"
jp_expect refused_prep_makes_no_run_002 [ -d "$O/refused/run-001" -a ! -e "$O/refused/run-002" ]
(cd / && sh -c ". '$O/refused/run-001/env.sh' && sh '$O/refused/run-001/preflight.sh' && $(field "$O/refused/run-001/job.json" job.launch_command)") \
	>"$T/refused-launch.out" 2>&1
jp_expect run_001_still_runs_after_the_refused_prep grep -q "^code A\$" "$T/refused-launch.out"
# its healthy twin: the answers that fit B move it, for good
answers refused run.sh
prep refused
jp_expect fitting_prep_moves_the_checkout_to_b \
	[ "$(cat "$T/refused.rc")" = 0 -a "$(git -C "$P/refused" rev-parse HEAD)" = "$B" ]

# --- an edit in a file B does not change goes with the move
echo "my own notes" >>"$P/edit/NOTES"
answers edit run.sh
prep edit
jp_expect move_with_an_edit_elsewhere_succeeds rc_is edit 0
jp_expect the_move_reached_b [ "$(git -C "$P/edit" rev-parse HEAD)" = "$B" ]
jp_expect the_edit_is_kept grep -q "^my own notes\$" "$P/edit/NOTES"
jp_expect the_run_records_the_edit_as_its_changes \
	[ "$(field "$O/edit/run-002/job.json" code.changes.files)" = NOTES ]
jp_expect the_run_code_holds_the_edit \
	grep -q "^my own notes\$" "$(field "$O/edit/run-002/job.json" code.path)/NOTES"
jp_expect init_says_the_run_takes_the_edit grep -q "with uncommitted changes to 1 file(s) (NOTES)" "$T/edit.out"

# --- an edit in the file B renames: refused, named, with the ways out
echo "echo my change" >>"$P/conflict/scripts/train.sh"
before=$(state "$P/conflict")
answers conflict run.sh
prep conflict
jp_expect conflict_is_refused rc_is conflict 1
jp_expect conflict_names_the_file grep -q "uncommitted changes to scripts/train.sh, which" "$T/conflict.err"
jp_expect conflict_offers_keeping_the_current_commit \
	grep -q "code.repo.ref $(echo "$A" | cut -c1-7)" "$T/conflict.err"
jp_expect conflict_offers_a_named_stash grep -q "stash push -m 'jobprep: edits before" "$T/conflict.err"
jp_expect conflict_leaves_checkout_and_edit_as_they_were [ "$before" = "$(state "$P/conflict")" ]
jp_expect conflict_makes_no_run_002 [ ! -e "$O/conflict/run-002" ]
# the way out it offers: the current commit, the edit included in the run
answers conflict train.sh "$(echo "$A" | cut -c1-7)"
prep conflict
jp_expect keeping_the_current_commit_with_the_edit_works rc_is conflict 0
jp_expect the_kept_edit_is_in_the_run_code \
	grep -q "^echo my change\$" "$(field "$O/conflict/run-002/job.json" code.path)/scripts/train.sh"

# --- short ids of commits the checkout has
answers short train.sh "$(echo "$A" | cut -c1-7)"
prep short
jp_expect short_head_id_is_a_valid_ref rc_is short 0
jp_expect short_head_id_records_the_commit [ "$(field "$O/short/run-002/job.json" code.repo.commit)" = "$A" ]
git -C "$P/other" fetch -q origin || exit 99
answers other run.sh "$(echo "$B" | cut -c1-8)"
prep other
jp_expect short_id_of_another_commit_it_has_moves_there \
	[ "$(cat "$T/other.rc")" = 0 -a "$(git -C "$P/other" rev-parse HEAD)" = "$B" ]
answers other run.sh 0000000
prep other
jp_expect short_id_of_no_commit_is_refused rc_is other 1
jp_done
