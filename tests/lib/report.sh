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
#                                 "1..0 # SKIP WHY" and exits 0
#   jp_done                       prints the plan (1..N) and exits 1 when a
#                                 case failed, else 0: every script ends so
#   jp_show_if_failed FILE...     when a case has failed, each FILE (that
#                                 exists) as TAP comments, for the log
#
# A script that stops before jp_done prints no plan, which the harness
# reports as an error: a test cannot pass by ending early.

if [ -z "${JP_REPORT_LOADED:-}" ]; then
	JP_REPORT_LOADED=1
	JP_T_N=0
	JP_T_FAILED=0
fi

# _jp_t_text TEXT: on one line (a line break would end the TAP line).
_jp_t_text() {
	printf '%s' "$1" | tr '\n\r' '  '
}

jp_pass() {
	JP_T_N=$((JP_T_N + 1))
	echo "ok $JP_T_N - $(_jp_t_text "$1")"
}

jp_fail() {
	JP_T_N=$((JP_T_N + 1))
	JP_T_FAILED=1
	echo "not ok $JP_T_N - $(_jp_t_text "$1${2:+: $2}")"
}

jp_skip() {
	JP_T_N=$((JP_T_N + 1))
	echo "ok $JP_T_N - $(_jp_t_text "$1") # SKIP $(_jp_t_text "$2")"
}

jp_expect() {
	_jp_name=$1
	shift
	if "$@"; then jp_pass "$_jp_name"; else jp_fail "$_jp_name"; fi
}

jp_skip_all() {
	echo "1..0 # SKIP $(_jp_t_text "$1")"
	exit 0
}

jp_done() {
	echo "1..$JP_T_N"
	exit $JP_T_FAILED
}

jp_show_if_failed() {
	[ "$JP_T_FAILED" != 0 ] || return 0
	for _jp_f in "$@"; do
		[ -e "$_jp_f" ] || continue
		echo "# --- $_jp_f"
		sed 's/^/# /' "$_jp_f"
	done
}
