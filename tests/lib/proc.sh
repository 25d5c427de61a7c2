# Shell helpers for processes: the server libraries (tests/lib/gitserv.sh,
# tests/lib/ssh.sh) source it, and the tests that start jobprep in the
# background and signal it mid-work (signal_exit_codes.sh, fault_trials.sh):
#
#   jp_bg OUT ERR CMD...     CMD in the background; its pid in JP_PID
#   jp_is_jobprep PID        PID is the jobprep program, running
#   jp_poll TENTHS CMD...    CMD succeeds within TENTHS tenths of a second
#   jp_with_repeated N WORD CMD...   CMD with WORD appended N times
#   jp_main_gone PID         its main thread has exited
#   jp_threads_gone PID      and no thread of it is left
#   jp_in_fuse_request PID   it, or a child of it, waits in a FUSE request

# jp_mountns_unavailable: prints why this test cannot make a mount namespace
# of its own and mount in it (unshare -m needs root), and returns 0; returns
# 1 when it can.
jp_mountns_unavailable() {
	if [ "$(id -u)" != 0 ]; then
		echo "not root: cannot mount in a private namespace (unshare -m)"
	elif ! command -v unshare >/dev/null 2>&1; then
		echo "unshare (util-linux) is not installed"
	elif ! unshare -m --propagation private true 2>/dev/null; then
		echo "unshare -m is not permitted here"
	else
		return 1
	fi
	return 0
}

# jp_reap PID PIDFILE: wait up to 5 s for PID to end, then SIGKILL it and
# remove PIDFILE: how every jp_*_stop ends once it has signalled its server.
jp_reap() {
	_w=0
	while kill -0 "$1" 2>/dev/null && [ $_w -lt 50 ]; do
		sleep 0.1
		_w=$((_w + 1))
	done
	kill -9 "$1" 2>/dev/null
	rm -f "$2"
	return 0
}

# jp_nospace_path DIR: DIR itself, or, when it has white space in it (a
# $TMPDIR like "/tmp/my tests"), a symbolic link to it without any, made
# once in /tmp (or /var/tmp) and recorded in DIR: for the daemons whose
# configuration files split their values at spaces (sshd, sshfs's
# ssh_command, Slurm). jp_nospace_path_remove DIR removes the link.
jp_nospace_path() {
	case $1 in
	*[[:space:]]*) ;;
	*)
		printf '%s\n' "$1"
		return 0
		;;
	esac
	if [ -f "$1/.jp-nospace-link" ]; then
		_l=$(cat "$1/.jp-nospace-link")
		if [ -L "$_l" ]; then
			printf '%s\n' "$_l"
			return 0
		fi
	fi
	for _b in /tmp /var/tmp; do
		_l=$(mktemp -d "$_b/jobprep-link.XXXXXX" 2>/dev/null) || continue
		rmdir "$_l" && ln -s "$1" "$_l" || continue
		printf '%s\n' "$_l" >"$1/.jp-nospace-link"
		printf '%s\n' "$_l"
		return 0
	done
	echo "jp_nospace_path: no place for a link to $1 without a space" >&2
	return 1
}

jp_nospace_path_remove() {
	[ -f "$1/.jp-nospace-link" ] || return 0
	_l=$(cat "$1/.jp-nospace-link")
	[ -L "$_l" ] && rm -f "$_l"
	rm -f "$1/.jp-nospace-link"
	return 0
}

# jp_bg OUT ERR CMD...: CMD in the background, stdin from /dev/null, stdout
# into OUT and stderr into ERR; its pid in JP_PID. The subshell drops the
# EXIT trap before it becomes CMD (a bash subshell inherits the test's and
# would run it, removing the test's folder, if signalled before the exec).
jp_bg() {
	_bg_out=$1
	_bg_err=$2
	shift 2
	(
		trap - EXIT
		exec "$@" </dev/null >"$_bg_out" 2>"$_bg_err"
	) &
	JP_PID=$!
}

# jp_is_jobprep PID: PID is the jobprep program ($JOBPREP, or libtool's
# lt-jobprep), still running and not a zombie: not the shell's fork before
# its exec, nor a process that has already ended.
jp_is_jobprep() {
	{ [ "/proc/$1/exe" -ef "$JOBPREP" ] || [ "$(cat "/proc/$1/comm" 2>/dev/null)" = lt-jobprep ]; } &&
		kill -0 "$1" 2>/dev/null &&
		[ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)" != Z ]
}

# jp_catches PID SIGNUM: PID has a handler for SIGNUM (1-31) installed:
# jobprep has got to where it hears of that signal. (A background job of
# a non-interactive shell starts with SIGINT ignored: sent before then, it
# is lost, and proves nothing about jobprep.)
jp_catches() {
	_c_mask=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null | sed 's/.*\(........\)$/\1/')
	[ -n "$_c_mask" ] && [ $(((0x$_c_mask >> ($2 - 1)) & 1)) = 1 ]
}

# jp_heeds PID SIGNUM: PID (jobprep, jp_is_jobprep) no longer ignores
# SIGNUM (1-31): it catches it, or takes its default action (check, with
# nothing to clean up). Started as a background job, it began with SIGINT
# ignored.
jp_heeds() {
	jp_is_jobprep "$1" || return 1
	_h_mask=$(sed -n 's/^SigIgn:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null | sed 's/.*\(........\)$/\1/')
	[ -n "$_h_mask" ] && [ $(((0x$_h_mask >> ($2 - 1)) & 1)) = 0 ]
}

# jp_poll TENTHS CMD...: CMD succeeds within TENTHS tenths of a second
# (tried every tenth); 1 when it never did.
jp_poll() {
	_poll_n=$1
	shift
	_poll_i=0
	until "$@"; do
		[ $_poll_i -ge "$_poll_n" ] && return 1
		sleep 0.1
		_poll_i=$((_poll_i + 1))
	done
}

# jp_with_repeated N WORD CMD...: CMD with WORD appended N times, one
# argument each however many spaces WORD has (a $TMPDIR with one).
jp_with_repeated() {
	_rep_n=$1
	_rep_w=$2
	shift 2
	_rep_i=0
	while [ $_rep_i -lt "$_rep_n" ]; do
		set -- "$@" "$_rep_w"
		_rep_i=$((_rep_i + 1))
	done
	"$@"
}

# jp_traced ARG...: strace ARG..., with LeakSanitizer off for the traced
# program (it refuses to run under ptrace and fails the program: the
# sanitizer build of distcheck), the rest of ASAN_OPTIONS kept.
jp_traced() {
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace "$@"
}

# jp_main_gone PID: the main thread of PID has exited (a zombie, or reaped).
jp_main_gone() {
	[ ! -e "/proc/$1/stat" ] && return 0
	[ "$(sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f1)" = Z ]
}

# jp_threads_gone PID: no thread of PID is left either, so `wait` returns at
# once. (A thread the kernel holds in a request to a hung mount keeps its
# process: jobprep's looks that can run in a child process do, and the child
# is what stays stuck.)
jp_threads_gone() {
	jp_main_gone "$1" || return 1
	[ ! -d "/proc/$1/task" ] || [ "$(ls "/proc/$1/task" | wc -l)" -le 1 ]
}

# jp_in_fuse_request PID: PID, or a child of it, waits in a FUSE request (a
# thread's wchan says so): it is held by a FUSE mount, e.g. a hung sshfs.
jp_in_fuse_request() {
	for _p in "$1" $(ps -o pid= --ppid "$1" 2>/dev/null); do
		grep -qs 'fuse\|request_wait' /proc/"$_p"/task/*/wchan && return 0
	done
	return 1
}
