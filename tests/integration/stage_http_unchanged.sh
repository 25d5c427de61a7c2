#!/bin/sh
# jobprep stage URL DEST run again (issue 22), against lighttpd on loopback
# (it sends ETag and Last-Modified): a file there already, complete, that
# the server says is unchanged is not downloaded again, as wget -N and
# rclone copy do (the HEAD's size and Last-Modified are the file's; the
# access log shows no GET, and few bytes sent), for a large file (ranges)
# and a small one; reported as already complete; with --sha256 only when
# its digest is the one asked for. A file changed on the
# server, a file there that was touched or cut, and --verify download it
# again, and so is another file of the same size and time whose ETag is
# not the one the copy kept (an extended attribute). A server that refuses
# HEAD is asked If-Modified-Since and If-None-Match, and its 304 believed. DEST/ with a trailing '/' is a folder (rsync, wget -P):
# made when missing, the file goes into it; the same for a local file.
set -u
: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/filesrv.sh"
command -v lighttpd >/dev/null 2>&1 || jp_skip_all "lighttpd is not installed"
jp_scratch stage-unchanged stop
unset JOBPREP_HTTP_TOKEN
big=$((20 * 1048576 + 7))
mkdir -p "$T/www" "$T/out"
head -c $big /dev/urandom >"$T/www/large.bin"
head -c 300000 /dev/urandom >"$T/www/small.bin"
# lighttpd sends no validator for a file changed in the current second
touch -d '1 hour ago' "$T/www/large.bin" "$T/www/small.bin"
PORT=$(jp_free_port) || exit 99
URL=http://127.0.0.1:$PORT
# lighttpd on $PORT, its files looked at anew for each request (no stat
# cache: a file changed meanwhile is seen), HEAD refused (403) when NOHEAD
start() {
	_extra='server.stat-cache-engine = "disable"'
	[ -n "${NOHEAD:-}" ] && _extra="$_extra
\$HTTP[\"request-method\"] == \"HEAD\" { url.access-deny = ( \"\" ) }"
	JP_FILESRV_MODULES='"mod_access",' jp_filesrv_start "$T" "$PORT" 0 "$_extra"
}
stop() { jp_filesrv_stop "$T"; }
# again: lighttpd writes its access log out when it stops; started again
# on a port free now (the machine is shared: the last may be taken)
again() {
	stop
	PORT=$(jp_free_port) || exit 99
	URL=http://127.0.0.1:$PORT
	start || exit 99
}
start || exit 99

# sent: the bytes the server sent for the access log's GETs
sent() { awk '/"GET / { for (i = 1; i <= NF; i++) if ($i ~ /^sent=/) s += substr($i, 6) } END { print s + 0 }' "$T/access.log"; }
gets() { grep -c '"GET ' "$T/access.log"; }

# --- large (ranges), then again: not downloaded again
D="$T/out/large.bin"
"$J" stage --json "$URL/large.bin" "$D" >"$T/first.json" 2>"$T/first.err"
rc=$?
jp_expect large_first_exits_0 [ "$rc" = 0 ]
jp_expect large_first_identical cmp -s "$T/www/large.bin" "$D"
again
: >"$T/access.log"
"$J" stage --json "$URL/large.bin" "$D" >"$T/second.json" 2>"$T/second.err"
rc=$?
again
sed 's/^/# /' "$T/access.log"
echo "# second run: $(gets) GETs, $(sent) bytes sent"
jp_expect large_second_exits_0 [ "$rc" = 0 ]
jp_expect large_second_no_get [ "$(gets)" = 0 ]
jp_expect large_second_sent_little [ "$(sent)" -lt 10000 ]
jp_expect large_second_already_complete [ "$(jp_json_get "$T/second.json" skipped)" = 1 ]
jp_expect large_second_wrote_nothing [ "$(jp_json_get "$T/second.json" bytes_written)" = 0 ]
jp_expect large_second_counts_its_bytes [ "$(jp_json_get "$T/second.json" bytes_skipped)" = $big ]
jp_expect large_still_identical cmp -s "$T/www/large.bin" "$D"
jp_expect large_leaves_no_temporary jp_no_temporaries "$T/out"

# --- --sha256: the file there is read; its digest right, not again; a
# digest it has not: downloaded again, refused, the file there kept
sum=$(sha256sum "$T/www/large.bin" | cut -d' ' -f1)
: >"$T/access.log"
"$J" stage --json --sha256 "$sum" "$URL/large.bin" "$D" >"$T/sha.json" 2>"$T/sha.err"
rc=$?
again
jp_expect sha256_right_exits_0 [ "$rc" = 0 ]
jp_expect sha256_right_not_again [ "$(gets)" = 0 ]
jp_expect sha256_right_already_complete [ "$(jp_json_get "$T/sha.json" skipped)" = 1 ]
"$J" stage --sha256 "$(printf '%064d' 0)" "$URL/large.bin" "$D" >/dev/null 2>"$T/sha-bad.err"
rc=$?
jp_expect sha256_wrong_fails [ "$rc" = 1 ]
jp_expect sha256_wrong_says_so grep -q "SHA-256 is $sum" "$T/sha-bad.err"
jp_expect sha256_wrong_keeps_the_file cmp -s "$T/www/large.bin" "$D"

# --- --verify: the bytes are read, so downloaded again
: >"$T/access.log"
"$J" stage --json --verify "$URL/large.bin" "$D" >"$T/verify.json" 2>"$T/verify.err"
rc=$?
again
jp_expect verify_exits_0 [ "$rc" = 0 ]
jp_expect verify_downloads_again [ "$(jp_json_get "$T/verify.json" bytes_written)" = $big ]

# --- small (one connection), twice
D="$T/out/small.bin"
"$J" stage "$URL/small.bin" "$D" >/dev/null 2>&1
again
: >"$T/access.log"
"$J" stage --json "$URL/small.bin" "$D" >"$T/small.json" 2>"$T/small.err"
rc=$?
again
jp_expect small_second_exits_0 [ "$rc" = 0 ]
jp_expect small_second_no_get [ "$(gets)" = 0 ]
jp_expect small_second_already_complete [ "$(jp_json_get "$T/small.json" skipped)" = 1 ]

# --- the copy there touched (another time), or cut: downloaded again
touch "$D"
"$J" stage --json "$URL/small.bin" "$D" >"$T/touched.json" 2>/dev/null
jp_expect touched_downloads_again [ "$(jp_json_get "$T/touched.json" bytes_written)" = 300000 ]
truncate -s 1000 "$D"
touch -r "$T/www/small.bin" "$D"
"$J" stage --json "$URL/small.bin" "$D" >"$T/cut.json" 2>/dev/null
jp_expect cut_downloads_again [ "$(jp_json_get "$T/cut.json" bytes_written)" = 300000 ]
jp_expect cut_made_whole cmp -s "$T/www/small.bin" "$D"

# --- another file of the same size and time (within the second): its
# ETag is another (lighttpd's: inode, size, time), which the copy kept
if python3 -c 'import os, sys; os.getxattr(sys.argv[1], "user.jobprep.etag")' "$D" 2>/dev/null; then
	cp "$T/www/small.bin" "$T/small.old"
	head -c 300000 /dev/urandom >"$T/www/small.new"
	touch -r "$T/www/small.bin" "$T/www/small.new"
	mv "$T/www/small.new" "$T/www/small.bin"
	"$J" stage --json "$URL/small.bin" "$D" >"$T/same.json" 2>/dev/null
	jp_expect same_size_and_time_other_etag_downloads_again cmp -s "$T/www/small.bin" "$D"
else
	jp_skip same_size_and_time_other_etag_downloads_again "no extended attributes on $T"
fi

# --- changed on the server: downloaded again, the new file
head -c 310000 /dev/urandom >"$T/www/small.bin"
touch -d '30 minutes ago' "$T/www/small.bin"
"$J" stage --json "$URL/small.bin" "$D" >"$T/changed.json" 2>/dev/null
jp_expect changed_downloads_again [ "$(jp_json_get "$T/changed.json" bytes_written)" = 310000 ]
jp_expect changed_is_the_new_file cmp -s "$T/www/small.bin" "$D"

# --- HEAD refused: If-Modified-Since, and a 304
NOHEAD=1
again
: >"$T/access.log"
"$J" stage --json "$URL/small.bin" "$D" >"$T/ims.json" 2>"$T/ims.err"
rc=$?
again
sed 's/^/# /' "$T/access.log"
jp_expect nohead_exits_0 [ "$rc" = 0 ]
jp_expect nohead_head_refused grep -q '"HEAD /small.bin HTTP/1.1" 403' "$T/access.log"
jp_expect nohead_asked_if_modified_since grep -q '"GET /small.bin HTTP/1.1" 304 .*if-modified-since=[A-Z]' "$T/access.log"
if python3 -c 'import os, sys; os.getxattr(sys.argv[1], "user.jobprep.etag")' "$D" 2>/dev/null; then
	jp_expect nohead_asked_if_none_match grep -q '"GET /small.bin HTTP/1.1" 304 .*if-none-match=[\]*"' "$T/access.log"
else
	jp_skip nohead_asked_if_none_match "no extended attributes on $T"
fi
jp_expect nohead_already_complete [ "$(jp_json_get "$T/ims.json" skipped)" = 1 ]
jp_expect nohead_still_the_file cmp -s "$T/www/small.bin" "$D"
NOHEAD=
again

# --- DEST/ names a folder: made, the file goes into it
"$J" stage --json "$URL/small.bin" "$T/out/dl/" >"$T/slash.json" 2>"$T/slash.err"
rc=$?
jp_expect slash_exits_0 [ "$rc" = 0 ]
jp_expect slash_makes_the_folder [ -d "$T/out/dl" ]
jp_expect slash_file_inside cmp -s "$T/www/small.bin" "$T/out/dl/small.bin"
jp_expect slash_reports_the_file [ "$(jp_json_get "$T/slash.json" dest)" = "$T/out/dl/small.bin" ]
jp_expect slash_leaves_no_temporary jp_no_temporaries "$T/out/dl"
"$J" stage "$T/www/large.bin" "$T/out/deep/er/" >/dev/null 2>"$T/slash2.err"
rc=$?
jp_expect local_slash_exits_0 [ "$rc" = 0 ]
jp_expect local_slash_file_inside cmp -s "$T/www/large.bin" "$T/out/deep/er/large.bin"
jp_done
