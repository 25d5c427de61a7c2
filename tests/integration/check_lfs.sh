#!/bin/sh
# Files stored with Git LFS that a checkout holds only as their pointers
# (issue 21): a repository made by the real git-lfs client, served by a git
# daemon on loopback and cloned by jobprep (libgit2 checks out the
# pointers) with no git-lfs on jobprep's PATH. `init` fails code.repo.lfs,
# writes nothing, and names every pointer, found by the attributes and by
# content (legacy.pt: no attribute names it), with the size from its `size`
# line, how to install git-lfs and the command that fetches them; `check
# --json` reports the same id; with git-lfs on PATH the message is the
# command alone, and for legacy.pt (which git-lfs 3.6 and later fetch only
# once an attribute names it) the command that names it in the checkout's
# own attributes. Once the real client has put the content in place (that
# command run, its objects copied in, `git lfs checkout`), the check passes
# and git sees legacy.pt clean; a checkout with
# no LFS file gets no code.repo.lfs at all.
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/initscratch.sh"
. "$TOP_SRCDIR/tests/lib/lfs.sh"
command -v git-lfs >/dev/null 2>&1 || jp_skip_all "git-lfs is not installed (Debian: git-lfs)"
jp_scratch check-lfs 'jp_gitd_stop "$T/gitd"'
jp_init_scratch "$T" || exit 99
jp_lfs_repo "$T/work" "$T/repos/models.git" || exit 99
mkdir -p "$T/gitd"
jp_gitd_start "$T/gitd" "$T/repos" || exit 99
NOLFS=$(jp_no_lfs_path "$T/nolfs") || exit 99
P=$T/shared/projects/models
O=$T/shared/outputs
TO="timeout -s KILL 120"

# answers NAME PATH: code on shared storage at PATH, no URL (as it is)
answers() {
	cat >"$T/$1.json" <<EOF
{"job": {"name": "$1", "launch_command": "cd \"\$PROJECT_DIR\" && bash scripts/train.sh"},
 "code": {"source": "shared_storage", "path": "$2"}}
EOF
}
# prep NAME [ARGS...]: jobprep init with $T/NAME.json (no git-lfs on PATH)
prep() {
	_n=$1
	shift
	$TO env PATH="$NOLFS" "$J" init "$@" --answers "$T/$_n.json" --profile "$T/profile.json" \
		</dev/null >"$T/$_n.out" 2>"$T/$_n.err"
}
# check_json MANIFEST ID: "status|path|message" of a check in `check --json`
check_json() {
	"$J" check --json "$1" 2>/dev/null | python3 -c 'import json,sys
for c in json.load(sys.stdin):
    if c["id"] == sys.argv[1]: print(c["status"] + "|" + c["path"] + "|" + c["message"])' "$2"
}
has() { case $1 in *"$2"*) return 0 ;; esac; return 1; }

# --- libgit2 checks out the pointers
$TO env PATH="$NOLFS" "$J" clone "git://127.0.0.1:$JP_GITD_PORT/models.git" "$P" >"$T/clone.out" 2>&1
rc=$?
if [ "$rc" = 0 ] && head -c 42 "$P/model.safetensors" | grep -q 'git-lfs.github.com/spec/v1'; then
	jp_pass clone_without_git_lfs_leaves_pointers
else
	jp_fail clone_without_git_lfs_leaves_pointers "rc=$rc $(cat "$T/clone.out")"
fi

# --- init fails, names each pointer, its size, and the fix
answers models "$P"
prep models
rc=$?
fail=$(grep '^\[FAIL\] code.repo.lfs:' "$T/models.out")
if [ "$rc" = 1 ] && [ -n "$fail" ] && [ ! -e "$O/models/run-001/job.json" ]; then
	jp_pass init_fails_code_repo_lfs_and_writes_nothing
else
	jp_fail init_fails_code_repo_lfs_and_writes_nothing "rc=$rc $(cat "$T/models.out" "$T/models.err")"
fi
missing=
for want in "4 file(s)" "model.safetensors (293.0 KiB)" "weights/big.bin (4.9 KiB)" \
	"tiny.bin (5 B)" "legacy.pt (1.0 KiB)"; do
	has "$fail" "$want" || missing="$missing '$want'"
done
if [ -z "$missing" ]; then
	jp_pass names_the_pointers_and_sizes
else
	jp_fail names_the_pointers_and_sizes "no$missing in: $fail"
fi
if has "$fail" "git-lfs is not installed" && has "$fail" "apt-get install git-lfs" &&
	has "$fail" "git -C '$P' lfs pull"; then
	jp_pass says_git_lfs_is_missing_and_the_fix
else
	jp_fail says_git_lfs_is_missing_and_the_fix "$fail"
fi
if ! has "$fail" "train.py" && ! has "$fail" "train.sh" && ! has "$fail" ".gitattributes" &&
	! has "$fail" "notes.md"; then
	jp_pass names_no_file_stored_in_git
else
	jp_fail names_no_file_stored_in_git "$fail"
fi

# --- check --json: the same id; with git-lfs on PATH, the command alone
prep models --force
m=$O/models/run-001/job.json
got=$(check_json "$m" code.repo.lfs)
if [ -s "$m" ] && has "$got" "fail|$P|" && has "$got" "git -C '$P' lfs pull" &&
	! has "$got" "not installed"; then
	jp_pass check_json_reports_code_repo_lfs
else
	jp_fail check_json_reports_code_repo_lfs "$got"
fi

# legacy.pt: git-lfs 3.6 and later fetch only what the attributes name;
# the message says so and how to name it (as jobprep's clone does)
fix=${got##*as jobprep clone does: }
if has "$got" "no attribute names 1 of them (legacy.pt)" &&
	[ "$fix" = "printf '%s filter=lfs diff=lfs merge=lfs -text\n' '/legacy.pt' >>\"\$(git -C '$P' rev-parse --absolute-git-dir)/info/attributes\"" ]; then
	jp_pass names_the_pointer_no_attribute_names_and_how_to_name_it
else
	jp_fail names_the_pointer_no_attribute_names_and_how_to_name_it "$got"
fi

# --- the real client, told as the message says, puts the content in place:
# the check passes
(cd / && sh -c "$fix") &&
	mkdir -p "$P/.git/lfs" && cp -r "$T/work/.git/lfs/objects" "$P/.git/lfs/" &&
	git -C "$P" lfs install --local >/dev/null 2>&1 &&
	git -C "$P" lfs checkout >"$T/lfs-checkout.out" 2>&1
prep models
rc=$?
m=$O/models/run-002/job.json
got=$(check_json "$m" code.repo.lfs)
if [ "$rc" = 0 ] && has "$got" "pass|$P|" && has "$got" "have their content" &&
	[ -z "$(git -C "$P" status --porcelain -- legacy.pt)" ]; then
	jp_pass passes_once_git_lfs_fetched_the_content
else
	jp_fail passes_once_git_lfs_fetched_the_content \
		"rc=$rc $got $(cat "$T/models.out" "$T/lfs-checkout.out")"
fi

# --- a checkout without LFS: no code.repo.lfs at all
answers plain "$T/shared/projects/existing-job"
prep plain
rc=$?
got=$(check_json "$O/plain/run-001/job.json" code.repo.lfs)
if [ "$rc" = 0 ] && [ -z "$got" ]; then
	jp_pass no_lfs_no_result
else
	jp_fail no_lfs_no_result "rc=$rc '$got' $(cat "$T/plain.out")"
fi

jp_done
