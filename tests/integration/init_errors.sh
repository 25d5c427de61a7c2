#!/bin/sh
# `jobprep init` with bad answers: each exits 3 (the file is invalid) or 1
# (a value is wrong for the platform) with a message naming the file and the
# field, and writes nothing. Also: usage errors exit 2; a failed check prints
# the check list and writes nothing unless --force; a run directory that
# already holds files is not reused without --force.
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/initscratch.sh"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-init-errors.XXXXXX") || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$scratch"' EXIT
jp_init_scratch "$scratch" || { echo "FAIL: cannot lay out the scratch platform"; exit 1; }
S=$scratch
failed=0
fail() {
	jp_fail "$*"
	failed=$((failed + 1))
}

# expect NAME EXIT STDERR-PATTERN: init on $S/NAME.json
expect() {
	name=$1 want=$2 pattern=$3
	"$JOBPREP" init --answers "$S/$name.json" --profile "$S/profile.json" \
		>"$S/$name.out" 2>"$S/$name.err"
	rc=$?
	[ "$rc" -eq "$want" ] || fail "$name: exit $rc, expected $want ($(cat "$S/$name.err"))"
	grep -qF -- "$pattern" "$S/$name.err" ||
		fail "$name: stderr lacks [$pattern]: $(cat "$S/$name.err")"
}

# nothing written anywhere under outputs/, no project cloned
nothing_made() {
	if [ -n "$(find "$S/shared/outputs" -mindepth 1 2>/dev/null | head -n 1)" ]; then
		fail "$1: something was made: $(find "$S/shared/outputs" | head -n 5)"
		rm -rf "$S/shared/outputs"
	fi
	[ ! -e "$S/shared/projects/bad-job" ] || fail "$1: the code was cloned anyway"
}

repo="file://$S/repos/train.git"

cat >"$S/wrong-type.json" <<EOF
{"job": {"name": "bad-job", "workers": "two"}, "code": {"source": "shared_storage", "repo": {"url": "$repo"}}}
EOF
expect wrong-type 3 "$S/wrong-type.json: job.workers: expected"
nothing_made wrong-type

cat >"$S/unknown-field.json" <<EOF
{"job": {"name": "bad-job", "gpus": 8}, "code": {"source": "shared_storage", "repo": {"url": "$repo"}}}
EOF
expect unknown-field 3 "$S/unknown-field.json: job.gpus: "
nothing_made unknown-field

cat >"$S/capitals.json" <<EOF
{"job": {"name": "Bad-Job"}, "code": {"source": "shared_storage", "repo": {"url": "$repo"}}}
EOF
expect capitals 3 "$S/capitals.json: job.name: "
nothing_made capitals

cat >"$S/tmp-output.json" <<EOF
{"job": {"name": "bad-job"}, "code": {"source": "shared_storage", "repo": {"url": "$repo"}},
 "outputs": {"output_dir": "/tmp/jobprep-test-out-$$"}}
EOF
expect tmp-output 1 "$S/tmp-output.json: outputs.output_dir: /tmp/jobprep-test-out-$$ is under /tmp, which is wiped when the job ends: put it under $S/shared/outputs/bad-job/run-001"
nothing_made tmp-output
[ ! -e "/tmp/jobprep-test-out-$$" ] || fail "tmp-output: /tmp/jobprep-test-out-$$ was created"

cat >"$S/no-name.json" <<EOF
{"code": {"source": "shared_storage", "repo": {"url": "$repo"}}}
EOF
expect no-name 1 "$S/no-name.json: job.name: a job name is required"
nothing_made no-name

cat >"$S/password.json" <<EOF
{"job": {"name": "bad-job"}, "code": {"source": "shared_storage", "repo": {"url": "https://alice:s3cret@example.com/x.git"}}}
EOF
expect password 3 "$S/password.json: code.repo.url: "
grep -q s3cret "$S/password.err" && fail "password: the password was printed"
nothing_made password

cat >"$S/bad-image.json" <<EOF
{"job": {"name": "bad-job"}, "code": {"source": "image", "image": "Team/Train:v1", "path": "/app"}}
EOF
expect bad-image 1 "$S/bad-image.json: code.image: repository names are lower-case"
nothing_made bad-image

cat >"$S/missing-data.json" <<EOF
{"job": {"name": "bad-job"}, "code": {"source": "image", "image": "team/train:v1", "path": "/app"},
 "data": [{"path": "$S/shared/datasets/nothere"}]}
EOF
expect missing-data 1 "$S/missing-data.json: data[0].path: $S/shared/datasets/nothere does not exist"
nothing_made missing-data

# a profile whose default GPUs per Worker is not 0..1024 is refused, named
for bad in -1 '"x"'; do
	printf '{"sandbox": true, "shared_roots": ["%s/shared"], "defaults": {"gpus_per_worker": %s}}\n' "$S" "$bad" \
		>"$S/bad-gpus-profile.json"
	"$JOBPREP" init --answers "$S/no-name.json" --profile "$S/bad-gpus-profile.json" \
		>"$S/bad-gpus.out" 2>"$S/bad-gpus.err"
	rc=$?
	[ "$rc" -eq 3 ] || fail "bad-gpus $bad: exit $rc, expected 3 ($(cat "$S/bad-gpus.err"))"
	grep -qF "$S/bad-gpus-profile.json: profile.defaults.gpus_per_worker: expected an integer from 0 to 1024" \
		"$S/bad-gpus.err" || fail "bad-gpus $bad: stderr: $(cat "$S/bad-gpus.err")"
done
nothing_made bad-gpus

printf '{"job": ' >"$S/not-json.json"
expect not-json 3 "$S/not-json.json"

"$JOBPREP" init >/dev/null 2>"$S/usage.err"
[ $? -eq 2 ] || fail "init without --answers: expected exit 2"
"$JOBPREP" init --answers "$S/x.json" --demo >/dev/null 2>&1
[ $? -eq 2 ] || fail "init --answers with --demo: expected exit 2"
"$JOBPREP" init --answers "$S/nothere.json" >/dev/null 2>"$S/nothere.err"
[ $? -eq 3 ] || fail "init with a missing answers file: expected exit 3"

# A failed check prints the list and writes nothing: an output directory on a
# read-only mount (a bind mount of our own, in a private mount namespace).
mkdir -p "$S/shared/outputs/ro-job/run-001/checkpoints" "$S/shared/outputs/ro-job/run-001/logs"
cat >"$S/check-fails.json" <<EOF
{"job": {"name": "ro-job"}, "code": {"source": "image", "image": "team/train:v1", "path": "/app"},
 "outputs": {"output_dir": "$S/shared/outputs/ro-job/run-001"}}
EOF
if unshare -m true 2>/dev/null; then
	unshare -m sh -c '
		mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" || exit 99
		"$2" init --answers "$3" --profile "$4" >"$5.out" 2>"$5.err"
	' sh "$S/shared/outputs/ro-job/run-001" "$JOBPREP" "$S/check-fails.json" \
		"$S/profile.json" "$S/check-fails"
	rc=$?
	[ $rc -eq 1 ] || fail "check-fails: exit $rc, expected 1: $(cat "$S/check-fails.err")"
	grep -q '^\[FAIL\] outputs.output_dir.writable: ' "$S/check-fails.out" ||
		fail "check-fails: the check list was not printed: $(cat "$S/check-fails.out")"
	grep -qE "checks? failed: nothing was written" "$S/check-fails.err" ||
		fail "check-fails: $(cat "$S/check-fails.err")"
	[ ! -e "$S/shared/outputs/ro-job/run-001/job.json" ] || fail "check-fails: a manifest was written"
else
	jp_skip check_fails_on_a_read_only_output "unshare -m is not permitted here (needs root)"
fi
rm -rf "$S/shared/outputs/ro-job"

# ...and a run directory with files in it is not reused, except with --force
mkdir -p "$S/shared/outputs/old-job/run-002"
echo old >"$S/shared/outputs/old-job/run-002/train.log"
cat >"$S/reuse.json" <<EOF
{"job": {"name": "old-job"}, "code": {"source": "image", "image": "team/train:v1", "path": "/app"},
 "outputs": {"output_dir": "$S/shared/outputs/old-job/run-002"}}
EOF
expect reuse 1 "$S/shared/outputs/old-job/run-002 already holds files from an earlier run (1 files)"
[ ! -e "$S/shared/outputs/old-job/run-002/logs" ] || fail "reuse: wrote into the old run"
"$JOBPREP" init --answers "$S/reuse.json" --profile "$S/profile.json" --force \
	>"$S/reuse-force.out" 2>&1 || fail "reuse --force: $(cat "$S/reuse-force.out")"
[ -s "$S/shared/outputs/old-job/run-002/job.json" ] || fail "reuse --force: no manifest"

# --force writes a manifest that records its failed check
cat >"$S/forced.json" <<EOF
{"job": {"name": "forced-job"}, "code": {"source": "image", "image": "team/train:v1", "path": "/app"},
 "outputs": {"output_dir": "$S/shared/outputs/forced-job/run-001", "checkpoint_dir": "/tmp/jobprep-forced-$$"}}
EOF
"$JOBPREP" init --answers "$S/forced.json" --profile "$S/profile.json" --force --json \
	>"$S/forced.out" 2>"$S/forced.err" || fail "forced: $(cat "$S/forced.err")"
grep -q '"written":	true' "$S/forced.out" || fail "forced: --json does not say it wrote"
rmdir "/tmp/jobprep-forced-$$" 2>/dev/null
[ -s "$S/shared/outputs/forced-job/run-001/job.json" ] || fail "forced: no manifest"

[ $failed -eq 0 ] && jp_pass "init errors: every bad answer is named, nothing is made"
jp_done
