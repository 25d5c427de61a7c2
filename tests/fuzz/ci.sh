#!/bin/sh
# Build the fuzz targets and run each briefly, for CI, in one call:
#   tests/fuzz/ci.sh [SECONDS]
# The sources are copied to a scratch folder (the tree's own build is left
# alone; it may be configured in place, which rules out a VPATH build),
# configured with --enable-fuzzing --enable-sanitizers CC=clang, and only the
# fuzz_* programs are built; then tests/fuzz/run.sh runs each SECONDS seconds
# (default 10). Prints run.sh's "ok - fuzz_NAME" / "not ok" lines and exits
# with its status (77 when clang is missing).
set -u
secs=${1:-10}
srcdir=$(cd "$(dirname "$0")/../.." && pwd)
if ! command -v clang >/dev/null 2>&1; then
	echo "# SKIP: clang is not installed (apt-get install clang)"
	exit 77
fi
scratch=$(mktemp -d "${TMPDIR:-/tmp}/jp-fuzz-ci.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM HUP
copy=$scratch/src
. "$srcdir/tests/lib/srccopy.sh"
jp_source_copy "$srcdir" "$copy"
targets=$(sed -n 's/^FUZZ_NAMES = //p' "$srcdir/tests/local.mk" | tr ' ' '\n' | sed 's|^|tests/fuzz/fuzz_|')
if ! (cd "$copy" && { [ -x configure ] || autoreconf -fi; } &&
	./configure -q --enable-fuzzing --enable-sanitizers CC=clang &&
	make -s -j2 $targets) >"$scratch/build.out" 2>&1; then
	tail -n 20 "$scratch/build.out"
	echo "not ok - fuzz: the fuzz targets do not build with clang"
	exit 1
fi
# the seeds and dictionaries of the tree itself (run.sh finds them next to it)
"$srcdir/tests/fuzz/run.sh" "$copy/tests/fuzz" "$secs"
