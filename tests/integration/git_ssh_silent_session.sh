#!/bin/sh
# An ssh server that lets jobprep in and then says nothing: the host key is
# checked, the key accepted, and the session runs a command that never
# answers git's request (an authorized_keys command= that sleeps). libssh2
# then waits in its own read; the stall timeout and SIGTERM must still end
# the clone and `repo --remote`, and nothing is left behind. The server is an
# sshd of the test's own on loopback (tests/lib/ssh.sh).
set -u
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/ssh.sh"
jp_ssh_available || jp_skip_all "needs root, openssh-server, ssh and ssh-keygen"
T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-ssh-silent.XXXXXX") || exit 99
cleanup() {
	# The sleeping session commands, by the pids they wrote.
	[ -f "$T/sleepers" ] && for p in $(cat "$T/sleepers"); do kill "$p" 2>/dev/null; done
	jp_sshd_stop "$T/sshd"
	rm -rf "$T"
}
trap cleanup EXIT
jp_test_env "$T"
J=$JOBPREP

jp_sshd_start "$T/sshd" || exit 99
P=$JP_SSHD_PORT
# The only key sshd accepts runs a command that never speaks.
# (the path quoted inside the option, for a $TMPDIR with a space in it)
printf 'command="echo $$ >>\\"%s/sleepers\\"; exec sleep 120" %s\n' "$T" "$(cat "$T/sshd/user_key.pub")" \
	>"$T/sshd/authorized_keys"
mkdir -p "$HOME/.ssh"
chmod 700 "$HOME/.ssh"
cp "$T/sshd/user_key" "$HOME/.ssh/id_ed25519"
printf '[127.0.0.1]:%s %s\n' "$P" "$(cut -d' ' -f1,2 "$T/sshd/host_key.pub")" >"$HOME/.ssh/known_hosts"
U="ssh://root@127.0.0.1:$P/srv/x.git"
sleepers() { if [ -f "$T/sleepers" ]; then wc -l <"$T/sleepers"; else echo 0; fi; }

# nothing_left NAME DIR
nothing_left() {
	jp_expect "$1_leaves_no_target" [ ! -e "$2/x" ]
	jp_expect "$1_leaves_no_temporary" jp_no_temporaries "$2"
}

# --- the stall timeout, once the session is open (the guard of 60 s is only
# there against a hang).
mkdir -p "$T/stall" "$T/term"
before=$(sleepers)
"$J" clone --timeout 2 "$U" "$T/stall/x" </dev/null >/dev/null 2>"$T/err" &
pid=$!
jp_wait_exit $pid 60; rc=$JP_RC
jp_expect clone_got_a_session [ "$(sleepers)" -gt "$before" ]
jp_expect clone_silent_session_fails_by_itself [ "$rc" = 1 ]
jp_expect clone_silent_session_says_it_stalled grep -q 'sent nothing for 2 s' "$T/err"
nothing_left clone_silent_session "$T/stall"

before=$(sleepers)
"$J" repo --remote "$U" --timeout 2 </dev/null >/dev/null 2>"$T/err" &
pid=$!
jp_wait_exit $pid 60; rc=$JP_RC
jp_expect repo_remote_got_a_session [ "$(sleepers)" -gt "$before" ]
jp_expect repo_remote_silent_session_fails_by_itself [ "$rc" = 1 ]
jp_expect repo_remote_silent_session_says_it_stalled grep -q 'sent nothing for 2 s' "$T/err"

# --- SIGTERM once the session is open and the temporary exists.
before=$(sleepers)
"$J" clone "$U" "$T/term/x" </dev/null >/dev/null 2>"$T/err" &
pid=$!
w=0
until [ "$(sleepers)" -gt "$before" ] && ls -A "$T/term" | grep -q 'jobprep-tmp-'; do
	[ $w -ge 200 ] && break
	sleep 0.05
	w=$((w + 1))
done
jp_expect sigterm_lands_in_the_silent_session [ $w -lt 200 ]
kill -TERM $pid
jp_wait_exit $pid 30; rc=$JP_RC
jp_expect sigterm_in_silent_session_exits_143 [ "$rc" = 143 ]
nothing_left sigterm_in_silent_session "$T/term"

jp_done
