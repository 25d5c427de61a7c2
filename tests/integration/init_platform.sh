#!/bin/sh
# `jobprep init` on the source document's platform, with the built-in
# profile: in a private mount namespace (tests/lib/platform.sh) /mnt/public
# is shared storage, /infini-data read-only public data, /workspace a tmpfs
# and the root an overlay, like a container. A two-Worker job cloned onto
# /mnt/public/projects with team and public data gets its manifest in
# /mnt/public/outputs/<job>/run-001 and `jobprep check` passes it; outputs on
# /workspace or /tmp are refused by name; the launch lint sees which paths
# two Workers share (a network mount the profile does not list is shared;
# the container's own disk is not) and hints at the missing barrier.
set -u

if [ "${1:-}" != inside ]; then
	. "$TOP_SRCDIR/tests/lib/report.sh"
	. "$TOP_SRCDIR/tests/lib/platform.sh"
	. "$TOP_SRCDIR/tests/lib/ssh.sh"
	. "$TOP_SRCDIR/tests/lib/gitserv.sh"
	jp_platform_available || jp_skip_all "needs root, unshare, chroot and overlayfs"
	S=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-init-platform.XXXXXX") || exit 1
	chmod 755 "$S"
	mkdir -p "$S/shared/datasets/sft" "$S/public/imagenet" "$S/remote/team-data"
	printf 'a\n' >"$S/shared/datasets/sft/part-0.jsonl"
	printf 'bb\n' >"$S/shared/datasets/sft/part-1.jsonl"
	printf 'img\n' >"$S/public/imagenet/0.jpg"
	printf 'remote\n' >"$S/remote/team-data/x"
	jp_git_repo "$S/repo.git" >/dev/null 2>&1 || { echo "FAIL: no repository"; exit 1; }
	SSH=no
	if jp_ssh_available && jp_sshd_start "$S/sshd"; then
		SSH=yes
	fi
	trap '[ "$SSH" = yes ] && jp_sshd_stop "$S/sshd"; rm -rf "$S"' EXIT
	export S SSH JP_SSHD_PORT
	self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
	jp_platform_run "$S" "$self" inside
	exit $?
fi

# --- inside the namespace, chrooted into the platform's root ----------------
. "$TOP_SRCDIR/tests/lib/ssh.sh"
. "$TOP_SRCDIR/tests/lib/report.sh"
unset JOBPREP_PROFILE
failures=0
ok() { jp_pass "$1"; }
not_ok() {
	jp_fail "$1"
	failures=$((failures + 1))
}
check() { # NAME COMMAND...
	_n=$1
	shift
	if "$@"; then ok "$_n"; else not_ok "$_n"; fi
}
sshfs_pid=
cleanup_inside() {
	[ -n "$sshfs_pid" ] && { jp_sshfs_umount /mnt/team-nfs; wait "$sshfs_pid" 2>/dev/null; }
}
trap cleanup_inside EXIT

cat >/root/llama.json <<EOF
{"job": {"name": "llama-sft", "workers": 2, "gpus_per_worker": 8},
 "code": {"source": "shared_storage", "repo": {"url": "file://$S/repo.git"}},
 "data": [{"path": "/mnt/public/datasets/sft"}, {"path": "/infini-data/imagenet"}]}
EOF
"$JOBPREP" init --answers /root/llama.json >/root/llama.out 2>/root/llama.err
check "init on the built-in profile succeeds" [ $? -eq 0 ]
run=/mnt/public/outputs/llama-sft/run-001
check "the code is cloned onto /mnt/public/projects" [ -d /mnt/public/projects/llama-sft/.git ]
check "the manifest and env.sh are in the run directory" test -s $run/job.json -a -s $run/env.sh
check "the public data is recorded read-only" \
	grep -q '"kind":[[:space:]]*"public",' $run/job.json
"$JOBPREP" check $run/job.json >/root/check.out 2>&1
check "check passes the manifest" [ $? -eq 0 ]
check "two Workers and no barrier in the code: a hint" grep -q '"launch.sync"' $run/job.json
check "the platform's command sources env.sh, then runs preflight.sh" \
	grep -q "^  \\. '$run/env.sh' && sh '$run/preflight.sh' && cd \"\$PROJECT_DIR\" && bash scripts/train.sh\$" /root/llama.out
check "preflight.sh is in the run directory" test -s $run/preflight.sh

# outputs on the Worker's own disk are refused, by field, before anything is made
for bad in /workspace/out /tmp/out /root/out; do
	cat >/root/bad.json <<EOF
{"job": {"name": "bad-job"}, "code": {"source": "image", "image": "team/train:v1", "path": "/app"},
 "outputs": {"output_dir": "$bad"}}
EOF
	"$JOBPREP" init --answers /root/bad.json >/dev/null 2>/root/bad.err
	rc=$?
	root=${bad%/out}
	check "an output dir under $root is refused" [ $rc -eq 1 ]
	check "the message for $root names the field and says why" \
		grep -q "outputs.output_dir: $bad is under $root, which is wiped when the job ends: put it under /mnt/public/outputs/bad-job/run-001" /root/bad.err
	check "nothing made for $root" test ! -e "$bad" -a ! -e /mnt/public/outputs/bad-job
done

# multi-Worker paths in the launch command: a network mount is shared,
# the container's disk is not
if [ "$SSH" = yes ] && jp_sshfs_mount "$S/sshd" "$S/remote" /mnt/team-nfs; then
	sshfs_pid=$JP_SSHFS_PID
	cat >/root/paths.json <<EOF
{"job": {"name": "paths-job", "workers": 4,
         "launch_command": "python3 /mnt/public/projects/llama-sft/src/train.py --data /mnt/team-nfs/team-data --cache /srv/cache"},
 "code": {"source": "image", "image": "team/train:v1", "path": "/app"}}
EOF
	"$JOBPREP" init --answers /root/paths.json --json >/root/paths.out 2>/root/paths.err
	check "init with the lint's warnings still succeeds" [ $? -eq 0 ]
	check "a path on the container's disk is not shared by 4 Workers" \
		grep -q "'--cache /srv/cache': /srv/cache is not on shared storage" /root/paths.out
	check "a path on an sshfs mount is shared" jp_no_text "/mnt/team-nfs/team-data is not on shared" /root/paths.out
else
	jp_skip "sshfs part" "no sshd/sshfs here"
fi

[ $failures -eq 0 ] || cat /root/llama.err /root/check.out 2>/dev/null | head -40 | sed 's/^/# /'
jp_done
