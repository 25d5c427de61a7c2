#!/bin/sh
# A look that does not answer in time is no verdict: `init -o FILE` where
# FILE holds another run's manifest asks for --force, and must go on
# refusing when the look at FILE does not answer within its bound (a
# loaded machine, a network mount slow for a moment); taking the silence
# for "nothing there" replaced the other run's manifest without a word
# once the mount answered the write. The mount is sshfs over a loopback
# sshd, its sftp server behind a proxy that, while a flag file exists,
# holds every look at job.json (and lets the rest through), and logs each
# file opened. The flag goes when jobprep has ended or has opened a file
# beside job.json (its write began): either way the case is judged then.
# Needs root (sshfs in a mount namespace of the test's own) and python3.
set -u
. "$TOP_SRCDIR/tests/lib/ssh.sh" # and the reporters (jp_expect...), jp_poll
command -v python3 >/dev/null 2>&1 && [ -x /usr/lib/openssh/sftp-server ] ||
	jp_skip_all "needs python3 and /usr/lib/openssh/sftp-server"
jp_sshfs_test_open T copy-look "${1:-}"

# --- inside a private mount namespace -------------------------------------------
jp_hung_mount_env
J=$JOBPREP
trap '[ -z "${H:-}" ] || rm -f "$H/hold"; jp_nospace_path_remove "$T/hold dir"; jp_sshfs_close "$T/mnt"' EXIT

# the proxy, in a folder without spaces (sshfs runs it by its path)
mkdir -p "$T/hold dir" "$T/export" "$T/local/code" "$T/out" || exit 99
H=$(jp_nospace_path "$T/hold dir") || exit 99
cp "$TOP_SRCDIR/tests/lib/sftp_proxy.py" "$H/" || exit 99
cat >"$H/sftp-look" <<'PY'
#!/usr/bin/python3
# sftp-server behind a proxy: while HOLD exists, each LSTAT or STAT of a
# path ending in /job.json is held back ("held" to LOG) and sent on once
# HOLD is gone; every other request goes through; each OPEN's path is
# logged ("open PATH").
import os, sys, threading, time
here = os.path.dirname(os.path.abspath(sys.argv[0]))
sys.path.insert(0, here)
import sftp_proxy
HOLD, LOG = os.path.join(here, "hold"), os.path.join(here, "log")
lock = threading.Lock()
held = []
def log(line):
    with open(LOG, "a") as f:
        f.write(line + "\n")
def handle(packet, body, send):
    if body[0] == 3:
        log("open " + sftp_proxy.path_of(body))
    if body[0] in (7, 17) and sftp_proxy.path_of(body).endswith("/job.json"):
        with lock:
            if os.path.exists(HOLD):
                log("held")
                held.append(packet)
                return
    send(packet)
def release(send):
    while True:
        time.sleep(0.05)
        if not os.path.exists(HOLD):
            with lock:
                while held:
                    send(held.pop(0))
sftp_proxy.run(handle, on_start=lambda send: threading.Thread(
    target=release, args=(send,), daemon=True).start())
PY
chmod 755 "$H/sftp-look"

# another run's manifest, put there on the server's side (the mount has
# never looked at it: nothing of it is cached)
cat >"$T/export/job.json" <<EOF
{
  "schema_version": 1,
  "generator": {"name": "jobprep", "version": "0.1.0"},
  "created_at": "2024-05-01T12:00:00Z",
  "job": {"name": "other", "workers": 2, "gpus_per_worker": 1,
          "launch_command": "python train.py", "env": {}},
  "code": {"source": "shared_storage", "path": "$T/local/code"},
  "data": [],
  "outputs": {"output_dir": "$T/out", "checkpoint_dir": "$T/out", "log_dir": "$T/out"},
  "checks": []
}
EOF
cp "$T/export/job.json" "$T/other.json"
echo 'print(1)' >"$T/local/code/train.py"
printf '{"sandbox": true, "shared_roots": ["%s", "%s"]}\n' "$T/local" "$T/mnt" >"$T/profile.json"
# (cd first: run from the platform's own directory, a relative script is a
# failure since issue 31)
printf '{"job": {"name": "copy-look", "launch_command": "cd $PROJECT_DIR && python train.py"}, "code": {"source": "shared_storage", "path": "%s"}}\n' \
	"$T/local/code" >"$T/answers.json"
jp_sshfs_mount "$T/sshd" "$T/export" "$T/mnt" -o sftp_server="$H/sftp-look" || exit 99

# the write began: a file opened beside job.json on the mount
write_began() { grep -q "^open .*/\.job\.json" "$H/log" 2>/dev/null; }
ended_or_writing() { jp_main_gone "$1" || write_began; }

# --- the looks at job.json are held: init refuses, whatever the write
# would have done once the mount answered (1 s a look, a guard of 60 s)
: >"$H/hold"
JOBPREP_PROBE_TIMEOUT_MS=1000 "$J" init --answers "$T/answers.json" --profile "$T/profile.json" \
	-o "$T/mnt/job.json" </dev/null >"$T/init.out" 2>"$T/init.err" &
pid=$!
jp_poll 600 ended_or_writing $pid
jp_expect a_look_at_the_copy_was_held grep -q held "$H/log"
jp_expect init_did_not_write_there jp_no_text "^open " "$H/log"
rm -f "$H/hold"
jp_poll 300 jp_main_gone $pid
jp_expect init_ends jp_main_gone $pid
if jp_main_gone $pid; then
	wait $pid
	jp_expect init_exits_1 [ $? = 1 ]
fi
jp_expect init_says_the_copy_could_not_be_seen grep -q "job.json: no answer.*could not be seen" "$T/init.err"
jp_expect the_other_run_s_manifest_is_untouched cmp -s "$T/other.json" "$T/export/job.json"
jp_expect no_temporary_is_left_there sh -c '[ -d "$1" ] && ! ls -A "$1" | grep -q "\.tmp$"' sh "$T/export"
jp_show_if_failed "$T/init.err" "$H/log"

# --- the mount answers: the same init still refuses the other run's
# manifest (it holds one), and --force replaces it
JOBPREP_PROBE_TIMEOUT_MS=1000 "$J" init --answers "$T/answers.json" --profile "$T/profile.json" \
	-o "$T/mnt/job.json" </dev/null >"$T/again.out" 2>"$T/again.err"
jp_expect answered_init_exits_1 [ $? = 1 ]
jp_expect answered_init_names_the_other_run grep -q "holds the manifest of another run ($T/out)" "$T/again.err"
jp_expect answered_the_other_run_s_manifest_is_untouched cmp -s "$T/other.json" "$T/export/job.json"
"$J" init --answers "$T/answers.json" --profile "$T/profile.json" --force \
	-o "$T/mnt/job.json" </dev/null >"$T/force.out" 2>"$T/force.err"
jp_expect force_init_exits_0 [ $? = 0 ]
jp_expect force_replaces_it grep -q '"name":[[:space:]]*"copy-look"' "$T/export/job.json"
jp_show_if_failed "$T/again.err" "$T/force.err"
jp_done
