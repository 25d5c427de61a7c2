#!/bin/sh
# Run every libFuzzer target briefly, for CI:
#   tests/fuzz/run.sh DIR SECONDS
# DIR holds the built fuzz_NAME binaries (a build configured with
# --enable-fuzzing CC=clang: BUILDDIR/tests/fuzz); each runs SECONDS seconds
# (default 10), in one process (no -jobs/-fork: the machine is shared),
# from its seeds (tests/fuzz/corpus/NAME, next to this script) with its
# dictionary (tests/fuzz/NAME.dict). New inputs go to a
# scratch folder, never into the tree. Prints one line per target:
#   ok - fuzz_NAME: N execs, cov C, E exec/s
#   not ok - fuzz_NAME: CRASH-FILE (what libFuzzer said)
# and exits 1 when a target failed, 77 when DIR holds no target.
# A crash input is kept in $JP_FUZZ_ARTIFACTS (default: the scratch folder,
# which is then kept and named).
set -u
dir=${1:?usage: run.sh DIR-of-built-fuzzers [SECONDS]}
secs=${2:-10}
here=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/jp-fuzz.XXXXXX") || exit 1
artifacts=${JP_FUZZ_ARTIFACTS:-$scratch/crashes}
mkdir -p "$artifacts"
failed=0 ran=0 keep=0
for bin in "$dir"/fuzz_*; do
	[ -x "$bin" ] && [ -f "$bin" ] || continue
	case $bin in *.o | *.c) continue ;; esac
	name=${bin##*/fuzz_}
	seeds=$here/corpus/$name
	[ -d "$seeds" ] || { echo "not ok - fuzz_$name: no seeds in $seeds"; failed=1; continue; }
	work=$scratch/$name
	mkdir -p "$work"
	set -- -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 \
		-print_final_stats=1 -artifact_prefix="$artifacts/$name-"
	[ -f "$here/$name.dict" ] && set -- "$@" -dict="$here/$name.dict"
	ran=$((ran + 1))
	if "$bin" "$@" "$work" "$seeds" >"$scratch/$name.log" 2>&1; then
		execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$scratch/$name.log" | tail -n 1)
		eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$scratch/$name.log" | tail -n 1)
		cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' "$scratch/$name.log" | tail -n 1)
		echo "ok - fuzz_$name: ${execs:-?} execs, cov ${cov:-?}, ${eps:-?} exec/s"
	else
		crash=$(ls "$artifacts/$name-"* 2>/dev/null | head -n 1)
		what=$(grep -m 1 -E 'ERROR: |deadly signal|Timeout|out-of-memory' "$scratch/$name.log")
		echo "not ok - fuzz_$name: ${crash:-no artifact} (${what:-see $scratch/$name.log})"
		failed=1 keep=1
	fi
done
if [ "$ran" -eq 0 ]; then
	echo "# SKIP: no fuzz_* binary in $dir (configure --enable-fuzzing CC=clang)"
	rm -rf "$scratch"
	exit 77
fi
if [ "$keep" -eq 1 ]; then
	echo "# logs and crash inputs kept in $scratch"
else
	rm -rf "$scratch"
fi
exit "$failed"
