#!/bin/sh
# jobprep stage URL DEST killed -9 mid-body from a server that sends no
# validator (issue 30, point 2): lighttpd as a minimal lighttpd.conf runs
# it (no mimetype table: neither ETag nor Last-Modified, ranges taken),
# throttled with connection.kbytes-per-second; the download is proved
# mid-way (the temporary holds some of it, not all), and the next run asks
# for the rest with a Range starting 64 KiB before where it stopped (the
# access log shows it, answered 206), those 64 KiB compared, and ends
# identical having fetched little more than the rest. Its twins: the file
# changed on the server (the same size, other bytes) is fetched whole
# again and the result is the new file; a server that sends validators
# resumes where it stopped, with If-Range.
set -u
: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/filesrv.sh"
command -v lighttpd >/dev/null 2>&1 || jp_skip_all "lighttpd is not installed"
command -v curl >/dev/null 2>&1 || jp_skip_all "curl is not installed"
jp_scratch stage-killed 'jp_filesrv_stop "$T"'
unset JOBPREP_HTTP_TOKEN
mkdir -p "$T/www" "$T/out"
# 24 MiB: ranges would pay, but without a validator it goes on one
# connection; the twin with validators, 12 MiB, on one connection too
head -c $((24 * 1048576 + 7)) /dev/urandom >"$T/www/model.bin"
head -c $((12 * 1048576 + 7)) /dev/urandom >"$T/www/small.bin"
touch -d "@$(($(date +%s) - 3600))" "$T/www/model.bin" "$T/www/small.bin"
PORT=$(jp_free_port) || exit 99
URL=http://127.0.0.1:$PORT

# start KBPS: lighttpd (validators as $VALIDATORS says), KBPS KiB/s
start() {
	if [ "$VALIDATORS" = no ]; then
		JP_FILESRV_NO_VALIDATORS=1 jp_filesrv_start "$T" "$PORT" "$1"
	else
		jp_filesrv_start "$T" "$PORT" "$1"
	fi
}
# restart [KBPS]: lighttpd writes its access log out when it stops
restart() {
	jp_filesrv_stop "$T"
	start "${1:-0}" || exit 99
}

# killed NAME DEST: `jobprep stage` of NAME throttled, killed -9 once its temporary
# holds 2 MiB or more; PARTIAL: its size then
killed() {
	restart 1024
	jp_bg "$T/killed.out" "$T/killed.err" "$J" stage --no-progress "$URL/$1" "$2"
	part="$(dirname "$2")/.jobprep-tmp-$(basename "$2")"
	jp_poll 600 sh -c '[ "$(stat -c %s "$1" 2>/dev/null || echo 0)" -ge 2097152 ]' sh "$part"
	kill -9 $JP_PID
	wait $JP_PID 2>/dev/null
	PARTIAL=$(stat -c %s "$part" 2>/dev/null || echo 0)
	restart
	: >"$T/access.log"
}

for VALIDATORS in no yes; do
	c=$([ $VALIDATORS = no ] && echo bare || echo validated)
	f=$([ $VALIDATORS = no ] && echo model.bin || echo small.bin)
	size=$(stat -c %s "$T/www/$f")
	start 0 || exit 99
	curl -sI "$URL/$f" | sed "s/^/# $c HEAD: /"
	D="$T/out/$c.bin"
	killed "$f" "$D"
	echo "# $c: killed with $PARTIAL of $size bytes"
	jp_expect "${c}_killed_mid_body" sh -c '[ "$1" -gt 0 ] && [ "$1" -lt "$2" ]' sh "$PARTIAL" $size
	jp_expect "${c}_killed_no_final_file" [ ! -e "$D" ]
	"$J" stage --json --no-progress "$URL/$f" "$D" >"$T/$c.json" 2>"$T/$c.err"
	rc=$?
	restart
	sed "s/^/# $c: /" "$T/access.log"
	if [ $VALIDATORS = no ]; then
		from=$((PARTIAL - 65536))
	else
		from=$PARTIAL
	fi
	jp_expect "${c}_resume_exits_0" [ "$rc" = 0 ]
	jp_expect "${c}_resume_identical" cmp -s "$T/www/$f" "$D"
	jp_expect "${c}_resume_asked_for_the_rest" grep -q "\"GET /$f HTTP/1.1\" 206 range=bytes=$from- " "$T/access.log"
	jp_expect "${c}_resume_no_whole_get" sh -c '[ -s "$1" ] && ! grep -q "\"GET /$2 HTTP/1.1\" 200 " "$1"' sh "$T/access.log" "$f"
	jp_expect "${c}_resume_received_the_rest" [ "$(jp_json_get "$T/$c.json" bytes_written)" -le $((size - PARTIAL + 65536)) ]
	jp_expect "${c}_resume_leaves_no_temporary" jp_no_temporaries "$T/out"
	jp_filesrv_stop "$T"
done

# --- the file changed on the server (the same size) after the kill, from
# a server without validators: the overlap differs, fetched whole again
VALIDATORS=no
start 0 || exit 99
D="$T/out/changed.bin"
size=$(stat -c %s "$T/www/model.bin")
killed model.bin "$D"
head -c $size /dev/urandom >"$T/www/model.bin"
"$J" stage --json --no-progress "$URL/model.bin" "$D" >"$T/changed.json" 2>"$T/changed.err"
rc=$?
restart
sed 's/^/# changed: /' "$T/access.log"
jp_expect changed_killed_mid_body sh -c '[ "$1" -gt 0 ] && [ "$1" -lt "$2" ]' sh "$PARTIAL" $size
jp_expect changed_exits_0 [ "$rc" = 0 ]
jp_expect changed_is_the_new_file cmp -s "$T/www/model.bin" "$D"
jp_expect changed_fetched_whole [ "$(jp_json_get "$T/changed.json" bytes_written)" -ge $size ]
jp_expect changed_leaves_no_temporary jp_no_temporaries "$T/out"
jp_done
