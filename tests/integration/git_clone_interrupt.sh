#!/bin/sh
# Nothing half-made: a server killed mid-transfer, Ctrl-C (SIGINT) mid-fetch
# and mid-checkout, a stalled server, a full disk, and jobprep itself killed
# -9 each leave no target and, once the next run has cleaned up, no
# temporary. Servers are real git daemons on loopback whose packs trickle
# out (a pack-objects hook), so the test can act in the middle.
#
# Each case has a folder of its own ($T/CASE: its stderr, its target's
# parent). Before it signals anything, a case proves the signal will reach
# jobprep in the middle of its work: jobprep's own progress is in the case's
# stderr file (only jobprep writes there) and the pid is the jobprep program
# itself, not a shell forked to start it. An interrupted clone must say
# "canceled" (jobprep's own handling), not merely exit 130, which a default
# SIGINT death would give too.
set -u
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-git-int.XXXXXX") || exit 99
trap 'jp_gitd_stop "$T/slow"; jp_gitd_stop "$T/fast"; rm -rf "$T"' EXIT
jp_test_env "$T"
J=$JOBPREP

jp_git_big_repo "$T/srv/big.git" 4 || exit 99
jp_git_many_files "$T/srv/many.git" 30000 || exit 99
mkdir -p "$T/slow" "$T/fast"
start_slow() {
	jp_gitd_start "$T/slow" "$T/srv" slow || exit 99
	SLOW=git://127.0.0.1:$JP_GITD_PORT
}
start_slow
jp_gitd_start "$T/fast" "$T/srv" || exit 99
FAST=git://127.0.0.1:$JP_GITD_PORT

# clone_bg CASE ARG...: `jobprep clone --progress ARG...` in the background,
# its stderr in $T/CASE/err; sets C (the case's folder, with out/ made for
# the target) and PID. The subshell drops the EXIT trap before it becomes
# jobprep: a signal that found it still a shell would otherwise run the
# test's cleanup there.
clone_bg() {
	C=$T/$1
	shift
	mkdir "$C" "$C/out" || exit 99
	(
		trap - EXIT
		exec "$J" clone --progress "$@" 2>"$C/err"
	) &
	PID=$!
}

# at_work TEXT: jobprep (pid $PID) has printed TEXT as its progress and is
# still at work. Sets WHY when not. (Up to 2 minutes: a sanitizer build
# beside CI's other work took more than 30 s to receive many.git and start
# checking it out.)
at_work() {
	if ! jp_wait_text "$C/err" "$1" 120; then
		WHY="jobprep printed no '$1': $(tr '\r' '\n' <"$C/err" | tail -n 2 | tr '\n' ' ')"
		return 1
	fi
	if ! [ "/proc/$PID/exe" -ef "$J" ] && [ "$(cat "/proc/$PID/comm" 2>/dev/null)" != lt-jobprep ]; then
		WHY="process $PID is not jobprep, or has ended"
		return 1
	fi
	return 0
}

# give_up NAME: the case could not be set up (WHY): it fails, and its
# clone is stopped.
give_up() {
	jp_fail "$1" "$WHY"
	kill -9 "$PID" 2>/dev/null
	wait "$PID" 2>/dev/null
}

# nothing_left NAME TARGET: the target is absent and no temporary remains
# beside it (its parent folder must exist: a missing one proves nothing).
nothing_left() {
	jp_expect "$1_leaves_no_target" [ ! -e "$2" ]
	jp_expect "$1_leaves_no_temporary" jp_no_temporaries "$(dirname "$2")"
}

# canceled_by_jobprep NAME: jobprep handled the signal itself and said so.
canceled_by_jobprep() {
	jp_expect "$1_is_canceled_by_jobprep" grep -q 'canceled$' "$C/err"
}

# --- the server dies in the middle of the pack
clone_bg killed "$SLOW/big.git" "$T/killed/out/t"
if at_work "receiving objects"; then
	jp_gitd_stop "$T/slow"
	jp_wait_exit $PID; rc=$JP_RC
	jp_expect server_killed_mid_transfer_fails [ "$rc" = 1 ]
	nothing_left server_killed_mid_transfer "$C/out/t"
else
	give_up server_killed_mid_transfer
fi
start_slow

# --- Ctrl-C while receiving
clone_bg sigint-fetch "$SLOW/big.git" "$T/sigint-fetch/out/t"
if at_work "receiving objects"; then
	kill -INT $PID
	jp_wait_exit $PID; rc=$JP_RC
	jp_expect sigint_mid_fetch_exits_130 [ "$rc" = 130 ]
	canceled_by_jobprep sigint_mid_fetch
	nothing_left sigint_mid_fetch "$C/out/t"
else
	give_up sigint_mid_fetch
fi

# --- Ctrl-C while checking out 30000 files: it stops there, not at the end
clone_bg sigint-checkout "$FAST/many.git" "$T/sigint-checkout/out/t"
if at_work "checking out"; then
	kill -INT $PID
	jp_wait_exit $PID; rc=$JP_RC
	jp_expect sigint_mid_checkout_exits_130 [ "$rc" = 130 ]
	canceled_by_jobprep sigint_mid_checkout
	last=$(tr '\r' '\n' <"$C/err" | grep "checking out" | tail -n 1)
	done_n=$(printf '%s' "$last" | sed -n 's/.*: \([0-9]*\)\/\([0-9]*\).*/\1/p')
	total_n=$(printf '%s' "$last" | sed -n 's/.*: \([0-9]*\)\/\([0-9]*\).*/\2/p')
	jp_expect sigint_mid_checkout_stops_before_the_last_file \
		sh -c '[ -n "$1" ] && [ "$1" -lt "$2" ]' sh "$done_n" "$total_n"
	nothing_left sigint_mid_checkout "$C/out/t"
else
	give_up sigint_mid_checkout
fi

# --- the server stops answering (SIGSTOP): the stall timeout ends it
clone_bg stalled --timeout 2 "$SLOW/big.git" "$T/stalled/out/t"
if at_work "receiving objects"; then
	jp_kill_tree "$(cat "$T/slow/gitd.pid")" STOP
	jp_wait_exit $PID 60; rc=$JP_RC
	jp_kill_tree "$(cat "$T/slow/gitd.pid")" CONT
	jp_expect stalled_server_times_out [ "$rc" = 1 ]
	jp_expect stalled_server_message_says_so grep -q "sent nothing for 2 s" "$C/err"
	nothing_left stalled_server "$C/out/t"
else
	give_up stalled_server
fi
jp_gitd_stop "$T/slow"
start_slow

# --- Ctrl-C while the server is silent: cancel does not wait for data
clone_bg silent --timeout 300 "$SLOW/big.git" "$T/silent/out/t"
if at_work "receiving objects"; then
	jp_kill_tree "$(cat "$T/slow/gitd.pid")" STOP
	sleep 0.5
	kill -INT $PID
	jp_wait_exit $PID 60; rc=$JP_RC
	jp_kill_tree "$(cat "$T/slow/gitd.pid")" CONT
	jp_expect sigint_while_server_is_silent_exits_130 [ "$rc" = 130 ]
	canceled_by_jobprep sigint_while_server_is_silent
	nothing_left sigint_while_server_is_silent "$C/out/t"
else
	give_up sigint_while_server_is_silent
fi
jp_gitd_stop "$T/slow"
start_slow

# --- jobprep killed -9: its temporary stays; the next run removes it
clone_bg crashed "$SLOW/big.git" "$T/crashed/out/t"
if at_work "receiving objects"; then
	kill -9 $PID
	wait $PID 2>/dev/null
	jp_expect crash_leaves_no_target [ ! -e "$C/out/t" ]
	jp_expect crash_leaves_its_temporary_behind \
		sh -c 'ls -d "$1"/.t.jobprep-tmp-* >/dev/null 2>&1' sh "$C/out"
	"$J" clone "$FAST/big.git" "$C/out/t" >/dev/null 2>"$C/err2"
	jp_expect next_run_after_crash_succeeds [ -x "$C/out/t/scripts/train.sh" ]
	jp_expect next_run_removes_the_stale_temporary jp_no_temporaries "$C/out"
else
	give_up crash
fi

# --- a full disk: a 2 MiB tmpfs in a mount namespace of our own
if why=$(jp_mountns_unavailable); then
	jp_skip full_disk "$why"
else
	C=$T/full
	mkdir -p "$C/small"
	unshare -m --propagation private sh -c '
		mount -t tmpfs -o size=2m jobprep-full "$1" || exit 99
		"$2" clone "$3" "$1/target" >/dev/null 2>"$4"
		echo $? >"$5"
		ls -A "$1" >"$6"' sh "$C/small" "$J" "$FAST/big.git" "$C/err" "$C/rc" "$C/left"
	jp_expect full_disk_fails [ "$(cat "$C/rc" 2>/dev/null)" = 1 ]
	jp_expect full_disk_says_no_space grep -qi "no space" "$C/err"
	jp_expect full_disk_leaves_nothing sh -c '[ -f "$1" ] && [ ! -s "$1" ]' sh "$C/left"
fi

jp_done
