#!/bin/sh
# What the run's preflight.sh costs a Worker before its launch command, on
# healthy storage: a one-Worker job made by `jobprep init` (rank 0, nothing
# to wait for) whose data set holds JP_BENCH_FILES files (default 5,000,
# counted against the manifest's record) beside its code and three output
# folders, run under dash, bash and busybox sh (median of 7 each), side by
# side with the bare minimum a launch line would otherwise do (`test -r` of
# the inputs and `test -w` of the outputs, under dash). Goal: under 1 s.
#   make bench BENCH=preflight       # or: sh bench/bench_preflight.sh
set -u

: "${JOBPREP:?run through make bench, or set JOBPREP}"
: "${TOP_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
files=${JP_BENCH_FILES:-5000}
runs=7
dir=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-bench-preflight.XXXXXX") || exit 1
BENCH_NAME=bench_preflight BENCH_DIR=$dir
. "$TOP_SRCDIR/bench/lib.sh"
trap 'rm -rf "$dir"' EXIT
trap 'exit 130' INT TERM
export GIT_CONFIG_NOSYSTEM=1 HOME=$dir/home
mkdir -p "$HOME" "$dir/shared/code" "$dir/shared/data" "$dir/shared/out"

git -C "$dir/shared/code" init -q &&
	git -C "$dir/shared/code" -c user.name=bench -c user.email=b@b.invalid \
		commit -q --allow-empty -m bench &&
	git -C "$dir/shared/code" remote add origin https://example.com/team/train.git || exit 1
python3 - "$dir/shared/data/set" "$files" <<'EOF' || exit 1
import os, sys
d, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    sub = os.path.join(d, "shard-%03d" % (i % 100))
    os.makedirs(sub, exist_ok=True)
    open(os.path.join(sub, "%06d.txt" % i), "w").write("x" * 100)
EOF
printf '{"sandbox": true, "shared_roots": ["%s/shared"]}\n' "$dir" >"$dir/profile.json"
cat >"$dir/answers.json" <<EOF
{"job": {"name": "bench", "workers": 1, "gpus_per_worker": 0, "launch_command": "true"},
 "code": {"source": "shared_storage", "path": "$dir/shared/code"},
 "data": [{"name": "set", "path": "$dir/shared/data/set"}],
 "outputs": {"output_dir": "$dir/shared/out/run", "checkpoint_dir": "$dir/shared/out/run/checkpoints",
             "log_dir": "$dir/shared/out/run/logs"}}
EOF
"$JOBPREP" init --answers "$dir/answers.json" --profile "$dir/profile.json" -o "$dir/job.json" \
	>"$dir/init.out" 2>&1 || { echo "bench_preflight: init failed:" >&2; cat "$dir/init.out" >&2; exit 1; }
pf=$dir/shared/out/run/preflight.sh
grep -q "^jp_check 'data\[0\].path' data '[^']*' '$files'" "$pf" ||
	echo "bench_preflight: note: the manifest recorded no file count (the data set's count is not judged)"

o=$dir/shared/out/run
for i in $(seq $runs); do
	bench_measure "$dir/peer" dash -c 'test -r "$1" && test -r "$2" && test -w "$3" && test -w "$4" && test -w "$5"' \
		sh "$dir/shared/code" "$dir/shared/data/set" "$o" "$o/checkpoints" "$o/logs" || exit 1
done
peer=$(bench_median "$dir/peer")
echo "bench_preflight: $files files in the data set; the bare tests: ${peer}s"
for sh in dash bash "busybox sh"; do
	for i in $(seq $runs); do
		# shellcheck disable=SC2086 # "busybox sh" is two words
		bench_measure "$dir/${sh%% *}" $sh "$pf" || exit 1
	done
	t=$(bench_median "$dir/${sh%% *}")
	echo "  preflight.sh under $sh: ${t}s (median of $runs; goal < 1 s), ratio $(bench_ratio "$t" "$peer") to the bare tests"
done
