#!/bin/sh
# jobprep clone against the tools a user would otherwise run, side by side in
# one run, on the same data, served by the same git daemon on loopback:
#
#  1. onto shared storage: an uncached sshfs mount of a loopback sshd (every
#     metadata operation a round trip, like NFS), a repository of a few
#     hundred files and a ~15 MiB pack: jobprep clone vs `git clone` to the
#     same mount (goal: <= 0.5x);
#  2. on local disk, a large repository (~200,000 objects, made with git
#     fast-import): jobprep clone vs `git clone` (goal: <= 1.5x), peak memory
#     vs a bare libgit2 clone (bench/git2clone, goal: <= 1.1x), and the cost
#     of progress reporting: jobprep's CPU time with vs without it (< 3%);
#  3. the repeat prep (issue 10): the same large repository, served over
#     smart http (lighttpd + git http-backend), cloned by jobprep into a NEW
#     folder each time with its local mirror cache warm, vs a fresh
#     `git clone` from the server (goal: <= 0.1x).
#
# 1. and 2. measure a cold clone: jobprep runs with --no-cache there.
#
# Medians of BENCH_CLONE_RUNS runs (default 3), alternating who goes first.
# Needs root (mount namespace, sshd), sshfs, python3, git.
# BENCH_CLONE_CACHE=DIR keeps the generated repositories between runs.
set -u
: "${JOBPREP:=$(pwd)/jobprep}"
: "${TOP_SRCDIR:=$(pwd)}"
: "${TOP_BUILDDIR:=$(pwd)}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/ssh.sh"
BENCH_NAME=bench_clone
. "$TOP_SRCDIR/bench/lib.sh"
for t in python3 git sshfs; do
	command -v $t >/dev/null 2>&1 || { echo "bench_clone: $t is missing" >&2; exit 77; }
done
jp_ssh_available || { echo "bench_clone: needs root, sshd, sshfs, /dev/fuse" >&2; exit 77; }
G2=$TOP_BUILDDIR/bench/git2clone
[ -x "$G2" ] || { echo "bench_clone: $G2 is not built (make)" >&2; exit 77; }
RUNS=${BENCH_CLONE_RUNS:-3}

T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-bench-clone.XXXXXX") || exit 1
trap 'jp_gitd_stop "$T"; jp_sshd_stop "$T/sshd"; jp_httpd_stop "$T/httpd"; rm -rf "$T"' EXIT
CACHE=${BENCH_CLONE_CACHE:-$T/cache}
mkdir -p "$CACHE" "$T/scratch" "$T/local"
jp_test_env "$T" # HOME=$T/home, its own mirror cache, no agent, no tokens

# ---- the repositories ----
if [ ! -d "$CACHE/mid.git" ]; then
	echo "bench_clone: making a repository of ~400 files, ~15 MiB pack..."
	w=$CACHE/mid.work
	rm -rf "$w" && git init -q -b main "$w" && mkdir -p "$w/scripts" "$w/assets"
	i=0
	while [ $i -lt 360 ]; do
		d=$w/src/m$((i % 24))
		mkdir -p "$d"
		head -c 3000 /dev/urandom | base64 >"$d/file$i.py"
		i=$((i + 1))
	done
	i=0
	while [ $i -lt 40 ]; do
		head -c 360000 /dev/urandom >"$w/assets/blob$i.bin"
		i=$((i + 1))
	done
	printf '#!/bin/sh\necho train\n' >"$w/scripts/train.sh"
	git -C "$w" add -A && git $JP_GIT_ID -C "$w" commit -qm mid &&
		git clone -q --bare "$w" "$CACHE/mid.git" && rm -rf "$w" &&
		git -C "$CACHE/mid.git" repack -adq || exit 1
fi
if [ ! -d "$CACHE/large.git" ]; then
	echo "bench_clone: making a repository of ~200,000 objects (fast-import)..."
	bench_big_repo "$CACHE/large.git" 42 150 || exit 1
fi
# git/git-shaped (the issue's example), for 3. only: ~4,500 files in nested
# folders, a deep history (2,000 commits of 100 changed files: ~300,000
# objects)
if [ "${BENCH_CLONE_SKIP_REPEAT:-}" = "" ] && [ ! -d "$CACHE/gitlike.git" ]; then
	echo "bench_clone: making a git/git-shaped repository (~4,500 files, ~300,000 objects)..."
	rm -rf "$CACHE/gitlike.work"
	git init -q --bare -b main "$CACHE/gitlike.work" || exit 1
	python3 - <<'EOF' | git -C "$CACHE/gitlike.work" fast-import --quiet || exit 1
import random, sys
out = sys.stdout.buffer
rnd = random.Random(4500)
NF, COMMITS, PER = 4500, 2000, 100
words = [b"strbuf", b"oid", b"repo", b"index", b"tree", b"commit", b"refs", b"pack"]
files = {}
def path(i):
    top = i % 12
    if top < 4:
        return b"%c%04d.c" % (b"abcd"[top], i)
    return b"t%d/s%d/f%04d.%s" % (top, i % 7, i, b"sh" if i % 5 == 0 else b"txt")
def line():
    return b" ".join(rnd.choice(words) for _ in range(7)) + b" %d\n" % rnd.randrange(1 << 30)
for i in range(NF):
    files[i] = b"".join(line() for _ in range(20))
def commit(n, paths):
    msg = b"commit %d" % n
    out.write(b"commit refs/heads/main\ncommitter bench <b@b> %d +0000\n" % (1700000000 + n))
    out.write(b"data %d\n%s\n" % (len(msg), msg))
    for i in paths:
        data = files[i]
        out.write(b"M 100644 inline %s\ndata %d\n%s\n" % (path(i), len(data), data))
commit(0, range(NF))
for n in range(1, COMMITS + 1):
    touched = rnd.sample(range(NF), PER)
    for i in touched:
        files[i] += line()
    commit(n, sorted(touched))
EOF
	mv "$CACHE/gitlike.work" "$CACHE/gitlike.git"
fi
objs=$(git -C "$CACHE/large.git" count-objects -v | awk '/^in-pack/ { print $2 }')
packk=$(git -C "$CACHE/mid.git" count-objects -v | awk '/^size-pack/ { print $2 }')
echo "bench_clone: mid: $(git -C "$CACHE/mid.git" ls-tree -r main | wc -l) files, pack $((packk / 1024)) MiB;" \
	"large: $objs objects"

jp_gitd_start "$T" "$CACHE" || exit 1
U=git://127.0.0.1:$JP_GITD_PORT

if [ -z "${BENCH_CLONE_ONLY_REPEAT:-}" ]; then
# ---- 1. onto an uncached sshfs mount ----
jp_sshd_start "$T/sshd" || exit 1
mkdir -p "$T/export" "$T/mnt"
export T U JOBPREP RUNS TOP_SRCDIR JP_SSHD_PORT BENCH_NAME
unshare -m --propagation private sh -c '
	. "$TOP_SRCDIR/tests/lib/ssh.sh"
	. "$TOP_SRCDIR/tests/lib/gitserv.sh"
	. "$TOP_SRCDIR/bench/lib.sh"
	jp_sshfs_mount "$T/sshd" "$T/export" "$T/mnt" || exit 1
	i=0
	while [ $i -lt "$RUNS" ]; do
		if [ $((i % 2)) = 0 ]; then
			sync; bench_measure "$T/sshfs.git" git clone -q "$U/mid.git" "$T/mnt/g$i"
			sync; bench_measure "$T/sshfs.jobprep" "$JOBPREP" clone --no-cache "$U/mid.git" "$T/mnt/j$i"
		else
			sync; bench_measure "$T/sshfs.jobprep" "$JOBPREP" clone --no-cache "$U/mid.git" "$T/mnt/j$i"
			sync; bench_measure "$T/sshfs.git" git clone -q "$U/mid.git" "$T/mnt/g$i"
		fi
		i=$((i + 1))
	done
	jp_sshfs_umount "$T/mnt"
	kill $JP_SSHFS_PID 2>/dev/null
	wait' || exit 1
jp_sshd_stop "$T/sshd"
rm -rf "$T/export"
g=$(bench_median "$T/sshfs.git" 1)
j=$(bench_median "$T/sshfs.jobprep" 1)
echo "sshfs (uncached), ~400 files, 15 MiB pack: git clone ${g}s, jobprep clone ${j}s," \
	"ratio $(bench_ratio "$j" "$g") (goal <= 0.5)"

# ---- 2. a large repository on local disk ----
i=0
while [ $i -lt "$RUNS" ]; do
	for who in git jobprep git2 noprog; do
		rm -rf "$T/local/x"
		sync
		case $who in
		git) bench_measure "$T/large.git" git clone -q "$U/large.git" "$T/local/x" ;;
		jobprep) bench_measure "$T/large.jobprep" "$JOBPREP" clone --no-cache --progress "$U/large.git" "$T/local/x" ;;
		noprog) bench_measure "$T/large.noprog" "$JOBPREP" clone --no-cache --no-progress "$U/large.git" "$T/local/x" ;;
		git2) bench_measure "$T/large.git2" "$G2" "$U/large.git" "$T/local/x" ;;
		esac
	done
	i=$((i + 1))
done
g=$(bench_median "$T/large.git" 1)
j=$(bench_median "$T/large.jobprep" 1)
n=$(bench_median "$T/large.noprog" 1)
b=$(bench_median "$T/large.git2" 1)
jm=$(bench_median "$T/large.jobprep" 2)
bm=$(bench_median "$T/large.git2" 2)
jc=$(bench_median "$T/large.jobprep" 3)
nc=$(bench_median "$T/large.noprog" 3)
echo "large repository ($objs objects), local disk: git clone ${g}s, bare libgit2 ${b}s," \
	"jobprep clone ${j}s: ratio vs git $(bench_ratio "$j" "$g") (goal <= 1.5)"
echo "peak memory: jobprep ${jm} KiB, bare libgit2 ${bm} KiB: ratio $(bench_ratio "$jm" "$bm") (goal <= 1.1)"
# Progress is CPU work: judged on CPU time, which the disk's noise does not
# swamp (wall times are printed too).
echo "progress cost: CPU with ${jc}s, without ${nc}s: ratio $(bench_ratio "$jc" "$nc") (goal < 1.03);" \
	"wall ${j}s vs ${n}s"

fi

# ---- 3. the repeat prep into a new folder, warm cache, over http ----
# Both repositories: the large one (20,000 files) and the git/git-shaped one.
if [ "${BENCH_CLONE_SKIP_REPEAT:-}" = "" ]; then
	mkdir -p "$T/httpd"
	jp_httpd_start "$T/httpd" "$CACHE" || exit 1
	for repo in large gitlike; do
		H=http://127.0.0.1:$JP_HTTPD_PORT/git/$repo.git
		n=$(git -C "$CACHE/$repo.git" count-objects -v | awk '/^in-pack/ { print $2 }')
		f=$(git -C "$CACHE/$repo.git" ls-tree -r main | wc -l)
		rm -rf "$T/local/warm"
		"$JOBPREP" clone "$H" "$T/local/warm" >/dev/null 2>&1 ||
			{ echo "bench_clone: the first (cache-filling) clone failed" >&2; exit 1; }
		rm -rf "$T/local/warm"
		i=0
		while [ $i -lt "$RUNS" ]; do
			rm -rf "$T/local/g" "$T/local/j$i"
			sync
			if [ $((i % 2)) = 0 ]; then
				bench_measure "$T/repeat.$repo.git" git clone -q "$H" "$T/local/g"
				sync
				bench_measure "$T/repeat.$repo.jobprep" "$JOBPREP" clone "$H" "$T/local/j$i"
			else
				bench_measure "$T/repeat.$repo.jobprep" "$JOBPREP" clone "$H" "$T/local/j$i"
				sync
				bench_measure "$T/repeat.$repo.git" git clone -q "$H" "$T/local/g"
			fi
			[ "$(git -C "$T/local/j$i" rev-parse HEAD)" = "$(git -C "$T/local/g" rev-parse HEAD)" ] ||
				{ echo "bench_clone: the two clones differ" >&2; exit 1; }
			rm -rf "$T/local/j$i" "$T/local/g"
			i=$((i + 1))
		done
		g=$(bench_median "$T/repeat.$repo.git" 1)
		j=$(bench_median "$T/repeat.$repo.jobprep" 1)
		echo "repeat prep into a new folder ($repo: $f files, $n objects, http), warm cache:" \
			"fresh git clone ${g}s, jobprep clone ${j}s: ratio $(bench_ratio "$j" "$g") (goal <= 0.1)"
	done
	jp_httpd_stop "$T/httpd"
fi
