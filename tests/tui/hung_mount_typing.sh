#!/bin/sh
# Typing a path on a hung network mount keeps the wizard live: the inline
# check runs off the UI thread, so the field says "checking..." while the
# storage does not answer, keys typed meanwhile show at once, and the
# verdict (the storage did not answer) arrives by itself; Tab completion
# there gives up in bounded time. The mount is
# sshfs over a loopback sshd, in a mount namespace of the test's own, hung
# by stopping its ssh client (SIGSTOP); it resumes before the wizard quits.
set -u

if [ "${1:-}" != inside ]; then
	. "$TOP_SRCDIR/tests/lib/ssh.sh"
	jp_ssh_available || jp_skip_all "needs root, unshare, sshd, ssh, sshfs and /dev/fuse"
	command -v tmux >/dev/null 2>&1 || jp_skip_all "tmux is not installed"
	exec unshare -m --propagation private sh "$0" inside
fi

. "$TOP_SRCDIR/tests/tui/lib.sh"
. "$TOP_SRCDIR/tests/lib/ssh.sh"
tui_init hung-typing
tui_on_exit 'jp_sshfs_close "$T/mnt"; jp_sshd_stop "$T/sshd"'
jp_sshd_start "$T/sshd" || exit 99
mkdir -p "$T/export/out"
jp_sshfs_mount "$T/sshd" "$T/export" "$T/mnt" || exit 99
[ -d "$T/mnt/out" ] || { echo "the sshfs mount shows nothing"; exit 99; }

tui_start 120 30 -- --demo
tui_walk_to 4

jp_sshfs_freeze "$T/sshd"

tui_keys C-u
tui_type "$T/mnt/out"
# The screen is drawn while the check waits on the mount (the old wizard
# sat in the check instead, and never showed this).
tui_must the_field_says_checking_while_the_mount_does_not_answer tui_wait "checking..."
tui_type "/run"
tui_must keys_typed_meanwhile_show tui_wait "$T/mnt/out/run"
tui_must the_verdict_arrives_by_itself tui_wait "did not answer"
# Tab completes by listing the hung directory: bounded, so Tab gives up and
# moves on, and what is typed next lands in the next field.
tui_keys Tab
tui_type ZQ
tui_must tab_on_the_hung_mount_gives_up_and_keys_stay_live tui_wait "ZQ"

jp_sshfs_thaw
tui_keys C-c
rc=$(tui_wait_exit)
jp_expect ctrl_c_quits_with_130 [ "$rc" = 130 ]
tui_finish
