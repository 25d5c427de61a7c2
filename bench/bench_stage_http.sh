#!/bin/sh
# jobprep stage of URLs doing no work twice (issue 30), against lighttpd on
# loopback with its access log, to local disk:
#   1. a download of JP_BENCH_RESUME_MIB (default 1024) killed -9 once
#      about 40% of it is saved, then the next run: the bytes it fetched vs
#      what was missing (target: no more than the missing bytes), and the
#      whole file identical;
#   2. a .tar.gz of JP_BENCH_ARCH_FILES files (default 3000, 1-64 KiB)
#      staged into a folder, then staged again unchanged: the requests the
#      second run sends (target: one HEAD, no GET) and its time beside the
#      first's.
#   make bench BENCH=stage_http        # (BENCH=stage runs it too)
set -u

: "${JOBPREP:?run through make bench, or set JOBPREP}"
: "${TOP_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${TOP_BUILDDIR:=$TOP_SRCDIR}"
mib=${JP_BENCH_RESUME_MIB:-1024}
nfiles=${JP_BENCH_ARCH_FILES:-3000}
dir=${JP_BENCH_DIR:-$TOP_BUILDDIR/bench/stage-http-data}
for t in /usr/bin/time lighttpd; do
	command -v "$t" >/dev/null 2>&1 || { echo "RESULT stage_http: skipped (needs $t)"; exit 0; }
done
. "$TOP_SRCDIR/tests/lib/gitserv.sh" # jp_free_port, jp_listening, jp_reap
. "$TOP_SRCDIR/tests/lib/filesrv.sh"
BENCH_NAME=bench_stage_http BENCH_DIR=$dir
. "$TOP_SRCDIR/bench/lib.sh"

rm -rf "$dir"
mkdir -p "$dir/www" "$dir/out"
trap 'jp_filesrv_stop "$dir"; rm -rf "$dir"' EXIT
trap 'exit 130' INT TERM
port=$(jp_free_port) || exit 1
url=http://127.0.0.1:$port
# flush: lighttpd writes its access log out when it stops; then emptied
flush() {
	jp_filesrv_stop "$dir"
	cp "$dir/access.log" "$dir/access.$1"
	: >"$dir/access.log"
	jp_filesrv_start "$dir" "$port" 0 || exit 1
}

# --- 1. a download killed -9 at about 40%, then resumed
head -c $((mib * 1048576)) /dev/urandom >"$dir/www/big.bin"
python3 - "$dir/src" "$nfiles" <<'EOF' || exit 1
import os, random, sys
top, n = sys.argv[1], int(sys.argv[2])
rnd = random.Random(30)
for i in range(n):
    d = os.path.join(top, "d%03d" % (i // 100))
    if i % 100 == 0:
        os.makedirs(d)
    with open(os.path.join(d, "f%05d.bin" % i), "wb") as f:
        f.write(rnd.randbytes(int(1024 * 64 ** rnd.random())))
EOF
(cd "$dir/src" && tar czf "$dir/www/data.tar.gz" .) || exit 1
touch -d "@$(($(date +%s) - 3600))" "$dir/www/big.bin" "$dir/www/data.tar.gz"
jp_filesrv_start "$dir" "$port" 0 || exit 1
size=$(stat -c %s "$dir/www/big.bin")
state="$dir/out/.jobprep-tmp-big.bin.ranges"
"$JOBPREP" stage --no-progress "$url/big.bin" "$dir/out/big.bin" >/dev/null 2>"$dir/kill.err" &
pid=$!
saved() { awk '$1 == "seg" { s += $4 - $2 } END { print s + 0 }' "$state" 2>/dev/null || echo 0; }
w=0
while [ $w -lt 6000 ] && [ "$(saved)" -lt $((size * 2 / 5)) ] && kill -0 $pid 2>/dev/null; do
	sleep 0.01
	w=$((w + 1))
done
kill -9 $pid
wait $pid 2>/dev/null
got=$(saved)
[ "$got" -gt 0 ] && [ "$got" -lt "$size" ] || { echo "bench_stage_http: not killed mid-way ($got of $size)" >&2; exit 1; }
flush killed
bench_time "jobprep stage (resumed)" "$JOBPREP" stage --no-progress "$url/big.bin" "$dir/out/big.bin"
t_res=$secs
cmp -s "$dir/www/big.bin" "$dir/out/big.bin" || { echo "bench_stage_http: the resumed download differs" >&2; exit 1; }
flush resumed
# the bytes the server sent the resumed run (its GETs; headers too)
sent=$(awk -F'sent=' '/"GET \/big.bin/ { s += $2 } END { print s + 0 }' "$dir/access.resumed")
gets=$(grep -c '"GET /big.bin' "$dir/access.resumed")
missing=$((size - got))
echo "RESULT resumed download: $((mib)) MiB killed -9 with $got bytes saved; the next run fetched $sent bytes in $gets ranged GETs for the $missing missing ($(bench_ratio "$sent" "$missing")x; target <= 1x plus headers) in $t_res s"
rm -f "$dir/out/big.bin"

# --- 2. an archive staged, then staged again unchanged
bench_time "jobprep stage data.tar.gz" "$JOBPREP" stage --no-progress "$url/data.tar.gz" "$dir/out/data"
t_first=$secs
diff -r "$dir/src" "$dir/out/data" >/dev/null || { echo "bench_stage_http: the unpacked tree differs" >&2; exit 1; }
flush first
bench_time "jobprep stage data.tar.gz (again)" "$JOBPREP" stage --no-progress "$url/data.tar.gz" "$dir/out/data"
t_again=$secs
flush again
heads=$(grep -c '"HEAD ' "$dir/access.again")
gets=$(grep -c '"GET ' "$dir/access.again")
echo "RESULT archive re-run: $nfiles files ($(stat -c %s "$dir/www/data.tar.gz") bytes of .tar.gz): the unchanged re-run sent $heads HEAD and $gets GET (target: 1 and 0) in $t_again s; the first run $t_first s"
