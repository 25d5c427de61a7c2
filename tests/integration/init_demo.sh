#!/bin/sh
# `jobprep init --demo` in a fresh directory: makes ./jobprep-demo/ (a git
# repository made with libgit2, data sets, a profile whose roots are inside
# it), walks the whole flow on every default and writes a manifest that
# `jobprep check` passes under the profile it records. Run again, it reuses
# the sandbox and writes the next run, never the first one again.
set -u

: "${JOBPREP:?}"
. "$TOP_SRCDIR/tests/lib/report.sh"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-init-demo.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
failed=0
fail() {
	jp_fail "$*"
	failed=$((failed + 1))
}

cd "$scratch" || exit 1
# No network: a proxy that does not exist would break any download.
export http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9

"$JOBPREP" init --demo >out1 2>err1 || { fail "init --demo: $(cat err1)"; cat out1; }
demo=$scratch/jobprep-demo
run1=$demo/shared/outputs/demo/run-001
for f in profile.json answers.json repo/.git repo/scripts/train.sh shared/projects/demo/scripts/train.sh \
	shared/datasets/demo-data public/demo-corpus; do
	[ -e "$demo/$f" ] || fail "the sandbox lacks $f"
done
[ -x "$demo/shared/projects/demo/scripts/train.sh" ] || fail "scripts/train.sh is not executable in the clone"
[ -s "$run1/job.json" ] || fail "no manifest in $run1"
[ -s "$run1/env.sh" ] || fail "no env.sh in $run1"
grep -q "^Wrote $run1/job.json\$" out1 || fail "init did not say where it wrote: $(cat out1)"

"$JOBPREP" check "$run1/job.json" >check1 2>&1 || { fail "check does not pass the demo manifest"; cat check1; }
grep -q " 0 failed" check1 || fail "check reports failures: $(cat check1)"
# the recorded commit is the demo repository's
head=$(git -C "$demo/repo" rev-parse HEAD 2>/dev/null)
grep -q "\"commit\":[[:space:]]*\"$head\"" "$run1/job.json" || fail "the manifest does not record $head"
# env.sh sources to the manifest's directories
got=$(sh -c '. "$1" && printf "%s" "$OUTPUT_DIR"' sh "$run1/env.sh")
[ "$got" = "$run1" ] || fail "env.sh: OUTPUT_DIR=$got"
# the sync hint has nothing to say: train.py waits at a barrier
grep -q "launch.sync" "$run1/job.json" && fail "the demo's code got the no-barrier hint"

# again: the same sandbox, the existing checkout, the next run
"$JOBPREP" init --demo >out2 2>err2 || fail "init --demo again: $(cat err2)"
run2=$demo/shared/outputs/demo/run-002
[ -s "$run2/job.json" ] || fail "the second run did not go to run-002"
"$JOBPREP" check "$run2/job.json" >check2 2>&1 || { fail "check does not pass the second manifest"; cat check2; }

[ $failed -eq 0 ] && jp_pass "init --demo: a fresh sandbox, a manifest check passes, then the next run"
jp_done
