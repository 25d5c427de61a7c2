# tests/lib/tap-run.sh SHELL TEST: how `make check` runs a shell test
# (SH_LOG_COMPILER in tests/local.mk): TEST under SHELL, its standard output
# passed on to automake's tap-driver.sh as it comes, then judged.
#
# Every test ends with jp_done (or skips whole with jp_skip_all REASON),
# which prints the plan and then the end marker "# jp_done: exit S", as git's
# test-lib ends with test_done. A script whose output has no marker after its
# last case and its plan, or that exits with another status than its marker
# says (it went on after a jp_done in a subshell), ended early: that is a
# failed case "<TEST> ended without jp_done", whatever its exit status, and
# the test fails. There is one way to skip: `exit 77` and a "1..0 # SKIP"
# printed by hand are such early ends. A skip without a reason fails too.
sh=$1
t=$2
out=$(mktemp "${TMPDIR:-/tmp}/jobprep-tap.XXXXXX") || exit 99
t0=$(date +%s.%N)
# (no test reads a keyboard: a terminal at make's input is none of theirs)
{
	"$sh" "$t" </dev/null
	echo $? >"$out.rc"
} | tee "$out"
# JOBPREP_TEST_TIMES=FILE: each test's wall time appended there (CI prints
# the slowest: where the suite's time goes)
[ -z "${JOBPREP_TEST_TIMES:-}" ] ||
	awk -v a="$t0" -v b="$(date +%s.%N)" -v t="$t" 'BEGIN { printf "%.1f %s\n", b - a, t }' \
		>>"$JOBPREP_TEST_TIMES"
rc=$(cat "$out.rc" 2>/dev/null)
rc=${rc:-99}
# the end marker's line and status, the last line that is a case or a
# plan, the plan's line, the number of cases
said=$(awk '
	/^# jp_done: exit [0-9]+$/ { m = NR; s = $4 }
	/^(not )?ok([^A-Za-z0-9_]|$)/ { last = NR; n++ }
	/^1\.\.[0-9]/ { last = NR; plan = NR }
	END { printf "%d %d %d %d %s\n", m, last, plan, n, s }' "$out")
# shellcheck disable=SC2086
set -- $said
marker=$1 last=$2 plan=$3 cases=$4 status=${5:-}
why=
if [ "$marker" -eq 0 ]; then
	why="ended without jp_done (exit $rc)"
elif [ "$last" -gt "$marker" ] || [ "$plan" -eq 0 ]; then
	why="ended without jp_done (a case or a plan after its end marker, or no plan)"
elif [ "$status" != "$rc" ]; then
	why="ended without jp_done (exit $rc after its end marker said $status)"
elif bare=$(grep -m 1 -E '^(1\.\.0( # [Ss][Kk][Ii][Pp])?|(not )?ok([^A-Za-z0-9_].*)? # [Ss][Kk][Ii][Pp])[[:space:]]*$' "$out"); then
	why="skipped without a reason: $bare"
fi
rm -f "$out" "$out.rc"
if [ -n "$why" ]; then
	echo "not ok - ${t##*/} $why"
	# with no plan, one for its cases and this; after a plan the harness
	# reports this case as unplanned, an error as well
	[ "$plan" -ne 0 ] || echo "1..$((cases + 1))"
	[ "$rc" != 0 ] || rc=1
fi
exit "$rc"
