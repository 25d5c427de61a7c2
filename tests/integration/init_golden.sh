#!/bin/sh
# `jobprep init --answers` on every answers file of tests/data/answers gives
# the manifest in tests/data/golden (scratch path, times, version and commits
# normalised): every code source (shared storage cloned now, an existing
# checkout, an image, a launch-command clone) and zero, one and several data
# sources. env.sh is written next to the manifest, and `jobprep check` passes
# each manifest under the profile it records.
#
# JP_UPDATE_GOLDEN=1 rewrites the golden files instead of comparing.
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
for tool in git sed diff; do
	command -v "$tool" >/dev/null 2>&1 || { echo "SKIP: $tool is not installed"; exit 77; }
done
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/initscratch.sh"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-init-golden.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
jp_init_scratch "$scratch" || { echo "FAIL: cannot lay out the scratch platform"; exit 1; }

failed=0
fail() {
	echo "FAIL: $*"
	failed=$((failed + 1))
}

for answers in "$TOP_SRCDIR"/tests/data/answers/*.json; do
	name=$(basename "$answers" .json)
	golden="$TOP_SRCDIR/tests/data/golden/$name.json"
	out="$scratch/shared/out/$name" # env.sh on shared storage, as the job needs it
	mkdir -p "$out"
	jp_answers "$name" "$scratch" "$out/answers.json"

	"$JOBPREP" init --answers "$out/answers.json" --profile "$scratch/profile.json" \
		-o "$out/job.json" >"$out/stdout" 2>"$out/stderr"
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "$name: init exited $rc"
		cat "$out/stdout" "$out/stderr"
		continue
	fi
	[ -s "$out/env.sh" ] || fail "$name: no env.sh next to the manifest"
	# progress goes to stderr only when it is a terminal: here it is a file
	! grep -qE 'connecting|receiving objects|resolving deltas|checking out|copying|scanning' \
		"$out/stderr" || fail "$name: progress on a stderr that is not a terminal: $(cat "$out/stderr")"
	grep -q "^Wrote $out/job.json\$" "$out/stdout" || fail "$name: init did not say where it wrote"
	grep -q "^  \\. '$out/env.sh' && " "$out/stdout" ||
		fail "$name: the platform's launch command does not source env.sh first"

	jp_normalise "$scratch" <"$out/job.json" >"$out/normal.json"
	if [ "${JP_UPDATE_GOLDEN:-}" = 1 ]; then
		cp "$out/normal.json" "$golden"
	elif ! diff -u "$golden" "$out/normal.json"; then
		fail "$name: manifest differs from $golden"
	fi

	"$JOBPREP" check "$out/job.json" >"$out/check" 2>&1 ||
		{ fail "$name: check does not pass the manifest init wrote"; cat "$out/check"; }
done

# The source document's variables, sourced back by sh.
env_sh="$scratch/out/shared-existing/env.sh"
if [ -s "$env_sh" ]; then
	got=$(sh -c '. "$1" && printf "%s|%s|%s" "$PROJECT_DIR" "$CHECKPOINT_DIR" "$EXTRA"' sh "$env_sh")
	want="$scratch/shared/projects/existing-job|$scratch/shared/outputs/existing-job/run-001/checkpoints|it's \"quoted\""
	[ "$got" = "$want" ] || fail "env.sh gives back [$got], expected [$want]"
fi

[ $failed -eq 0 ] || exit 1
echo "init golden: every answers file gives its golden manifest"
