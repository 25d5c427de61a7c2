# What the benchmarks (bench/bench_*.sh) share: timing a command, medians,
# ratios, and stopping an sshfs mount with its sshd. Source it after setting
# BENCH_NAME (the bench's name in messages, e.g. bench_clone):
#
#   bench_measure OUT CMD...    run CMD, its output dropped; append
#                               "wall_seconds max_rss_kib cpu_seconds" to OUT;
#                               1, with a message, when CMD fails
#   bench_median FILE [COLUMN]  the median of a column of FILE (default 1)
#   bench_ratio A B             A / B to two places ("inf" when B is 0)
#   bench_time LABEL CMD...     CMD under /usr/bin/time (its files in
#                               $BENCH_DIR): prints "LABEL S s M KiB", sets
#                               secs and kib; exits when CMD fails
#   bench_private LABEL CMD...  CMD with the most private memory of it and
#                               every process it starts
#                               (tests/lib/peak_private.py): prints "LABEL
#                               S s P KiB private", sets secs and priv;
#                               exits when CMD fails
#   bench_sshfs_stop MNT SSHD   unmount MNT (jp_sshfs_mount) and stop the
#                               sshd in SSHD (jp_sshd_start); either may be ""
#   bench_big_repo DIR SEED COMMITS [TAG=N...]
#                               a bare repository DIR made with git
#                               fast-import: 20,000 files of 4 lines, then
#                               COMMITS commits that each add a line to 1,000
#                               of them (chosen by random.Random(SEED)), and
#                               for each TAG=N an annotated tag TAG on commit N

bench_measure() {
	_bm_out=$1
	shift
	python3 - "${BENCH_NAME:-bench}" "$_bm_out" "$@" <<'EOF'
import resource, subprocess, sys, time
name, out, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
t = time.monotonic()
rc = subprocess.call(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
wall = time.monotonic() - t
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
if rc != 0:
    sys.exit("%s: failed (%d): %s" % (name, rc, " ".join(cmd)))
open(out, "a").write("%.3f %d %.3f\n" % (wall, ru.ru_maxrss, ru.ru_utime + ru.ru_stime))
EOF
}

bench_median() {
	sort -n -k"${2:-1}" "$1" |
		awk -v c="${2:-1}" '{ v[NR] = $c } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

bench_ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "inf" }'
}

bench_time() {
	_bt_label=$1
	shift
	/usr/bin/time -f '%e %M' -o "$BENCH_DIR/time.out" "$@" >/dev/null 2>"$BENCH_DIR/err.out" ||
		{ echo "${BENCH_NAME:-bench}: $_bt_label failed:" >&2; cat "$BENCH_DIR/err.out" >&2; exit 1; }
	read -r secs kib <"$BENCH_DIR/time.out"
	printf '  %-34s %7.2f s  %8d KiB\n' "$_bt_label" "$secs" "$kib"
}

bench_private() {
	_bp_label=$1
	shift
	python3 "${TOP_SRCDIR:?}/tests/lib/peak_private.py" "$@" >"$BENCH_DIR/priv.out" 2>"$BENCH_DIR/err.out" ||
		{ echo "${BENCH_NAME:-bench}: $_bp_label failed:" >&2; cat "$BENCH_DIR/err.out" >&2; exit 1; }
	read -r secs priv <"$BENCH_DIR/priv.out"
	printf '  %-34s %7.2f s  %8d KiB private\n' "$_bp_label" "$secs" "$priv"
}

bench_sshfs_stop() {
	if [ -n "$1" ]; then
		jp_sshfs_umount "$1"
		[ -n "${JP_SSHFS_PID:-}" ] && wait "$JP_SSHFS_PID" 2>/dev/null
	fi
	[ -n "$2" ] && jp_sshd_stop "$2"
	return 0
}

bench_big_repo() {
	_br_dir=$1
	_br_seed=$2
	_br_commits=$3
	shift 3
	rm -rf "$_br_dir.work"
	git init -q --bare -b main "$_br_dir.work" || return 1
	python3 - "$_br_seed" "$_br_commits" "$@" <<'EOF' | git -C "$_br_dir.work" fast-import --quiet || return 1
import random, sys
out = sys.stdout.buffer
rnd = random.Random(int(sys.argv[1]))
NF, COMMITS, PER = 20000, int(sys.argv[2]), 1000
tags = {int(n): name.encode() for name, n in (a.split("=") for a in sys.argv[3:])}
words = [b"alpha", b"beta", b"gamma", b"delta", b"loss", b"step", b"grad", b"rank"]
files = {}
def line():
    return b" ".join(rnd.choice(words) for _ in range(6)) + b" %d\n" % rnd.randrange(1 << 30)
for i in range(NF):
    files[i] = b"".join(line() for _ in range(4))
def commit(n, paths):
    msg = b"commit %d" % n
    out.write(b"commit refs/heads/main\nmark :%d\ncommitter bench <b@b> %d +0000\n" % (n + 1, 1700000000 + n))
    out.write(b"data %d\n%s\n" % (len(msg), msg))
    for i in paths:
        data = files[i]
        out.write(b"M 100644 inline d%03d/f%05d.txt\ndata %d\n%s\n" % (i % 200, i, len(data), data))
    if n in tags:
        out.write(b"\ntag %s\nfrom :%d\ntagger bench <b@b> %d +0000\ndata 7\nrelease\n" % (tags[n], n + 1, 1700000000 + n))
commit(0, range(NF))
for n in range(1, COMMITS + 1):
    touched = rnd.sample(range(NF), PER)
    for i in touched:
        files[i] += line()
    commit(n, sorted(touched))
EOF
	mv "$_br_dir.work" "$_br_dir"
}
