#!/bin/sh
# jobprep stage URL DEST onto a tiny filesystem (issue 30, point 6): a
# tmpfs of the test's own in a private mount namespace, served by
# tests/lib/odd_server.py on loopback (the same inside the namespace):
#   huge     a server announcing 5 GiB onto 16 MiB: refused before a byte
#            is written, saying what it needs; nothing left there
#   fits     its twin, 2 MiB: staged, identical
#   unsized  a server that announces no size (no Content-Length), 24 MiB
#            onto 16 MiB: ENOSPC mid-way, exit 1, and what it wrote is
#            removed (the filesystem as empty as before)
#   reserve  the profile's stage_reserve_bytes is what is kept free: 15 MiB
#            refuses the 2 MiB file that fits by default, saying so; 0 lets
#            a file of 16 MiB less 100 KiB in, which the default 1% refuses
# Needs root.
set -u
: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
if why=$(jp_mountns_unavailable); then
	jp_skip_all "$why"
fi
jp_scratch stage-room 'for p in ${SRV_PIDS:-}; do kill $p 2>/dev/null; done'
unset JOBPREP_HTTP_TOKEN
mkdir -p "$T/plain/www" "$T/unsized/www" "$T/mnt" || exit 99
truncate -s 5G "$T/plain/www/huge.bin" || exit 99
head -c 2097152 /dev/urandom >"$T/plain/www/small.bin"
head -c $((16 * 1048576 - 102400)) /dev/urandom >"$T/plain/www/brim.bin"
head -c $((24 * 1048576)) /dev/urandom >"$T/unsized/www/big.bin"
touch -d "@$(($(date +%s) - 3600))" "$T/plain/www/huge.bin" "$T/plain/www/small.bin" \
	"$T/plain/www/brim.bin" "$T/unsized/www/big.bin"
for r in 0 15728640; do
	printf '{ "shared_roots": ["%s"], "stage_reserve_bytes": %s }\n' "$T/mnt" $r >"$T/reserve-$r.json"
done
SRV_PIDS=
# serve DIR MODE: odd_server.py over DIR/www; its URL in SRV_URL
serve() {
	_p=$(jp_free_port) || exit 99
	python3 "$TOP_SRCDIR/tests/lib/odd_server.py" "$1/www" "$_p" "$2" &
	SRV_PIDS="$SRV_PIDS $!"
	jp_poll 100 test -s "$1/server.up" || exit 99
	jp_poll 50 jp_listening "$_p" || exit 99
	SRV_URL=http://127.0.0.1:$_p
}
serve "$T/plain" plain
PLAIN=$SRV_URL
serve "$T/unsized" nolength
UNSIZED=$SRV_URL
export PLAIN UNSIZED T

cat >"$T/inner.sh" <<'IN'
set -u
. "$TOP_SRCDIR/tests/lib/report.sh"
mount -t tmpfs -o size=16m,mode=755 jp-stage-room "$T/mnt" || exit 99
used() { df -k --output=used "$T/mnt" | tail -1 | tr -d ' '; }
before=$(used)

"$JOBPREP" stage --no-progress "$PLAIN/small.bin" "$T/mnt/small.bin" >/dev/null 2>"$T/small.err"
rc=$?
jp_expect fits_exits_0 [ "$rc" = 0 ]
jp_expect fits_identical cmp -s "$T/plain/www/small.bin" "$T/mnt/small.bin"
rm -f "$T/mnt/small.bin"

"$JOBPREP" stage --no-progress "$PLAIN/huge.bin" "$T/mnt/huge.bin" >/dev/null 2>"$T/huge.err"
rc=$?
sed 's/^/# huge: /' "$T/huge.err"
jp_expect huge_exits_1 [ "$rc" = 1 ]
jp_expect huge_says_what_it_needs grep -qF "$T/mnt/huge.bin: not enough room for the download: it needs 5.0 GiB more" "$T/huge.err"
jp_expect huge_wrote_nothing sh -c '[ -z "$(ls -A "$1")" ]' sh "$T/mnt"

# each case on its own: what an earlier one left goes
find "$T/mnt" -mindepth 1 -delete
before=$(used)
"$JOBPREP" stage --no-progress "$UNSIZED/big.bin" "$T/mnt/big.bin" >/dev/null 2>"$T/unsized.err"
rc=$?
sed 's/^/# unsized: /' "$T/unsized.err"
jp_expect unsized_exits_1 [ "$rc" = 1 ]
jp_expect unsized_says_no_space grep -q "No space left on device" "$T/unsized.err"
jp_expect unsized_removed_what_it_wrote sh -c '[ -d "$1" ] && [ -z "$(ls -A "$1")" ]' sh "$T/mnt"
jp_expect unsized_space_given_back [ "$(used)" -le "$((before + 64))" ]

# --- the profile's reserve, both ways
# staged NAME PROFILE FILE: jobprep stage of $PLAIN/FILE into the mount
# under PROFILE (- the built-in one); its exit in rc, its stderr NAME.err
staged() {
	if [ "$2" = - ]; then
		"$JOBPREP" stage --no-progress "$PLAIN/$3" "$T/mnt/$3" >/dev/null 2>"$T/$1.err"
	else
		JOBPREP_PROFILE=$2 "$JOBPREP" stage --no-progress "$PLAIN/$3" "$T/mnt/$3" >/dev/null 2>"$T/$1.err"
	fi
	rc=$?
	sed "s/^/# $1: /" "$T/$1.err"
}
find "$T/mnt" -mindepth 1 -delete
staged reserve-big "$T/reserve-15728640.json" small.bin
jp_expect reserve_big_refuses_what_fits_by_default [ "$rc" = 1 ]
jp_expect reserve_big_names_the_profiles_reserve grep -qF "(the profile keeps 15.0 MiB free: stage_reserve_bytes)" "$T/reserve-big.err"
jp_expect reserve_big_wrote_nothing sh -c '[ -d "$1" ] && [ -z "$(ls -A "$1")" ]' sh "$T/mnt"
staged brim-default - brim.bin
jp_expect brim_refused_by_the_default_reserve [ "$rc" = 1 ]
jp_expect brim_default_says_one_percent grep -qF "(1% of the filesystem, at most 1 GiB, is kept free)" "$T/brim-default.err"
staged brim-zero "$T/reserve-0.json" brim.bin
jp_expect brim_staged_with_no_reserve [ "$rc" = 0 ]
jp_expect brim_identical cmp -s "$T/plain/www/brim.bin" "$T/mnt/brim.bin"
umount "$T/mnt"
jp_done
IN
jp_cases_in unshare -m --propagation private sh "$T/inner.sh"
jp_done
