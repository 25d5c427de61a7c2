#!/bin/sh
# jobprep stage URL DEST of a large file (16 MiB and more) from a server
# that takes ranges (issue 14: "several connections for a large file"),
# against lighttpd on loopback: the file is fetched as 4 ranges at once
# (4 GETs answered 206 in the access log, each with If-Range) and ends
# identical; killed (-9) mid-way, the next run asks each range only for
# what it lacks (ranges that start past the cut points) and receives less
# than the whole; a file changed on the server between the attempts is
# fetched again from zero and the result is the new file. No temporary is
# left after a complete run.
set -u
: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/filesrv.sh"
command -v lighttpd >/dev/null 2>&1 || jp_skip_all "lighttpd is not installed"
jp_scratch stage-ranges stop
unset JOBPREP_HTTP_TOKEN
size=$((24 * 1048576 + 13))
mkdir -p "$T/www" "$T/out"
head -c $size /dev/urandom >"$T/www/large 大.bin"
# lighttpd sends no validator for a file changed in the current second
touch -d '1 hour ago' "$T/www/large 大.bin"
PORT=$(jp_free_port) || exit 99
URL="http://127.0.0.1:$PORT/large%20%E5%A4%A7.bin"

# start KBPS: lighttpd on $PORT (KBPS KiB/s per connection when > 0)
start() { jp_filesrv_start "$T" "$PORT" "$1"; }
stop() { jp_filesrv_stop "$T"; }
# restart: lighttpd writes its access log out when it stops
restart() {
	stop
	start "${1:-0}" || exit 99
}
start 0 || exit 99

# --- in one go: four ranges at once
D="$T/out/one.bin"
: >"$T/access.log"
"$J" stage --json "$URL" "$D" >"$T/one.json" 2>"$T/one.err"
rc=$?
restart
sed 's/^/# /' "$T/access.log"
jp_expect whole_exits_0 [ "$rc" = 0 ]
jp_expect whole_identical cmp -s "$T/www/large 大.bin" "$D"
jp_expect whole_in_four_ranges [ "$(grep -c '" 206 range=bytes=[0-9]*-[0-9]* if-range=..*' "$T/access.log")" = 4 ]
jp_expect whole_first_range_from_zero grep -q '" 206 range=bytes=0-' "$T/access.log"
jp_expect whole_received_once [ "$(jp_json_get "$T/one.json" bytes_written)" = $size ]
jp_expect whole_leaves_no_temporary jp_no_temporaries "$T/out"

# killed DEST: a throttled download killed -9 once its saved ranges show
# progress on every range
killed() {
	restart 1024
	(
		trap - EXIT
		exec "$J" stage --progress "$URL" "$1" 2>"$T/killed.err"
	) &
	pid=$!
	state="$(dirname "$1")/.jobprep-tmp-$(basename "$1").ranges"
	_w=0
	while [ $_w -lt 300 ] &&
		! awk '$1 == "seg" && $4 > $2 { n++ } END { exit n == 4 ? 0 : 1 }' "$state" 2>/dev/null; do
		sleep 0.05
		_w=$((_w + 1))
	done
	kill -9 $pid
	wait $pid 2>/dev/null
	cp "$state" "$T/state.killed" 2>/dev/null
	restart
}

# --- killed, then resumed: each range goes on from where it was
D="$T/out/resumed.bin"
killed "$D"
sed 's/^/# saved: /' "$T/state.killed"
got=$(awk '$1 == "seg" { s += $4 - $2 } END { print s + 0 }' "$T/state.killed")
jp_expect killed_mid_way sh -c '[ "$1" -gt 0 ] && [ "$1" -lt "$2" ]' sh "$got" $size
jp_expect killed_leaves_no_final_file [ ! -e "$D" ]
: >"$T/access.log"
"$J" stage --json "$URL" "$D" >"$T/resume.json" 2>"$T/resume.err"
rc=$?
restart
sed 's/^/# /' "$T/access.log"
jp_expect resume_exits_0 [ "$rc" = 0 ]
jp_expect resume_identical cmp -s "$T/www/large 大.bin" "$D"
# every range asked for starts where its saved progress ended
awk '$1 == "seg" && $4 < $3 { print "range=bytes=" $4 "-" ($3 - 1) }' "$T/state.killed" >"$T/want"
jp_expect resume_asks_only_for_what_is_missing \
	sh -c 'while read -r r; do grep -q "\" 206 $r " "$2" || exit 1; done <"$1"' sh "$T/want" "$T/access.log"
wrote=$(jp_json_get "$T/resume.json" bytes_written)
echo "# resumed: received $wrote of $size bytes ($got saved as done)"
jp_expect resume_receives_less_than_all [ "$wrote" -le $((size - got)) ]
jp_expect resume_leaves_no_temporary jp_no_temporaries "$T/out"

# --- killed, then the file changes on the server: from zero, the new file
D="$T/out/changed.bin"
killed "$D"
head -c $size /dev/urandom >"$T/www/large 大.bin"
touch -d '30 minutes ago' "$T/www/large 大.bin" # a new mtime: a new ETag
"$J" stage --json "$URL" "$D" >"$T/changed.json" 2>"$T/changed.err"
rc=$?
jp_expect changed_exits_0 [ "$rc" = 0 ]
jp_expect changed_is_the_new_file cmp -s "$T/www/large 大.bin" "$D"
jp_expect changed_received_whole [ "$(jp_json_get "$T/changed.json" bytes_written)" = $size ]
jp_expect changed_leaves_no_temporary jp_no_temporaries "$T/out"
jp_done
