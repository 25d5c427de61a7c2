#!/bin/sh
# Data-set scans side by side with `du -s`, in one run:
#   1. a full scan of a 500,000-file tree on local disk, warm cache:
#      wall time as a ratio of du's (target <= 1.0x), peak memory (< 32 MiB);
#   2. a quick look of the same tree (target < 0.3 s);
#   3. a full scan of a 20,000-file tree on an sshfs mount of a loopback sshd
#      with every cache off (target <= 0.35x du; gdu reaches about 0.55x);
#   and, for both trees, how soon a scan exits after SIGINT (target < 100 ms).
# Needs root for sshfs (skips part 3 otherwise), /usr/bin/time (package time).
#   make bench BENCH=scan            # or: sh bench/bench_scan.sh
#   JP_BENCH_FILES=100000 ...        # a smaller local tree
#   JP_BENCH_KEEP=1 ...              # keep the trees (in $JP_BENCH_DIR) for the next run
set -u

: "${JOBPREP:?run through make bench, or set JOBPREP}"
: "${TOP_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${TOP_BUILDDIR:=$TOP_SRCDIR}"
files=${JP_BENCH_FILES:-500000}
net_files=${JP_BENCH_NET_FILES:-20000}
dir=${JP_BENCH_DIR:-$TOP_BUILDDIR/bench/scan-data}
mktree=$TOP_BUILDDIR/bench/mktree
[ -x "$mktree" ] || { echo "bench_scan: build first (make bench builds bench/mktree)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench_scan: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }

mkdir -p "$dir"
BENCH_NAME=bench_scan BENCH_DIR=$dir
. "$TOP_SRCDIR/bench/lib.sh"
cleanup() {
	bench_sshfs_stop "${mnt:-}" "${sshd_dir:-}"
	[ "${JP_BENCH_KEEP:-0}" = 1 ] || rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# cancel_ms PATH: how long `jobprep scan PATH` takes to exit after SIGINT,
# sent 0.3 s into the scan (prints ms; "done" if it finished first).
cancel_ms() {
	"$JOBPREP" scan "$1" >/dev/null 2>&1 &
	_pid=$!
	sleep 0.3
	_t0=$(date +%s%N)
	kill -INT "$_pid" 2>/dev/null || { wait "$_pid"; echo done; return; }
	wait "$_pid"
	_rc=$?
	_t1=$(date +%s%N)
	[ "$_rc" = 130 ] || { echo "done"; return; }
	echo $(( (_t1 - _t0) / 1000000 ))
}
best() { awk -v a="$1" -v b="$2" 'BEGIN { print (b == "" || a < b) ? a : b }'; }

# --- 1 and 2: local disk, warm cache -----------------------------------------------
tree=$dir/local-$files
if [ ! -f "$tree.done" ]; then
	echo "making $files files in $tree ..."
	rm -rf "$tree"
	"$mktree" "$tree" "$files" >"$tree.done" || exit 1
fi
read -r want_files want_bytes want_archives want_dirs <"$tree.done"
du -s "$tree" >/dev/null # warm the cache
"$JOBPREP" scan "$tree" >/dev/null
echo "local disk, $files files, warm cache (best of 3):"
du_best= scan_best= quick_best= scan_kib=0
for i in 1 2 3; do
	bench_time "du -s" du -s "$tree"
	du_best=$(best "$secs" "$du_best")
	bench_time "jobprep scan" "$JOBPREP" scan "$tree"
	scan_best=$(best "$secs" "$scan_best")
	[ "$kib" -gt "$scan_kib" ] && scan_kib=$kib
	bench_time "jobprep scan --quick" "$JOBPREP" scan --quick "$tree"
	quick_best=$(best "$secs" "$quick_best")
done
got=$("$JOBPREP" scan --json "$tree" | tr -d ' \t\n')
case "$got" in
*"\"files\":$want_files,\"bytes\":$want_bytes,\"archives\":$want_archives"*) ;;
*) echo "bench_scan: the scan's counts are wrong: $got" >&2; exit 1 ;;
esac
echo "RESULT local full scan: $(bench_ratio "$scan_best" "$du_best")x du -s ($scan_best s vs $du_best s; target <= 1.0x), peak $((scan_kib / 1024)) MiB (target < 32 MiB)"
echo "RESULT local quick look: $quick_best s (target < 0.3 s)"
echo "RESULT local cancel: exit $(cancel_ms "$tree") ms after SIGINT (target < 100 ms)"

# --- 3: sshfs, every cache off ---------------------------------------------------------
. "$TOP_SRCDIR/tests/lib/ssh.sh"
if ! jp_ssh_available; then
	echo "RESULT sshfs: skipped (needs root, sshd, sshfs, /dev/fuse)"
	exit 0
fi
net=$dir/remote-$net_files
if [ ! -f "$net.done" ]; then
	rm -rf "$net"
	"$mktree" "$net" "$net_files" 500 10 >"$net.done" || exit 1
fi
read -r want_files want_bytes want_archives want_dirs <"$net.done"
sshd_dir=$dir/sshd
jp_sshd_start "$sshd_dir" || exit 1
mnt=$dir/mnt
jp_sshfs_mount "$sshd_dir" "$net" "$mnt" || exit 1
echo "sshfs of a loopback sshd, $net_files files, dir_cache=no attr_timeout=0 entry_timeout=0 (best of 2):"
du_best= scan_best=
for i in 1 2; do
	bench_time "du -s" du -s "$mnt"
	du_best=$(best "$secs" "$du_best")
	bench_time "jobprep scan" "$JOBPREP" scan "$mnt"
	scan_best=$(best "$secs" "$scan_best")
done
got=$("$JOBPREP" scan --json "$mnt" | tr -d ' \t\n')
case "$got" in
*"\"files\":$want_files,\"bytes\":$want_bytes,\"archives\":$want_archives"*) ;;
*) echo "bench_scan: the sshfs scan's counts are wrong: $got" >&2; exit 1 ;;
esac
echo "RESULT sshfs full scan: $(bench_ratio "$scan_best" "$du_best")x du -s ($scan_best s vs $du_best s; target <= 0.35x)"
echo "RESULT sshfs cancel: exit $(cancel_ms "$mnt") ms after SIGINT (target < 100 ms)"
