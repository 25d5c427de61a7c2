#!/bin/sh
# Each run runs the code it was prepared with (issue 29): the run's
# PROJECT_DIR is its own read-only copy of the commit its manifest records,
# beside the project, so run-001's launch line run after run-002's prep (the
# checkout moved to a commit that renames the script) still runs run-001's
# code; every Worker's preflight and `jobprep check` prove the copy is the
# recorded one and fail naming both commits when it is not; the same commit
# twice costs nothing, an unchanged file no second copy; a run's manifest
# used as answers still works; init says what the run takes and from where.
# The repository is the test's own (two commits, the second renames the
# script), served by a git daemon on loopback.
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
for tool in git python3 stat; do
	command -v "$tool" >/dev/null 2>&1 || jp_skip_all "$tool is not installed"
done
jp_scratch run-code-own 'jp_gitd_stop "$T/gitd"'
mkdir -p "$T/repos" "$T/shared/projects" "$T/shared/outputs" "$T/gitd" || exit 99
cat >"$T/profile.json" <<EOF
{"sandbox": true, "shared_roots": ["$T/shared"]}
EOF

# the repository: A has scripts/train.sh, B renames it to scripts/run.sh
W=$T/work
git init -q -b main "$W" && mkdir -p "$W/scripts" || exit 99
printf '#!/bin/sh\necho "code A: $*"\n' >"$W/scripts/train.sh"
echo "a readme no commit changes" >"$W/README"
echo "*.bin" >"$W/.gitignore"
git -C "$W" add -A && git $JP_GIT_ID -C "$W" commit -qm A || exit 99
A=$(git -C "$W" rev-parse HEAD)
git clone -q --bare "$W" "$T/repos/train.git" || exit 99
git -C "$W" remote add origin "$T/repos/train.git"
jp_gitd_start "$T/gitd" "$T/repos" || exit 99
URL=git://127.0.0.1:$JP_GITD_PORT/train.git
P=$T/shared/projects/job
O=$T/shared/outputs/job

# answers SCRIPT [REF]: the answers of the job, launching scripts/SCRIPT
answers() {
	cat >"$T/answers.json" <<EOF
{"job": {"name": "job", "launch_command": "cd \"\$PROJECT_DIR\" && sh scripts/$1 --out \"\$OUTPUT_DIR\""},
 "code": {"source": "shared_storage", "path": "$P", "repo": {"url": "$URL", "ref": "${2:-main}"}}}
EOF
}
# prep NAME [ANSWERS]: jobprep init; output in $T/NAME.out/.err, status in $T/NAME.rc
prep() {
	timeout -s KILL 120 "$JOBPREP" init --answers "${2:-$T/answers.json}" --profile "$T/profile.json" \
		</dev/null >"$T/$1.out" 2>"$T/$1.err"
	echo $? >"$T/$1.rc"
}
ok() { [ "$(cat "$T/$1.rc")" = 0 ]; }
field() {
	python3 -c 'import json,sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): v = v.get(k) if isinstance(v, dict) else None
print(v if v is not None else "")' "$1" "$2"
}
# launch RUN: the run's launch line as a Worker runs it, from its manifest
launch() {
	(cd / && sh -c ". '$O/$1/env.sh' && sh '$O/$1/preflight.sh' && $(field "$O/$1/job.json" job.launch_command)") \
		>"$T/launch-$1.out" 2>"$T/launch-$1.err"
}

answers train.sh
prep one
jp_expect first_prep_succeeds ok one
# B: the script renamed, as a new commit that changes a flag would be
git -C "$W" mv scripts/train.sh scripts/run.sh &&
	printf '#!/bin/sh\necho "code B: $*"\ncat data.bin 2>/dev/null\n' >"$W/scripts/run.sh" &&
	git $JP_GIT_ID -C "$W" commit -qam B && git -C "$W" push -q origin main || exit 99
B=$(git -C "$W" rev-parse HEAD)
# data a script made in the checkout after the first prep (ignored by git)
echo "data made after run-001's prep" >"$P/data.bin"
answers run.sh
prep two
jp_expect second_prep_succeeds ok two
jp_expect the_live_checkout_moved_to_b [ "$(git -C "$P" rev-parse HEAD)" = "$B" ]
jp_expect run_001_records_a [ "$(field "$O/run-001/job.json" code.repo.commit)" = "$A" ]

# run-001's launch line, run after run-002's prep: run-001's code
launch run-001
jp_expect run_001_launch_after_run_002_prep_runs_code_a \
	grep -q "^code A: --out $O/run-001\$" "$T/launch-run-001.out"
launch run-002
jp_expect run_002_launch_runs_code_b grep -q "^code B: --out $O/run-002\$" "$T/launch-run-002.out"
jp_expect run_002_reads_the_ignored_data_of_the_checkout \
	grep -q "^data made after run-001's prep\$" "$T/launch-run-002.out"
jp_expect init_says_untracked_files_are_links grep -q "1 untracked or ignored file(s)" "$T/two.out"
d1=$(field "$O/run-001/job.json" code.path)
d2=$(field "$O/run-002/job.json" code.path)
jp_expect each_run_has_its_own_code_path [ -n "$d1" -a -n "$d2" -a "$d1" != "$d2" ]
jp_expect the_run_code_is_beside_the_project [ "$d1" = "$T/shared/projects/.jobprep-trees/job/$A" ]
jp_expect the_manifest_records_the_live_checkout [ "$(field "$O/run-001/job.json" code.checkout)" = "$P" ]
jp_expect the_run_code_is_read_only \
	[ "$(stat -c %a "$d1/scripts/train.sh" "$d1/README" 2>&1)" = "555
444" ]
jp_expect check_passes_run_001_after_run_002_prep "$JOBPREP" check "$O/run-001/job.json"
# same_file A B: two names of one file (one inode)
same_file() { [ -f "$1" ] && [ -f "$2" ] && [ "$1" != "$2" ] && [ "$(stat -c %d:%i "$1")" = "$(stat -c %d:%i "$2")" ]; }
jp_expect the_unchanged_file_is_one_copy same_file "$d1/README" "$d2/README"
jp_expect the_changed_file_is_its_own_copy [ -f "$d2/scripts/run.sh" -a ! -e "$d2/scripts/train.sh" ]

# say what moved, by default (no --verbose)
jp_expect init_says_what_run_002_takes \
	grep -q "^run-002 takes main at $(echo "$B" | cut -c1-7), 1 commit(s) after run-001's $(echo "$A" | cut -c1-7)\$" "$T/two.out"
jp_expect init_says_where_its_code_is grep -q "^its code: $d2 (read-only" "$T/two.out"

# the same commit again: nothing written, the same tree
prep three
jp_expect third_prep_same_commit_succeeds ok three
jp_expect same_commit_twice_is_the_same_tree \
	[ "$(field "$O/run-003/job.json" code.path)" = "$T/shared/projects/.jobprep-trees/job/$B" ]
jp_expect same_commit_twice_writes_nothing grep -q "nothing written" "$T/three.out"
jp_expect same_commit_twice_says_so grep -q "the same commit as run-002" "$T/three.out"

# a run's manifest as answers: its checkout is the project, not its copy
prep again "$O/run-002/job.json"
jp_expect a_run_manifest_as_answers_still_works ok again
jp_expect a_run_manifest_as_answers_keeps_the_checkout \
	[ "$(field "$O/run-004/job.json" code.checkout)" = "$P" ]

# a copy that is not the recorded one: every Worker's preflight and check
# fail, naming both commits (run-002's tree put where run-001's was)
chmod u+w "$d1" "$(dirname "$d1")"
mv "$d1" "$d1.away" && cp -a "$d2" "$d1" || exit 99
launch run-001
jp_expect preflight_fails_naming_both_commits \
	grep -q "code.path.tree: $d1 holds the code of $B, but the run's manifest records $A" \
	"$T/launch-run-001.err"
jp_expect the_launch_command_did_not_start_on_another_tree \
	sh -c '[ -f "$1" ] && ! grep -q "^code" "$1"' sh "$T/launch-run-001.out"
"$JOBPREP" check "$O/run-001/job.json" >"$T/check.out" 2>&1
jp_expect check_fails_on_another_tree [ $? = 1 ]
jp_expect check_names_both_commits grep -q "holds the code of $B, but the run's manifest records $A" "$T/check.out"
# its healthy twin: the tree put back passes again
rm -rf "$d1" && mv "$d1.away" "$d1" || exit 99
launch run-001
jp_expect preflight_passes_on_its_own_tree_again grep -q "^code A:" "$T/launch-run-001.out"
jp_done
