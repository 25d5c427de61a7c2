#!/bin/sh
# The rename of a bounded write hangs (issue 11): jobprep writes the files a
# person names (manifest, env.sh, exports) as a temporary beside the file,
# flushed, then renamed over it, in a child process watched with a
# deadline. Here the network mount answers everything but the rename: sshfs
# runs its sftp server through a proxy that, while a flag file exists,
# holds the first rename it sees (and everything after it). `jobprep export
# -o` onto an existing file there must then end by itself (exit 1) saying
# the new file was being put in place and that, once the mount answers, the
# file is the old one or the new one, whole; and so it is, with no
# temporary left, once the proxy lets the rename through. The case is
# judged only once the proxy has said it holds the rename. Needs root
# (sshfs in a mount namespace of the test's own) and python3.
set -u
. "$TOP_SRCDIR/tests/lib/ssh.sh" # and the reporters (jp_expect...), jp_poll
command -v python3 >/dev/null 2>&1 && [ -x /usr/lib/openssh/sftp-server ] ||
	jp_skip_all "needs python3 and /usr/lib/openssh/sftp-server"
jp_sshfs_test_open T rename-hung "${1:-}"

# --- inside a private mount namespace -------------------------------------------
jp_hung_mount_env
J=$JOBPREP
trap '[ -z "${H:-}" ] || rm -f "$H/hold"; jp_nospace_path_remove "$T/hold dir"; jp_sshfs_close "$T/mnt"' EXIT

# the proxy, in a folder without spaces (sshfs runs it by its path)
mkdir -p "$T/hold dir" "$T/export" "$T/local" && echo "print(1)" >"$T/local/train.py" || exit 99
H=$(jp_nospace_path "$T/hold dir") || exit 99
cp "$TOP_SRCDIR/tests/lib/sftp_proxy.py" "$H/" || exit 99
cat >"$H/sftp-hold" <<'PY'
#!/usr/bin/python3
# sftp-server behind a proxy: while HOLD exists, the first rename request
# (SSH_FXP_RENAME, or the extension posix-rename@openssh.com) is held, and
# everything after it, until HOLD is removed; "held" goes to LOG.
import os, sys, time
here = os.path.dirname(os.path.abspath(sys.argv[0]))
sys.path.insert(0, here)
import sftp_proxy
HOLD, LOG = os.path.join(here, "hold"), os.path.join(here, "log")
def handle(packet, body, send):
    rename = body[0] == 18 or (body[0] == 200 and b"posix-rename@openssh.com" in body[5:40])
    if rename and os.path.exists(HOLD):
        with open(LOG, "a") as f:
            f.write("held\n")
        while os.path.exists(HOLD):
            time.sleep(0.1)
        with open(LOG, "a") as f:
            f.write("released\n")
    send(packet)
sftp_proxy.run(handle)
PY
chmod 755 "$H/sftp-hold"
jp_sshfs_mount "$T/sshd" "$T/export" "$T/mnt" -o sftp_server="$H/sftp-hold" || exit 99

cat >"$T/local/job.json" <<EOF
{
  "schema_version": 1,
  "generator": {"name": "jobprep", "version": "0.1.0"},
  "created_at": "2024-05-01T12:00:00Z",
  "job": {"name": "hold", "workers": 2, "gpus_per_worker": 1,
          "launch_command": "python train.py", "env": {}},
  "code": {"source": "shared_storage", "path": "$T/local"},
  "data": [],
  "outputs": {"output_dir": "$T/local", "checkpoint_dir": "$T/local", "log_dir": "$T/local"},
  "checks": []
}
EOF
sed 's/"workers": 2/"workers": 4/' "$T/local/job.json" >"$T/local/job4.json"

# healthy: the export is written there (the rename goes through)
"$J" export --to slurm -o "$T/mnt/job.sbatch" "$T/local/job.json" >"$T/healthy.out" 2>&1
jp_expect healthy_export_written_there [ -s "$T/export/job.sbatch" ]
cp "$T/export/job.sbatch" "$T/old.sbatch"
"$J" export --to slurm "$T/local/job4.json" >"$T/new.sbatch" 2>/dev/null
jp_expect the_new_export_differs sh -c '! cmp -s "$1" "$2"' sh "$T/old.sbatch" "$T/new.sbatch"

held() { grep -q held "$H/log" 2>/dev/null; }

# --- the rename hangs: export ends by itself (1 s probe bound: 4 s a
# phase; the guard, 60 s, only a hang reaches), saying what became of it
: >"$H/hold"
JOBPREP_PROBE_TIMEOUT_MS=1000 "$J" export --to slurm -o "$T/mnt/job.sbatch" "$T/local/job4.json" \
	</dev/null >"$T/hung.out" 2>"$T/hung.err" &
pid=$!
jp_poll 300 held
jp_expect the_rename_is_held_by_the_mount held
jp_poll 600 jp_main_gone $pid
jp_expect export_with_hung_rename_ends_by_itself jp_main_gone $pid
if jp_main_gone $pid; then
	wait $pid
	jp_expect export_with_hung_rename_exits_1 [ $? = 1 ]
fi
jp_expect export_with_hung_rename_says_it_was_being_put_in_place \
	grep -qF "$T/mnt/job.sbatch: no answer within 4.0 s while putting the new file in place" "$T/hung.err"
jp_expect export_with_hung_rename_says_old_or_new_whole \
	grep -q "it holds the old file or the new one, whole" "$T/hung.err"

# --- the mount answers: the file is the old one or the new one, whole
rm -f "$H/hold"
jp_poll 100 grep -q released "$H/log"
jp_poll 50 sh -c '! ls -A "$1" | grep -q "^\.job\.sbatch\..*\.tmp$"' sh "$T/export"
jp_expect after_the_rename_the_file_is_old_or_new_whole \
	sh -c 'cmp -s "$1" "$3" || cmp -s "$2" "$3"' sh "$T/old.sbatch" "$T/new.sbatch" "$T/export/job.sbatch"
jp_expect after_the_rename_no_temporary_is_left \
	sh -c '[ -d "$1" ] && ! ls -A "$1" | grep -q "\.tmp$"' sh "$T/export"
"$J" export --to slurm -o "$T/mnt/job.sbatch" "$T/local/job4.json" >"$T/again.out" 2>&1
jp_expect the_next_export_succeeds cmp -s "$T/new.sbatch" "$T/export/job.sbatch"
jp_sshfs_unmounts_cleanly "$T/mnt"
jp_show_if_failed "$T"/*.out "$T"/*.err "$H/log"
jp_done
