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
#   bench_sshfs_stop MNT SSHD   unmount MNT (jp_sshfs_mount) and stop the
#                               sshd in SSHD (jp_sshd_start); either may be ""

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

bench_sshfs_stop() {
	if [ -n "$1" ]; then
		jp_sshfs_umount "$1"
		[ -n "${JP_SSHFS_PID:-}" ] && wait "$JP_SSHFS_PID" 2>/dev/null
	fi
	[ -n "$2" ] && jp_sshd_stop "$2"
	return 0
}
