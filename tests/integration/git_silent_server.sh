#!/bin/sh
# A server that accepts and never speaks must not hold jobprep: over ssh
# (libssh2 does its own I/O) and git:// the stall timeout fails a clone and
# `repo --remote`, SIGTERM ends them (143) and nothing is left behind. And a
# clone with --no-progress still hears Ctrl-C: it cleans up its temporary.
# The silent server is a python3 listener on loopback that holds every
# connection open without a byte; the slow one a git daemon whose packs
# trickle out.
set -u
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
command -v python3 >/dev/null 2>&1 || jp_skip_all "python3 is needed for the silent server"
T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-silent.XXXXXX") || exit 99
silent_pid=
trap '[ -n "$silent_pid" ] && kill "$silent_pid" 2>/dev/null; jp_gitd_stop "$T/slow"; rm -rf "$T"' EXIT
jp_test_env "$T"
J=$JOBPREP

# The listener writes its port once it listens, and one line per connection.
python3 -c '
import os, socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(64)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(s.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
held = []
while True:
    c, _ = s.accept()
    held.append(c)
    with open(sys.argv[2], "a") as log:
        log.write("accepted\n")
' "$T/port" "$T/accepted" &
silent_pid=$!
w=0
while [ ! -s "$T/port" ] && [ $w -lt 100 ]; do sleep 0.1; w=$((w + 1)); done
[ -s "$T/port" ] || { echo "the silent server did not start"; exit 99; }
P=$(cat "$T/port")
mkdir -p "$T/stall-ssh" "$T/stall-git" "$T/term-ssh" "$T/term-git"

# connections NOW: how many the silent server has accepted so far.
connections() { if [ -f "$T/accepted" ]; then wc -l <"$T/accepted"; else echo 0; fi; }

# nothing_left NAME TARGET
nothing_left() {
	jp_expect "$1_leaves_no_target" [ ! -e "$2" ]
	jp_expect "$1_leaves_no_temporary" jp_no_temporaries "$(dirname "$2")"
}

# --- the stall timeout: ssh and git://, clone and repo --remote. Each must
# end by itself; jp_wait_exit's 60 s is only the guard against a hang.
for scheme in ssh git; do
	before=$(connections)
	"$J" clone --timeout 2 "$scheme://git@127.0.0.1:$P/x.git" "$T/stall-$scheme/x" \
		>"$T/out.txt" 2>"$T/err" &
	pid=$!
	jp_wait_exit $pid 60; rc=$JP_RC
	jp_expect "clone_${scheme}_silent_server_reached_it" [ "$(connections)" -gt "$before" ]
	jp_expect "clone_${scheme}_silent_server_fails_by_itself" [ "$rc" = 1 ]
	jp_expect "clone_${scheme}_silent_server_says_it_stalled" grep -q 'sent nothing for 2 s' "$T/err"
	nothing_left "clone_${scheme}_silent_server" "$T/stall-$scheme/x"

	before=$(connections)
	"$J" repo --remote "$scheme://git@127.0.0.1:$P/x.git" --timeout 2 >"$T/out.txt" 2>"$T/err" &
	pid=$!
	jp_wait_exit $pid 60; rc=$JP_RC
	jp_expect "repo_remote_${scheme}_silent_server_reached_it" [ "$(connections)" -gt "$before" ]
	jp_expect "repo_remote_${scheme}_silent_server_fails_by_itself" [ "$rc" = 1 ]
	jp_expect "repo_remote_${scheme}_silent_server_says_it_stalled" grep -q 'sent nothing for 2 s' "$T/err"
done
"$J" repo --remote "git://127.0.0.1:$P/x.git" --timeout 0 >/dev/null 2>"$T/err"
jp_expect repo_remote_timeout_zero_is_a_usage_error [ $? = 2 ]

# --- SIGTERM while waiting on the silent server (default timeout: 120 s).
# The signal is sent once the server holds the connection and the clone's
# temporary exists, so it lands mid-work.
for scheme in ssh git; do
	before=$(connections)
	"$J" clone "$scheme://git@127.0.0.1:$P/x.git" "$T/term-$scheme/x" 2>"$T/err" &
	pid=$!
	w=0
	until [ "$(connections)" -gt "$before" ] && ls -A "$T/term-$scheme" | grep -q 'jobprep-tmp-\|^jobprep-clone-'; do
		[ $w -ge 200 ] && break
		sleep 0.05
		w=$((w + 1))
	done
	jp_expect "clone_${scheme}_sigterm_lands_mid_wait" [ $w -lt 200 ]
	kill -TERM $pid
	jp_wait_exit $pid 30; rc=$JP_RC
	jp_expect "clone_${scheme}_sigterm_exits_143" [ "$rc" = 143 ]
	nothing_left "clone_${scheme}_sigterm" "$T/term-$scheme/x"

	before=$(connections)
	"$J" repo --remote "$scheme://git@127.0.0.1:$P/x.git" 2>"$T/err" &
	pid=$!
	w=0
	until [ "$(connections)" -gt "$before" ]; do
		[ $w -ge 200 ] && break
		sleep 0.05
		w=$((w + 1))
	done
	kill -TERM $pid
	jp_wait_exit $pid 30; rc=$JP_RC
	jp_expect "repo_remote_${scheme}_sigterm_exits_143" [ "$rc" = 143 ]
done

# --- clone --no-progress still cleans up on Ctrl-C: the interrupt is sent
# once the temporary exists and the slow server is sending its pack.
jp_git_big_repo "$T/srv/big.git" 4 || exit 99
mkdir -p "$T/slow" "$T/np"
jp_gitd_start "$T/slow" "$T/srv" slow || exit 99
# A background job of a script starts with SIGINT ignored; a person's
# Ctrl-C reaches a process whose SIGINT is at its default.
dflt=
env --default-signal=INT true 2>/dev/null && dflt="env --default-signal=INT"
$dflt "$J" clone --no-progress "git://127.0.0.1:$JP_GITD_PORT/big.git" "$T/np/x" 2>"$T/err" &
pid=$!
w=0
until ls -A "$T/np" | grep -q 'jobprep-tmp-\|^jobprep-clone-' && grep -q 'upload-pack' "$T/slow/gitd.log"; do
	[ $w -ge 400 ] && break
	sleep 0.05
	w=$((w + 1))
done
jp_expect no_progress_sigint_lands_mid_clone [ $w -lt 400 ]
sleep 0.3
jp_expect no_progress_clone_still_running_when_interrupted kill -0 $pid
kill -INT $pid
jp_wait_exit $pid 30; rc=$JP_RC
jp_expect no_progress_sigint_exits_130 [ "$rc" = 130 ]
nothing_left no_progress_sigint "$T/np/x"

jp_done
