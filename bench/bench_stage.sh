#!/bin/sh
# jobprep stage side by side with the tools a user would run instead, onto
# an sshfs mount of a loopback sshd with every cache off (testing.md), in
# one run, on the same data:
#   1. a tree of small files (mktree: 0-64 KiB each), into a new folder:
#      vs `rsync -a` and `cp -a` (issue 14's target: <= 0.3x rsync);
#   2. the same again with nothing changed: vs a no-op `rsync -a`
#      (target <= 0.2x);
#   3. a .tar.gz of that tree unpacked onto the mount: vs `tar xzf -C`
#      (target <= 0.3x; jobprep's unpack is one thread today);
#   with jobprep's peak memory for each. Needs root (sshd, sshfs), rsync,
#   /usr/bin/time.
#   make bench BENCH=stage             # or: sh bench/bench_stage.sh
#   JP_BENCH_FILES=20000 ...           # the issue's size (default 2000: the
#                                      # machine is shared)
set -u

: "${JOBPREP:?run through make bench, or set JOBPREP}"
: "${TOP_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${TOP_BUILDDIR:=$TOP_SRCDIR}"
files=${JP_BENCH_FILES:-2000}
dir=${JP_BENCH_DIR:-$TOP_BUILDDIR/bench/stage-data}
mktree=$TOP_BUILDDIR/bench/mktree
[ -x "$mktree" ] || { echo "bench_stage: build first (make bench builds bench/mktree)" >&2; exit 1; }
for t in /usr/bin/time rsync sshfs; do
	command -v "$t" >/dev/null 2>&1 || { echo "bench_stage: needs $t" >&2; exit 1; }
done
. "$TOP_SRCDIR/tests/lib/ssh.sh"
jp_ssh_available || { echo "RESULT stage: skipped (needs root, sshd, sshfs, /dev/fuse)"; exit 0; }

rm -rf "$dir"
mkdir -p "$dir/remote"
cleanup() {
	if [ -n "${mnt:-}" ]; then
		jp_sshfs_umount "$mnt"
		[ -n "${JP_SSHFS_PID:-}" ] && wait "$JP_SSHFS_PID" 2>/dev/null
	fi
	[ -n "${sshd_dir:-}" ] && jp_sshd_stop "$sshd_dir"
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# run LABEL CMD... -> prints "LABEL: S s, M KiB", sets $secs and $kib
run() {
	_label=$1
	shift
	/usr/bin/time -f '%e %M' -o "$dir/time.out" "$@" >/dev/null 2>"$dir/err.out" ||
		{ echo "bench_stage: $_label failed:" >&2; cat "$dir/err.out" >&2; exit 1; }
	read -r secs kib <"$dir/time.out"
	printf '  %-34s %7.2f s  %8d KiB\n' "$_label" "$secs" "$kib"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "inf" }'; }

src=$dir/src
"$mktree" "$src" "$files" 100 10 >"$dir/tree.done" || exit 1
# real bytes, not mktree's sparse holes (a copy writes them all)
find "$src" -type f -size +0 -exec sh -c 'for f; do head -c "$(stat -c %s "$f")" /dev/urandom >"$f"; done' sh {} +
(cd "$src" && tar czf "$dir/tree.tar.gz" .) || exit 1
read -r n_files n_bytes _ _ <"$dir/tree.done"
sshd_dir=$dir/sshd
jp_sshd_start "$sshd_dir" || exit 1
mnt=$dir/mnt
jp_sshfs_mount "$sshd_dir" "$dir/remote" "$mnt" || exit 1
echo "sshfs of a loopback sshd, $n_files files, $((n_bytes / 1048576)) MiB, every cache off:"

run "rsync -a" rsync -a "$src/" "$mnt/rsync/"
t_rsync=$secs
run "cp -a" cp -a "$src" "$mnt/cp"
t_cp=$secs
run "jobprep stage" "$JOBPREP" stage --no-progress "$src" "$mnt/jp"
t_jp=$secs m_jp=$kib
diff -r "$src" "$dir/remote/jp" >/dev/null || { echo "bench_stage: the staged copy differs" >&2; exit 1; }
echo "RESULT small files: $(ratio "$t_jp" "$t_rsync")x rsync -a, $(ratio "$t_jp" "$t_cp")x cp -a ($t_jp s vs $t_rsync s, $t_cp s; target <= 0.3x rsync), peak $((m_jp / 1024)) MiB"

run "rsync -a (nothing changed)" rsync -a "$src/" "$mnt/rsync/"
t_rsync=$secs
run "jobprep stage (nothing changed)" "$JOBPREP" stage --no-progress "$src" "$mnt/jp"
t_jp=$secs
echo "RESULT no-op re-run: $(ratio "$t_jp" "$t_rsync")x rsync -a ($t_jp s vs $t_rsync s; target <= 0.2x)"

mkdir "$mnt/tar"
run "tar xzf -C" tar xzf "$dir/tree.tar.gz" -C "$mnt/tar"
t_tar=$secs
run "jobprep stage tree.tar.gz" "$JOBPREP" stage --no-progress "$dir/tree.tar.gz" "$mnt/jpx"
t_jp=$secs m_jp=$kib
diff -r "$src" "$dir/remote/jpx" >/dev/null || { echo "bench_stage: the unpacked tree differs" >&2; exit 1; }
echo "RESULT unpack: $(ratio "$t_jp" "$t_tar")x tar xzf ($t_jp s vs $t_tar s; target <= 0.3x), peak $((m_jp / 1024)) MiB"
