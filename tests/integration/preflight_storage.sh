#!/bin/sh
# Every Worker's word is final about storage, and about who it is (issue
# 28): jobs made by `jobprep init` on a real shared root (a bind mount of a
# disk folder, so not a sandbox), their preflight.sh run as Workers run it,
# each Worker a mount namespace of its own over the same storage.
#
# - healthy: exit 0, the table (storage, data, identity pass; the runtime's
#   areas "-") and "every check passed" last (dash, bash, busybox sh);
# - an empty tmpfs at checkpoints/ below the shared output: a failure (a
#   sandbox profile: a warning, and the last line counts and names it);
# - a node-local folder bind-mounted at logs/: a failure against what init
#   recorded; on two Workers, without a record, rank 1 misses rank 0's mark
#   in logs/ (outputs.log_dir.same_storage) while rank 0 passes;
# - the data folder emptied after init (3 files recorded): data[0].path.count;
#   the same with no count recorded; not for a folder the job fills itself;
# - a .jobprep-tmp-* inside the data folder: data[0].path.staging;
# - RANK=0, WORLD_SIZE=1 in job.env: init refuses naming them, check fails
#   job.env.identity, env.sh does not export them, the preflight fails.
# Each fault has its healthy twin (the first case, or its own).
set -u

if [ "${1:-}" != inside ]; then
	: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
	. "$TOP_SRCDIR/tests/lib/report.sh"
	if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null 2>&1; then
		jp_skip_all "needs root and unshare (private mounts: tmpfs, bind mounts)"
	fi
	for tool in dash bash busybox python3 git; do
		command -v $tool >/dev/null 2>&1 ||
			jp_skip_all "$tool is not installed (autotools/bootstrap.sh --tests installs it)"
	done
	S=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-pfst.XXXXXX") || exit 1
	trap 'rm -rf "$S"' EXIT
	trap 'exit 130' INT TERM
	export S
	self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
	jp_cases_in unshare -m --propagation private sh "$self" inside
	jp_done
fi

# --- inside a private mount namespace ----------------------------------------
. "$TOP_SRCDIR/tests/lib/report.sh"
host=$(uname -n)
mkdir -p "$S/shared/code" "$S/shared/data" "$S/shared/out" "$S/local"
# the shared root: a mount of its own, on the disk the scratch folder is on
mount --bind "$S/shared" "$S/shared" || { jp_fail "bind mount of the shared root"; jp_done; }
fs=$(awk -v p="$S/shared" '$5 == p { for (i = 7; $i != "-"; i++); print $(i + 1) }' /proc/self/mountinfo | tail -n 1)
case $fs in
tmpfs | ramfs | overlay)
	jp_skip_all "the scratch folder ${TMPDIR:-/tmp} is on $fs: a shared root here would be wiped storage itself"
	;;
esac
git -C "$S/shared/code" init -q &&
	git -C "$S/shared/code" -c user.email=t@example.com -c user.name=t commit -q --allow-empty -m x &&
	git -C "$S/shared/code" remote add origin https://example.com/team/train.git ||
	{ jp_fail "the code's checkout"; jp_done; }
printf '{"shared_roots": ["%s/shared"]}\n' "$S" >"$S/profile-platform.json"
printf '{"sandbox": true, "shared_roots": ["%s/shared"]}\n' "$S" >"$S/profile-sandbox.json"

# job NAME PROFILE [ENV_JSON]: `jobprep init` of a one-Worker job with its
# own data set (3 files) and run folder; its output in $S/NAME.init.
job() {
	mkdir -p "$S/shared/data/$1"
	for f in a b c; do echo "$f" >"$S/shared/data/$1/$f"; done
	cat >"$S/$1.answers.json" <<EOF
{"job": {"name": "$1", "workers": 1, "gpus_per_worker": 0, "launch_command": "true",
         "env": ${3:-{\}}},
 "code": {"source": "shared_storage", "path": "$S/shared/code"},
 "data": [{"name": "d", "path": "$S/shared/data/$1"}],
 "outputs": {"output_dir": "$S/shared/out/$1", "checkpoint_dir": "$S/shared/out/$1/checkpoints",
             "log_dir": "$S/shared/out/$1/logs"}}
EOF
	"$JOBPREP" init --answers "$S/$1.answers.json" --profile "$S/profile-$2.json" \
		-o "$S/$1.json" >"$S/$1.init" 2>&1
}

# run TAG SCRIPT [MOUNTS] [VAR=VALUE...]: the preflight SCRIPT under dash
# in a mount namespace of its own, where the sh text MOUNTS ran first;
# stdout, stderr, status in $S/TAG.{out,err,rc}; at most 60 s.
run() {
	_tag=$1 _script=$2 _mounts=${3:-:} _sh=${SH:-dash}
	shift 3
	rm -f "$S/$_tag.rc"
	(unshare -m --propagation private sh -c "$_mounts"' && exec env "$@"' sh "$@" $_sh "$_script" \
		>"$S/$_tag.out" 2>"$S/$_tag.err"
	echo $? >"$S/$_tag.rc") &
	_w=0
	while [ ! -s "$S/$_tag.rc" ] && [ $_w -lt 600 ]; do
		sleep 0.1
		_w=$((_w + 1))
	done
	[ -s "$S/$_tag.rc" ] || echo hung >"$S/$_tag.rc"
}
rc() { cat "$S/$1.rc"; }
has() { [ -f "$S/$1.$2" ] && grep -qF -- "$3" "$S/$1.$2"; }
lastline() { tail -n 1 "$S/$1.$2"; }
says() { echo "exit $(rc "$1"): $(cat "$S/$1.out" "$S/$1.err")"; }
pf() { echo "$S/shared/out/$1/preflight.sh"; }
# ex NAME "TAG..." CMD...: a case, CMD its whole check; on failure it shows
# what the runs TAG said
ex() {
	_n=$1 _tags=$2
	shift 2
	if "$@"; then
		jp_pass "$_n"
	else
		_said=
		for _t in $_tags; do _said="$_said [$_t: $(says "$_t")]"; done
		jp_fail "$_n:$_said"
	fi
}

# --- healthy: the table, and every check passed -------------------------------
if job good platform; then
	jp_pass "init of a healthy job on a real shared root"
else
	jp_fail "init of the healthy job: $(tail -5 "$S/good.init")"
fi
jp_expect "init records where each path lives" \
	grep -q '"fstype"' "$S/good.json"
for sh in dash bash "busybox sh"; do
	SH=$sh run "good-${sh%% *}" "$(pf good)" :
	t=good-${sh%% *}
	ex "$sh: healthy: exit 0, the table, every check passed last" "$t" \
		sh -c '[ "$(cat "$1.rc")" = 0 ] &&
			grep -qx "\[area\] storage   pass" "$1.out" && grep -qx "\[area\] data      pass" "$1.out" &&
			grep -qx "\[area\] identity  pass" "$1.out" && grep -qx "\[area\] python    -" "$1.out" &&
			[ "$(tail -n 1 "$1.out")" = "[pass] preflight: every check passed on Worker $2" ]' \
		sh "$S/$t" "$host"
done

# --- an empty tmpfs at checkpoints/ below the shared output ------------------
ck=$S/shared/out/good/checkpoints
run tmpfs "$(pf good)" "mount -t tmpfs -o size=512m jp-pfst-ckpt '$ck'"
ex "tmpfs at checkpoints/: a failure there, exit 1" "tmpfs" \
	sh -c '[ "$(cat "$1.rc")" = 1 ] && grep -qF "[FAIL] outputs.checkpoint_dir.storage: $2 is under a shared storage root, but here it is on tmpfs" "$1.err"' \
	sh "$S/tmpfs" "$ck"
ex "tmpfs at checkpoints/: the table and the last line name it" "tmpfs" \
	sh -c 'grep -qx "\[area\] storage   fail" "$1.err" &&
		tail -n 1 "$1.err" | grep -q "^\[FAIL\] preflight: .*problems found: 1); warnings: 0; the checks: outputs.checkpoint_dir.storage$"' \
	sh "$S/tmpfs"
# a sandbox profile: a warning, counted and named, never "every check passed"
job sandbox sandbox || jp_fail "init of the sandbox job: $(tail -5 "$S/sandbox.init")"
run sandbox "$(pf sandbox)" "mount -t tmpfs -o size=512m jp-pfst-sbx '$S/shared/out/sandbox/checkpoints'"
ex "sandbox: tmpfs at checkpoints/ warns, exit 0, the last line counts it" "sandbox" \
	sh -c '[ "$(cat "$1.rc")" = 0 ] && grep -q "^\[warn\] outputs.checkpoint_dir.storage: " "$1.err" &&
		[ "$(tail -n 1 "$1.err")" = "[warn] preflight: Worker $2: the launch command starts, but 1 checks warned: outputs.checkpoint_dir.storage" ] &&
		[ -f "$1.out" ] && ! grep -q "every check passed" "$1.out"' \
	sh "$S/sandbox" "$host"
run sandbox-ok "$(pf sandbox)" :
ex "sandbox, healthy: every check passed" "sandbox-ok" \
	sh -c '[ "$(cat "$1.rc")" = 0 ] && [ "$(tail -n 1 "$1.out")" = "[pass] preflight: every check passed on Worker $2" ]' \
	sh "$S/sandbox-ok" "$host"

# --- a node-local folder bind-mounted at logs/ -------------------------------
logs=$S/shared/out/good/logs
run bind "$(pf good)" "mount --bind '$S/local' '$logs'"
ex "a local bind mount at logs/: a failure against init's record" "bind" \
	sh -c '[ "$(cat "$1.rc")" = 1 ] && grep -qF "[FAIL] outputs.log_dir.storage: $2 is on " "$1.err" &&
		grep -qF "but where the job was prepared it was on " "$1.err"' \
	sh "$S/bind" "$logs"
# its twin: the same storage, mounted above the shared root on this Worker
# (the shared root a plain folder of the same disk): not a move
run above "$(pf good)" "umount '$S/shared'"
ex "the same storage mounted above the shared root: passes" "above" \
	sh -c '[ "$(cat "$1.rc")" = 0 ]' sh "$S/above"
# two Workers and no record: the mark in logs/ tells
job two platform || jp_fail "init of the two-Worker job: $(tail -5 "$S/two.init")"
python3 - "$S/shared/out/two/job.json" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
m["job"]["workers"] = 2
m.pop("storage", None)
json.dump(m, open(sys.argv[1], "w"))
EOF
"$JOBPREP" preflight "$S/shared/out/two/job.json" >"$S/two.sh" || jp_fail "jobprep preflight of two"
for attempt in healthy bound ckbound; do
	# a healthy meeting ends when both are there: its wait is long, so a
	# loaded machine cannot fail it; a missed mark takes the whole wait
	wait_s=3
	case $attempt in
	bound) mounts="mount --bind '$S/local' '$S/shared/out/two/logs'" ;;
	ckbound) mounts="mount --bind '$S/local' '$S/shared/out/two/checkpoints'" ;;
	*) mounts=: wait_s=60 ;;
	esac
	if [ "$attempt" = healthy ]; then
		run "two-$attempt-1" "$S/two.sh" "$mounts" RANK=1 JOBPREP_ATTEMPT="$attempt-$$" JOBPREP_PREFLIGHT_WAIT=$wait_s &
		run "two-$attempt-0" "$S/two.sh" : RANK=0 JOBPREP_ATTEMPT="$attempt-$$"
		wait
	else
		# rank 0 first (it leaves its marks and goes on, waiting for
		# no one): rank 1's short wait then misses only the mark its
		# bind hides, however slow a loaded machine makes rank 0
		run "two-$attempt-0" "$S/two.sh" : RANK=0 JOBPREP_ATTEMPT="$attempt-$$"
		run "two-$attempt-1" "$S/two.sh" "$mounts" RANK=1 JOBPREP_ATTEMPT="$attempt-$$" JOBPREP_PREFLIGHT_WAIT=$wait_s
	fi
done
ex "two Workers, healthy: both pass" "two-healthy-0 two-healthy-1" \
	sh -c '[ "$(cat "$1-0.rc")" = 0 ] && [ "$(cat "$1-1.rc")" = 0 ]' sh "$S/two-healthy"
ex "two Workers, logs/ bound on rank 1: it misses rank 0's mark there, rank 0 passes" "two-bound-0 two-bound-1" \
	sh -c '[ "$(cat "$1-0.rc")" = 0 ] && [ "$(cat "$1-1.rc")" = 1 ] &&
		grep -qF "[FAIL] outputs.log_dir.same_storage: Worker $2, rank 1 did not see rank 0'"'"'s mark $3/.jobprep-preflight-ready" "$1-1.err" &&
		! grep -q "outputs.output_dir.same_storage" "$1-1.err"' \
	sh "$S/two-bound" "$host" "$S/shared/out/two/logs"
# a folder before the last one: the meeting goes on to logs/ after it
ex "two Workers, checkpoints/ bound on rank 1: it fails there, and logs/ is still met" "two-ckbound-0 two-ckbound-1" \
	sh -c '[ "$(cat "$1-1.rc")" = 1 ] &&
		grep -qF "[FAIL] outputs.checkpoint_dir.same_storage: Worker $2, rank 1" "$1-1.err" &&
		! grep -q "outputs.log_dir.same_storage\|Illegal number\|unexpected operator\|integer expression" "$1-1.err" &&
		grep -q "^\[area\] storage  *fail" "$1-1.err"' \
	sh "$S/two-ckbound" "$host"

# --- the data folder emptied after init ---------------------------------------
job emptied platform || jp_fail "init of the emptied job: $(tail -5 "$S/emptied.init")"
run emptied-before "$(pf emptied)" :
rm -f "$S/shared/data/emptied/"*
run emptied "$(pf emptied)" :
jp_expect "data emptied after init: its twin passes first" sh -c '[ "$(cat "$1")" = 0 ]' sh "$S/emptied-before.rc"
ex "data emptied after init: data[0].path.count fails" "emptied" \
	sh -c '[ "$(cat "$1.rc")" = 1 ] && grep -qF "[FAIL] data[0].path.count: $2 holds no files on this Worker" "$1.err" &&
		grep -qx "\[area\] data      fail" "$1.err"' \
	sh "$S/emptied" "$S/shared/data/emptied"
"$JOBPREP" check --json "$S/shared/out/emptied/job.json" >"$S/emptied.check" 2>/dev/null
ex "data emptied after init: check fails data[0].path.count too" "emptied" \
	python3 -c '
import json, sys
c = [x for x in json.load(open(sys.argv[1])) if x["id"] == "data[0].path.count"]
sys.exit(not (len(c) == 1 and c[0]["status"] == "fail" and "fewer than the 3" in c[0]["message"]))' "$S/emptied.check"
echo a >"$S/shared/data/emptied/a"
run fewer "$(pf emptied)" :
ex "data with 1 of 3 files: data[0].path.count fails" "fewer" \
	sh -c '[ "$(cat "$1.rc")" = 1 ] && grep -qF "[FAIL] data[0].path.count: $2 holds 1 files on this Worker ($3), fewer than the 3 the manifest recorded" "$1.err"' \
	sh "$S/fewer" "$S/shared/data/emptied" "$host"

# --- a data set whose count was never recorded (a quick look that did not
# finish records none): emptied, it still fails; one the job fills itself
# ("output": true) is not judged
job uncounted platform || jp_fail "init of the uncounted job: $(tail -5 "$S/uncounted.init")"
for kind in uncounted filled; do
	python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
del m["data"][0]["stats"]
if sys.argv[3] == "filled":
    m["data"][0]["output"] = True
json.dump(m, open(sys.argv[2], "w"), indent=1)' "$S/shared/out/uncounted/job.json" "$S/$kind-job.json" $kind || exit 99
	"$JOBPREP" preflight "$S/$kind-job.json" >"$S/$kind-pf.sh" || exit 99
done
jp_expect "no count recorded: the manifest says nothing of the files" \
	sh -c 'grep -q "\"path\"" "$1" && ! grep -q "\"files\"" "$1"' sh "$S/uncounted-job.json"
run uncounted-full "$S/uncounted-pf.sh" :
rm -f "$S/shared/data/uncounted/"*
run uncounted-empty "$S/uncounted-pf.sh" :
run filled-empty "$S/filled-pf.sh" :
ex "no count recorded, data there: passes" "uncounted-full" \
	sh -c '[ "$(cat "$1.rc")" = 0 ]' sh "$S/uncounted-full"
ex "no count recorded, data emptied: data[0].path.count fails" "uncounted-empty" \
	sh -c '[ "$(cat "$1.rc")" = 1 ] && grep -qF "[FAIL] data[0].path.count: $2 holds no files on this Worker" "$1.err"' \
	sh "$S/uncounted-empty" "$S/shared/data/uncounted"
ex "a data folder the job fills itself, empty: not judged" "filled-empty" \
	sh -c '[ "$(cat "$1.rc")" = 0 ] && [ -s "$1.out" ] && [ -e "$1.err" ] &&
		! grep -q "data\[0\]\.path\.count" "$1.out" "$1.err"' sh "$S/filled-empty"

# with nowhere to write its notes, the table still shows the failure
run fewer-nonotes "$(pf emptied)" : TMPDIR="$S/no-such-folder"
ex "no notes file: the data area still fails, the field is named" "fewer-nonotes" \
	sh -c '[ "$(cat "$1.rc")" = 1 ] && grep -qx "\[area\] data      fail" "$1.err" &&
		tail -n 1 "$1.err" | grep -q "the checks: data\[0\]\.path"' sh "$S/fewer-nonotes"

# --- unfinished staging inside the data folder --------------------------------
job staging platform || jp_fail "init of the staging job: $(tail -5 "$S/staging.init")"
mkdir -p "$S/shared/data/staging/sub/.jobprep-tmp-unpack-shard.tar"
echo partial >"$S/shared/data/staging/sub/.jobprep-tmp-unpack-shard.tar/x"
run staging "$(pf staging)" :
ex "an unpack in progress inside the data folder: data[0].path.staging fails" "staging" \
	sh -c '[ "$(cat "$1.rc")" = 1 ] && grep -qF "[FAIL] data[0].path.staging: $2 is not completely staged on this Worker ($3): $2/sub/.jobprep-tmp-unpack-shard.tar, a temporary" "$1.err"' \
	sh "$S/staging" "$S/shared/data/staging" "$host"
rm -rf "$S/shared/data/staging/sub"
run staging-done "$(pf staging)" :
jp_expect "the same data folder once the unpack is gone: passes" sh -c '[ "$(cat "$1")" = 0 ]' sh "$S/staging-done.rc"

# --- an empty local folder mounted at the data folder --------------------------
mkdir -p "$S/local-data"
run localdata "$(pf good)" "mount --bind '$S/local-data' '$S/shared/data/good'"
ex "an empty local folder at the data folder: data[0].path.storage fails" "localdata" \
	sh -c '[ "$(cat "$1.rc")" = 1 ] && grep -qF "[FAIL] data[0].path.storage: $2 is on " "$1.err" &&
		grep -qx "\[area\] storage   fail" "$1.err"' \
	sh "$S/localdata" "$S/shared/data/good"

# --- a path-valued job.env under the shared root ------------------------------
mkdir -p "$S/shared/cache/hf"
job envpath platform "{\"HF_HOME\": \"$S/shared/cache/hf\"}" ||
	jp_fail "init of the envpath job: $(tail -5 "$S/envpath.init")"
run envpath-ok "$(pf envpath)" :
ex "job.env HF_HOME on the shared root: passes" "envpath-ok" \
	sh -c '[ "$(cat "$1.rc")" = 0 ] && grep -q "^jp_check_env .job.env.HF_HOME. " "$2"' sh "$S/envpath-ok" "$(pf envpath)"
run envpath "$(pf envpath)" "mount -t tmpfs -o size=16m jp-pfst-hf '$S/shared/cache/hf'"
ex "job.env HF_HOME on a tmpfs on this Worker: job.env.HF_HOME.storage fails" "envpath" \
	sh -c '[ "$(cat "$1.rc")" = 1 ] && grep -qF "[FAIL] job.env.HF_HOME.storage: $2 is under a shared storage root, but here it is on tmpfs" "$1.err"' \
	sh "$S/envpath" "$S/shared/cache/hf"

# --- the platform's identity in job.env ----------------------------------------
job ident platform '{"RANK": "0", "WORLD_SIZE": "1", "NCCL_DEBUG": "INFO"}'
jp_expect "init refuses RANK in job.env, naming it" \
	sh -c '[ -s "$1" ] && ! grep -q "^Wrote" "$1" && grep -q "job.env\[0\].name: RANK is set by the platform for each Worker" "$1" &&
		grep -q "WORLD_SIZE is set by the platform" "$1"' sh "$S/ident.init"
# a manifest that sets them anyway (written by hand, or by an older jobprep)
python3 - "$S/shared/out/good/job.json" "$S/ident.json" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
m["job"]["env"] = {"RANK": "0", "WORLD_SIZE": "1", "NCCL_DEBUG": "INFO"}
json.dump(m, open(sys.argv[2], "w"))
EOF
"$JOBPREP" check --json "$S/ident.json" >"$S/ident.check" 2>"$S/ident.check.err"
echo $? >"$S/ident.check.rc"
"$JOBPREP" check --json "$S/shared/out/good/job.json" >"$S/good.check" 2>&1
jp_expect "check: job.env.identity fails, naming RANK and WORLD_SIZE" \
	python3 -c '
import json, sys
c = [x for x in json.load(open(sys.argv[1])) if x["id"] == "job.env.identity"]
sys.exit(not (len(c) == 1 and c[0]["status"] == "fail" and "RANK, WORLD_SIZE" in c[0]["message"]))' "$S/ident.check"
jp_expect "check of its healthy twin: no job.env.identity, data[0].path.count passes" \
	python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))
sys.exit(any(x["id"] == "job.env.identity" for x in c) or
         [x["status"] for x in c if x["id"] == "data[0].path.count"] != ["pass"])' "$S/good.check"
"$JOBPREP" env "$S/ident.json" >"$S/ident.env" 2>&1
jp_expect "env.sh leaves RANK and WORLD_SIZE to the platform" \
	sh -c 'grep -q "^export NCCL_DEBUG=" "$1" && ! grep -q "^export RANK=" "$1" && ! grep -q "^export WORLD_SIZE=" "$1"' \
	sh "$S/ident.env"
"$JOBPREP" preflight "$S/ident.json" >"$S/ident.sh" || jp_fail "jobprep preflight of ident"
run ident "$S/ident.sh" :
ex "preflight: job.env.identity fails on the Worker, the identity area too" "ident" \
	sh -c '[ "$(cat "$1.rc")" = 1 ] && grep -qF "[FAIL] job.env.identity: Worker $2: the manifest'"'"'s job.env sets RANK WORLD_SIZE" "$1.err" &&
		grep -qx "\[area\] identity  fail" "$1.err"' \
	sh "$S/ident" "$host"

jp_done
