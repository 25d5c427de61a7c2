# tests/lib/tap-run.sh SHELL TEST: how `make check` runs a shell test
# (SH_LOG_COMPILER in tests/local.mk): TEST under SHELL, its standard output
# passed on to automake's tap-driver.sh as it comes.
#
# The tests speak TAP through tests/lib/report.sh and end with jp_done,
# which prints the plan. For a script that does not (yet): exit status 77
# with no case reported is a skip ("1..0 # SKIP" and the script's last line
# on stdout as the reason); one that reported cases but printed no plan gets
# a plan counted from its lines, with a note saying so. Its exit status is
# kept either way, so a script that fails still fails.
sh=$1
t=$2
out=$(mktemp "${TMPDIR:-/tmp}/jobprep-tap.XXXXXX") || exit 99
{
	"$sh" "$t"
	echo $? >"$out.rc"
} | tee "$out"
rc=$(cat "$out.rc" 2>/dev/null)
rc=${rc:-99}
if ! grep -q '^1\.\.[0-9]' "$out"; then
	n=$(grep -c '^\(not \)\{0,1\}ok\([^a-zA-Z0-9_]\|$\)' "$out")
	if [ "$rc" = 77 ] && [ "$n" = 0 ]; then
		why=$(grep -v '^[[:space:]]*$' "$out" | tail -n 1 | sed 's/^[Ss][Kk][Ii][Pp]:[[:space:]]*//')
		echo "1..0 # SKIP ${why:-exit status 77}"
		rc=0
	elif [ "$n" -gt 0 ]; then
		echo "# $t printed no plan (it should end with jp_done): $n cases counted"
		echo "1..$n"
	fi
fi
rm -f "$out" "$out.rc"
exit "$rc"
