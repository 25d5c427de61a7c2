#!/bin/sh
# jobprep stage's progress line (issue 22), as rsync --info=progress2 and
# rclone show it: bytes done of their total, the percentage by bytes, the
# rate and the time to go. A download from lighttpd on loopback, throttled
# (one connection for a small file, four ranges for a large one), shows
# bytes arriving ("X of TOTAL (P%)" with 0 < P < 100, never "0/TOTAL
# (0%)"); every line's figures are right (P is X/TOTAL, the time to go is
# what is left at the rate shown, the rate is what the lines' own times
# and bytes show over the last few seconds, the bytes never go back) and
# the total is the file's size. A copy counts bytes of the whole tree's too, the files found
# complete included, and ends at "TOTAL of TOTAL (100%)" with its entries.
# A stage into an ephemeral or local destination warns first (pathclass's
# words, as scan's) and its progress no longer says "shared storage";
# onto shared storage, no warning.
set -u
: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/filesrv.sh"
command -v lighttpd >/dev/null 2>&1 || jp_skip_all "lighttpd is not installed"
jp_scratch stage-progress stop
unset JOBPREP_HTTP_TOKEN
mkdir -p "$T/www" "$T/shared" "$T/eph" "$T/local" "$T/tree/sub"
printf '{"sandbox": true, "shared_roots": ["%s"], "ephemeral_roots": ["%s"]}\n' "$T/shared" "$T/eph" >"$T/profile.json"
JOBPREP_PROFILE=$T/profile.json
export JOBPREP_PROFILE
small=3000000
large=$((24 * 1048576))
head -c $small /dev/urandom >"$T/www/small.bin"
head -c $large /dev/urandom >"$T/www/large.bin"
touch -d '1 hour ago' "$T/www/small.bin" "$T/www/large.bin"
head -c 8000000 /dev/urandom >"$T/tree/big.bin"
head -c 3000000 /dev/urandom >"$T/tree/sub/mid.bin"
for i in 1 2 3 4 5 6 7 8 9; do printf 'file %s\n' "$i" >"$T/tree/sub/f$i.txt"; done
PORT=$(jp_free_port) || exit 99
URL=http://127.0.0.1:$PORT
KBPS=600
stop() { jp_filesrv_stop "$T"; }
jp_filesrv_start "$T" "$PORT" $KBPS || exit 99

# human BYTES: as jobprep shows a size (units.c)
human() {
	python3 -c '
import sys
n = int(sys.argv[1])
u = [k for k, v in (("KiB", 1), ("MiB", 2), ("GiB", 3)) if n >= 1024 ** v]
print("%d B" % n if not u else "%.1f %s" % (n / 1024 ** (len(u)), u[-1]))' "$1"
}

# stamped FILE CMD...: CMD's progress (stderr, --progress), each line with
# the time it came (s), into FILE; CMD's exit status into FILE.rc
stamped() {
	_f=$1
	shift
	{
		"$@" 2>&1 >/dev/null
		echo $? >"$_f.rc"
	} | python3 -c '
import os, sys, time
out, buf, t0 = open(sys.argv[1], "w"), b"", time.monotonic()
while True:
    chunk = os.read(0, 65536)
    if not chunk:
        break
    buf += chunk
    *done, buf = buf.split(b"\r")
    for l in done:
        l = l.replace(b"\x1b[K", b"").decode()
        if l.strip():
            out.write("%.3f\t%s\n" % (time.monotonic() - t0, l))
    out.flush()
' "$_f"
}

# figures FILE PHASE TOTAL: every "PHASE: X of T (P%), R/s, ETA E" line of
# a stamped FILE holds together: T is TOTAL as shown, P is X/T, E is what
# is left at the rate R, R the rate the lines' own times and bytes show
# over the last 2 to 4.5 s, X never going back. Prints the lines mid-way
# (0 < P < 100).
figures() {
	python3 -c '
import re, sys
lines = [l.rstrip("\n").split("\t", 1) for l in open(sys.argv[1])]
phase, total = sys.argv[2], int(sys.argv[3])
units = {"B": 1, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3}
size = r"([0-9.]+) (B|KiB|MiB|GiB)"
line_re = re.compile("^" + re.escape(phase) + ": " + size + " of " + size +
    r" \((\d+)%\)(?:, " + size + r"/s)?(?:, ETA (?:(\d+)m)?(\d+)s)?(?:, (\d+)/(\d+))?$")
def shown(n):
    u = [k for k, v in (("KiB", 1), ("MiB", 2), ("GiB", 3)) if n >= 1024 ** v]
    return "%d B" % n if not u else "%.1f %s" % (n / 1024 ** len(u), u[-1])
def bad(why, l):
    print("bad line: %s: %r" % (why, l)); sys.exit(1)
seen, mid, last = [], 0, -1
for t, l in lines:
    if not l.startswith(phase + ":") or " of " not in l:
        continue
    m = line_re.match(l)
    if not m: bad("not X of T (P%), rate, ETA", l)
    g, t = m.groups(), float(t)
    done = float(g[0]) * units[g[1]]
    tot = float(g[2]) * units[g[3]]
    slack = 0.05 * units[g[1]] + 0.05 * units[g[3]]
    if "%s %s" % (g[2], g[3]) != shown(total): bad("total is not " + shown(total), l)
    p = int(g[4])
    if abs(p - 100 * done / tot) > 1 + 100 * slack / tot: bad("percent is not X/T", l)
    if done + slack < last: bad("went back", l)
    last = max(last, done)
    mid += 0 < p < 100
    seen.append((t, done))
    if not g[5]:
        continue
    rate = float(g[5]) * units[g[6]]
    # what the lines show: bytes over the last 2 to 4.5 s
    w = [(done - d) / (t - s) for s, d in seen if 2 <= t - s <= 4.5]
    if w and not (0.6 * min(w) - slack <= rate <= 1.4 * max(w) + slack):
        bad("rate is not the last seconds of bytes (%.0f to %.0f)" % (min(w), max(w)), l)
    if g[8]:
        eta = int(g[7] or 0) * 60 + int(g[8])
        want = (tot - done) / rate
        if abs(eta - want) > 1 + 0.1 * want + slack / rate: bad("ETA is not (T - X) / rate = %.1f" % want, l)
if not seen: bad("no progress line", "")
print(mid)
' "$1" "$2" "$3"
}

# --- one connection (small), throttled
stamped "$T/small.err" "$J" stage --progress "$URL/small.bin" "$T/shared/small.bin"
head -5 "$T/small.err" | sed 's/^/# /'
jp_expect small_exits_0 [ "$(cat "$T/small.err.rc")" = 0 ]
mid=$(figures "$T/small.err" downloading $small)
echo "# lines mid-way: $mid"
jp_expect small_figures_hold_together [ "${mid:-0}" -gt 0 ]
jp_expect small_never_0_of_total jp_no_text "0/$small (0%)" "$T/small.err"
jp_expect small_shows_a_rate grep -q '/s' "$T/small.err"
jp_expect small_shows_the_time_to_go grep -q 'ETA [0-9]' "$T/small.err"
jp_expect small_no_warning_onto_shared jp_no_text "warning" "$T/small.err"

# --- four ranges (large), throttled each
stamped "$T/large.err" "$J" stage --progress "$URL/large.bin" "$T/shared/large.bin"
sed -n '3p;$p' "$T/large.err" | sed 's/^/# /'
jp_expect large_exits_0 [ "$(cat "$T/large.err.rc")" = 0 ]
mid=$(figures "$T/large.err" downloading $large)
echo "# lines mid-way: $mid"
jp_expect large_figures_hold_together [ "${mid:-0}" -gt 0 ]

# --- a copy: bytes of the whole tree, then again (one file missing, the
# rest found complete: their bytes count too)
tree=$(find "$T/tree" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')
entries=$(find "$T/tree" -mindepth 1 | wc -l)
stamped "$T/copy.err" "$J" stage --progress "$T/tree" "$T/shared/tree"
tail -1 "$T/copy.err" | sed 's/^/# /'
jp_expect copy_exits_0 [ "$(cat "$T/copy.err.rc")" = 0 ]
jp_expect copy_figures_hold_together figures "$T/copy.err" copying "$tree"
jp_expect copy_ends_at_its_total grep -q "	copying: $(human "$tree") of $(human "$tree") (100%).*, $entries/$entries\$" "$T/copy.err"
rm "$T/shared/tree/big.bin"
stamped "$T/again.err" "$J" stage --progress "$T/tree" "$T/shared/tree"
tail -1 "$T/again.err" | sed 's/^/# /'
jp_expect again_counts_complete_files grep -q "	copying: $(human "$tree") of $(human "$tree") (100%)" "$T/again.err"
jp_expect copy_says_no_shared_storage jp_no_text "shared storage" "$T/copy.err" "$T/again.err"

# --- onto an ephemeral destination: a warning first, in scan's words
"$J" stage "$T/tree" "$T/eph/tree" >"$T/eph.out" 2>"$T/eph.err"
rc=$?
sed 's/^/# /' "$T/eph.err"
jp_expect ephemeral_exits_0 [ "$rc" = 0 ]
jp_expect ephemeral_is_staged diff -r "$T/tree" "$T/eph/tree"
jp_expect ephemeral_warns grep -q "^jobprep stage: warning: $T/eph/tree is not on shared storage: ephemeral: " "$T/eph.err"
"$J" scan "$T/eph/tree" >"$T/scan.out" 2>/dev/null
reason=$(sed -n 's/^  ephemeral: //p' "$T/scan.out")
jp_expect ephemeral_in_scans_words grep -qF "ephemeral: $reason" "$T/eph.err"
"$J" stage "$URL/small.bin" "$T/eph/" >/dev/null 2>"$T/eph2.err"
jp_expect ephemeral_url_warns grep -q "warning: $T/eph/ is not on shared storage: ephemeral" "$T/eph2.err"

# --- where the profile says nothing: the mount table's class (a disk:
# local; a tmpfs: ephemeral), as scan says it
"$J" stage "$T/tree/sub/f1.txt" "$T/local/f1.txt" >/dev/null 2>"$T/local.err"
sed 's/^/# /' "$T/local.err"
"$J" scan "$T/local" >"$T/scan2.out" 2>/dev/null
cls=$(sed -n 's/^  \([a-z]*\): .*/\1/p' "$T/scan2.out" | head -1)
if [ "$cls" = local ] || [ "$cls" = ephemeral ]; then
	jp_expect unlisted_warns grep -q "warning: $T/local/f1.txt is not on shared storage: $cls: " "$T/local.err"
else
	jp_skip unlisted_warns "$T/local is $cls storage here"
fi
jp_expect unlisted_is_staged cmp -s "$T/tree/sub/f1.txt" "$T/local/f1.txt"
jp_done
