#!/bin/sh
# jobprep stage URL DEST against servers that answer short (issue 30,
# points 1 and 9), each case a python server on loopback of its own
# (tests/lib/odd_server.py), each with its healthy twin:
#   cap       206 answers of at most 1 MiB (a correct Content-Range): a
#             24 MiB file over ranges, and a 4,000,000-byte one resumed on
#             one connection from a 1,048,576-byte partial, end identical
#   cut       206 bodies cut without a Content-Length: identical
#   old       a file of the right size and time under its final name, with
#             the hole an older jobprep left (its ETag kept): downloaded again
#   trickle   2 bytes a second: --timeout 3 fails it, with the reason
#   silent    a server that never answers: --timeout 2 fails it
#   plain     the twin: the same files from a healthy server, --timeout 3
# A short file is never renamed into place.
set -u
: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
command -v curl >/dev/null 2>&1 || jp_skip_all "curl is not installed"
jp_scratch stage-exact 'stop_server'
unset JOBPREP_HTTP_TOKEN
SRV_PID=
stop_server() {
	[ -n "$SRV_PID" ] && kill "$SRV_PID" 2>/dev/null && wait "$SRV_PID" 2>/dev/null
	SRV_PID=
}
# serve MODE: a new server of MODE over $T/www on $PORT, its log emptied
serve() {
	stop_server
	rm -f "$T/server.up"
	: >"$T/requests.log"
	PORT=$(jp_free_port) || exit 99
	python3 "$TOP_SRCDIR/tests/lib/odd_server.py" "$T/www" "$PORT" "$1" &
	SRV_PID=$!
	jp_poll 100 test -s "$T/server.up" || exit 99
	jp_poll 50 jp_listening "$PORT" || exit 99
	URL=http://127.0.0.1:$PORT
}
mkdir -p "$T/www" "$T/out"
big=$((24 * 1048576 + 13))
head -c $big /dev/urandom >"$T/www/big.bin"
head -c 4000000 /dev/urandom >"$T/www/four.bin"
# an hour ago, to the second (a download keeps the server's time, whole)
touch -d "@$(($(date +%s) - 3600))" "$T/www/big.bin" "$T/www/four.bin"

# stage NAME URL DEST [OPTIONS]: jobprep stage --json, exit status in rc
stage() {
	_n=$1 _u=$2 _d=$3
	shift 3
	"$J" stage --json --no-progress "$@" "$_u" "$_d" >"$T/$_n.json" 2>"$T/$_n.err"
	rc=$?
	sed "s/^/# $_n: /" "$T/$_n.err"
}

# --- cap: every 206 carries at most 1 MiB
for mode in cap=1048576 plain; do
	case $mode in cap=*) c="cap" ;; *) c="plain" ;; esac
	serve "$mode"
	stage "$c-ranges" "$URL/big.bin" "$T/out/$c-big.bin"
	jp_expect "${c}_ranges_exits_0" [ "$rc" = 0 ]
	jp_expect "${c}_ranges_identical" cmp -s "$T/www/big.bin" "$T/out/$c-big.bin"
	jp_expect "${c}_ranges_leaves_no_temporary" jp_no_temporaries "$T/out"
	# one connection, resumed from a partial of the first 1,048,576 bytes
	mkdir -p "$T/out/$c"
	head -c 1048576 "$T/www/four.bin" >"$T/out/$c/.jobprep-tmp-four.bin"
	etag=$(curl -sI "$URL/four.bin" | sed -n 's/^ETag: *\(.*\)\r$/\1/p')
	printf '%s\n' "$etag" >"$T/out/$c/.jobprep-tmp-four.bin.validator"
	stage "$c-single" "$URL/four.bin" "$T/out/$c/four.bin"
	jp_expect "${c}_single_exits_0" [ "$rc" = 0 ]
	jp_expect "${c}_single_identical" cmp -s "$T/www/four.bin" "$T/out/$c/four.bin"
	jp_expect "${c}_single_resumed_from_the_partial" grep -q "GET /four.bin 206 range=bytes=1048576-" "$T/requests.log"
	jp_expect "${c}_single_leaves_no_temporary" jp_no_temporaries "$T/out/$c"
	sed "s/^/# $c: /" "$T/requests.log"
done

# --- cut: 206 (and 200) bodies end after 3 MiB, with no Content-Length
for mode in cut=3145728 plain; do
	case $mode in cut=*) c="cut" ;; *) c="twin" ;; esac
	serve "$mode"
	stage "$c-ranges" "$URL/big.bin" "$T/out/$c-big.bin"
	jp_expect "${c}_ranges_exits_0" [ "$rc" = 0 ]
	jp_expect "${c}_ranges_identical" cmp -s "$T/www/big.bin" "$T/out/$c-big.bin"
	stage "$c-single" "$URL/four.bin" "$T/out/$c-four.bin"
	jp_expect "${c}_single_exits_0" [ "$rc" = 0 ]
	jp_expect "${c}_single_identical" cmp -s "$T/www/four.bin" "$T/out/$c-four.bin"
	jp_expect "${c}_leaves_no_temporary" jp_no_temporaries "$T/out"
done

# --- old: what an older jobprep left under the final name after a capped
# download (the right size and time, its ETag kept, zeros after the first
# MiB of each range): the next run sees the hole and downloads again; its
# twin, the whole file left the same way, is not downloaded again
serve plain
etag=$(curl -sI "$URL/big.bin" | sed -n 's/^ETag: *\(.*\)\r$/\1/p')
for c in old whole; do
	f="$T/out/$c-left.bin"
	if [ $c = old ]; then
		python3 -c 'import sys
src = open(sys.argv[1], "rb").read(); n = len(src); per = n // 4
out = bytearray(n)
for i in range(4):
    s = per * i
    out[s:s + 1048576] = src[s:s + 1048576]
open(sys.argv[2], "wb").write(out)' "$T/www/big.bin" "$f"
	else
		cp "$T/www/big.bin" "$f"
	fi
	touch -r "$T/www/big.bin" "$f"
	python3 -c 'import os, sys; os.setxattr(sys.argv[1], "user.jobprep.etag", sys.argv[2].encode())' "$f" "$etag" ||
		jp_skip_all "no user extended attributes in $T"
	: >"$T/requests.log"
	stage "$c-left" "$URL/big.bin" "$f"
	jp_expect "${c}_left_exits_0" [ "$rc" = 0 ]
	jp_expect "${c}_left_identical" cmp -s "$T/www/big.bin" "$f"
done
jp_expect old_left_fetched_again [ "$(jp_json_get "$T/old-left.json" bytes_written)" = $big ]
jp_expect whole_left_not_fetched_again [ "$(jp_json_get "$T/whole-left.json" bytes_written)" = 0 ]

# --- trickle: 2 bytes a second; --timeout 3 ends it (within 60 s; before
# issue 30 it ran on for hours), what it received kept
serve trickle
"$J" stage --no-progress --timeout 3 "$URL/four.bin" "$T/out/trickle.bin" >/dev/null 2>"$T/trickle.err" &
pid=$!
if jp_poll 600 sh -c '! kill -0 "$1" 2>/dev/null' sh $pid; then
	wait $pid
	rc=$?
else
	kill -9 $pid
	wait $pid 2>/dev/null
	rc=timeout
fi
sed 's/^/# trickle: /' "$T/trickle.err"
jp_expect trickle_fails_within_60s [ "$rc" = 1 ]
jp_expect trickle_says_why grep -q "four.bin: download failed: no answer, or less than 1 KiB/s, for 3 s (--timeout)" "$T/trickle.err"
jp_expect trickle_no_final_file [ ! -e "$T/out/trickle.bin" ]

# --- silent: a server that takes the connection and never answers
serve silent
"$J" stage --no-progress --timeout 2 "$URL/four.bin" "$T/out/silent.bin" >/dev/null 2>"$T/silent.err" &
pid=$!
if jp_poll 600 sh -c '! kill -0 "$1" 2>/dev/null' sh $pid; then
	wait $pid
	rc=$?
else
	kill -9 $pid
	wait $pid 2>/dev/null
	rc=timeout
fi
sed 's/^/# silent: /' "$T/silent.err"
jp_expect silent_fails [ "$rc" = 1 ]
jp_expect silent_says_why grep -q "four.bin: the server did not answer within 2 s (--timeout)" "$T/silent.err"

# --- the twin of both: a healthy server within --timeout 3
serve plain
stage timely "$URL/four.bin" "$T/out/timely.bin" --timeout 3
jp_expect timely_exits_0 [ "$rc" = 0 ]
jp_expect timely_identical cmp -s "$T/www/four.bin" "$T/out/timely.bin"
jp_done
