#!/bin/sh
# Nothing half-made: a server killed mid-transfer, Ctrl-C (SIGINT) mid-fetch
# and mid-checkout, a stalled server, a full disk, and jobprep itself killed
# -9 each leave no target and, once the next run has cleaned up, no
# temporary. Servers are real git daemons on loopback whose packs trickle
# out (a pack-objects hook), so the test can act in the middle.
set -u
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-git-int.XXXXXX") || exit 99
trap 'jp_gitd_stop "$T/slow"; jp_gitd_stop "$T/fast"; rm -rf "$T"' EXIT
jp_test_env "$T"
J=$JOBPREP

jp_git_big_repo "$T/srv/big.git" 4 || exit 99
jp_git_many_files "$T/srv/many.git" 30000 || exit 99
mkdir -p "$T/slow" "$T/fast" "$T/out"
start_slow() {
	jp_gitd_start "$T/slow" "$T/srv" slow || exit 99
	SLOW=git://127.0.0.1:$JP_GITD_PORT
}
start_slow
jp_gitd_start "$T/fast" "$T/srv" || exit 99
FAST=git://127.0.0.1:$JP_GITD_PORT

# nothing_left NAME TARGET: the target is absent and no temporary remains.
nothing_left() {
	jp_expect "$1_leaves_no_target" [ ! -e "$2" ]
	jp_expect "$1_leaves_no_temporary" jp_no_temporaries "$(dirname "$2")"
}

# --- the server dies in the middle of the pack
: >"$T/err" # not the case before's progress: the job truncates it only once it runs
$J clone --progress "$SLOW/big.git" "$T/out/killed" 2>"$T/err" &
pid=$!
if jp_wait_text "$T/err" "receiving objects"; then
	jp_gitd_stop "$T/slow"
	jp_wait_exit $pid; rc=$JP_RC
	jp_expect server_killed_mid_transfer_fails [ "$rc" = 1 ]
	nothing_left server_killed_mid_transfer "$T/out/killed"
else
	jp_fail server_killed_mid_transfer "the transfer never started: $(tr '\r' '\n' <"$T/err" | tail -3)"
	kill $pid
fi
start_slow

# --- Ctrl-C while receiving
: >"$T/err" # not the case before's progress: the job truncates it only once it runs
$J clone --progress "$SLOW/big.git" "$T/out/sigint-fetch" 2>"$T/err" &
pid=$!
jp_wait_text "$T/err" "receiving objects" && kill -INT $pid
jp_wait_exit $pid; rc=$JP_RC
jp_expect sigint_mid_fetch_exits_130 [ "$rc" = 130 ]
nothing_left sigint_mid_fetch "$T/out/sigint-fetch"

# --- Ctrl-C while checking out 30000 files: it stops there, not at the end
: >"$T/err" # not the case before's progress: the job truncates it only once it runs
$J clone --progress "$FAST/many.git" "$T/out/sigint-checkout" 2>"$T/err" &
pid=$!
jp_wait_text "$T/err" "checking out" && kill -INT $pid
jp_wait_exit $pid; rc=$JP_RC
jp_expect sigint_mid_checkout_exits_130 [ "$rc" = 130 ]
last=$(tr '\r' '\n' <"$T/err" | grep "checking out" | tail -n 1)
done_n=$(printf '%s' "$last" | sed -n 's/.*: \([0-9]*\)\/\([0-9]*\).*/\1/p')
total_n=$(printf '%s' "$last" | sed -n 's/.*: \([0-9]*\)\/\([0-9]*\).*/\2/p')
jp_expect sigint_mid_checkout_stops_before_the_last_file \
	[ -n "$done_n" ] && [ "$done_n" -lt "$total_n" ]
nothing_left sigint_mid_checkout "$T/out/sigint-checkout"

# --- the server stops answering (SIGSTOP): the stall timeout ends it
: >"$T/err" # not the case before's progress: the job truncates it only once it runs
$J clone --progress --timeout 2 "$SLOW/big.git" "$T/out/stalled" 2>"$T/err" &
pid=$!
if jp_wait_text "$T/err" "receiving objects"; then
	jp_kill_tree "$(cat "$T/slow/gitd.pid")" STOP
	jp_wait_exit $pid 60; rc=$JP_RC
	jp_kill_tree "$(cat "$T/slow/gitd.pid")" CONT
	jp_expect stalled_server_times_out [ "$rc" = 1 ]
	jp_expect stalled_server_message_says_so grep -q "sent nothing for 2 s" "$T/err"
	nothing_left stalled_server "$T/out/stalled"
else
	jp_fail stalled_server "the transfer never started"
	kill $pid
fi
jp_gitd_stop "$T/slow"
start_slow

# --- Ctrl-C while the server is silent: cancel does not wait for data
: >"$T/err" # not the case before's progress: the job truncates it only once it runs
$J clone --progress --timeout 300 "$SLOW/big.git" "$T/out/silent" 2>"$T/err" &
pid=$!
if jp_wait_text "$T/err" "receiving objects"; then
	jp_kill_tree "$(cat "$T/slow/gitd.pid")" STOP
	sleep 0.5
	kill -INT $pid
	jp_wait_exit $pid 60; rc=$JP_RC
	jp_kill_tree "$(cat "$T/slow/gitd.pid")" CONT
	jp_expect sigint_while_server_is_silent_exits_130 [ "$rc" = 130 ]
	nothing_left sigint_while_server_is_silent "$T/out/silent"
else
	jp_fail sigint_while_server_is_silent "the transfer never started"
	kill $pid
fi
jp_gitd_stop "$T/slow"
start_slow

# --- jobprep killed -9: its temporary stays; the next run removes it
: >"$T/err" # not the case before's progress: the job truncates it only once it runs
$J clone --progress "$SLOW/big.git" "$T/out/crashed" 2>"$T/err" &
pid=$!
jp_wait_text "$T/err" "receiving objects" && kill -9 $pid
wait $pid 2>/dev/null
jp_expect crash_leaves_no_target [ ! -e "$T/out/crashed" ]
jp_expect crash_leaves_its_temporary_behind \
	sh -c 'ls -d "$1"/.crashed.jobprep-tmp-* >/dev/null 2>&1' sh "$T/out"
$J clone "$FAST/big.git" "$T/out/crashed" >/dev/null 2>"$T/err"
jp_expect next_run_after_crash_succeeds [ -x "$T/out/crashed/scripts/train.sh" ]
jp_expect next_run_removes_the_stale_temporary jp_no_temporaries "$T/out"

# --- a full disk: a 2 MiB tmpfs in a mount namespace of our own
mkdir -p "$T/small"
unshare -m --propagation private sh -c '
	mount -t tmpfs -o size=2m jobprep-full "$1" || exit 99
	"$2" clone "$3" "$1/target" >/dev/null 2>"$4"
	echo $? >"$5"
	ls -A "$1" >"$6"' sh "$T/small" "$J" "$FAST/big.git" "$T/err" "$T/rc" "$T/left"
jp_expect full_disk_fails [ "$(cat "$T/rc")" = 1 ]
jp_expect full_disk_says_no_space grep -qi "no space" "$T/err"
jp_expect full_disk_leaves_nothing [ ! -s "$T/left" ]

exit $JP_T_FAILED
