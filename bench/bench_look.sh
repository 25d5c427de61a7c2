#!/bin/sh
# What one bounded look costs (issue 23): jp_probe_stat, a request to a
# helper process that is kept and used again, beside the stat(2) it bounds
# and beside what a look cost before the helpers (a fork of the process per
# look, answering through a pipe), on:
#   1. local disk (warm cache): the helper's own cost, per look;
#   2. an sshfs mount of a loopback sshd with every cache off: the mount's
#      own round trip, which the helper must stay far below (root; skipped
#      otherwise).
# Also the first look of a command, which starts the helper.
#   make bench BENCH=look           # or: sh bench/bench_look.sh
set -u

: "${JOBPREP:?run through make bench, or set JOBPREP}"
: "${TOP_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${TOP_BUILDDIR:=$TOP_SRCDIR}"
cost=$TOP_BUILDDIR/bench/lookcost
[ -x "$cost" ] || { echo "bench_look: build first (make bench builds bench/lookcost)" >&2; exit 1; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-bench-look.XXXXXX") || exit 1
BENCH_NAME=bench_look BENCH_DIR=$dir
. "$TOP_SRCDIR/bench/lib.sh"
. "$TOP_SRCDIR/tests/lib/ssh.sh"
cleanup() {
	bench_sshfs_stop "${mnt:-}" "${sshd_dir:-}"
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
n=${JP_BENCH_LOOKS:-2000}

# report WHERE: one line from lookcost's "HELPER STAT FORK FIRST" (µs)
report() {
	read -r h s f first <"$dir/out"
	echo "RESULT $1: a look through the helper $h us, stat(2) alone $s us, a fork per look $f us;" \
		"the helper $(bench_ratio "$h" "$s")x the stat, the fork $(bench_ratio "$f" "$h")x the helper;" \
		"a command's first look (it starts the helper) $first us"
}

mkdir -p "$dir/local/d" && : >"$dir/local/d/f"
echo "local disk, warm cache, medians of $n looks:"
"$cost" "$dir/local/d/f" "$n" >"$dir/out" || exit 1
report local

if ! jp_ssh_available; then
	echo "RESULT sshfs: skipped (needs root, sshd, sshfs, /dev/fuse)"
	exit 0
fi
mkdir -p "$dir/remote/d" "$dir/mnt" && : >"$dir/remote/d/f"
sshd_dir=$dir/sshd
jp_sshd_start "$sshd_dir" || exit 1
mnt=$dir/mnt
jp_sshfs_mount "$sshd_dir" "$dir/remote" "$mnt" || exit 1
echo "sshfs of a loopback sshd, every cache off, medians of $((n / 4)) looks:"
"$cost" "$mnt/d/f" "$((n / 4))" >"$dir/out" || exit 1
report sshfs
