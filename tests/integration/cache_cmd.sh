#!/bin/sh
# `jobprep cache`: lists the local mirror cache's mirrors (the server's URL
# without credentials, size, last use, in use or not), least recently used
# first, as text and JSON; `--clear` removes every mirror no other jobprep
# holds (a mirror whose lock another process holds is left, exit 1), leaves
# nothing aside, and the next prep fetches again. Against a real smart http
# server (lighttpd + git http-backend) on loopback.
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/report.sh"
for tool in git lighttpd flock python3; do
	command -v "$tool" >/dev/null 2>&1 || jp_skip_all "$tool is not installed"
done
[ -x /usr/lib/git-core/git-http-backend ] || jp_skip_all "no git-http-backend"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"

T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-cache-cmd.XXXXXX") || exit 99
T=$(cd -P "$T" && pwd)
H=$T/httpd
cleanup() {
	[ -n "${HOLDER:-}" ] && kill "$HOLDER" 2>/dev/null
	jp_httpd_stop "$H"
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
jp_test_env "$T"
XDG_CACHE_HOME=$T/xdg
export XDG_CACHE_HOME
C=$XDG_CACHE_HOME/jobprep/git
R=$T/repos
mkdir -p "$R/private"
jp_git_repo "$R/train.git" 5 >/dev/null 2>&1 || exit 99
jp_git_repo "$R/private/other.git" 3 >/dev/null 2>&1 || exit 99
jp_httpd_start "$H" "$R" || exit 99
URL=http://127.0.0.1:$JP_HTTPD_PORT/git/train.git
OTHER=http://127.0.0.1:$JP_HTTPD_PORT/git/private/other.git
TOKEN_OTHER=http://alice:s3cret@127.0.0.1:$JP_HTTPD_PORT/git/private/other.git

cache() { "$JOBPREP" cache "$@" >"$T/out" 2>"$T/err"; }
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$T/out" "$1"; }

# --- an empty cache (its folder not even made yet) ----------------------------
cache
jp_expect empty_cache_lists_exit_0 [ $? = 0 ]
jp_expect empty_cache_says_zero_mirrors grep -q "0 mirrors" "$T/out"
cache --json
jp_expect empty_cache_json_has_no_mirror [ "$(json 'len(d["mirrors"])')" = 0 ]
jp_expect empty_cache_json_names_the_folder [ "$(json 'd["dir"]')" = "$C" ]

# --- two mirrors, one made through a URL with a password ----------------------
"$JOBPREP" clone "$URL" "$T/p/one" >"$T/clone.out" 2>&1 || { cat "$T/clone.out"; exit 99; }
sleep 1.1 # the mirrors' last uses (whole seconds) differ: the order is known
"$JOBPREP" clone "$TOKEN_OTHER" "$T/p/two" >/dev/null 2>&1 || exit 99
cache
jp_expect list_exit_0 [ $? = 0 ]
jp_expect list_counts_two_mirrors grep -q "2 mirrors" "$T/out"
jp_expect list_names_both_urls sh -c 'grep -qF "$1" "$3" && grep -qF "$2" "$3"' sh "$URL" "$OTHER" "$T/out"
jp_expect list_shows_no_password jp_no_text "s3cret\|alice" "$T/out"
cache --json
jp_expect json_lists_two [ "$(json 'len(d["mirrors"])')" = 2 ]
jp_expect json_least_recently_used_first [ "$(json 'd["mirrors"][0]["url"]')" = "$URL" ]
jp_expect json_sizes_are_the_folders [ "$(json 'all(m["bytes"] > 0 for m in d["mirrors"])')" = True ]
jp_expect json_none_in_use [ "$(json 'any(m["in_use"] for m in d["mirrors"])')" = False ]
jp_expect json_shows_no_password jp_no_text "s3cret\|alice" "$T/out"

# --- a mirror another process holds is in use: listed so, and left by --clear -
busy=$(json 'd["mirrors"][1]["path"]')
lock=${busy%.git}.lock
# (the process that holds the lock is the one killed after: exec'd into sleep)
(exec 9<>"$lock" && flock 9 && exec sleep 60) &
HOLDER=$!
w=0 # until the holder has it
while flock -n "$lock" true 2>/dev/null && [ $w -lt 200 ]; do
	sleep 0.05
	w=$((w + 1))
done
cache --json
jp_expect held_mirror_is_in_use [ "$(json 'd["mirrors"][1]["in_use"]')" = True ]
cache --clear
jp_expect clear_with_one_in_use_exits_1 [ $? = 1 ]
jp_expect clear_says_one_removed grep -q "Removed 1 mirror" "$T/out"
jp_expect clear_names_the_one_left grep -q "1 mirror is in use" "$T/err"
jp_expect held_mirror_is_still_there [ -f "$busy/HEAD" ]
jp_expect free_mirror_is_gone sh -c '[ "$(ls -d "$1"/*.git | wc -l)" = 1 ]' sh "$C"
kill "$HOLDER" 2>/dev/null
wait "$HOLDER" 2>/dev/null
HOLDER=

# --- then everything goes, nothing is left aside ------------------------------
cache --clear --json
jp_expect clear_exits_0 [ $? = 0 ]
jp_expect clear_json_counts_what_went [ "$(json '(d["removed"], d["in_use"], d["freed_bytes"] > 0)')" = "(1, 0, True)" ]
jp_expect clear_removes_the_rest sh -c '! ls -d "$1"/*.git >/dev/null 2>&1' sh "$C"
jp_expect clear_leaves_nothing_aside sh -c '[ -d "$1" ] && ! ls -a "$1" | grep -q "^\.gone-"' sh "$C"
cache --clear
jp_expect clearing_an_empty_cache_exits_0 [ $? = 0 ]
jp_expect clearing_an_empty_cache_removes_none grep -q "Removed 0 mirrors" "$T/out"

# --- a clear cut short (a mirror renamed aside) is finished by the next -------
"$JOBPREP" clone "$URL" "$T/p/three" >/dev/null 2>&1
jp_expect clone_after_clear_succeeds [ "$(git -C "$T/p/three" rev-parse HEAD)" = "$(git -C "$R/train.git" rev-parse main)" ]
jp_expect clone_after_clear_makes_a_mirror_again sh -c 'ls -d "$1"/*.git >/dev/null 2>&1' sh "$C"
m=$(ls -d "$C"/*.git | head -n 1)
mv "$m" "$C/.gone-${m##*/}"
cache --clear
jp_expect leftover_from_a_cut_clear_is_removed sh -c '[ -d "$1" ] && ! ls -a "$1" | grep -q "^\.gone-"' sh "$C"

# --- usage --------------------------------------------------------------------
cache extra
jp_expect operand_is_a_usage_error [ $? = 2 ]
cache --frobnicate
jp_expect unknown_option_is_a_usage_error [ $? = 2 ]

jp_done
