#!/bin/sh
# An existing checkout at the project path is the normal case (issue 10):
# the same answers again (a tag, annotated or not, a branch, a commit, the
# default branch) succeed with the same commit in run-002; a new tag moves
# the checkout there, clean, and the manifest records it; work is never
# lost: a changed tracked file, a local commit on no remote, an untracked
# file in the way refuse the move with nothing touched (HEAD, `git status`,
# every file's bytes and mode compared before and after), untracked files
# out of the way are kept; a checkout of another repository and a folder
# that is no checkout are refused untouched with no manifest; a server
# killed mid-fetch, Ctrl-C mid-fetch and mid-checkout leave the checkout as
# it was; of two preps at once the second is refused. The server is a git
# daemon on loopback (tests/lib/gitserv.sh).
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/initscratch.sh"
S=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-existing.XXXXXX") || exit 99
trap 'jp_gitd_stop "$S/gitd"; [ -n "${JP_KEEP:-}" ] || rm -rf "$S"' EXIT
jp_test_env "$S"
jp_init_scratch "$S" || exit 99
mkdir -p "$S/gitd"
jp_gitd_start "$S/gitd" "$S/repos" || exit 99
URL=git://127.0.0.1:$JP_GITD_PORT/train.git
P=$S/shared/projects
O=$S/shared/outputs
# (timeout: a hang fails the case instead of stalling the test; 124/137)
T="timeout -s KILL 120"

# answers NAME [REF] [URL]: an answers file for job NAME in $S/NAME.json
answers() {
	_ref=${2:+, \"ref\": \"$2\"}
	cat >"$S/$1.json" <<EOF
{"job": {"name": "$1"},
 "code": {"source": "shared_storage", "repo": {"url": "${3:-$URL}"$_ref}}}
EOF
}
# prep NAME: jobprep init with $S/NAME.json; output in $S/NAME.out/.err
prep() {
	$T "$JOBPREP" init --verbose --answers "$S/$1.json" --profile "$S/profile.json" \
		</dev/null >"$S/$1.out" 2>"$S/$1.err"
}
# commit_of MANIFEST: the code.repo.commit it records
commit_of() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["code"]["repo"]["commit"])' "$1"
}
# check_of MANIFEST ID: "status message" of a check
check_of() {
	python3 -c 'import json,sys
for c in json.load(open(sys.argv[1]))["checks"]:
    if c["id"] == sys.argv[2]: print(c["status"], c["message"])' "$1" "$2"
}
clean() { [ -z "$(git -C "$1" -c core.fileMode=false status --porcelain)" ]; }
head_is() { [ "$(git -C "$1" rev-parse HEAD)" = "$2" ]; }

# a work tree of train.git to make new commits and tags from
git clone -q "$S/repos/train.git" "$S/work" || exit 99
V1=$(git -C "$S/work" rev-parse 'v1^{commit}')
MAIN=$(git -C "$S/work" rev-parse main)

# --- the same answers twice: both succeed, the second with the same commit
for kind in tag light branch commit short default; do
	case $kind in
	tag) ref=v1 want=$V1 ;;
	light) ref=light want=$MAIN ;;
	branch) ref=main want=$MAIN ;;
	commit) ref=$V1 want=$V1 ;;
	short) ref=$(echo "$MAIN" | cut -c1-9) want=$MAIN ;;
	default) ref= want=$MAIN ;;
	esac
	answers "same-$kind" "$ref"
	prep "same-$kind"
	rc1=$?
	prep "same-$kind"
	rc2=$?
	m1=$O/same-$kind/run-001/job.json m2=$O/same-$kind/run-002/job.json
	if [ "$rc1" = 0 ] && [ "$rc2" = 0 ] && [ -s "$m2" ] &&
		[ "$(commit_of "$m1")" = "$want" ] && [ "$(commit_of "$m2")" = "$want" ]; then
		jp_pass "same_answers_twice_$kind"
	else
		jp_fail "same_answers_twice_$kind" "rc $rc1 then $rc2: $(cat "$S/same-$kind.err")"
	fi
	jp_expect "same_answers_twice_${kind}_says_already_there" \
		grep -q "already at .*$(echo "$want" | cut -c1-7)" "$S/same-$kind.out"
	jp_expect "same_answers_twice_${kind}_is_clean" clean "$P/same-$kind"
done

# ... also when the project path goes through a symlink
ln -s "$P/same-tag" "$S/shared/link-to-same"
cat >"$S/linked.json" <<EOF
{"job": {"name": "linked"},
 "code": {"source": "shared_storage", "path": "$S/shared/link-to-same", "repo": {"url": "$URL", "ref": "v1"}}}
EOF
prep linked
rc=$?
jp_expect same_answers_through_a_symlink [ "$rc" = 0 ]
jp_expect same_answers_through_a_symlink_says_already_there grep -q "already at v1" "$S/linked.out"

# --- the next release: v2 changes scripts/train.sh (made executable by the
# first prep) and README, and adds a file in a new folder
answers move v1
prep move || jp_fail move_first_prep "$(cat "$S/move.err")"
printf '#!/bin/sh\necho training v2\n' >"$S/work/scripts/train.sh"
echo three >>"$S/work/README"
mkdir -p "$S/work/extra"
echo added >"$S/work/extra/added.txt"
git -C "$S/work" add -A
# shellcheck disable=SC2086
git $JP_GIT_ID -C "$S/work" commit -qm third &&
	git $JP_GIT_ID -C "$S/work" tag -a -m "version 2" v2 &&
	git -C "$S/work" push -q origin main v2 || exit 99
V2=$(git -C "$S/work" rev-parse 'v2^{commit}')

# the checkouts the refusals below start from, all at v1 (v2 unknown to them)
for name in dirty local untracked inway; do
	answers "$name" v1
	prep "$name" || jp_fail "${name}_first_prep" "$(cat "$S/$name.err")"
done

answers move v2
prep move
rc=$?
jp_expect new_tag_moves_the_checkout [ "$rc" = 0 ]
jp_expect new_tag_checkout_is_at_v2 head_is "$P/move" "$V2"
jp_expect new_tag_checkout_is_clean clean "$P/move"
jp_expect new_tag_manifest_records_v2 [ "$(commit_of "$O/move/run-002/job.json")" = "$V2" ]
jp_expect new_tag_says_what_moved grep -q "moved $P/move from v1 (.*) to v2 (.*): 2 commit(s) forward, 3 file(s) changed" "$S/move.out"
jp_expect new_tag_brings_the_new_file [ "$(cat "$P/move/extra/added.txt")" = added ]
jp_expect new_tag_script_is_new_and_executable sh -c '[ -x "$1" ] && grep -q "training v2" "$1"' sh "$P/move/scripts/train.sh"
jp_expect new_tag_is_detached_at_the_tag [ -z "$(git -C "$P/move" symbolic-ref -q HEAD)" ]

# --- a changed tracked file: the move is refused, nothing touched
echo "my change" >>"$P/dirty/README"
jp_git_snapshot "$P/dirty" >"$S/dirty.before"
answers dirty v2
prep dirty
rc=$?
jp_git_snapshot "$P/dirty" >"$S/dirty.after"
jp_expect dirty_tracked_file_refuses_the_move [ "$rc" = 1 ]
jp_expect dirty_tracked_file_is_named grep -q "uncommitted changes to README, which v2 (.*) changes too" "$S/dirty.err"
jp_expect dirty_tracked_file_touches_nothing cmp -s "$S/dirty.before" "$S/dirty.after"
jp_expect dirty_tracked_file_writes_no_manifest [ ! -e "$O/dirty/run-002/job.json" ]

# ... but at the ref it asks for already: a warning, recorded in the manifest
answers dirty v1
prep dirty
rc=$?
jp_expect dirty_at_the_ref_is_allowed [ "$rc" = 0 ]
jp_expect dirty_at_the_ref_warns_in_the_manifest sh -c \
	'echo "$1" | grep -q "^warn .*uncommitted change(s) (README): the job runs code no commit records"' \
	sh "$(check_of "$O/dirty/run-002/job.json" code.repo.clean)"
jp_git_snapshot "$P/dirty" >"$S/dirty.after2"
jp_expect dirty_at_the_ref_leaves_the_change cmp -s "$S/dirty.before" "$S/dirty.after2"

# --- a local commit on no remote: moving would leave it behind
git -C "$P/local" checkout -q -b mine
echo mine >"$P/local/MINE"
git -C "$P/local" add MINE
# shellcheck disable=SC2086
git $JP_GIT_ID -C "$P/local" commit -qm mine || exit 99
jp_git_snapshot "$P/local" >"$S/local.before"
answers local v2
prep local
rc=$?
jp_git_snapshot "$P/local" >"$S/local.after"
jp_expect local_commit_refuses_the_move [ "$rc" = 1 ]
jp_expect local_commit_is_named grep -q "1 local commit(s) in $P/local are on no remote" "$S/local.err"
jp_expect local_commit_touches_nothing cmp -s "$S/local.before" "$S/local.after"
jp_expect local_commit_writes_no_manifest [ ! -e "$O/local/run-002/job.json" ]

# --- untracked files out of the way: kept as they are; in the way: refused
echo "my notes" >"$P/untracked/notes.txt"
answers untracked v2
prep untracked
rc=$?
jp_expect untracked_only_succeeds [ "$rc" = 0 ]
jp_expect untracked_only_moves head_is "$P/untracked" "$V2"
jp_expect untracked_only_is_kept [ "$(cat "$P/untracked/notes.txt")" = "my notes" ]

mkdir -p "$P/inway/extra"
echo mine >"$P/inway/extra/added.txt"
jp_git_snapshot "$P/inway" >"$S/inway.before"
answers inway v2
prep inway
rc=$?
jp_git_snapshot "$P/inway" >"$S/inway.after"
jp_expect untracked_in_the_way_refuses_the_move [ "$rc" = 1 ]
jp_expect untracked_in_the_way_is_named grep -q "would be overwritten by v2 (.*): extra/added.txt" "$S/inway.err"
jp_expect untracked_in_the_way_touches_nothing cmp -s "$S/inway.before" "$S/inway.after"
jp_expect untracked_in_the_way_writes_no_manifest [ ! -e "$O/inway/run-002/job.json" ]

# --- another repository's checkout, and a folder that is no checkout
jp_git_repo "$S/repos/other.git" >/dev/null 2>&1 || exit 99
git clone -q "$S/repos/other.git" "$P/other" || exit 99
jp_git_snapshot "$P/other" >"$S/other.before"
answers other v1
prep other
rc=$?
jp_git_snapshot "$P/other" >"$S/other.after"
jp_expect another_repository_is_refused [ "$rc" = 1 ]
jp_expect another_repository_says_the_way_out grep -q "is a checkout of .*other.git, not of $URL: choose another path, or leave code.repo.url out" "$S/other.err"
jp_expect another_repository_touches_nothing cmp -s "$S/other.before" "$S/other.after"
jp_expect another_repository_writes_no_manifest [ ! -e "$O/other/run-001/job.json" ]

mkdir -p "$P/plain"
echo "not code" >"$P/plain/notes.txt"
# (with a launch command: nothing else fails, so only the refusal can)
cat >"$S/plain.json" <<EOF
{"job": {"name": "plain", "launch_command": "python train.py"},
 "code": {"source": "shared_storage", "repo": {"url": "$URL", "ref": "v1"}}}
EOF
prep plain
rc=$?
jp_expect non_checkout_is_refused [ "$rc" = 1 ]
jp_expect non_checkout_says_the_way_out grep -q "holds files but is not a git checkout: choose another path, or leave code.repo.url out" "$S/plain.err"
jp_expect non_checkout_touches_nothing [ "$(ls -A "$P/plain")" = notes.txt ]
jp_expect non_checkout_writes_no_manifest [ ! -e "$O/plain/run-001/job.json" ]

# --- a big v3, trickled out: the server dies, then Ctrl-C, mid-fetch
mkdir -p "$S/work/data"
head -c 4194304 /dev/urandom >"$S/work/data/blob"
git -C "$S/work" add -A
# shellcheck disable=SC2086
git $JP_GIT_ID -C "$S/work" commit -qm big && git -C "$S/work" tag v3 &&
	git -C "$S/work" push -q origin main v3 || exit 99
jp_gitd_stop "$S/gitd"

# mid_fetch NAME: start the prep of v3 in the background ($pid) and wait
# until the pack is coming in (libgit2's temporary pack in .git/objects/pack,
# or in the local mirror cache's, which the server's pack goes to first)
mid_fetch() {
	answers "$1" v3
	$T "$JOBPREP" init --verbose --answers "$S/$1.json" --profile "$S/profile.json" \
		</dev/null >"$S/$1.out" 2>"$S/$1.err" &
	pid=$!
	_w=0
	while [ $_w -lt 300 ]; do
		ls "$P/move/.git/objects/pack" "$XDG_CACHE_HOME"/jobprep/git/*.git/objects/pack \
			2>/dev/null | grep -q '^pack_git2_' && return 0
		sleep 0.1
		_w=$((_w + 1))
	done
	return 1
}
for how in server_killed sigint; do
	jp_gitd_start "$S/gitd" "$S/repos" slow || exit 99
	URL=git://127.0.0.1:$JP_GITD_PORT/train.git
	git -C "$P/move" remote set-url origin "$URL"
	jp_git_snapshot "$P/move" >"$S/$how.before"
	if mid_fetch move; then
		sleep 0.3
		if [ $how = server_killed ]; then
			jp_gitd_stop "$S/gitd"
		else
			kill -INT $pid
		fi
		wait $pid
		rc=$?
		jp_git_snapshot "$P/move" >"$S/$how.after"
		if [ $how = server_killed ]; then
			jp_expect "${how}_mid_fetch_fails" [ "$rc" = 1 ]
		else
			jp_expect "${how}_mid_fetch_exits_130" [ "$rc" = 130 ]
		fi
		jp_expect "${how}_mid_fetch_leaves_the_checkout_as_it_was" cmp -s "$S/$how.before" "$S/$how.after"
		jp_expect "${how}_mid_fetch_is_still_at_v2" head_is "$P/move" "$V2"
		jp_expect "${how}_mid_fetch_is_clean" clean "$P/move"
		jp_expect "${how}_mid_fetch_writes_no_manifest" [ ! -e "$O/move/run-003/job.json" ]
	else
		jp_fail "${how}_mid_fetch" "the fetch never started: $(cat "$S/move.err")"
		kill $pid
		wait $pid
	fi
	jp_gitd_stop "$S/gitd"
done

# --- two preps of the same project at once: the second waits for the first
# (bounded), then finds the checkout already there; never a mixed tree
jp_gitd_start "$S/gitd" "$S/repos" slow || exit 99
URL=git://127.0.0.1:$JP_GITD_PORT/train.git
git -C "$P/move" remote set-url origin "$URL"
V3=$(git -C "$S/work" rev-parse 'v3^{commit}')
if mid_fetch move; then
	cp "$S/move.json" "$S/move-b.json"
	$T "$JOBPREP" init --verbose --answers "$S/move-b.json" --profile "$S/profile.json" \
		</dev/null >"$S/move-b.out" 2>"$S/move-b.err"
	rc2=$?
	wait $pid
	rc1=$?
	jp_expect two_at_once_the_second_waits_and_succeeds [ "$rc2" = 0 ]
	jp_expect two_at_once_the_second_finds_it_already_there grep -q "already at v3" "$S/move-b.out"
	jp_expect two_at_once_the_first_succeeds [ "$rc1" = 0 ]
	jp_expect two_at_once_the_first_gets_there head_is "$P/move" "$V3"
	jp_expect two_at_once_the_checkout_is_clean clean "$P/move"
else
	jp_fail two_at_once "the fetch never started: $(cat "$S/move.err")"
	kill $pid
	wait $pid
fi
jp_gitd_stop "$S/gitd"

# --- Ctrl-C mid-checkout: v4 adds 20000 files; the signal lands once the
# first of them is written, and the checkout is put back as it was
jp_gitd_start "$S/gitd" "$S/repos" || exit 99
URL=git://127.0.0.1:$JP_GITD_PORT/train.git
git -C "$P/move" remote set-url origin "$URL"
git -C "$S/work" pull -q --ff-only 2>/dev/null
python3 - "$(git -C "$S/work" rev-parse main)" >"$S/many.fi" <<'EOF'
import sys
w = sys.stdout.write
w("commit refs/heads/main\ncommitter t <t@t.invalid> 1700000000 +0000\ndata 5\nmany\n")
w("from %s\n" % sys.argv[1])
for i in range(20000):
    w("M 100644 inline many/d%d/f%d.txt\ndata 14\nfile %08d\n" % (i % 100, i, i))
EOF
git -C "$S/work" fast-import --quiet <"$S/many.fi" && git -C "$S/work" reset -q --hard main &&
	git -C "$S/work" tag v4 && git -C "$S/work" push -q origin main v4 || exit 99
jp_git_snapshot "$P/move" >"$S/mid-checkout.before"
BEFORE=$(git -C "$P/move" rev-parse HEAD)
answers move v4
$T "$JOBPREP" init --answers "$S/move.json" --profile "$S/profile.json" \
	</dev/null >"$S/move.out" 2>"$S/move.err" &
pid=$!
# Until the checkout starts writing, however slow the machine (a sanitizer
# build under load needs far more than a few seconds to fetch 20,000 files);
# only a guard of 5 minutes, or jobprep ending first, stops the wait.
w=0
while [ $w -lt 15000 ] && [ ! -d "$P/move/many" ] && kill -0 $pid 2>/dev/null; do
	sleep 0.02
	w=$((w + 1))
done
if [ -d "$P/move/many" ]; then
	kill -INT $pid
	written=$(find "$P/move/many" -type f | wc -l)
	wait $pid
	rc=$?
	jp_git_snapshot "$P/move" >"$S/mid-checkout.after"
	# the signal landed mid-checkout: fewer than all files were there
	jp_expect sigint_mid_checkout_landed_mid_checkout [ "$written" -lt 20000 ]
	jp_expect sigint_mid_checkout_exits_130 [ "$rc" = 130 ]
	jp_expect sigint_mid_checkout_puts_the_checkout_back cmp -s "$S/mid-checkout.before" "$S/mid-checkout.after"
	jp_expect sigint_mid_checkout_is_still_where_it_was head_is "$P/move" "$BEFORE"
	jp_expect sigint_mid_checkout_is_clean clean "$P/move"
	jp_expect sigint_mid_checkout_leaves_no_index_copy sh -c '! ls "$1"/.git/index.jobprep-* 2>/dev/null' sh "$P/move"
else
	jp_fail sigint_mid_checkout "the checkout never started: $(cat "$S/move.err")"
	kill $pid
	wait $pid
fi
# ... and without the signal it gets there
prep move
rc=$?
jp_expect after_sigint_the_same_answers_succeed [ "$rc" = 0 ]
jp_expect after_sigint_the_same_answers_move_it head_is "$P/move" "$(git -C "$S/work" rev-parse v4)"
jp_expect after_sigint_the_checkout_is_clean clean "$P/move"

jp_done
