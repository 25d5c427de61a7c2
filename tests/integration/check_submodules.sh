#!/bin/sh
# Submodules declared but not cloned (issue 21): a superproject with two
# submodules (relative URLs, so they come from the same git daemon on
# loopback), cloned by jobprep without --submodules, leaves empty folders.
# `init` fails code.repo.submodules, writes nothing, and names both paths
# and the fix; `check --json` reports the same id; init cloning the code
# itself fails the same way; the fix it prints, run by the real git, makes
# it pass, as does `jobprep clone --submodules`; with one of the two gone
# only that one is named; a checkout without submodules gets no result.
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/initscratch.sh"
jp_scratch check-submodules 'jp_gitd_stop "$T/gitd"'
jp_init_scratch "$T" || exit 99
# shellcheck disable=SC2086
mkrepo() {
	git init -q -b main "$T/$1.w" && echo "$1" >"$T/$1.w/$1.txt" &&
		mkdir -p "$T/$1.w/scripts" && echo 'echo training' >"$T/$1.w/scripts/train.sh" &&
		git -C "$T/$1.w" add -A && git $JP_GIT_ID -C "$T/$1.w" commit -qm "$1" &&
		git clone -q --bare "$T/$1.w" "$T/repos/$1.git" &&
		git -C "$T/$1.w" remote add origin "$T/repos/$1.git"
}
mkrepo lib && mkrepo tools && mkrepo super || exit 99
for s in lib tools; do
	git -C "$T/super.w" -c protocol.file.allow=always submodule add -q \
		"$T/repos/$s.git" "$([ $s = lib ] && echo vendor/lib || echo tools)" || exit 99
done
# relative URLs: each submodule from the server the superproject came from
git -C "$T/super.w" config -f .gitmodules submodule.vendor/lib.url ../lib.git &&
	git -C "$T/super.w" config -f .gitmodules submodule.tools.url ../tools.git || exit 99
# shellcheck disable=SC2086
git -C "$T/super.w" add -A && git $JP_GIT_ID -C "$T/super.w" commit -qm submodules &&
	git -C "$T/super.w" push -q origin main || exit 99
mkdir -p "$T/gitd"
jp_gitd_start "$T/gitd" "$T/repos" || exit 99
URL=git://127.0.0.1:$JP_GITD_PORT/super.git
P=$T/shared/projects/super
O=$T/shared/outputs
TO="timeout -s KILL 120"

# answers NAME PATH [URL]: code on shared storage at PATH
answers() {
	_repo=
	[ -z "${3:-}" ] || _repo=", \"repo\": {\"url\": \"$3\"}"
	cat >"$T/$1.json" <<EOF
{"job": {"name": "$1", "launch_command": "cd \"\$PROJECT_DIR\" && bash scripts/train.sh"},
 "code": {"source": "shared_storage", "path": "$2"$_repo}}
EOF
}
prep() {
	_n=$1
	shift
	$TO "$J" init "$@" --answers "$T/$_n.json" --profile "$T/profile.json" \
		</dev/null >"$T/$_n.out" 2>"$T/$_n.err"
}
check_json() {
	"$J" check --json "$1" 2>/dev/null | python3 -c 'import json,sys
for c in json.load(sys.stdin):
    if c["id"] == sys.argv[1]: print(c["status"] + "|" + c["path"] + "|" + c["message"])' "$2"
}
has() { case $1 in *"$2"*) return 0 ;; esac; return 1; }
fails() { grep '^\[FAIL\] code.repo.submodules:' "$T/$1.out"; }

# --- a clone without --submodules: empty folders, a failed check
$TO "$J" clone "$URL" "$P" >"$T/clone.out" 2>&1
rc=$?
if [ "$rc" = 0 ] && [ -d "$P/vendor/lib" ] && [ -z "$(ls -A "$P/vendor/lib")" ]; then
	jp_pass clone_leaves_empty_submodule_folders
else
	jp_fail clone_leaves_empty_submodule_folders "rc=$rc $(cat "$T/clone.out")"
fi
answers super "$P"
prep super
rc=$?
fail=$(fails super)
if [ "$rc" = 1 ] && [ -n "$fail" ] && [ ! -e "$O/super/run-001/job.json" ]; then
	jp_pass init_fails_code_repo_submodules_and_writes_nothing
else
	jp_fail init_fails_code_repo_submodules_and_writes_nothing "rc=$rc $(cat "$T/super.out" "$T/super.err")"
fi
fix="git -C '$P' submodule update --init --recursive"
if has "$fail" "2 submodule(s)" && has "$fail" "vendor/lib" && has "$fail" "tools" &&
	has "$fail" "$fix" && has "$fail" "jobprep clone --submodules"; then
	jp_pass names_the_submodules_and_the_fix
else
	jp_fail names_the_submodules_and_the_fix "$fail"
fi
prep super --force
got=$(check_json "$O/super/run-001/job.json" code.repo.submodules)
if has "$got" "fail|$P|" && has "$got" "vendor/lib"; then
	jp_pass check_json_reports_code_repo_submodules
else
	jp_fail check_json_reports_code_repo_submodules "$got"
fi

# --- init cloning the code itself: the same failure
answers cloned "$T/shared/projects/cloned" "$URL"
prep cloned
rc=$?
if [ "$rc" = 1 ] && has "$(fails cloned)" "vendor/lib"; then
	jp_pass init_that_clones_fails_the_same
else
	jp_fail init_that_clones_fails_the_same "rc=$rc $(cat "$T/cloned.out" "$T/cloned.err")"
fi

# --- the fix it prints, run by git: the check passes
(cd "$T" && eval "$fix") >"$T/fix.out" 2>&1
prep super
rc=$?
got=$(check_json "$O/super/run-002/job.json" code.repo.submodules)
if [ "$rc" = 0 ] && has "$got" "pass|$P|" && has "$got" "2 submodule(s) are cloned"; then
	jp_pass passes_after_the_printed_fix
else
	jp_fail passes_after_the_printed_fix "rc=$rc $got $(cat "$T/fix.out" "$T/super.out")"
fi

# --- jobprep clone --submodules: passes; one of them gone: only it is named
P2=$T/shared/projects/both
$TO "$J" clone --submodules "$URL" "$P2" >"$T/clone2.out" 2>&1
answers both "$P2"
prep both
rc=$?
got=$(check_json "$O/both/run-001/job.json" code.repo.submodules)
if [ "$rc" = 0 ] && has "$got" "pass|$P2|"; then
	jp_pass passes_after_clone_with_submodules
else
	jp_fail passes_after_clone_with_submodules "rc=$rc $got $(cat "$T/clone2.out" "$T/both.out")"
fi
rm -rf "$P2/tools" && mkdir "$P2/tools"
prep both
rc=$?
fail=$(fails both)
if [ "$rc" = 1 ] && has "$fail" "1 submodule(s)" && has "$fail" "(tools)" &&
	! has "$fail" "vendor/lib"; then
	jp_pass names_only_the_one_not_cloned
else
	jp_fail names_only_the_one_not_cloned "rc=$rc $fail"
fi

# --- a checkout without submodules: no result
answers plain "$T/shared/projects/existing-job"
prep plain
rc=$?
got=$(check_json "$O/plain/run-001/job.json" code.repo.submodules)
if [ "$rc" = 0 ] && [ -z "$got" ]; then
	jp_pass no_submodules_no_result
else
	jp_fail no_submodules_no_result "rc=$rc '$got' $(cat "$T/plain.out")"
fi

jp_done
