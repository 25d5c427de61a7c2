#!/bin/sh
# What a run's own copy of its code costs (issue 29): the read-only tree
# beside the project that each run's PROJECT_DIR names, made when its
# manifest is written (bench/runtreecost -p times jp_runtree_make alone, with
# the parallel writers init uses). On a
# repository of 20,000 files (~80,000 objects; tags r1 and r2, 10 commits
# and ~8,000 files changed apart), served by a git daemon on loopback:
#
#  1. the first run's tree, at r1: every file written;
#  2. a second run of the same commit: nothing written (the tree is taken);
#  3. a run at r2 after the checkout moved there: the changed files
#     written, the others hard links to the tree before;
#
# each as bytes on disk (du -sk of the new tree beside those before it: du
# counts a hard link once) and time, against a fresh `git clone` of the same
# repository from the same daemon (its du -sk, .git included, and time), the
# per-run cost a "clone per run" design would pay. Medians of
# BENCH_RUNCODE_RUNS runs (default 3). BENCH_RUNCODE_CACHE=DIR keeps the
# repository. Local disk (TMPDIR).
set -u
: "${JOBPREP:=$(pwd)/jobprep}"
: "${TOP_SRCDIR:=$(pwd)}"
: "${RUNTREECOST:=${TOP_BUILDDIR:-$(pwd)}/bench/runtreecost}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
BENCH_NAME=bench_runcode
. "$TOP_SRCDIR/bench/lib.sh"
for t in python3 git du; do
	command -v $t >/dev/null 2>&1 || { echo "bench_runcode: $t is missing" >&2; exit 77; }
done
[ -x "$RUNTREECOST" ] || { echo "bench_runcode: build bench/runtreecost first (make bench)" >&2; exit 77; }
RUNS=${BENCH_RUNCODE_RUNS:-3}

T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-bench-runcode.XXXXXX") || exit 1
trap 'jp_gitd_stop "$T"; chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT
CACHE=${BENCH_RUNCODE_CACHE:-$T/cache}
mkdir -p "$CACHE" "$T/srv" "$T/shared/projects"
jp_test_env "$T"
if [ ! -d "$CACHE/full.git" ]; then
	echo "bench_runcode: making a repository of ~80,000 objects (fast-import)..."
	bench_big_repo "$CACHE/full.git" 7 60 r1=50 r2=60 || exit 1
fi
ln -s "$CACHE/full.git" "$T/srv/repo.git"
jp_gitd_start "$T" "$T/srv" || exit 1
URL=git://127.0.0.1:$JP_GITD_PORT/repo.git
changed=$(git -C "$CACHE/full.git" diff --name-only r1 r2 | wc -l)
echo "bench_runcode: 20,000 files; r1 -> r2: $changed files changed"

# kib DIR...: du -sk of the last DIR, counted after the others (links once)
kib() { du -sk "$@" | tail -n 1 | awk '{ print $1 }'; }
: >"$T/clone" && : >"$T/first" && : >"$T/same" && : >"$T/next"
i=0
while [ $i -lt "$RUNS" ]; do
	P=$T/shared/projects/p$i
	R=$T/shared/projects/.jobprep-trees/p$i
	# the peer: a fresh clone of the same repository, as a clone per run
	t0=$(date +%s.%N)
	git clone -q "$URL" "$T/clone$i" || exit 1
	t1=$(date +%s.%N)
	echo "$(awk -v a="$t1" -v b="$t0" 'BEGIN { printf "%.3f", a - b }') $(kib "$T/clone$i")" >>"$T/clone"
	rm -rf "$T/clone$i"
	# the live checkout, at r1
	git clone -q "$URL" "$P" && git -C "$P" -c advice.detachedHead=false checkout -q r1 || exit 1
	set -- $("$RUNTREECOST" -p "$P") || exit 1
	echo "$1 $(kib "$6")" >>"$T/first"
	first=$6
	set -- $("$RUNTREECOST" -p "$P") || exit 1
	echo "$1 0" >>"$T/same"
	git -C "$P" -c advice.detachedHead=false checkout -q r2 || exit 1
	set -- $("$RUNTREECOST" -p "$P") || exit 1
	echo "$1 $(kib "$first" "$6") $3" >>"$T/next"
	chmod -R u+w "$R" && rm -rf "$R" "$P"
	i=$((i + 1))
done
cs=$(bench_median "$T/clone" 1) ck=$(bench_median "$T/clone" 2)
report() {
	s=$(bench_median "$T/$1" 1) k=$(bench_median "$T/$1" 2)
	printf '  %-40s %7.2f s  %8d KiB   time %s x, disk %s x a git clone\n' "$2" "$s" "$k" \
		"$(bench_ratio "$s" "$cs")" "$(bench_ratio "$k" "$ck")"
}
printf '  %-40s %7.2f s  %8d KiB\n' "fresh git clone (the peer)" "$cs" "$ck"
report first "first run's tree (r1, all written)"
report same "second run, same commit (taken as is)"
report next "run at r2 ($changed changed, rest linked)"
