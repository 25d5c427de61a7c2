#!/bin/sh
# launch.hub_download's look at the Python code is bounded: train.py is on
# this machine's disk, but the package it imports (models/, a symlink onto
# an sshfs mount in a mount namespace of the test's own) is on a mount that
# hangs (its ssh client stopped). Before the hang `jobprep check` finds the
# from_pretrained in models/net.py; while hung it ends by itself within its
# bound (twice the 1 s probe timeout), saying the Python code did not
# answer, and exits while the mount is still hung (the look runs in a child
# process, which the mount keeps).
set -u
. "$TOP_SRCDIR/tests/lib/ssh.sh"
jp_sshfs_test_open T lint-hub-hung "${1:-}"

# --- inside a private mount namespace -------------------------------------------
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
jp_hung_mount_env
J=$JOBPREP
trap 'jp_sshfs_close "$T/mnt"' EXIT

mkdir -p "$T/export/models" "$T/local/proj" "$T/out/ckpt" "$T/out/logs" "$T/mnt"
printf 'import models.net\n' >"$T/local/proj/train.py"
: >"$T/export/models/__init__.py"
printf 'from transformers import AutoModel\nm = AutoModel.from_pretrained("acme/tiny")\n' >"$T/export/models/net.py"
ln -s "$T/mnt/models" "$T/local/proj/models"
printf '{"sandbox": true, "shared_roots":["%s"]}\n' "$T/local" >"$T/profile.json"
cat >"$T/job.json" <<EOF
{
  "schema_version": 1,
  "generator": {"name": "jobprep", "version": "0.1.0"},
  "created_at": "2024-05-01T12:00:00Z",
  "job": {"name": "hung", "workers": 1, "gpus_per_worker": 1,
          "launch_command": "cd \\"\$PROJECT_DIR\\" && python train.py --out \\"\$OUTPUT_DIR\\"", "env": {}},
  "code": {"source": "shared_storage", "path": "$T/local/proj"},
  "data": [],
  "outputs": {"output_dir": "$T/out", "checkpoint_dir": "$T/out/ckpt", "log_dir": "$T/out/logs"},
  "checks": []
}
EOF
jp_sshfs_mount "$T/sshd" "$T/export" "$T/mnt" || exit 99
[ -f "$T/mnt/models/net.py" ] || { echo "the sshfs mount shows nothing"; exit 99; }

"$J" check --json --profile "$T/profile.json" "$T/job.json" >"$T/healthy.out" 2>&1
jp_expect healthy_mount_finds_the_call \
	grep -q 'models/net.py:2: from_pretrained(\\"acme/tiny\\")' "$T/healthy.out"

jp_sshfs_freeze "$T/sshd"
JOBPREP_PROBE_TIMEOUT_MS=1000 "$J" check --json --profile "$T/profile.json" "$T/job.json" \
	>"$T/hung.out" 2>"$T/hung.err" &
pid=$!
jp_poll 600 jp_threads_gone $pid
jp_expect check_ends_by_itself jp_main_gone $pid
jp_expect check_says_the_python_code_did_not_answer \
	grep -q "train.py: the Python code did not answer within 2 s" "$T/hung.out"
# exit 1: the scratch is under /tmp, so the output folders fail their checks
jp_exits_while_hung check_on_hung_import $pid 1

jp_sshfs_thaw
for p in $JP_HUNG_LATE; do wait "$p"; done
jp_sshfs_unmounts_cleanly "$T/mnt"
jp_show_if_failed "$T"/*.out "$T"/*.err
jp_done
