#!/bin/sh
# The harness (tests/lib/tap-run.sh under automake's tap-driver.sh, as
# `make check` runs every shell test) on tiny scripts of the test's own: a
# script that ends before jp_done fails whatever its exit status (exit 0
# half-way, exit 77, a "1..0 # SKIP" printed by hand, cases after a jp_done
# in a subshell); one that ends with jp_done passes, or fails with its
# failed case; jp_skip_all REASON is a skip with that reason, and a skip
# without a reason fails; jp_cases_in counts another process's cases, and
# fails when that one ends early.
set -u
: "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/report.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-harness.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT

# harness NAME BODY: NAME.sh (report.sh sourced, then BODY) run as make
# check runs it; its result (PASS, FAIL, SKIP, ERROR) in $T/NAME.result,
# its log in $T/NAME.log
harness() {
	{
		echo 'set -u'
		echo '. "$TOP_SRCDIR/tests/lib/report.sh"'
		printf '%s\n' "$2"
	} >"$T/$1.sh"
	(cd "$T" && env AM_TAP_AWK=awk sh "$TOP_SRCDIR/autotools/build-aux/tap-driver.sh" \
		--test-name "$1.sh" --log-file "$1.log" --trs-file "$1.trs" \
		--color-tests no --enable-hard-errors yes --expect-failure no -- \
		sh "$TOP_SRCDIR/tests/lib/tap-run.sh" sh "$1.sh" >"$1.out" 2>&1)
	sed -n 's/^:global-test-result: //p' "$T/$1.trs" >"$T/$1.result"
}

# is NAME RESULT: the script's result was RESULT (FAIL: FAIL or ERROR, an
# error being a failure the harness found, an exit status not 0 among them)
is() {
	case $2:$(cat "$T/$1.result") in
	FAIL:FAIL | FAIL:ERROR | PASS:PASS | SKIP:SKIP) return 0 ;;
	esac
	echo "# $1: $(cat "$T/$1.result"), not $2:"
	sed 's/^/#   /' "$T/$1.log"
	return 1
}

harness early_exit_0 'jp_pass first
exit 0
jp_pass second
jp_done'
jp_expect an_exit_0_half_way_fails is early_exit_0 FAIL
jp_expect it_says_it_ended_without_jp_done \
	grep -q '^not ok .*early_exit_0.sh ended without jp_done (exit 0)' "$T/early_exit_0.log"

harness nothing_at_all 'exit 0'
jp_expect a_script_that_says_nothing_fails is nothing_at_all FAIL

harness exit_77 'echo "SKIP: not here"
exit 77'
jp_expect exit_77_is_no_skip is exit_77 FAIL

harness plan_by_hand 'echo "1..0 # SKIP printed by hand"
exit 0'
jp_expect a_skip_plan_printed_by_hand_fails is plan_by_hand FAIL

harness done_in_a_subshell 'jp_pass first
(jp_done)
jp_pass after_the_end
exit 0'
jp_expect cases_after_a_jp_done_in_a_subshell_fail is done_in_a_subshell FAIL

harness exit_after_done 'jp_fail first
(jp_done)
exit 0'
jp_expect an_exit_status_other_than_jp_done_s_fails is exit_after_done FAIL

harness ends_with_done 'jp_pass first
jp_pass second
jp_done'
jp_expect ending_with_jp_done_passes is ends_with_done PASS
jp_expect it_counts_both_cases [ "$(grep -c '^PASS: ends_with_done.sh' "$T/ends_with_done.out")" = 2 ]

harness a_case_fails 'jp_pass first
jp_fail second "it broke"
jp_done'
jp_expect a_failed_case_fails is a_case_fails FAIL

harness skips 'jp_skip_all "no frobnicator here"
jp_pass never'
jp_expect jp_skip_all_is_a_skip is skips SKIP
jp_expect the_skip_gives_its_reason grep -qx 'SKIP: skips.sh - no frobnicator here' "$T/skips.out"

harness skips_without_reason 'jp_skip_all ""'
jp_expect a_skip_without_a_reason_fails is skips_without_reason FAIL

harness case_skips_without_reason 'jp_pass first
jp_skip second ""
jp_done'
jp_expect a_skipped_case_without_a_reason_fails is case_skips_without_reason FAIL

# the other process: NAME.sh.inner, beside NAME.sh
printf '%s\n' 'set -u' '. "$TOP_SRCDIR/tests/lib/report.sh"' 'jp_pass inner_one' \
	'jp_pass inner_two' 'jp_done' >"$T/cases_in.sh.inner"
harness cases_in 'jp_pass outer
jp_cases_in sh "$0.inner"
jp_pass outer_after
jp_done'
jp_expect jp_cases_in_counts_the_other_s_cases is cases_in PASS
jp_expect jp_cases_in_numbers_them_on \
	grep -q '^PASS: cases_in.sh 4 - outer_after' "$T/cases_in.out"

printf '%s\n' 'set -u' '. "$TOP_SRCDIR/tests/lib/report.sh"' 'jp_pass inner_one' \
	'exit 0' >"$T/cases_in_early.sh.inner"
harness cases_in_early 'jp_cases_in sh "$0.inner"
jp_done'
jp_expect jp_cases_in_fails_when_the_other_ends_early is cases_in_early FAIL
jp_expect it_says_which_ended_early \
	grep -q '^not ok .* ended without jp_done' "$T/cases_in_early.log"

printf '%s\n' 'set -u' '. "$TOP_SRCDIR/tests/lib/report.sh"' 'jp_skip_all "not in here"' \
	>"$T/cases_in_skip.sh.inner"
harness cases_in_skip 'jp_pass outer
jp_cases_in sh "$0.inner"
jp_done'
jp_expect jp_skip_all_inside_skips_the_rest is cases_in_skip PASS
jp_expect it_gives_the_reason grep -q '^SKIP: cases_in_skip.sh 2 .*# SKIP not in here' "$T/cases_in_skip.out"
jp_done
