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
# Checks that explain themselves (as git's test_path_is_file, test_cmp): a
# command whose status is the check, meant for `jp_expect NAME CHECK ARGS`;
# when it fails it says why on standard error, as "# " lines, for the log.
#   jp_path_is_file PATH          PATH is a regular file (after symlinks)
#   jp_path_is_dir PATH           PATH is a folder
#   jp_path_missing PATH          nothing at PATH, not even a dangling link
#   jp_cmp EXPECTED ACTUAL        the two files are the same bytes; on a
#                                 difference, the diff (expected, actual)
#   jp_line_count OP N FILE       FILE exists and its line count OP N holds
#                                 (OP: = -eq -ne -lt -le -gt -ge)
#   jp_no_text [OPT...] PATTERN FILE...
#                                 every FILE exists (with -r: a file or a
#                                 folder) and none holds PATTERN; OPT are
#                                 grep's -F -E -i -a -r -x -w. A bare
#                                 `! grep` passes when its file is missing:
#                                 tests/chainlint.py refuses it without
#                                 the proof on the same line
#
# Chaining a check after jp_expect (`jp_expect NAME [ .. ] && other`,
# `|| other`, `; other`) drops the second check's status: jp_expect always
# returns 0. Put the whole check inside it (sh -c '...' or a function);
# tests/chainlint.py (make analyse: chainlint) refuses the chained form.
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

# --- checks that explain themselves ---------------------------------------------

# _jp_say LINE...: why a check failed, as TAP comments on standard error
_jp_say() {
	for _jp_l in "$@"; do
		printf '# %s\n' "$_jp_l" >&2
	done
}

jp_path_is_file() {
	[ -f "$1" ] && return 0
	if [ -e "$1" ] || [ -L "$1" ]; then
		_jp_say "$1: not a regular file: $(ls -ld "$1" 2>&1)"
	else
		_jp_say "$1: no such file"
	fi
	return 1
}

jp_path_is_dir() {
	[ -d "$1" ] && return 0
	if [ -e "$1" ] || [ -L "$1" ]; then
		_jp_say "$1: not a folder: $(ls -ld "$1" 2>&1)"
	else
		_jp_say "$1: no such folder"
	fi
	return 1
}

jp_path_missing() {
	if [ -e "$1" ] || [ -L "$1" ]; then
		_jp_say "$1: should not exist, but: $(ls -ld "$1" 2>&1)"
		return 1
	fi
	return 0
}

jp_cmp() {
	jp_path_is_file "$1" || return 1
	jp_path_is_file "$2" || return 1
	cmp -s "$1" "$2" && return 0
	_jp_say "$1 (expected) and $2 (actual) differ:"
	diff -u "$1" "$2" 2>&1 | head -n 60 | sed 's/^/# /' >&2
	return 1
}

jp_line_count() {
	if [ $# -ne 3 ]; then
		_jp_say "jp_line_count OP N FILE: given $*"
		return 1
	fi
	jp_path_is_file "$3" || return 1
	_jp_n=$(wc -l <"$3")
	_jp_n=$((_jp_n + 0))
	case $1 in
	= | == | -eq) [ "$_jp_n" -eq "$2" ] ;;
	!= | -ne) [ "$_jp_n" -ne "$2" ] ;;
	'<' | -lt) [ "$_jp_n" -lt "$2" ] ;;
	'<=' | -le) [ "$_jp_n" -le "$2" ] ;;
	'>' | -gt) [ "$_jp_n" -gt "$2" ] ;;
	'>=' | -ge) [ "$_jp_n" -ge "$2" ] ;;
	*)
		_jp_say "jp_line_count: unknown comparison $1"
		return 1
		;;
	esac && return 0
	_jp_say "$3: $_jp_n line(s), expected $1 $2"
	return 1
}

jp_no_text() {
	_jp_opts= _jp_r=
	while [ $# -gt 0 ]; do
		case $1 in
		-r) _jp_r=1 _jp_opts="$_jp_opts r" ;;
		-[FEiaxw]) _jp_opts="$_jp_opts ${1#-}" ;;
		-[FEiaxwr]*)
			# combined letters (-rF): one at a time
			_jp_o=${1#-}
			while [ -n "$_jp_o" ]; do
				_jp_c=${_jp_o%"${_jp_o#?}"}
				_jp_o=${_jp_o#?}
				case $_jp_c in
				[FEiaxw]) _jp_opts="$_jp_opts $_jp_c" ;;
				r) _jp_r=1 _jp_opts="$_jp_opts r" ;;
				*)
					_jp_say "jp_no_text: unknown option -$_jp_c"
					return 1
					;;
				esac
			done
			;;
		--) shift && break ;;
		-*)
			_jp_say "jp_no_text: unknown option $1"
			return 1
			;;
		*) break ;;
		esac
		shift
	done
	if [ $# -lt 2 ]; then
		_jp_say "jp_no_text [OPT...] PATTERN FILE...: no file given"
		return 1
	fi
	_jp_pat=$1
	shift
	_jp_flags=-n
	for _jp_c in $_jp_opts; do _jp_flags="$_jp_flags -$_jp_c"; done
	_jp_bad=0
	for _jp_f in "$@"; do
		if [ -n "$_jp_r" ] && [ -d "$_jp_f" ]; then
			:
		elif ! jp_path_is_file "$_jp_f"; then
			_jp_bad=1
			continue
		fi
		# shellcheck disable=SC2086
		if _jp_hits=$(grep $_jp_flags -e "$_jp_pat" -- "$_jp_f" 2>&1); then
			_jp_say "$_jp_f holds \"$_jp_pat\":"
			printf '%s\n' "$_jp_hits" | head -n 10 | sed 's/^/#   /' >&2
			_jp_bad=1
		elif [ $? -ne 1 ]; then
			_jp_say "$_jp_f: grep failed: $_jp_hits"
			_jp_bad=1
		fi
	done
	return $_jp_bad
}
