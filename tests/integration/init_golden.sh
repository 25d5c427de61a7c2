#!/bin/sh
# `jobprep init --answers` on every answers file of tests/data/answers gives
# the manifest in tests/data/golden (scratch path, times, version and commits
# normalised): every code source (shared storage cloned now, an existing
# checkout, an image, a launch-command clone) and zero, one and several data
# sources. The manifest and env.sh are written into the run's folder, -o
# gets a byte-identical copy, and `jobprep check` passes each manifest under
# the profile it records.
#
# The goldens record the outputs' space checks as "pass": more free than the
# profile's 50 GiB system disk. That must not depend on this machine's disks,
# so as root the scratch folder is a private tmpfs of a known size (64 GiB
# and a million inodes: limits, not memory taken) in a mount namespace of
# the test's own. Where no mount can be made (not root) the space verdicts
# are left out of the comparison, and the test says so.
#
# JP_UPDATE_GOLDEN=1 rewrites the golden files instead of comparing.
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
for tool in git sed diff; do
	command -v "$tool" >/dev/null 2>&1 || jp_skip_all "$tool is not installed"
done
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/initscratch.sh"

KNOWN_SIZE="size=64g,nr_inodes=1048576,mode=700"
known_size=
if [ -n "${JP_GOLDEN_SCRATCH:-}" ]; then
	# run again by ourselves (below), on the private mount
	scratch=$JP_GOLDEN_SCRATCH
	known_size=1
else
	scratch=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-init-golden.XXXXXX") || exit 1
	trap 'rm -rf "$scratch"' EXIT
	if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null 2>&1 &&
		unshare -m --propagation private mount -t tmpfs -o "$KNOWN_SIZE" jobprep-golden \
			"$scratch" 2>/dev/null; then
		unshare -m --propagation private sh -c '
			mount -t tmpfs -o "$1" jobprep-golden "$2" || exit 99
			JP_GOLDEN_SCRATCH=$2 exec sh "$3"' sh "$KNOWN_SIZE" "$scratch" "$0"
		exit $?
	fi
	echo "# no private mount of a known size (not root, or no unshare):" \
		"the outputs' space verdicts are not compared"
fi
jp_init_scratch "$scratch" || { echo "FAIL: cannot lay out the scratch platform"; exit 1; }

# mount_unknown: what only the private mount makes known, blanked: the
# status of every *.space check (@SPACE@), and each storage entry's
# filesystem and mount point (@FSTYPE@, @MOUNT@: without the mount they are
# whatever holds TMPDIR here).
mount_unknown() {
	sed -e '/"id":[[:space:]]*"[^"]*\.space"/{n;s/"status":\([[:space:]]*\)"[^"]*"/"status":\1"@SPACE@"/;}' \
		-e 's/^\([[:space:]]*"fstype":[[:space:]]*\)"[^"]*"/\1"@FSTYPE@"/' \
		-e 's/^\([[:space:]]*"mount_point":[[:space:]]*\)"[^"]*"/\1"@MOUNT@"/'
}

failed=0
fail() {
	jp_fail "$*"
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
	run=$(sed -n 's|^[[:space:]]*"output_dir":[[:space:]]*"\(.*\)",*$|\1|p' "$out/job.json" | head -n 1)
	[ -n "$run" ] && [ -s "$run/env.sh" ] || fail "$name: no env.sh in the run's folder [$run]"
	cmp -s "$out/job.json" "$run/job.json" || fail "$name: -o is not a copy of $run/job.json"
	[ ! -e "$out/env.sh" ] || fail "$name: an env.sh beside the copy"
	# progress goes to stderr only when it is a terminal: here it is a file
	jp_no_text -E 'connecting|receiving objects|resolving deltas|checking out|copying|scanning' \
		"$out/stderr" || fail "$name: progress on a stderr that is not a terminal: $(cat "$out/stderr")"
	grep -q "^Wrote $run/job.json\$" "$out/stdout" && grep -q "^Wrote $out/job.json " "$out/stdout" ||
		fail "$name: init did not say where it wrote"
	grep -q "^  exec </dev/null && \\. '$run/env.sh' && sh '$run/preflight.sh' && " "$out/stdout" ||
		fail "$name: the platform's launch command does not source env.sh and run preflight.sh first"
	# the run's preflight.sh, as rank 0 of the job runs it, passes this run
	[ "$(stat -c %a "$run/preflight.sh" 2>/dev/null)" = 755 ] ||
		fail "$name: no preflight.sh (mode 755) in the run's folder"
	cmp -s "$run/preflight.sh" /dev/stdin <<EOF2 || fail "$name: preflight.sh is not what jobprep preflight prints"
$("$JOBPREP" preflight "$run/job.json")
EOF2
	RANK=0 JOBPREP_ATTEMPT=golden sh "$run/preflight.sh" >"$out/preflight.out" 2>"$out/preflight.err" ||
		fail "$name: the run's preflight.sh failed: $(cat "$out/preflight.err")"
	grep -q '^\[FAIL\]' "$out/preflight.err" && fail "$name: preflight.sh: $(cat "$out/preflight.err")"

	jp_normalise "$scratch" <"$out/job.json" >"$out/normal.json"
	cp "$golden" "$out/golden.json"
	if [ -z "$known_size" ]; then
		mount_unknown <"$golden" >"$out/golden.json"
		mount_unknown <"$out/job.json" | jp_normalise "$scratch" >"$out/normal.json"
	fi
	if [ "${JP_UPDATE_GOLDEN:-}" = 1 ]; then
		[ -n "$known_size" ] || { fail "JP_UPDATE_GOLDEN=1 needs the private mount (root)"; break; }
		cp "$out/normal.json" "$golden"
	elif ! diff -u "$out/golden.json" "$out/normal.json"; then
		fail "$name: manifest differs from $golden"
	fi

	"$JOBPREP" check "$out/job.json" >"$out/check" 2>&1 ||
		{ fail "$name: check does not pass the manifest init wrote"; cat "$out/check"; }
done

# The source document's variables, sourced back by sh.
env_sh="$scratch/shared/outputs/existing-job/run-001/env.sh"
if [ -s "$env_sh" ]; then
	got=$(sh -c '. "$1" && printf "%s|%s|%s" "$PROJECT_DIR" "$CHECKPOINT_DIR" "$EXTRA"' sh "$env_sh")
	# PROJECT_DIR: the run's own copy of the checkout's commit
	head=$(git -C "$scratch/shared/projects/existing-job" rev-parse HEAD)
	want="$scratch/shared/projects/.jobprep-trees/existing-job/$head|$scratch/shared/outputs/existing-job/run-001/checkpoints|it's \"quoted\""
	[ "$got" = "$want" ] || fail "env.sh gives back [$got], expected [$want]"
fi

[ $failed -eq 0 ] && jp_pass "init golden: every answers file gives its golden manifest"
jp_done
