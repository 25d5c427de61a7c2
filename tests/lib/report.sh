# The shell tests' reporter. It speaks TAP (the Test Anything Protocol),
# which automake's tap-driver.sh reads, so `make check` counts assertions,
# not scripts: one line per case, then the plan. Source it (gitserv.sh and
# tests/tui/lib.sh do; sourcing it twice keeps the count):
#
#   . "$TOP_SRCDIR/tests/lib/report.sh"
#   jp_expect NAME COMMAND...     the case passes when COMMAND succeeds
#   jp_pass NAME                  ok N - NAME
#   jp_fail NAME [WHY]            not ok N - NAME: WHY   (the script fails)
#   jp_skip NAME WHY              ok N - NAME # SKIP WHY (cannot run here)
#   jp_skip_all WHY               the whole script cannot run here: prints
#                                 "1..0 # SKIP WHY", the end marker, and
#                                 exits 0. The one way to skip a script.
#   jp_done                       prints the plan (1..N) and the end marker,
#                                 and exits 1 when a case failed, else 0:
#                                 every script ends so
#   jp_cases_in COMMAND...        runs COMMAND, a script of cases of its own
#                                 (`unshare -m sh inner.sh`: another process
#                                 that sources report.sh and ends with
#                                 jp_done), as part of this one: its cases
#                                 continue this count, its jp_done prints no
#                                 plan but hands the count back; when it
#                                 ends without jp_done, that is a failed case
#   jp_show_if_failed FILE...     when a case has failed, each FILE (that
#                                 exists) as TAP comments, for the log
#
# The end marker is the line "# jp_done: exit S" (S the status the script
# exits with). The harness (tests/lib/tap-run.sh) fails a script whose
# output has no marker after its last case or whose exit status is not S:
# a test cannot pass by ending early, and `exit 77` or a hand-written
# "1..0 # SKIP" is no skip. A skip without a reason fails too.

if [ -z "${JP_REPORT_LOADED:-}" ]; then
	JP_REPORT_LOADED=1
	JP_T_N=0
	JP_T_FAILED=0
	# run by jp_cases_in: continue its count, hand the count back
	JP_T_HANDBACK=${JP_T_HANDBACK_TO:-}
	[ -z "$JP_T_HANDBACK" ] || JP_T_N=${JP_T_HANDBACK_FROM:-0}
	unset JP_T_HANDBACK_TO JP_T_HANDBACK_FROM
fi

# _jp_t_text TEXT: on one line (a line break would end the TAP line).
_jp_t_text() {
	printf '%s' "$1" | tr '\n\r' '  '
}

# _jp_t_handback [done]: under jp_cases_in, the count so far for it to
# read, also when this process ends early; "done" once it ends with jp_done.
_jp_t_handback() {
	[ -z "$JP_T_HANDBACK" ] || echo "$JP_T_N $JP_T_FAILED ${1:-}" >"$JP_T_HANDBACK"
}

jp_pass() {
	JP_T_N=$((JP_T_N + 1))
	echo "ok $JP_T_N - $(_jp_t_text "$1")"
	_jp_t_handback
}

jp_fail() {
	JP_T_N=$((JP_T_N + 1))
	JP_T_FAILED=1
	echo "not ok $JP_T_N - $(_jp_t_text "$1${2:+: $2}")"
	_jp_t_handback
}

jp_skip() {
	JP_T_N=$((JP_T_N + 1))
	echo "ok $JP_T_N - $(_jp_t_text "$1") # SKIP $(_jp_t_text "$2")"
	_jp_t_handback
}

jp_expect() {
	_jp_name=$1
	shift
	if "$@"; then jp_pass "$_jp_name"; else jp_fail "$_jp_name"; fi
}

jp_skip_all() {
	if [ -n "$JP_T_HANDBACK" ]; then
		# a part of a script (jp_cases_in): the rest of it is skipped
		jp_skip "${0##*/}: the rest" "$1"
		jp_done
	fi
	echo "1..0 # SKIP $(_jp_t_text "$1")"
	echo "# jp_done: exit 0"
	exit 0
}

jp_done() {
	if [ -n "$JP_T_HANDBACK" ]; then
		_jp_t_handback done
		exit $JP_T_FAILED
	fi
	echo "1..$JP_T_N"
	echo "# jp_done: exit $JP_T_FAILED"
	exit $JP_T_FAILED
}

jp_cases_in() {
	_jp_back=$(mktemp "${TMPDIR:-/tmp}/jobprep-cases.XXXXXX") || {
		jp_fail "$*" "cannot make a file for its count"
		return 0
	}
	JP_T_HANDBACK_TO=$_jp_back JP_T_HANDBACK_FROM=$JP_T_N "$@"
	_jp_rc=$?
	_jp_n= _jp_f= _jp_end=
	read -r _jp_n _jp_f _jp_end <"$_jp_back"
	rm -f "$_jp_back"
	# its count, as far as it got
	if [ -n "$_jp_n" ] && [ "$_jp_n" -ge "$JP_T_N" ] 2>/dev/null; then
		JP_T_N=$_jp_n
		[ "$_jp_f" = 0 ] || JP_T_FAILED=1
	fi
	if [ "$_jp_end" != done ]; then
		jp_fail "$* ended without jp_done" "exit $_jp_rc"
	elif [ "$_jp_rc" != 0 ]; then
		jp_fail "$* exited $_jp_rc after its jp_done"
	fi
}

jp_show_if_failed() {
	[ "$JP_T_FAILED" != 0 ] || return 0
	for _jp_f in "$@"; do
		[ -e "$_jp_f" ] || continue
		echo "# --- $_jp_f"
		sed 's/^/# /' "$_jp_f"
	done
}
