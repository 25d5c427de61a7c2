#!/bin/sh
# A scan whose walk meets a folder that does not answer (issue 23: one
# boundary for everything that can hang): the mount answers the first look
# at the data set and its top folder, then holds the opening of one folder
# below it. `jobprep scan` ends by itself within its bound, says the path
# did not answer, exits 1, and no thread of jobprep is left in the mount's
# request: the walk ran in a helper process, which is what stays stuck
# (before, the walk's threads were jobprep's own, and one the kernel held
# in a FUSE request kept jobprep from ending). Then SIGTERM ends a scan
# waiting there at once, 143. The mount is sshfs over a loopback sshd,
# its sftp server behind a proxy that, while a flag file exists, holds
# every OPENDIR of a path ending in /deep. Needs root (sshfs in a mount
# namespace of the test's own) and python3.
set -u
. "$TOP_SRCDIR/tests/lib/ssh.sh" # and the reporters (jp_expect...), jp_poll
command -v python3 >/dev/null 2>&1 && [ -x /usr/lib/openssh/sftp-server ] ||
	jp_skip_all "needs python3 and /usr/lib/openssh/sftp-server"
jp_sshfs_test_open T scan-walk "${1:-}"

# --- inside a private mount namespace -------------------------------------------
. "$TOP_SRCDIR/tests/lib/proc.sh"
jp_hung_mount_env
J=$JOBPREP
trap '[ -z "${H:-}" ] || rm -f "$H/hold"; jp_nospace_path_remove "$T/hold dir"; jp_sshfs_close "$T/mnt"' EXIT

mkdir -p "$T/hold dir" "$T/export/data/a" "$T/export/data/deep/b" || exit 99
for i in 1 2 3 4 5 6 7 8; do echo "$i" >"$T/export/data/a/f$i"; echo "$i" >"$T/export/data/deep/b/g$i"; done
H=$(jp_nospace_path "$T/hold dir") || exit 99
cp "$TOP_SRCDIR/tests/lib/sftp_proxy.py" "$H/" || exit 99
cat >"$H/sftp-hold" <<'PY'
#!/usr/bin/python3
# sftp-server behind a proxy: while HOLD exists, each OPENDIR of a path
# ending in /deep is held back ("held" to LOG) and sent on once HOLD is gone.
import os, sys
here = os.path.dirname(os.path.abspath(sys.argv[0]))
sys.path.insert(0, here)
import sftp_proxy
sftp_proxy.run_holding(
    lambda body: body[0] == 11 and sftp_proxy.path_of(body).endswith("/deep"),
    os.path.join(here, "log"))
PY
chmod 755 "$H/sftp-hold"
jp_sshfs_mount "$T/sshd" "$T/export" "$T/mnt" -o sftp_server="$H/sftp-hold" || exit 99
[ -f "$T/mnt/data/a/f1" ] || { echo "the sshfs mount shows nothing"; exit 99; }

# files_counted FILE: the files a `scan --json` counted
files_counted() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["stats"]["files"])' "$1" 2>/dev/null
}

# --- the mount answers: the scan counts everything
"$J" scan --json "$T/mnt/data" >"$T/healthy.json" 2>"$T/healthy.err"
jp_expect answered_scan_exits_0 [ $? = 0 ]
jp_expect answered_scan_counts_every_file [ "$(files_counted "$T/healthy.json")" = 16 ]

# --- the opening of deep/ is held: the scan ends by itself (1 s a look;
# the guard, 60 s, only a hang reaches), while deep/ is still held
: >"$H/hold"
JOBPREP_PROBE_TIMEOUT_MS=1000 "$J" scan "$T/mnt/data" </dev/null >"$T/hung.out" 2>"$T/hung.err" &
pid=$!
jp_poll 600 jp_threads_gone $pid
jp_expect the_walk_was_held grep -q held "$H/log"
jp_expect hung_scan_ends_by_itself jp_main_gone $pid
jp_expect hung_scan_says_no_answer grep -q "$T/mnt/data: no answer within 1.0 s" "$T/hung.err"
jp_exits_while_hung hung_scan $pid 1

# --- SIGTERM while a scan waits there (a bound far above the test's
# patience, so only the signal can end it): at once, 143
: >"$H/log"
JOBPREP_PROBE_TIMEOUT_MS=120000 "$J" scan "$T/mnt/data" </dev/null >"$T/term.out" 2>"$T/term.err" &
pid=$!
held_now() { grep -q held "$H/log"; }
jp_poll 600 held_now
jp_expect the_second_walk_was_held held_now
kill -TERM $pid 2>/dev/null
jp_poll 300 jp_threads_gone $pid
jp_expect sigterm_ends_the_held_scan jp_main_gone $pid
jp_exits_while_hung sigterm_held_scan $pid 143

# --- the mount answers again: everything is reaped, the scan counts all
rm -f "$H/hold"
for p in $JP_HUNG_LATE; do wait "$p"; done
"$J" scan --json "$T/mnt/data" >"$T/again.json" 2>"$T/again.err"
jp_expect released_scan_exits_0 [ $? = 0 ]
jp_expect released_scan_counts_every_file [ "$(files_counted "$T/again.json")" = 16 ]
jp_sshfs_unmounts_cleanly "$T/mnt"
jp_show_if_failed "$T"/*.err "$H/log"
jp_done
