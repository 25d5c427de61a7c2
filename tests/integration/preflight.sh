#!/bin/sh
# The run's preflight.sh (`jobprep preflight MANIFEST`), run as a Worker
# runs it, under dash, bash and busybox sh, in a private mount namespace:
# all good: exit 0 and one pass line; a missing data set, a data set on an
# undeclared tmpfs, one under a profile's ephemeral root, a full (tiny
# tmpfs) checkpoint directory and a read-only log directory: one FAIL line
# each, with its check id, exit 1; a data set nobody may read, run as
# nobody; a hung sshfs mount (its ssh client stopped): a timeout line within
# the bound. Four Workers as four processes (RANK 0-3), the last in its own
# mount namespace where the output directory is another tmpfs: that one
# fails naming its host and the path, the others pass, nothing hangs; a
# mark left by an earlier attempt never lets a Worker through.
set -u

if [ "${1:-}" != inside ]; then
	: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
	. "$TOP_SRCDIR/tests/lib/ssh.sh"
	. "$TOP_SRCDIR/tests/lib/unpriv.sh"
	if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null 2>&1; then
		jp_skip_all "needs root and unshare (private mounts: tmpfs, read-only binds)"
	fi
	for sh in dash bash busybox python3; do
		command -v $sh >/dev/null 2>&1 ||
			jp_skip_all "$sh is not installed (autotools/bootstrap.sh --tests installs it)"
	done
	if why=$(jp_unpriv_unavailable); then
		jp_skip_all "$why"
	fi
	S=$(jp_unpriv_dir) || exit 1
	SSH=no
	if jp_ssh_available && jp_sshd_start "$S/sshd" >/dev/null 2>&1; then
		SSH=yes
	fi
	trap '[ "$SSH" = yes ] && jp_sshd_stop "$S/sshd"; rm -rf "$S"' EXIT
	trap 'exit 130' INT TERM
	export S SSH JP_SSHD_PORT
	self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
	jp_cases_in unshare -m --propagation private sh "$self" inside
	jp_done
fi

# --- inside a private mount namespace ----------------------------------------
. "$TOP_SRCDIR/tests/lib/ssh.sh"
. "$TOP_SRCDIR/tests/lib/unpriv.sh"
host=$(uname -n)
shells="dash bash busybox"
# cmd SHELL: how to start it ("busybox sh")
cmd() { if [ "$1" = busybox ]; then echo "busybox sh"; else echo "$1"; fi; }

# manifest NAME WORKERS DATA_PATH... : a manifest $S/NAME.json whose code is
# $S/shared/code, outputs $S/shared/NAME (+ /checkpoints, /logs).
manifest() {
	python3 - "$S" "$@" <<'EOF'
import json, sys
s, name, workers, data = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
out = s + "/shared/" + name
m = {
    "schema_version": 1,
    "generator": {"name": "jobprep", "version": "0.1.0"},
    "created_at": "2026-12-01T10:00:00Z",
    "job": {"name": name, "workers": workers, "gpus_per_worker": 0,
            "launch_command": "true", "env": {}},
    "code": {"source": "shared_storage", "path": s + "/shared/code"},
    "data": [{"name": "d%d" % i, "path": p, "kind": "team", "read_only": True}
             for i, p in enumerate(data)],
    "outputs": {"output_dir": out, "checkpoint_dir": out + "/checkpoints",
                "log_dir": out + "/logs"},
    "checks": [],
    "profile": {"sandbox": True, "shared_roots": [s + "/shared"], "public_roots": [s + "/public"],
                "ephemeral_roots": [s + "/wiped"], "system_disk_bytes": 1024,
                "defaults": {"project_dir": "{shared}/projects/{job}",
                             "output_dir": "{shared}/outputs/{job}/run-NNN",
                             "checkpoint_dir": "{output}/checkpoints",
                             "log_dir": "{output}/logs"}},
}
with open(s + "/" + name + ".json", "w") as f:
    json.dump(m, f)
EOF
	mkdir -p "$S/shared/$1/checkpoints" "$S/shared/$1/logs"
	"$JOBPREP" preflight "$S/$1.json" >"$S/shared/$1/preflight.sh"
}

# run SHELL NAME TAG [VAR=VALUE...]: the preflight of NAME under SHELL with
# the variables, stdout, stderr and status in $S/TAG.{out,err,rc}; waits for
# it through its status file, at most 60 s (a hang is a failure, not a stuck
# test).
run() {
	_sh=$1 _name=$2 _tag=$3
	shift 3
	# shellcheck disable=SC2046 # "busybox sh" is two words
	(env "$@" $(cmd "$_sh") "$S/shared/$_name/preflight.sh" >"$S/$_tag.out" 2>"$S/$_tag.err"
	echo $? >"$S/$_tag.rc") &
	_w=0
	while [ ! -s "$S/$_tag.rc" ] && [ $_w -lt 600 ]; do
		sleep 0.1
		_w=$((_w + 1))
	done
	[ -s "$S/$_tag.rc" ] || echo hung >"$S/$_tag.rc"
}
rc() { cat "$S/$1.rc"; }
has() { grep -qF -- "$2" "$S/$1.err"; }

mkdir -p "$S/shared/code" "$S/shared/data/good" "$S/public" "$S/wiped/data" "$S/elsewhere/tmpfs"
echo x >"$S/shared/data/good/part-0"
chmod 755 "$S/shared" "$S/shared/code" "$S/shared/data" "$S/shared/data/good"

# --- all good ----------------------------------------------------------------
manifest good 1 "$S/shared/data/good" "$S/shared/data/good/part-0"
for sh in $shells; do
	run $sh good good-$sh
	# (on a tmpfs $TMPDIR the shared root gets a [warn] line: allowed)
	if [ "$(rc good-$sh)" = 0 ] && [ -f "$S/good-$sh.err" ] && ! grep -q '^\[FAIL\]' "$S/good-$sh.err" &&
		[ "$(cat "$S/good-$sh.out")" = "[pass] preflight: every check passed on Worker $host" ]; then
		jp_pass "$sh: all good: exit 0, one pass line"
	else
		jp_fail "$sh: all good: exit $(rc good-$sh): $(cat "$S/good-$sh.out" "$S/good-$sh.err")"
	fi
done
ls -A "$S/shared/good" | grep -q jobprep-preflight- && jp_fail "a probe file was left behind"

# --- each bad path its own line ----------------------------------------------
mount -t tmpfs -o size=1m jobprep-pf-data "$S/elsewhere/tmpfs"
manifest bad 1 "$S/shared/data/missing" "$S/elsewhere/tmpfs" "$S/wiped/data"
mount -t tmpfs -o size=1m jobprep-pf-full "$S/shared/bad/checkpoints"
mount --bind "$S/shared/bad/logs" "$S/shared/bad/logs"
mount -o remount,bind,ro "$S/shared/bad/logs"
for sh in $shells; do
	run $sh bad bad-$sh
	[ "$(rc bad-$sh)" = 1 ] && jp_pass "$sh: bad paths: exit 1" || jp_fail "$sh: bad paths: exit $(rc bad-$sh)"
	for line in \
		"[FAIL] data[0].path.exists: $S/shared/data/missing does not exist on this Worker ($host)" \
		"[FAIL] data[1].path.storage: $S/elsewhere/tmpfs is on tmpfs at $S/elsewhere/tmpfs on this Worker ($host), which is wiped" \
		"[FAIL] data[2].path.storage: $S/wiped/data is under $S/wiped, which is wiped" \
		"[FAIL] outputs.checkpoint_dir.space: $S/shared/bad/checkpoints has only " \
		"[FAIL] outputs.log_dir.writable: $S/shared/bad/logs cannot be written on this Worker ($host)" \
		"[FAIL] preflight: Worker $host: the launch command was not started (problems found: 5)"; do
		has bad-$sh "$line" && jp_pass "$sh: ${line%%:*}" || jp_fail "$sh: no line '$line' in: $(cat "$S/bad-$sh.err")"
	done
	# what is needed, not only what is free
	grep -q "checkpoints has only [0-9]* KiB free on this Worker ($host), and the job needs at least [0-9]* KiB there" "$S/bad-$sh.err" &&
		ok "$sh: the space line says what is needed" ||
		not_ok "$sh: the space line does not say what is needed: $(grep '\.space:' "$S/bad-$sh.err")"
	[ "$(grep -c '^\[FAIL\]' "$S/bad-$sh.err")" = 6 ] ||
		jp_fail "$sh: not one line per problem: $(cat "$S/bad-$sh.err")"
done
umount "$S/shared/bad/logs" "$S/shared/bad/checkpoints" "$S/elsewhere/tmpfs"

# --- unreadable, as a user who may not read it --------------------------------
mkdir -p "$S/shared/data/secret"
chmod 700 "$S/shared/data/secret"
manifest secret 1 "$S/shared/data/secret"
chmod 777 "$S/shared/secret" "$S/shared/secret/checkpoints" "$S/shared/secret/logs"
for sh in $shells; do
	# shellcheck disable=SC2046
	jp_unpriv_as $(cmd $sh) "$S/shared/secret/preflight.sh" >"$S/secret-$sh.out" 2>"$S/secret-$sh.err"
	echo $? >"$S/secret-$sh.rc"
	if [ "$(rc secret-$sh)" = 1 ] &&
		has secret-$sh "[FAIL] data[0].path.readable: $S/shared/data/secret cannot be read on this Worker ($host)"; then
		jp_pass "$sh: unreadable data: its line, exit 1"
	else
		jp_fail "$sh: unreadable data: exit $(rc secret-$sh): $(cat "$S/secret-$sh.err")"
	fi
done

# --- a hung network mount ----------------------------------------------------
if [ "$SSH" = yes ]; then
	mkdir -p "$S/remote/data"
	if jp_sshfs_mount "$S/sshd" "$S/remote" "$S/sshfs"; then
		manifest hung 1 "$S/sshfs/data"
		ssh_pid=$(jp_sshfs_ssh_pid "$S/sshd")
		kill -STOP "$ssh_pid"
		for sh in $shells; do
			run $sh hung hung-$sh JOBPREP_PREFLIGHT_TIMEOUT=2
			if [ "$(rc hung-$sh)" = 1 ] &&
				has hung-$sh "[FAIL] data[0].path.storage: $S/sshfs/data did not answer within 2 s on this Worker ($host)"; then
				jp_pass "$sh: hung sshfs: a timeout line, exit 1"
			else
				jp_fail "$sh: hung sshfs: exit $(rc hung-$sh): $(cat "$S/hung-$sh.err")"
			fi
		done
		kill -CONT "$ssh_pid"
		jp_sshfs_umount "$S/sshfs"
		kill "$JP_SSHFS_PID" 2>/dev/null
		wait "$JP_SSHFS_PID" 2>/dev/null
	else
		jp_fail "sshfs mount"
	fi
else
	jp_skip "a hung sshfs mount" "no sshd/sshfs here"
fi

# --- four Workers ------------------------------------------------------------
manifest four 4 "$S/shared/data/good"
out=$S/shared/four
cp "$out/preflight.sh" "$S/four.sh"
# a mark from an earlier attempt of this run never counts
printf 'run=%s attempt=earlier\n' "$out" >"$out/.jobprep-preflight-ready"
run dash four stale RANK=1 JOBPREP_ATTEMPT=now JOBPREP_PREFLIGHT_WAIT=2
if [ "$(rc stale)" = 1 ] && has stale "[FAIL] outputs.output_dir.same_storage: Worker $host, rank 1 did not see rank 0's mark $out/.jobprep-preflight-ready"; then
	jp_pass "an earlier attempt's mark does not let a Worker through"
else
	jp_fail "stale mark: exit $(rc stale): $(cat "$S/stale.out" "$S/stale.err")"
fi
# a one-Worker manifest that Slurm started on two nodes: the second still
# waits for rank 0's mark of this job (SLURM_JOB_ID) and, alone, fails
run dash good nnodes SLURM_NNODES=2 SLURM_JOB_ID=7 SLURM_NODEID=1 JOBPREP_PREFLIGHT_WAIT=1
if [ "$(rc nnodes)" = 1 ] && has nnodes "[FAIL] outputs.output_dir.same_storage: Worker $host, rank 1 did not see rank 0's mark"; then
	jp_pass "more nodes than the manifest's Workers: they meet all the same"
else
	jp_fail "SLURM_NNODES=2: exit $(rc nnodes): $(cat "$S/nnodes.out" "$S/nnodes.err")"
fi
attempt=attempt-$$
for r in 3 2 1 0; do
	if [ $r = 3 ]; then
		# its own mount namespace: the output directory is another filesystem
		(unshare -m --propagation private sh -c 'mount -t tmpfs jobprep-pf-other "$1" &&
			mkdir "$1/checkpoints" "$1/logs" && exec env RANK=3 JOBPREP_ATTEMPT="$2" \
			JOBPREP_PREFLIGHT_WAIT=5 dash "$3"' sh "$out" "$attempt" "$S/four.sh" \
			>"$S/w$r.out" 2>"$S/w$r.err"
		echo $? >"$S/w$r.rc") &
	else
		(RANK=$r JOBPREP_ATTEMPT=$attempt JOBPREP_PREFLIGHT_WAIT=30 dash "$S/four.sh" \
			>"$S/w$r.out" 2>"$S/w$r.err"
		echo $? >"$S/w$r.rc") &
	fi
done
w=0
while [ $w -lt 600 ] && ! { [ -s "$S/w0.rc" ] && [ -s "$S/w1.rc" ] && [ -s "$S/w2.rc" ] && [ -s "$S/w3.rc" ]; }; do
	sleep 0.1
	w=$((w + 1))
done
for r in 0 1 2; do
	if [ "$(cat "$S/w$r.rc" 2>/dev/null)" = 0 ] && [ -f "$S/w$r.err" ] && ! grep -q '^\[FAIL\]' "$S/w$r.err"; then
		jp_pass "Worker rank $r: passes"
	else
		jp_fail "Worker rank $r: exit $(cat "$S/w$r.rc" 2>/dev/null || echo none): $(cat "$S/w$r.err")"
	fi
done
if [ "$(cat "$S/w3.rc" 2>/dev/null)" = 1 ] &&
	grep -qF "[FAIL] outputs.output_dir.same_storage: Worker $host, rank 3 did not see rank 0's mark $out/.jobprep-preflight-ready for this attempt within 5 s" "$S/w3.err"; then
	jp_pass "the Worker with another output directory fails, naming itself and the path"
else
	jp_fail "Worker rank 3: exit $(cat "$S/w3.rc" 2>/dev/null || echo none): $(cat "$S/w3.err")"
fi
[ "$(cat "$out/.jobprep-preflight-ready")" = "run=$out attempt=$attempt" ] ||
	jp_fail "rank 0's mark: $(cat "$out/.jobprep-preflight-ready")"

jp_done
