#!/bin/sh
# jobprep stage URL DEST (issue 14) against lighttpd on loopback: a
# download killed (-9) mid-body is resumed by the next run with a Range
# request (the access log shows it, answered 206) and ends identical, and
# so is one whose server dropped the connection mid-body (lighttpd killed
# -9: the run fails with exit 1, no final file); a file
# changed on the server between the attempts makes the If-Range request
# come back whole (200) and the result is the new file; --sha256 accepts
# the right digest and refuses a wrong one (nothing left); a .tar.gz URL is
# unpacked into DEST; JOBPREP_HTTP_TOKEN is sent as a bearer to the host
# named and not to the host a redirect names, and never printed; the
# same for a token written in the URL (user:TOKEN@host).
set -u
: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/filesrv.sh"
command -v lighttpd >/dev/null 2>&1 || jp_skip_all "lighttpd is not installed"
jp_scratch stage-http stop
unset JOBPREP_HTTP_TOKEN
mkdir -p "$T/www" "$T/tree/子 dir" "$T/out"
head -c 3000000 /dev/urandom >"$T/www/big file.bin"
head -c 2000000 /dev/urandom >"$T/www/changes.bin"
printf 'hello\n' >"$T/tree/子 dir/a.txt"
head -c 100000 /dev/urandom >"$T/tree/b.bin"
(cd "$T/tree" && tar czf "$T/www/data.tar.gz" .) || exit 99
# lighttpd sends no validator for a file changed in the current second
touch -d '1 hour ago' "$T/www/big file.bin" "$T/www/changes.bin"
PORT=$(jp_free_port) || exit 99
PORT2=$(jp_free_port) || exit 99

# start KBPS: lighttpd on $PORT (throttled to KBPS KiB/s per connection
# when KBPS > 0) and 127.0.0.2:$PORT2, with access logs
start() {
	JP_FILESRV_MODULES='"mod_redirect",' jp_filesrv_start "$T" "$PORT" "$1" "$(cat <<C
url.redirect = ( "^/moved/(.*)\$" => "http://127.0.0.2:$PORT2/\$1" )
\$SERVER["socket"] == "127.0.0.2:$PORT2" {
	accesslog.filename = "$T/access2.log"
}
C
)"
}
stop() { jp_filesrv_stop "$T"; }
URL=http://127.0.0.1:$PORT
# flush: lighttpd writes its access logs out when it stops
flush() {
	stop
	start 0 || exit 99
}

# killed NAME DEST: `jobprep stage` of NAME from the throttled server,
# killed -9 once its temporary holds some bytes; sets PARTIAL (its size)
killed() {
	stop
	start 100 || exit 99
	(
		trap - EXIT
		exec "$J" stage --progress "$URL/$1" "$2" 2>"$T/killed.err"
	) &
	pid=$!
	part="$(dirname "$2")/.jobprep-tmp-$(basename "$2")"
	_w=0
	while [ $_w -lt 200 ] && [ "$(stat -c %s "$part" 2>/dev/null || echo 0)" -lt 200000 ]; do
		sleep 0.05
		_w=$((_w + 1))
	done
	kill -9 $pid
	wait $pid 2>/dev/null
	PARTIAL=$(stat -c %s "$part" 2>/dev/null || echo 0)
	stop
	start 0 || exit 99
}

# --- killed mid-body, then resumed
D="$T/out/big file.bin"
killed "big%20file.bin" "$D"
echo "# killed after $PARTIAL bytes"
jp_expect killed_mid_body sh -c '[ "$1" -gt 0 ] && [ "$1" -lt 3000000 ]' sh "$PARTIAL"
jp_expect killed_leaves_no_final_file [ ! -e "$D" ]
: >"$T/access.log"
"$J" stage --json "$URL/big%20file.bin" "$D" >"$T/resume.json" 2>"$T/resume.err"
rc=$?
flush
sed 's/^/# /' "$T/access.log"
jp_expect resume_exits_0 [ "$rc" = 0 ]
jp_expect resume_identical cmp -s "$T/www/big file.bin" "$D"
jp_expect resume_asked_for_the_rest grep -q "range=bytes=$PARTIAL- .* 206\|\" 206 range=bytes=$PARTIAL-" "$T/access.log"
jp_expect resume_sent_if_range grep -q 'if-range=[\\]*"[0-9]' "$T/access.log"
jp_expect resume_received_only_the_rest [ "$(jp_json_get "$T/resume.json" bytes_written)" = $((3000000 - PARTIAL)) ]
jp_expect resume_leaves_no_temporary jp_no_temporaries "$T/out"

# --- the server drops the connection mid-body (killed -9): a clear
# failure, no final file, the part kept; the next run asks for the rest
stop
start 100 || exit 99
D="$T/out/dropped.bin"
part="$T/out/.jobprep-tmp-dropped.bin"
(
	trap - EXIT
	exec "$J" stage --no-progress "$URL/big%20file.bin" "$D" >"$T/drop.out" 2>"$T/drop.err"
) &
pid=$!
_w=0
while [ $_w -lt 200 ] && [ "$(stat -c %s "$part" 2>/dev/null || echo 0)" -lt 200000 ]; do
	sleep 0.05
	_w=$((_w + 1))
done
kill -9 "$(cat "$T/httpd.pid")"
jp_wait_exit $pid 60
DROPPED=$(stat -c %s "$part" 2>/dev/null || echo 0)
echo "# the server dropped the connection after $DROPPED bytes: $(cat "$T/drop.err")"
stop
jp_expect dropped_mid_body sh -c '[ "$1" -gt 0 ] && [ "$1" -lt 3000000 ]' sh "$DROPPED"
jp_expect dropped_exits_1 [ "$JP_RC" = 1 ]
jp_expect dropped_says_so grep -q 'download failed' "$T/drop.err"
jp_expect dropped_leaves_no_final_file [ ! -e "$D" ]
start 0 || exit 99
: >"$T/access.log"
"$J" stage --json "$URL/big%20file.bin" "$D" >"$T/drop2.json" 2>"$T/drop2.err"
rc=$?
flush
jp_expect after_drop_exits_0 [ "$rc" = 0 ]
jp_expect after_drop_identical cmp -s "$T/www/big file.bin" "$D"
jp_expect after_drop_asked_for_a_range grep -q '206 range=bytes=[1-9]' "$T/access.log"
jp_expect after_drop_received_less_than_the_whole [ "$(jp_json_get "$T/drop2.json" bytes_written)" -lt 3000000 ]
jp_expect after_drop_leaves_no_temporary jp_no_temporaries "$T/out"

# --- changed between the attempts: If-Range answers 200, from zero
D="$T/out/changes.bin"
killed changes.bin "$D"
jp_expect changed_killed_mid_body sh -c '[ "$1" -gt 0 ] && [ "$1" -lt 2000000 ]' sh "$PARTIAL"
head -c 2100000 /dev/urandom >"$T/www/changes.bin"
touch -d '30 minutes ago' "$T/www/changes.bin" # a new mtime: a new ETag
: >"$T/access.log"
"$J" stage --json "$URL/changes.bin" "$D" >"$T/changed.json" 2>"$T/changed.err"
rc=$?
flush
sed 's/^/# /' "$T/access.log"
jp_expect changed_exits_0 [ "$rc" = 0 ]
jp_expect changed_is_the_new_file cmp -s "$T/www/changes.bin" "$D"
jp_expect changed_range_answered_whole grep -q "\" 200 range=bytes=$PARTIAL-" "$T/access.log"
jp_expect changed_restarted_from_zero [ "$(jp_json_get "$T/changed.json" bytes_written)" = 2100000 ]
jp_expect changed_leaves_no_temporary jp_no_temporaries "$T/out"

# --- --sha256
sum=$(sha256sum "$T/www/big file.bin" | cut -d' ' -f1)
mkdir "$T/sha"
"$J" stage --sha256 "$sum" "$URL/big%20file.bin" "$T/sha" >/dev/null 2>&1
jp_expect sha256_right_accepted cmp -s "$T/www/big file.bin" "$T/sha/big file.bin"
mkdir "$T/sha-bad"
"$J" stage --sha256 "$(printf '%064d' 0)" "$URL/big%20file.bin" "$T/sha-bad" >/dev/null 2>"$T/sha.err"
rc=$?
jp_expect sha256_wrong_fails [ "$rc" = 1 ]
jp_expect sha256_wrong_says_so grep -q "SHA-256 is $sum" "$T/sha.err"
jp_expect sha256_wrong_leaves_nothing jp_dir_empty "$T/sha-bad"

# --- an archive URL is unpacked into DEST
"$J" stage "$URL/data.tar.gz" "$T/out/数据" >/dev/null 2>"$T/ar.err"
rc=$?
jp_expect archive_url_exits_0 [ "$rc" = 0 ]
jp_expect archive_url_unpacked diff -r "$T/tree" "$T/out/数据"
jp_expect archive_url_leaves_no_temporary jp_no_temporaries "$T/out"

# --- the token: to the host named, not to the host a redirect names
: >"$T/access.log"
: >"$T/access2.log"
mkdir "$T/tok"
JOBPREP_HTTP_TOKEN=tok-s3cret-123 "$J" stage "$URL/moved/changes.bin" "$T/tok" >"$T/tok.out" 2>"$T/tok.err"
rc=$?
flush
jp_expect redirect_exits_0 [ "$rc" = 0 ]
jp_expect redirect_followed cmp -s "$T/www/changes.bin" "$T/tok/changes.bin"
jp_expect token_sent_to_the_host_named grep -q 'authorization=Bearer tok-s3cret-123' "$T/access.log"
jp_expect token_not_sent_to_the_other_host sh -c '[ -s "$1" ] && ! grep -q "tok-s3cret" "$1"' sh "$T/access2.log"
jp_expect token_never_printed jp_no_text "tok-s3cret" "$T/tok.out" "$T/tok.err"

# --- a token written in the URL: to the host named, not to the host a
# redirect names (libcurl's user:password is not carried to another host)
: >"$T/access.log"
: >"$T/access2.log"
mkdir "$T/tok2"
"$J" stage "http://me:tok-inurl-456@127.0.0.1:$PORT/moved/changes.bin" "$T/tok2" >"$T/tok2.out" 2>"$T/tok2.err"
rc=$?
flush
jp_expect url_token_redirect_exits_0 [ "$rc" = 0 ]
jp_expect url_token_redirect_followed cmp -s "$T/www/changes.bin" "$T/tok2/changes.bin"
jp_expect url_token_sent_to_the_host_named grep -q "authorization=Basic $(printf 'me:tok-inurl-456' | base64)" "$T/access.log"
jp_expect url_token_not_sent_to_the_other_host sh -c '[ -s "$1" ] && ! grep -q "authorization=Basic" "$1"' sh "$T/access2.log"
jp_expect url_token_never_printed jp_no_text "tok-inurl" "$T/tok2.out" "$T/tok2.err"

# --- a server that is not there
"$J" stage "http://127.0.0.1:$(jp_free_port)/x.bin" "$T/out" >/dev/null 2>"$T/down.err"
jp_expect dead_server_fails [ $? = 1 ]
jp_expect dead_server_says_so grep -q 'download failed' "$T/down.err"
jp_done
