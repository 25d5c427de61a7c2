#!/bin/sh
# jobprep stage of an archive URL, re-run and run twice at once (issue 30,
# points 3 and 7), against lighttpd on loopback with its access log:
#   rerun      a second run of a complete, unpacked, unchanged archive costs
#              one HEAD (no GET) and says every file is already complete;
#              the archive changed on the server, it is fetched again
#   unpacking  killed (-9) while unpacking (proved: the unpack folder and
#              the whole download there), the next run fetches nothing
#              again (no GET) and ends identical
#   same       two stages of one URL into one DEST at once (and a copy of a
#              local folder into it meanwhile): the second is
#              refused, naming the first, and leaves no staging record;
#              the first ends well and no record is left
#   two        two DESTs of one folder from one archive URL at once: each
#              has its own download, both end identical
set -u
: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/filesrv.sh"
command -v lighttpd >/dev/null 2>&1 || jp_skip_all "lighttpd is not installed"
jp_scratch stage-rerun stop
unset JOBPREP_HTTP_TOKEN
mkdir -p "$T/www" "$T/tree/many" "$T/out"
jp_numbered_files "$T/tree/many" 800 "line" || exit 99
head -c $((8 * 1048576)) /dev/urandom >"$T/tree/big.bin"
(cd "$T/tree" && tar czf "$T/www/data.tar.gz" .) || exit 99
touch -d "@$(($(date +%s) - 3600))" "$T/www/data.tar.gz"
PORT=$(jp_free_port) || exit 99
URL=http://127.0.0.1:$PORT
start() { jp_filesrv_start "$T" "$PORT" "$1"; }
stop() { jp_filesrv_stop "$T"; }
# restart [KBPS]: lighttpd writes its access log out when it stops
restart() {
	stop
	start "${1:-0}" || exit 99
}
start 0 || exit 99
gets() { grep -c '"GET ' "$T/access.log"; }

# --- rerun: the first run unpacks, the second costs one HEAD
D="$T/out/data"
"$J" stage --json --no-progress "$URL/data.tar.gz" "$D" >"$T/first.json" 2>"$T/first.err"
rc=$?
jp_expect first_exits_0 [ "$rc" = 0 ]
jp_expect first_identical diff -r "$T/tree" "$D"
restart
: >"$T/access.log"
"$J" stage --json --no-progress "$URL/data.tar.gz" "$D" >"$T/second.json" 2>"$T/second.err"
rc=$?
restart
sed 's/^/# second: /' "$T/access.log"
jp_expect rerun_exits_0 [ "$rc" = 0 ]
jp_expect rerun_costs_one_head sh -c '[ "$(wc -l <"$1")" = 1 ] && grep -q "\"HEAD /data.tar.gz" "$1"' sh "$T/access.log"
jp_expect rerun_says_all_complete [ "$(jp_json_get "$T/second.json" skipped)" = 801 ]
jp_expect rerun_wrote_nothing [ "$(jp_json_get "$T/second.json" written)" = 0 ]
jp_expect rerun_still_identical diff -r "$T/tree" "$D"
jp_expect rerun_leaves_no_temporary jp_no_temporaries "$T/out"
# the twin: the archive changed on the server, the next run fetches it
echo "new" >"$T/tree/new.txt"
(cd "$T/tree" && tar czf "$T/www/data.tar.gz" .) || exit 99
touch -d "@$(($(date +%s) - 1800))" "$T/www/data.tar.gz"
: >"$T/access.log"
"$J" stage --json --no-progress "$URL/data.tar.gz" "$D" >"$T/changed.json" 2>"$T/changed.err"
rc=$?
restart
jp_expect changed_exits_0 [ "$rc" = 0 ]
jp_expect changed_fetched_again [ "$(gets)" -ge 1 ]
jp_expect changed_has_the_new_file cmp -s "$T/tree/new.txt" "$D/new.txt"

# --- unpacking: killed -9 while unpacking; the next run fetches nothing
D="$T/out/killed"
part="$T/out/.jobprep-tmp-download-killed"
unpack="$T/out/.jobprep-tmp-unpack-killed"
size=$(stat -c %s "$T/www/data.tar.gz")
jp_bg "$T/killed.out" "$T/killed.err" "$J" stage --no-progress "$URL/data.tar.gz" "$D"
pid=$JP_PID
_w=0
while [ $_w -lt 1200 ] && [ ! -d "$unpack" ] && kill -0 $pid 2>/dev/null; do
	sleep 0.02
	_w=$((_w + 1))
done
kill -9 $pid
wait $pid 2>/dev/null
kept=$(stat -c %s "$part" 2>/dev/null || echo 0)
echo "# killed: unpack folder $(ls -d "$unpack" 2>/dev/null || echo none), download $kept of $size bytes"
jp_expect unpacking_killed_mid_unpack sh -c '[ -d "$1" ] && [ ! -e "$2" ]' sh "$unpack" "$D"
jp_expect unpacking_download_was_whole [ "$kept" = "$size" ]
restart
: >"$T/access.log"
"$J" stage --json --no-progress "$URL/data.tar.gz" "$D" >"$T/after.json" 2>"$T/after.err"
rc=$?
restart
sed 's/^/# after the kill: /' "$T/access.log"
jp_expect unpacking_next_exits_0 [ "$rc" = 0 ]
jp_expect unpacking_next_fetches_nothing [ "$(gets)" = 0 ]
jp_expect unpacking_next_identical diff -r "$T/tree" "$D"
jp_expect unpacking_next_leaves_no_temporary jp_no_temporaries "$T/out"

# --- same: two stages of one URL into one DEST at once
restart 2048
D="$T/out/same"
jp_bg "$T/same1.out" "$T/same1.err" "$J" stage --json --no-progress "$URL/data.tar.gz" "$D"
first=$JP_PID
jp_poll 300 test -e "$T/out/.jobprep-tmp-download-same"
"$J" stage --no-progress "$URL/data.tar.gz" "$D" >/dev/null 2>"$T/same2.err"
rc=$?
# the run named: the first, or the process it does the work in
named=$(sed -n 's/.*staging it (pid \([0-9]*\) on .*/\1/p' "$T/same2.err")
parent=$(awk '{ print $4 }' "/proc/${named:-0}/stat" 2>/dev/null)
records=$(ls "$T/out/.jobprep-tmp-staging-same" 2>/dev/null | wc -l)
# a copy of a local folder into the same DEST meanwhile is refused too
"$J" stage --no-progress "$T/tree" "$D" >/dev/null 2>"$T/same-local.err"
rc_local=$?
sed 's/^/# a local copy into the same: /' "$T/same-local.err"
wait $first
rc1=$?
sed 's/^/# second of the same: /' "$T/same2.err"
jp_expect same_second_refused [ "$rc" = 1 ]
jp_expect same_second_names_the_first sh -c '[ "$1" = "$3" ] || [ "$2" = "$3" ]' sh "$named" "$parent" "$first"
jp_expect same_second_left_no_record [ "$records" = 1 ]
jp_expect same_local_copy_refused [ "$rc_local" = 1 ]
jp_expect same_local_copy_says_why grep -q "another jobprep stage is staging it" "$T/same-local.err"
jp_expect same_first_exits_0 [ "$rc1" = 0 ]
jp_expect same_first_identical diff -r "$T/tree" "$D"
jp_expect same_no_record_left jp_no_temporaries "$T/out"
# the twin: once the first has ended, the same copy goes ahead
"$J" stage --no-progress "$T/tree" "$D" >/dev/null 2>"$T/same-local-after.err"
jp_expect same_local_copy_after_exits_0 [ $? = 0 ]
jp_expect same_local_copy_after_no_record_left jp_no_temporaries "$T/out"

# --- two: two DESTs of one folder from one archive URL at once
jp_bg "$T/two1.out" "$T/two1.err" "$J" stage --no-progress "$URL/data.tar.gz" "$T/out/one"
p1=$JP_PID
# the second starts once the first's download is under way
jp_poll 300 sh -c 'ls -A "$1" | grep -q "jobprep-tmp-download"' sh "$T/out"
jp_bg "$T/two2.out" "$T/two2.err" "$J" stage --no-progress "$URL/data.tar.gz" "$T/out/two"
p2=$JP_PID
wait $p1
rc1=$?
wait $p2
rc2=$?
sed 's/^/# two: /' "$T/two1.err" "$T/two2.err"
jp_expect two_both_exit_0 [ "$rc1.$rc2" = 0.0 ]
jp_expect two_first_identical diff -r "$T/tree" "$T/out/one"
jp_expect two_second_identical diff -r "$T/tree" "$T/out/two"
jp_expect two_leave_no_temporary jp_no_temporaries "$T/out"
jp_done
