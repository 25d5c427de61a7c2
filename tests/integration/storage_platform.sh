#!/bin/sh
# Storage intelligence on a real platform layout, in a private mount
# namespace (tests/lib/platform.sh): /mnt/public a bind mount, /infini-data
# read-only, /workspace a tmpfs, the root an overlay, another overlay, a full
# tiny tmpfs, a local disk, an sshfs mount of a loopback sshd
# (tests/lib/ssh.sh), mount points with a space and a newline, a symlink from
# shared storage into /tmp. Each path is classified (`jobprep scan --json`)
# and checked (`jobprep check --json`) as the job would meet it; scans count
# exactly on sshfs and see what an unprivileged user cannot read; a hung
# sshfs mount (its ssh client stopped) makes check fail in bounded time and
# lets an interrupted scan return.
set -u

if [ "${1:-}" != inside ]; then
	. "$TOP_SRCDIR/tests/lib/report.sh"
	. "$TOP_SRCDIR/tests/lib/ssh.sh"
	. "$TOP_SRCDIR/tests/lib/platform.sh"
	if ! jp_platform_available || ! jp_ssh_available; then
		jp_skip_all "needs root, unshare, overlayfs, chroot, sshd, ssh, sshfs and /dev/fuse"
	fi
	command -v jq >/dev/null 2>&1 || jp_skip_all "needs jq"
	S=$TOP_BUILDDIR/tests/integration/storage_platform.tmp
	rm -rf "$S"
	mkdir -p "$S/shared" "$S/public/models/llama" "$S/local" "$S/remote" || exit 1
	truncate -s 4096 "$S/public/models/llama/weights.safetensors"
	chmod 755 "$S" "$S/shared"
	trap 'jp_sshd_stop "$S/sshd"; rm -rf "$S"' EXIT
	jp_sshd_start "$S/sshd" || exit 1
	export S JP_SSHD_PORT
	JP_SELF=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
	jp_platform_run "$S" "$JP_SELF" inside
	exit $?
fi

# --- inside the namespace, chrooted into the platform's root -------------------
. "$TOP_SRCDIR/tests/lib/ssh.sh"
unset JOBPREP_PROFILE JOBPREP_PROBE_TIMEOUT_MS
. "$TOP_SRCDIR/tests/lib/report.sh"
failures=0
ok() { jp_pass "$1"; }
not_ok() {
	jp_fail "$1"
	failures=$((failures + 1))
}
# expect NAME ACTUAL WANTED
expect() {
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1: got '$2', expected '$3'"; fi
}
# expect_match NAME TEXT PATTERN (grep -E)
expect_match() {
	if printf '%s' "$2" | grep -Eq -- "$3"; then ok "$1"; else not_ok "$1: '$2' !~ /$3/"; fi
}

sshfs_pid=
cleanup_inside() {
	[ -n "${ssh_pid:-}" ] && kill -CONT "$ssh_pid" 2>/dev/null
	jp_sshfs_umount /mnt/sshfs
	[ -n "$sshfs_pid" ] && wait "$sshfs_pid" 2>/dev/null
}
trap cleanup_inside EXIT

# --- the layout -----------------------------------------------------------------
mkdir -p /mnt/ovl-parts /mnt/ovl
mount -t tmpfs jp-ovl-parts /mnt/ovl-parts
mkdir -p /mnt/ovl-parts/lower /mnt/ovl-parts/upper /mnt/ovl-parts/work
mount -t overlay jp-ovl -o lowerdir=/mnt/ovl-parts/lower,upperdir=/mnt/ovl-parts/upper,workdir=/mnt/ovl-parts/work /mnt/ovl
mkdir -p "/mnt/my data"
mount -t tmpfs jp-space "/mnt/my data"
nl_mount="/mnt/nl
mount"
mkdir -p "$nl_mount"
mount -t tmpfs jp-newline "$nl_mount"
mkdir -p /mnt/full
mount -t tmpfs -o size=1m jp-full /mnt/full
mkdir -p /mnt/full/out
dd if=/dev/zero of=/mnt/full/fill bs=64k 2>/dev/null
mkdir -p /mnt/fewinodes
mount -t tmpfs -o size=100g,nr_inodes=50 jp-fewinodes /mnt/fewinodes
mkdir -p /mnt/fewinodes/out
mkdir -p /srv/local
mount --bind "$S/local" /srv/local
mkdir -p /srv/local/logs

# Shared storage: a project, data sets (one with a space in its name, one
# with a newline), outputs, and a checkpoint folder that is a symlink to /tmp.
mkdir -p /mnt/public/projects/llama-sft/scripts "/mnt/public/data/my data set/part 1" \
	"/mnt/public/data/new
line" /mnt/public/outputs/llama-sft/run-001/checkpoints \
	/mnt/public/outputs/llama-sft/run-001/logs /mnt/public/outputs/llama-sft/run-002
# (something to read in each data set: an empty one fails since issue 31)
printf 'x\n' >"/mnt/public/data/new
line/part-0"
echo 'python train.py' >/mnt/public/projects/llama-sft/scripts/train.sh
# the file it runs: the launch lint reads the script and wants it in the code
echo 'import torch.distributed' >/mnt/public/projects/llama-sft/train.py
truncate -s 1000 "/mnt/public/data/my data set/part 1/a.bin"
truncate -s 2000 "/mnt/public/data/my data set/shards.tar.gz"
ln -s /mnt/public/projects "/mnt/public/data/my data set/code-link"
mkdir -p /mnt/public/data/cached /tmp/cache
ln -s /tmp/cache /mnt/public/data/cached/cache
mkdir -p /tmp/ckpt
ln -s /tmp/ckpt /mnt/public/outputs/llama-sft/run-002/checkpoints
mkdir -p /mnt/public/outputs/llama-sft/run-002/logs
if touch /infini-data/models/new 2>/dev/null; then not_ok "/infini-data is read-only"; fi
# (its files were made outside, before the bind went read-only)

# The remote side of sshfs: a data set with exact, known counts.
r="$S/remote/dataset"
mkdir -p "$r"
files=0 bytes=0
for d in 0 1 2 3 4; do
	mkdir -p "$r/d$d/sub"
	for f in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19; do
		size=$((d * 1000 + f * 37))
		truncate -s $size "$r/d$d/f$f.bin"
		files=$((files + 1)) bytes=$((bytes + size))
	done
	truncate -s 5 "$r/d$d/sub/x.tar.zst"
	files=$((files + 1)) bytes=$((bytes + 5))
done
# (Only a link without '/' in its target: some kernels' FUSE answer EPERM
# to readlink of the others on sshfs; the scan then counts them unreadable.)
ln -s missing "$r/broken"
dirs=11 # dataset, d0..d4, d0/sub..d4/sub

jp_sshfs_mount "$S/sshd" "$S/remote" /mnt/sshfs || { not_ok "sshfs mounts"; exit 1; }
sshfs_pid=$JP_SSHFS_PID

# --- classification, as `jobprep scan --json` reports it -----------------------
# class PATH -> "class fstype read_only mount_point"
class() {
	"$JOBPREP" scan --quick --json "$1" |
		jq -r '.[0].storage | "\(.class) \(.fstype) \(.read_only) \(.mount_point)"'
}
expect "/mnt/public is shared (a bind mount)" "$(class /mnt/public/projects)" \
	"shared ext4 false /mnt/public"
expect "/infini-data is public and read-only" "$(class /infini-data)" \
	"public ext4 true /infini-data"
expect "/workspace is ephemeral (tmpfs)" "$(class /workspace)" \
	"ephemeral tmpfs false /workspace"
expect "the container root is an ephemeral overlay" "$(class /opt)" \
	"ephemeral overlay false /"
expect "/root is ephemeral by the profile" "$(class /root)" "ephemeral overlay false /"
expect "an overlay mount is ephemeral" "$(class /mnt/ovl)" "ephemeral overlay false /mnt/ovl"
expect "a full tmpfs is ephemeral" "$(class /mnt/full)" "ephemeral tmpfs false /mnt/full"
expect "a local disk is local" "$(class /srv/local)" "local ext4 false /srv/local"
expect "sshfs is shared" "$(class /mnt/sshfs/dataset)" "shared fuse.sshfs false /mnt/sshfs"
expect "a mount point with a space" "$(class "/mnt/my data")" \
	"ephemeral tmpfs false /mnt/my data"
expect "a mount point with a newline" "$("$JOBPREP" scan --quick --json "$nl_mount" |
	jq -r '.[0].storage.mount_point == "/mnt/nl\nmount"')" "true"
expect "a symlink from shared storage into /tmp is ephemeral" \
	"$("$JOBPREP" scan --json /mnt/public/outputs/llama-sft/run-002/checkpoints |
		jq -r '.[0].storage | "\(.class) \(.resolved)"')" "ephemeral /tmp/ckpt"

# --- scans ------------------------------------------------------------------------
out=$("$JOBPREP" scan --json /mnt/sshfs/dataset)
expect "a full scan over sshfs counts exactly" \
	"$(printf '%s' "$out" | jq -r '.[0] | "\(.complete) \(.stats.files) \(.stats.bytes) \(.stats.archives) \(.dirs) \(.symlinks) \(.symlinks_outside) \(.symlinks_dangling)"')" \
	"true $files $bytes 5 $dirs 1 0 1"
expect "its JSON names the dangling link" \
	"$(printf '%s' "$out" | jq -r '.[0].examples.symlinks_dangling[0]')" "/mnt/sshfs/dataset/broken"
out=$("$JOBPREP" scan --json "/mnt/public/data/my data set")
expect "a link out of the data set is counted and named" \
	"$(printf '%s' "$out" | jq -r '.[0] | "\(.symlinks_outside) \(.examples.symlinks_outside[0])"')" \
	"1 /mnt/public/data/my data set/code-link"
out=$("$JOBPREP" scan "/mnt/public/data/my data set")
expect_match "text output counts a path with spaces" "$out" "2 files, 2.9 KiB \(3000 bytes\)"
expect_match "text output tells to unpack archives" "$out" "1 archive .* unpack it before submitting"

mkdir -p /mnt/public/data/perm/locked
touch /mnt/public/data/perm/locked/hidden.bin /mnt/public/data/perm/ok.bin
truncate -s 10 /mnt/public/data/perm/secret.bin
chmod 000 /mnt/public/data/perm/locked /mnt/public/data/perm/secret.bin
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$JOBPREP" scan --json /mnt/public/data/perm)
expect "an unprivileged scan counts what it cannot read" \
	"$(printf '%s' "$out" | jq -r '.[0] | "\(.unreadable) \(.stats.files) \(.dirs)"')" "2 2 2"
chmod 755 /mnt/public/data/perm/locked

# --- checks -------------------------------------------------------------------------
# status MANIFEST_JSON_OUTPUT ID
status() { printf '%s' "$1" | jq -r --arg id "$2" '.[] | select(.id == $id) | .status'; }
message() { printf '%s' "$1" | jq -r --arg id "$2" '.[] | select(.id == $id) | .message'; }

manifest() { # manifest FILE CODE DATA_JSON OUT CKPT LOG
	cat >"$1" <<EOF
{
  "schema_version": 1,
  "generator": {"name": "jobprep", "version": "0.1.0"},
  "created_at": "2024-05-01T12:00:00Z",
  "job": {"name": "llama-sft", "workers": 2, "gpus_per_worker": 8,
          "launch_command": "cd \"\$PROJECT_DIR\" && bash scripts/train.sh", "env": {}},
  "code": {"source": "shared_storage", "path": "$2"},
  "data": $3,
  "outputs": {"output_dir": "$4", "checkpoint_dir": "$5", "log_dir": "$6"},
  "checks": []
}
EOF
}

# A good layout: everything on shared or public storage.
manifest "$S/good.json" /mnt/public/projects/llama-sft '[
  {"name": "corpus", "path": "/mnt/public/data/my data set", "kind": "team", "read_only": false},
  {"name": "weights", "path": "/infini-data/models/llama", "kind": "public", "read_only": true},
  {"name": "remote", "path": "/mnt/sshfs/dataset", "kind": "team", "read_only": true},
  {"name": "odd", "path": "/mnt/public/data/new\nline", "kind": "team", "read_only": false}]' \
	/mnt/public/outputs/llama-sft/run-001 /mnt/public/outputs/llama-sft/run-001/checkpoints \
	/mnt/public/outputs/llama-sft/run-001/logs
out=$("$JOBPREP" check --json "$S/good.json")
rc=$?
for id in code.path.storage data[0].path.storage data[1].path.storage data[1].path.public \
	data[2].path.storage data[3].path.storage outputs.output_dir.storage \
	outputs.checkpoint_dir.storage outputs.log_dir.storage outputs.output_dir.space \
	data[3].path.contents; do
	expect "good layout: $id passes" "$(status "$out" "$id")" pass
done
expect "good layout: archives in data[0] are a warning" "$(status "$out" data[0].path.contents)" warn
expect_match "good layout: the warning says what to do" "$(message "$out" data[0].path.contents)" \
	"unpack them before submitting"
expect "good layout: data[2] (sshfs) warns of its archives and dangling link" \
	"$(status "$out" data[2].path.contents)" warn
expect "good layout: check passes (exit 0, warnings allowed)" "$rc" 0

# A bad layout: every way of losing the results or hiding the inputs.
manifest "$S/bad.json" /root/code '[
  {"name": "pub-as-team", "path": "/infini-data/models", "kind": "team", "read_only": true},
  {"name": "team-as-pub", "path": "/mnt/public/data/my data set", "kind": "public", "read_only": true},
  {"name": "local", "path": "/srv/local", "kind": "team", "read_only": true},
  {"name": "cached", "path": "/mnt/public/data/cached", "kind": "team", "read_only": true}]' \
	/workspace/out /mnt/public/outputs/llama-sft/run-002/checkpoints /srv/local/logs
out=$("$JOBPREP" check --json "$S/bad.json")
rc=$?
expect "bad layout: check fails (exit 1)" "$rc" 1
expect "bad layout: code under /root fails" "$(status "$out" code.path.storage)" fail
expect "bad layout: output under /workspace fails" "$(status "$out" outputs.output_dir.storage)" fail
expect "bad layout: it says where to put it" "$(message "$out" outputs.output_dir.storage)" \
	"outputs.output_dir (/workspace/out) is under /workspace, which is wiped when the job ends: put it under /mnt/public/outputs/llama-sft/run-NNN"
expect "bad layout: a checkpoint symlink into /tmp fails" \
	"$(status "$out" outputs.checkpoint_dir.storage)" fail
expect_match "bad layout: it names where the symlink goes" \
	"$(message "$out" outputs.checkpoint_dir.storage)" \
	"resolves to /tmp/ckpt\) is under /tmp, which is wiped when the job ends: put it under /mnt/public/outputs/llama-sft/run-NNN/checkpoints"
expect "bad layout: logs on a local disk fail" "$(status "$out" outputs.log_dir.storage)" fail
expect_match "bad layout: it says local disk" "$(message "$out" outputs.log_dir.storage)" \
	"local disk of this machine \(ext4 at /srv/local\)"
expect "bad layout: public data marked team warns" "$(status "$out" data[0].path.public)" warn
expect "bad layout: team data marked public fails" "$(status "$out" data[1].path.public)" fail
expect "bad layout: data on a local disk fails" "$(status "$out" data[2].path.storage)" fail
expect "bad layout: data linking into /tmp fails" "$(status "$out" data[3].path.contents)" fail
expect_match "bad layout: it names the link and the target" "$(message "$out" data[3].path.contents)" \
	"/mnt/public/data/cached/cache links to /tmp/cache, which is ephemeral storage"

# A full disk.
manifest "$S/full.json" /mnt/public/projects/llama-sft '[]' /mnt/full/out /mnt/full/out /mnt/full/out
out=$("$JOBPREP" check --json "$S/full.json")
expect "full disk: the space check fails" "$(status "$out" outputs.output_dir.space)" fail
expect_match "full disk: it says what is needed" "$(message "$out" outputs.output_dir.space)" \
	"has only .* free on its storage, and a job needs at least .* there"
expect "full disk: the write probe fails" "$(status "$out" outputs.output_dir.writable)" fail
expect "full disk: a tmpfs output fails as ephemeral" "$(status "$out" outputs.output_dir.storage)" fail

# Few inodes left: the space check warns, saying how many a job needs.
manifest "$S/inodes.json" /mnt/public/projects/llama-sft '[]' /mnt/fewinodes/out /mnt/fewinodes/out \
	/mnt/fewinodes/out
out=$("$JOBPREP" check --json "$S/inodes.json")
expect "few inodes: the space check warns" "$(status "$out" outputs.output_dir.space)" warn
expect_match "few inodes: it says what is needed" "$(message "$out" outputs.output_dir.space)" \
	"has only [0-9]+ free inodes on its storage, and a job needs at least [0-9]+ there"

# --- a hung network mount ------------------------------------------------------------
manifest "$S/hung.json" /mnt/public/projects/llama-sft '[]' /mnt/sshfs/out /mnt/sshfs/out/ckpt \
	/mnt/sshfs/out/logs
mkdir -p /mnt/sshfs/out/ckpt /mnt/sshfs/out/logs
ssh_pid=$(jp_sshfs_ssh_pid "$S/sshd")
if [ -z "$ssh_pid" ]; then
	not_ok "found sshfs's ssh client"
else
	kill -STOP "$ssh_pid"
	# jobprep answers in bounded time, but a process whose thread waits in
	# a FUSE request already sent cannot exit until the mount answers (the
	# kernel's rule): read the answer first, then resume ssh, then reap.
	JOBPREP_PROBE_TIMEOUT_MS=1500 "$JOBPREP" check --json "$S/hung.json" >"$S/hung.out" 2>&1 &
	check_pid=$!
	"$JOBPREP" scan /mnt/sshfs/dataset >"$S/scan.out" 2>&1 &
	scan_pid=$!
	sleep 1
	kill -INT "$scan_pid"
	waited=0
	until grep -q ']$' "$S/hung.out" && grep -q interrupted "$S/scan.out"; do
		[ $waited -ge 300 ] && break
		sleep 0.1
		waited=$((waited + 1))
	done
	kill -CONT "$ssh_pid"
	ssh_pid=
	wait "$check_pid"
	rc=$?
	wait "$scan_pid"
	scan_rc=$?
	out=$(cat "$S/hung.out")
	expect "hung mount: check answers in bounded time" "$([ $waited -lt 300 ] && echo yes)" yes
	expect "hung mount: check fails (exit 1)" "$rc" 1
	expect "hung mount: output_dir fails" "$(status "$out" outputs.output_dir.storage)" fail
	expect_match "hung mount: it says the storage seems hung" \
		"$(message "$out" outputs.output_dir.storage)" "did not answer in time"
	expect "hung mount: the stuck path is not probed again" \
		"$(status "$out" outputs.output_dir.exists)" ""
	expect "hung mount: the code on shared storage still passes" \
		"$(status "$out" code.path.storage)" pass
	expect "hung mount: an interrupted scan returns 130" "$scan_rc" 130
fi

jp_done
