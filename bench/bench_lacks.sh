#!/bin/sh
# What code.repo.lfs and code.repo.submodules add to `jobprep check` and
# `init`, side by side with what a user would run to learn the same
# (`git lfs ls-files` and `git submodule status`), on a checkout of
# JP_BENCH_FILES files (default 4,000: half of 200 B, half of 3 KiB; 20 LFS
# pointers under .gitattributes; one submodule not cloned), cloned packed:
#   1. on local disk, warm cache (median of 5);
#   2. on an sshfs mount of a loopback sshd with every cache off (best of 2).
# The looks are timed alone (bench/lackslook: jp_git_lfs_check and
# jp_git_submodules_check, each bounded in a child process, as the checks
# run them). Needs git-lfs for the peer, root for sshfs (part 2 skipped
# otherwise).
#   make bench BENCH=lacks           # or: sh bench/bench_lacks.sh
set -u

: "${JOBPREP:?run through make bench, or set JOBPREP}"
: "${TOP_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${TOP_BUILDDIR:=$TOP_SRCDIR}"
files=${JP_BENCH_FILES:-4000}
look=$TOP_BUILDDIR/bench/lackslook
[ -x "$look" ] || { echo "bench_lacks: build first (make bench builds bench/lackslook)" >&2; exit 1; }
command -v git-lfs >/dev/null 2>&1 || { echo "bench_lacks: needs git-lfs (the peer)" >&2; exit 1; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-bench-lacks.XXXXXX") || exit 1
BENCH_NAME=bench_lacks BENCH_DIR=$dir
. "$TOP_SRCDIR/bench/lib.sh"
. "$TOP_SRCDIR/tests/lib/ssh.sh"
cleanup() {
	bench_sshfs_stop "${mnt:-}" "${sshd_dir:-}"
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
export GIT_CONFIG_NOSYSTEM=1 HOME=$dir/home
mkdir -p "$HOME"
ID="-c user.name=bench -c user.email=b@b.invalid"

# the repository: plain files, pointers written as they are stored
w=$dir/work
git init -q -b main "$w" && git init -q -b main "$dir/lib" || exit 1
python3 - "$w" "$files" <<'EOF' || exit 1
import hashlib, os, sys
w, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(w, "src", "d%d" % (i % 50))
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "f%d.py" % i), "w").write("x" * (200 if i % 2 else 3000))
os.makedirs(os.path.join(w, "models"), exist_ok=True)
for i in range(20):
    oid = hashlib.sha256(b"model %d" % i).hexdigest()
    open(os.path.join(w, "models", "m%d.bin" % i), "w").write(
        "version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize %d\n" % (oid, 1 << 30))
open(os.path.join(w, ".gitattributes"), "w").write("*.bin filter=lfs diff=lfs merge=lfs -text\n")
EOF
echo lib >"$dir/lib/lib.txt"
# shellcheck disable=SC2086
git -C "$dir/lib" add -A && git $ID -C "$dir/lib" commit -qm lib &&
	git -C "$w" -c protocol.file.allow=always submodule add -q "$dir/lib" vendor/lib &&
	git -C "$w" add -A && git $ID -C "$w" commit -qm bench || exit 1

# measure CHECKOUT RUNS: medians (or bests) of both, printed as RESULT lines
measure() {
	_co=$1 _runs=$2 _where=$3
	: >"$dir/ours" && : >"$dir/peer"
	_i=0
	while [ $_i -lt "$_runs" ]; do
		_i=$((_i + 1))
		"$look" "$_co" >>"$dir/ours" || exit 1
		_t0=$(date +%s%N)
		git -C "$_co" lfs ls-files >/dev/null 2>&1 && git -C "$_co" submodule status >/dev/null 2>&1
		_t1=$(date +%s%N)
		echo "$(( (_t1 - _t0) / 1000 ))" | awk '{ printf "%.3f\n", $1 / 1e6 }' >>"$dir/peer"
	done
	_lfs=$(bench_median "$dir/ours" 1) _sm=$(bench_median "$dir/ours" 2)
	_ours=$(awk -v a="$_lfs" -v b="$_sm" 'BEGIN { printf "%.3f", a + b }')
	_peer=$(bench_median "$dir/peer")
	read -r _x _y _ptr _miss <"$dir/ours"
	echo "RESULT $_where: the two looks $_ours s (lfs $_lfs s, submodules $_sm s; found $_ptr pointers, $_miss submodule(s)), $(bench_ratio "$_ours" "$_peer")x git lfs ls-files + git submodule status ($_peer s)"
}

co=$dir/local
git clone -q "file://$w" "$co" || exit 1
echo "local disk, $files files + 20 pointers + 1 submodule not cloned, warm cache (median of 5):"
measure "$co" 5 "local"

if ! jp_ssh_available; then
	echo "RESULT sshfs: skipped (needs root, sshd, sshfs, /dev/fuse)"
	exit 0
fi
mkdir -p "$dir/remote" "$dir/mnt"
git clone -q "file://$w" "$dir/remote/co" || exit 1
sshd_dir=$dir/sshd
jp_sshd_start "$sshd_dir" || exit 1
mnt=$dir/mnt
jp_sshfs_mount "$sshd_dir" "$dir/remote" "$mnt" || exit 1
echo "sshfs of a loopback sshd, dir_cache=no attr_timeout=0 entry_timeout=0 (median of 3):"
measure "$mnt/co" 3 "sshfs"
