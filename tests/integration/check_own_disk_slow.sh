#!/bin/sh
# A look that does not answer in time on this machine's own disk is a busy
# machine, not hung storage: `jobprep check` warns about that path ("check
# again") and does not fail the manifest for it, where it said the storage
# "seems hung (a network mount that lost its server?)" and failed, so the
# wizard's review refused to write on a loaded machine (a sanitizer build
# at a tenth of a CPU: code.path.storage failed on local /tmp). The slow
# disk is real: an ext4 image on a loop device whose file lies on an sshfs
# mount, which is then hung (its ssh client stopped), so the ext4's reads
# wait; a path on the sshfs mount itself still fails as hung storage.
# Needs root (sshfs and mount in a namespace of the test's own), losetup
# and mkfs.ext4 -d.
set -u
. "$TOP_SRCDIR/tests/lib/ssh.sh" # and the reporters (jp_expect...), jp_poll
command -v losetup >/dev/null 2>&1 && command -v mkfs.ext4 >/dev/null 2>&1 ||
	jp_skip_all "needs losetup and mkfs.ext4"
jp_sshfs_test_open T own-disk "${1:-}"

# --- inside a private mount namespace -------------------------------------------
jp_hung_mount_env
J=$JOBPREP
LOOP=
trap 'jp_sshfs_thaw; umount "$T/disk" 2>/dev/null; [ -z "$LOOP" ] || losetup -d "$LOOP"; jp_sshfs_close "$T/mnt"' EXIT

mkdir -p "$T/tree/proj/scripts" "$T/export/net/proj" "$T/disk" "$T/out/ckpt" "$T/out/logs" || exit 99
echo 'python train.py' >"$T/tree/proj/scripts/train.sh"
# the image is made on the server's side: nothing of it is in this side's caches
mkfs.ext4 -q -F -d "$T/tree" "$T/export/disk.img" 16M || exit 99
jp_sshfs_mount "$T/sshd" "$T/export" "$T/mnt" || exit 99
LOOP=$(losetup -f --show -r "$T/mnt/disk.img") || { LOOP=; jp_skip_all "no loop device here"; }
mount -t ext4 -o ro "$LOOP" "$T/disk" || jp_skip_all "cannot mount an ext4 loop device here"

# manifest FILE CODE_PATH
manifest() {
	cat >"$1" <<EOF
{
  "schema_version": 1,
  "generator": {"name": "jobprep", "version": "0.1.0"},
  "created_at": "2024-05-01T12:00:00Z",
  "job": {"name": "slow", "workers": 1, "gpus_per_worker": 1,
          "launch_command": "python train.py", "env": {}},
  "code": {"source": "shared_storage", "path": "$2"},
  "data": [],
  "outputs": {"output_dir": "$T/out", "checkpoint_dir": "$T/out/ckpt", "log_dir": "$T/out/logs"},
  "checks": []
}
EOF
}
manifest "$T/on-disk.json" "$T/disk/proj"
manifest "$T/on-net.json" "$T/mnt/net/proj"
printf '{"sandbox": true, "shared_roots": ["%s", "%s", "%s"]}\n' "$T/disk" "$T/mnt" "$T/out" >"$T/profile.json"

# status_of FILE ID: the status `check --json` gave the check ID
status_of() {
	python3 -c 'import json,sys
for c in json.load(open(sys.argv[1])):
    if c["id"] == sys.argv[2]: print(c["status"])' "$1" "$2" 2>/dev/null
}

# --- the disk's reads wait: each check ends by itself (1 s a look)
jp_sshfs_freeze "$T/sshd"
for where in disk net; do
	[ $where = disk ] && m=on-disk.json || m=on-net.json
	JOBPREP_PROBE_TIMEOUT_MS=1000 "$J" check --json --profile "$T/profile.json" "$T/$m" \
		>"$T/$where.out" 2>"$T/$where.err" &
	pid=$!
	jp_poll 600 jp_threads_gone $pid
	jp_expect "${where}_look_waited_on_the_storage" grep -q "did not answer" "$T/$where.out"
	jp_exits_while_hung "check_$where" $pid "$([ $where = disk ] && echo 0 || echo 1)"
done
jp_expect own_disk_path_is_a_warning [ "$(status_of "$T/disk.out" code.path.storage)" = warn ]
jp_expect own_disk_says_the_machine_may_be_busy \
	grep -q "on this machine's own storage: the machine may be too busy" "$T/disk.out"
jp_expect own_disk_is_not_called_hung jp_no_text "seems hung" "$T/disk.out"
jp_expect network_path_still_fails [ "$(status_of "$T/net.out" code.path.storage)" = fail ]
jp_expect network_path_seems_hung grep -q "seems hung" "$T/net.out"

# --- the mount answers: the disk's path is looked at and passes
jp_sshfs_thaw
jp_poll 300 sh -c 'for p in $1; do [ -e /proc/$p ] && exit 1; done; exit 0' sh "$JP_HUNG_LATE"
"$J" check --json --profile "$T/profile.json" "$T/on-disk.json" >"$T/again.out" 2>"$T/again.err"
jp_expect answered_disk_path_exists [ "$(status_of "$T/again.out" code.path.exists)" = pass ]
jp_show_if_failed "$T/disk.out" "$T/disk.err" "$T/net.out" "$T/again.out"
jp_done
