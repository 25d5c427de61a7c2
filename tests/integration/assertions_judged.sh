#!/bin/sh
# A suite that cannot pass having tested nothing (issue 32): the checks that
# explain themselves in tests/lib/report.sh (jp_path_is_file, jp_path_is_dir,
# jp_path_missing, jp_cmp, jp_line_count, jp_no_text) fail on the fault and
# pass on its healthy twin, and the lint (tests/chainlint.py, the analyser
# "chainlint" of tests/analyse.sh) refuses a check chained after jp_expect
# and a negative grep of a file not proven to exist, and lets their fixed
# forms pass. (That the suite itself is clean is the analyser's to say, in
# CI: JP_ANALYSE_ONLY=chainlint tests/analyse.sh.)
set -u
: "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/report.sh"
command -v python3 >/dev/null 2>&1 || jp_skip_all "python3 is not installed"
T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-judged.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT

# --- the issue's proof: a chained check is not judged ----------------------
# (a little script of its own; a here-document whose delimiter starts with
# BAD is wrong on purpose: the lint does not read it)
cat >"$T/chained-run.sh" <<'BAD'
. "$TOP_SRCDIR/tests/lib/report.sh"
jp_expect x [ 0 = 0 ] && [ -f /nonexistent ]
jp_done
BAD
sh "$T/chained-run.sh" >"$T/chained.out" 2>&1
jp_expect a_chained_check_is_dropped_by_the_shell sh -c '[ $1 = 0 ] && grep -qx "ok 1 - x" "$2"' sh $? "$T/chained.out"

# --- the checks that explain themselves: each fault, then its twin ---------
printf 'a\nb\n' >"$T/ab"
printf 'a\nc\n' >"$T/ac"
mkdir "$T/dir"
ln -s "$T/nowhere" "$T/dangling"
not() { ! "$@" 2>>"$T/said"; }
jp_expect path_is_file_fails_on_a_missing_file not jp_path_is_file "$T/nothing"
jp_expect path_is_file_fails_on_a_folder not jp_path_is_file "$T/dir"
jp_expect path_is_file_passes_on_a_file jp_path_is_file "$T/ab"
jp_expect path_is_dir_fails_on_a_file not jp_path_is_dir "$T/ab"
jp_expect path_is_dir_passes_on_a_folder jp_path_is_dir "$T/dir"
jp_expect path_missing_fails_on_a_dangling_link not jp_path_missing "$T/dangling"
jp_expect path_missing_passes_on_nothing jp_path_missing "$T/nothing"
jp_expect cmp_fails_on_a_difference not jp_cmp "$T/ab" "$T/ac"
jp_expect cmp_fails_on_a_missing_file not jp_cmp "$T/ab" "$T/nothing"
jp_expect cmp_passes_on_the_same_bytes jp_cmp "$T/ab" "$T/ab"
jp_expect line_count_fails_on_another_count not jp_line_count = 3 "$T/ab"
jp_expect line_count_fails_on_a_missing_file not jp_line_count = 0 "$T/nothing"
jp_expect line_count_passes_on_the_count jp_line_count = 2 "$T/ab"
jp_expect line_count_compares jp_line_count -lt 3 "$T/ab"
jp_expect no_text_fails_on_the_text not jp_no_text -F c "$T/ab" "$T/ac"
jp_expect no_text_fails_on_a_missing_file not jp_no_text zzz "$T/ab" "$T/nothing"
jp_expect no_text_fails_on_a_folder_without_r not jp_no_text zzz "$T/dir"
echo s3cret >"$T/dir/f"
jp_expect no_text_r_reads_a_folder not jp_no_text -r s3cret "$T/dir"
jp_expect no_text_fails_on_a_bad_pattern not jp_no_text -E '(' "$T/ab"
jp_expect no_text_passes_without_the_text jp_no_text -E 'c|d' "$T/ab"
jp_expect no_text_r_passes_without_the_text jp_no_text -rF zzz "$T/dir" "$T/ab"
jp_expect the_checks_say_why sh -c 'grep -q "nothing: no such file" "$1" &&
	grep -q "^# -b" "$1" && grep -q "2 line(s), expected = 3" "$1" && grep -q "ac holds" "$1"' sh "$T/said"

# --- the lint ---------------------------------------------------------------
# lint NAME: tests/chainlint.py on $T/NAME.sh; its findings in $T/NAME.out
lint() {
	python3 "$TOP_SRCDIR/tests/chainlint.py" "$T/$1.sh" >"$T/$1.out" 2>&1
}
# finds NAME LINE WORDS: the lint failed on NAME.sh, naming LINE and WORDS
finds() {
	lint "$1" && return 1
	grep -q "^$T/$1.sh:$2: .*$3" "$T/$1.out" || { sed 's/^/# /' "$T/$1.out"; return 1; }
}
# clean NAME: the lint passes NAME.sh
clean() {
	lint "$1" || { sed 's/^/# /' "$T/$1.out"; return 1; }
}
cat >"$T/and.sh" <<'BAD'
jp_expect x [ 0 = 0 ] && [ -f /nonexistent ]
BAD
jp_expect lint_refuses_a_check_chained_by_and finds and 1 'chained after jp_expect by `&&`'
cat >"$T/loop.sh" <<'BAD'
for n in a b; do
	"$JOBPREP" env "$T/m.json" >"$T/out"
	jp_expect "${n}_refused" [ $? = 3 ] ||
		cat "$T/out"
done
BAD
jp_expect lint_refuses_a_check_chained_by_or_in_a_loop finds loop 3 'chained after jp_expect by `||`'
cat >"$T/semi.sh" <<'BAD'
jp_expect x [ "$rc" = 0 ]; [ -f "$T/job.json" ]
BAD
jp_expect lint_refuses_a_check_after_a_semicolon finds semi 1 'after `jp_expect ...;` on the same line'
cat >"$T/neg.sh" <<'BAD'
jp_expect no_token sh -c '! grep -q "s3cret" "$1"' sh "$T/out"
BAD
jp_expect lint_refuses_a_negative_grep_of_an_unproven_file finds neg 1 'negative grep of "$1"'
cat >"$T/negbare.sh" <<'BAD'
set -u
: "${JOBPREP:?}"
cat >"$T/inner.sh" <<'IN'
! LC_ALL=C grep -q x "$T/err" || jp_fail no_x
IN
BAD
jp_expect lint_reads_a_here_document finds negbare 4 'negative grep of "$T/err"'
cat >"$T/neglist.sh" <<'BAD'
jp_expect nothing_left sh -c '! ls -A "$1" | grep -q tmp' sh "$T/export"
BAD
jp_expect lint_refuses_a_negative_listing_of_an_unproven_folder finds neglist 1 'negative grep of "$1"'
cat >"$T/negfail.sh" <<'BAD'
grep -q launch.clone_first "$M" && jp_fail has_no_clone_finding
BAD
jp_expect lint_refuses_grep_then_jp_fail finds negfail 1 'negative grep of "$M"'
cat >"$T/fixed.sh" <<'EOF'
jp_expect x sh -c '[ "$1" = 0 ] && [ -f "$2" ]' sh "$rc" "$T/job.json"
jp_expect moves jp_path_is_file "$T/job.json"
jp_expect a_and_b [ 0 = 0 ]; jp_expect b [ 1 = 1 ]
jp_expect no_token jp_no_text -F "$TOK" "$T/out" "$T/err"
jp_expect no_token_here sh -c '[ -s "$1" ] && ! grep -q "s3cret" "$1"' sh "$T/out"
jp_expect no_pass sh -c 'grep -q "^\[warn\]" "$1" && ! grep -q "\[pass\]" "$1"' sh "$T/out"
jp_expect nothing_left sh -c '[ -d "$1" ] && ! ls -A "$1" | grep -q tmp' sh "$T/export"
jp_expect not_mounted sh -c '! grep -q " /mnt/x " /proc/self/mountinfo'
while ! grep -q ready "$T/log" 2>/dev/null; do sleep 0.1; done
jp_poll 50 sh -c '! ls -A "$1" | grep -q tmp' sh "$T/export"
if ! grep -q "expected" "$T/err"; then jp_fail says_it; fi
case $x in
a) jp_expect in_a_case [ 1 = 1 ] ;;
esac
echo "jp_expect x [ 1 = 1 ] && not a command" # a comment: ! grep x "$T/y"
EOF
jp_expect lint_passes_the_fixed_forms clean fixed
jp_done
