# Shell helpers for tests and benchmarks: a loopback sshd of the test's own,
# and sshfs mounts of it (a network filesystem: fuse.sshfs). Source it:
#
#   . "$TOP_SRCDIR/tests/lib/ssh.sh"
#   jp_sshd_start "$dir"          # sets JP_SSHD_PORT, JP_SSH_KEY, JP_SSH_OPTS
#   ssh $JP_SSH_OPTS root@127.0.0.1 true
#   jp_sshfs_mount "$dir" /remote/dir /mount/point   # sets JP_SSHFS_PID
#   jp_sshfs_umount /mount/point
#   jp_sshd_stop "$dir"
#
# A test whose mounts live in a namespace of its own opens with
# jp_sshfs_test_open (below); one that hangs its mount uses jp_sshfs_freeze
# and jp_sshfs_thaw, and judges what it ran there with jp_exits_while_hung
# and jp_sigterm_while_hung.
#
# Everything lives in $dir: host key, user key, authorized_keys, sshd_config,
# sshd.pid, sshd.log. sshd listens on 127.0.0.1 only, on a free port. It runs
# in a mount namespace of its own whose /run is a private tmpfs, because
# sshd insists on /run/sshd and a test must not create it on the machine.
# Needs root (unshare -m) and openssh-server, openssh-client, sshfs. It
# brings the reporter (tests/lib/report.sh) and tests/lib/proc.sh.

. "$TOP_SRCDIR/tests/lib/report.sh"
. "$TOP_SRCDIR/tests/lib/proc.sh"

# jp_ssh_available: 0 when everything needed is there.
jp_ssh_available() {
	[ "$(id -u)" = 0 ] || return 1
	for t in /usr/sbin/sshd ssh ssh-keygen sshfs unshare; do
		command -v "$t" >/dev/null 2>&1 || return 1
	done
	[ -e /dev/fuse ] || return 1
	return 0
}

# jp_sshd_start DIR: generate keys and config in DIR and start sshd.
jp_sshd_start() {
	_d=$1
	mkdir -p "$_d" || return 1
	_d=$(cd "$_d" && pwd) || return 1
	# sshd_config and JP_SSH_OPTS split at spaces: a path without any
	_real=$_d
	_d=$(jp_nospace_path "$_real") || return 1
	rm -f "$_d/host_key" "$_d/host_key.pub" "$_d/user_key" "$_d/user_key.pub"
	ssh-keygen -q -t ed25519 -N '' -C jobprep-test-host -f "$_d/host_key" || return 1
	ssh-keygen -q -t ed25519 -N '' -C jobprep-test-user -f "$_d/user_key" || return 1
	cp "$_d/user_key.pub" "$_d/authorized_keys" || return 1
	chmod 600 "$_d/authorized_keys" "$_d/host_key" "$_d/user_key"
	_try=0
	while [ $_try -lt 10 ]; do
		_try=$((_try + 1))
		_port=$(( 20000 + ($$ * 7 + _try * 7919 + $(date +%N | sed 's/^0*//;s/^$/0/')) % 40000 ))
		cat >"$_d/sshd_config" <<EOF
Port $_port
ListenAddress 127.0.0.1
HostKey $_d/host_key
PidFile $_d/sshd.pid
AuthorizedKeysFile $_d/authorized_keys
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PrintMotd no
UseDNS no
MaxStartups 100:30:200
MaxSessions 100
Subsystem sftp internal-sftp
EOF
		rm -f "$_d/sshd.pid"
		unshare -m --propagation private sh -c \
			'mount -t tmpfs -o size=1m,mode=755 jobprep-sshd-run /run &&
			 mkdir -p /run/sshd && exec /usr/sbin/sshd -f "$1" -E "$2"' \
			sh "$_d/sshd_config" "$_d/sshd.log" || continue
		# sshd writes its pid file once it listens.
		_w=0
		while [ ! -s "$_d/sshd.pid" ] && [ $_w -lt 50 ]; do
			sleep 0.1
			_w=$((_w + 1))
		done
		[ -s "$_d/sshd.pid" ] || continue
		JP_SSHD_PORT=$_port
		JP_SSH_KEY=$_d/user_key
		JP_SSH_OPTS="-F /dev/null -p $_port -i $_d/user_key -o IdentitiesOnly=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o BatchMode=yes"
		export JP_SSHD_PORT JP_SSH_KEY JP_SSH_OPTS
		# Wait until it answers.
		_w=0
		while [ $_w -lt 50 ]; do
			# shellcheck disable=SC2086
			ssh $JP_SSH_OPTS root@127.0.0.1 true 2>/dev/null && return 0
			sleep 0.1
			_w=$((_w + 1))
		done
		jp_sshd_stop "$_d"
		_d=$(jp_nospace_path "$_real") || return 1
	done
	echo "jp_sshd_start: could not start sshd (see $_d/sshd.log)" >&2
	return 1
}

# jp_sshd_stop DIR: stop the sshd started in DIR (and its sessions).
jp_sshd_stop() {
	_d=$1
	[ -s "$_d/sshd.pid" ] || { jp_nospace_path_remove "$_d"; return 0; }
	_pid=$(cat "$_d/sshd.pid")
	# Its session children first, by parent pid, then the listener.
	for _c in $(ps -o pid= --ppid "$_pid" 2>/dev/null); do
		kill "$_c" 2>/dev/null
	done
	kill "$_pid" 2>/dev/null
	jp_reap "$_pid" "$_d/sshd.pid"
	jp_nospace_path_remove "$_d"
}

# jp_sshfs_mount DIR REMOTE MOUNTPOINT [OPTION...]: mount REMOTE (a path on
# this machine, served by the sshd of DIR) on MOUNTPOINT with every cache
# off, so each metadata operation is a round trip, like uncached NFS.
# Extra arguments go to sshfs (DIR may have spaces: jp_nospace_path). Sets
# JP_SSHFS_PID (the sshfs process).
jp_sshfs_mount() {
	_d=$(jp_nospace_path "$1") || return 1
	_remote=$2
	_mnt=$3
	shift 3
	mkdir -p "$_mnt" || return 1
	# The ssh client through a wrapper that records its pid (sshfs
	# detaches it, so it is nobody's child).
	printf '#!/bin/sh\necho $$ >"%s/ssh-client.pid"\nexec ssh "$@"\n' "$_d" >"$_d/ssh-client"
	chmod 755 "$_d/ssh-client"
	rm -f "$_d/ssh-client.pid"
	sshfs -f -p "$JP_SSHD_PORT" -F /dev/null -o ssh_command="$_d/ssh-client" \
		-o IdentityFile="$_d/user_key" -o IdentitiesOnly=yes \
		-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR \
		-o dir_cache=no -o attr_timeout=0 -o entry_timeout=0 -o negative_timeout=0 \
		"$@" "root@127.0.0.1:$_remote" "$_mnt" 2>>"$_d/sshfs.log" &
	JP_SSHFS_PID=$!
	export JP_SSHFS_PID
	_w=0
	while [ $_w -lt 100 ]; do
		if grep -q " $(printf '%s' "$_mnt" | sed 's/ /\\\\040/g') .* - fuse.sshfs " /proc/self/mountinfo; then
			return 0
		fi
		kill -0 "$JP_SSHFS_PID" 2>/dev/null || break
		sleep 0.1
		_w=$((_w + 1))
	done
	echo "jp_sshfs_mount: $_remote did not mount on $_mnt (see $_d/sshfs.log)" >&2
	kill "$JP_SSHFS_PID" 2>/dev/null
	return 1
}

# jp_sshfs_ssh_pid DIR: the ssh client of the last sshfs mount made with the
# sshd of DIR (stop it with kill -STOP to make the mount hang; -CONT resumes).
jp_sshfs_ssh_pid() {
	cat "$1/ssh-client.pid" 2>/dev/null
}

# jp_sshfs_freeze DIR: hang the last sshfs mount made with the sshd of DIR:
# its ssh client is stopped (SIGSTOP), so sshfs holds every request it is
# sent and a process that touches the mount waits in the kernel. The
# client's pid goes in JP_SSHFS_FROZEN; exits 99 when it is not found.
# jp_sshfs_thaw: the client resumes (SIGCONT) and the mount answers again;
# nothing is done when no mount is frozen (an EXIT trap may call it).
jp_sshfs_freeze() {
	JP_SSHFS_FROZEN=$(jp_sshfs_ssh_pid "$1")
	[ -n "$JP_SSHFS_FROZEN" ] || { echo "sshfs's ssh client not found"; exit 99; }
	kill -STOP "$JP_SSHFS_FROZEN"
}

jp_sshfs_thaw() {
	[ -n "${JP_SSHFS_FROZEN:-}" ] && kill -CONT "$JP_SSHFS_FROZEN" 2>/dev/null
	JP_SSHFS_FROZEN=
	return 0
}

# jp_exits_while_hung NAME PID WANT: the case NAME_exits_WANT_while_the_mount_is_still_hung:
# PID, run in the background on a frozen mount (jp_sshfs_freeze), is
# gone, no thread of it left (jp_threads_gone), and its exit status is
# WANT. The status is read only then (`wait` would block else); a PID not
# gone fails the case and is added to JP_HUNG_LATE, the pids to wait for
# once the mount is thawed.
JP_HUNG_LATE=
jp_exits_while_hung() {
	if jp_threads_gone "$2"; then
		wait "$2"
		jp_expect "$1_exits_$3_while_the_mount_is_still_hung" [ $? = "$3" ]
	else
		jp_fail "$1_exits_$3_while_the_mount_is_still_hung" "a thread of it is still there"
		JP_HUNG_LATE="$JP_HUNG_LATE $2"
	fi
}

# jp_sigterm_while_hung WORD PID: SIGTERM ends jobprep WORD (PID, run in the
# background with a probe bound far above the test's patience) at once while
# it waits on a frozen mount. The cases: sigterm_lands_while_WORD_waits_in_the_mount
# (it, or a child of it, is seen in a FUSE request before the signal),
# sigterm_ends_WORD_on_hung_mount_at_once (its main thread is gone within
# 10 s of it) and sigterm_WORD_exits_143_while_the_mount_is_still_hung
# (jp_exits_while_hung).
jp_sigterm_while_hung() {
	jp_poll 300 jp_in_fuse_request "$2"
	jp_expect "sigterm_lands_while_$1_waits_in_the_mount" jp_in_fuse_request "$2"
	kill -TERM "$2"
	jp_poll 100 jp_threads_gone "$2"
	jp_expect "sigterm_ends_$1_on_hung_mount_at_once" jp_main_gone "$2"
	jp_exits_while_hung "sigterm_$1" "$2" 143
}

# jp_sshfs_umount MOUNTPOINT: unmount (lazily if it is busy or hung).
jp_sshfs_umount() {
	fusermount3 -u "$1" 2>/dev/null || fusermount -u "$1" 2>/dev/null ||
		umount -l "$1" 2>/dev/null
	return 0
}

# jp_sshfs_unmounts_cleanly MNT: the case mount_unmounts_cleanly: MNT, an
# sshfs mount that answers (thawed), unmounts (jp_sshfs_umount) and is no
# longer in this namespace's mount table.
jp_sshfs_unmounts_cleanly() {
	jp_sshfs_umount "$1"
	jp_expect mount_unmounts_cleanly sh -c '! grep -q " $1 " /proc/self/mountinfo' sh "$1"
}

# jp_sshfs_close MNT: the end of the sshfs mount on MNT, for a test's EXIT
# trap: it thaws the mount if it is frozen (jp_sshfs_thaw), unmounts it
# (jp_sshfs_umount) and ends and reaps its sshfs (JP_SSHFS_PID, set by
# jp_sshfs_mount in this shell). Any step with nothing to do is passed over.
jp_sshfs_close() {
	jp_sshfs_thaw
	jp_sshfs_umount "$1"
	[ -n "${JP_SSHFS_PID:-}" ] && kill "$JP_SSHFS_PID" 2>/dev/null && wait "$JP_SSHFS_PID" 2>/dev/null
	return 0
}

# jp_sshfs_test_open VAR NAME ARG [nosshd]: the opening of a test that mounts
# sshfs in a mount namespace of its own (unshare -m: its mounts go with it).
# The test sources this file and calls it first, with its own first
# argument as ARG; what follows the call runs inside the namespace:
#
#   . "$TOP_SRCDIR/tests/lib/ssh.sh"
#   jp_sshfs_test_open T hung "${1:-}"
#
# Run by `make check` (ARG is not "inside"), it skips the whole test
# (jp_skip_all) unless jp_ssh_available; makes the test's folder, a new
# ${TMPDIR:-/tmp}/jobprep-NAME.XXXXXX by its physical path, in VAR
# (exported); starts an sshd in VAR/sshd (jp_sshd_start, which exports
# JP_SSHD_PORT) unless nosshd is given (for a test whose sshd must see a
# mount made inside the namespace: it starts the sshd there); stops that
# sshd and removes VAR at exit; runs the test again, as `sh $0 inside`, in
# a private mount namespace, whose cases are this test's (jp_cases_in); and
# ends with jp_done. Run with ARG
# "inside", it returns at once. Needs JOBPREP and TOP_SRCDIR set; exits 99
# when the folder or the sshd cannot be made.
jp_sshfs_test_open() {
	[ "$3" = inside ] && return 0
	: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
	jp_ssh_available || jp_skip_all "needs root, unshare, sshd, ssh, sshfs and /dev/fuse"
	_open_dir=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-$2.XXXXXX") || exit 99
	_open_dir=$(cd -P "$_open_dir" && pwd) || exit 99
	eval "$1=\$_open_dir; export $1"
	trap 'jp_sshd_stop "$'"$1"'/sshd"; rm -rf "$'"$1"'"' EXIT
	if [ "${4:-}" != nosshd ]; then
		jp_sshd_start "$_open_dir/sshd" || exit 99
	fi
	jp_cases_in unshare -m --propagation private sh "$0" inside
	jp_done
}

# jp_hung_mount_env: the environment for running jobprep on a mount that
# will hang: no profile and no probe bound inherited (each case sets its
# own JOBPREP_PROBE_TIMEOUT_MS), and the sanitizers' leak check off. (Under
# --enable-sanitizers, LeakSanitizer stops every thread at exit, and cannot
# stop one the kernel holds in a FUSE request: the exit would wait for the
# mount. The leak check has nothing to say about a thread left behind.
# ASAN_OPTIONS too: CI sets detect_leaks=1 there, which LSAN_OPTIONS may not
# override.)
jp_hung_mount_env() {
	unset JOBPREP_PROFILE JOBPREP_PROBE_TIMEOUT_MS
	LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}detect_leaks=0"
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	export LSAN_OPTIONS ASAN_OPTIONS
}
