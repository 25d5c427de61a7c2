#!/bin/sh
# A data set on shared storage that holds archives (issue 14, "an archive
# in a dataset: unpack it there?"): imagenet/ with train.tar and
# val.tar.gz, made by tar. `jobprep check` (and the checks `init` records)
# says the job would unpack them and gives the `jobprep stage
# --unpack-archives DIR` line that does it before the job (so does `jobprep
# scan`); that line
# unpacks each into the folder beside it named after it (train/, val/),
# identical to `tar x`, the archives kept, no temporary left; the check then
# says they are unpacked already. An answers file's
# `"unpack_archives": true` makes `init` do the same before the scan and
# the checks; the manifest records it and the JSON Schema accepts it; a
# re-run writes nothing again. Names with spaces and CJK characters.
set -u
: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/initscratch.sh"
command -v python3 >/dev/null 2>&1 || jp_skip_all "python3 is not installed"
T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-init-unpack.XXXXXX") || exit 99
T=$(cd -P "$T" && pwd)
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
jp_test_env "$T"
jp_init_scratch "$T" || exit 99
J=$JOBPREP

# mkset DIR: a data set holding two archives and a file of its own
mkdir -p "$T/src/train/类 a" "$T/src/val" || exit 99
printf 'one\n' >"$T/src/train/类 a/img 1.jpg"
head -c 100000 /dev/urandom >"$T/src/train/类 a/img2.jpg"
printf 'two\n' >"$T/src/val/v 1.jpg"
mkset() {
	mkdir -p "$1" &&
		tar cf "$1/train.tar" -C "$T/src/train" . &&
		tar czf "$1/val.tar.gz" -C "$T/src/val" . &&
		printf 'labels\n' >"$1/labels.txt"
}
# answers JOB PATH [UNPACK]
answers() {
	u=
	[ -n "${3:-}" ] && u=', "unpack_archives": true'
	cat >"$T/$1.json" <<A
{"job": {"name": "$1", "launch_command": "cd /workspace/app && python train.py"},
 "code": {"source": "image", "image": "registry.example.com/team/train:v1", "path": "/workspace/app"},
 "data": [{"path": "$2"$u}]}
A
}
init() {
	"$J" init --answers "$T/$1.json" --profile "$T/profile.json" >"$T/$1.out" 2>"$T/$1.err"
}
manifest() { echo "$T/shared/outputs/$1/run-001/job.json"; }
# contents JOB: the message of the data set's contents check
contents() {
	python3 -c '
import json, sys
for c in json.load(open(sys.argv[1]))["checks"]:
    if c["id"] == "data[0].path.contents":
        print(c["status"], c["message"])' "$(manifest "$1")"
}

# --- without the answer: the check says so, and gives the line
DS="$T/shared/datasets/image net 数据"
mkset "$DS" || exit 99
answers plain-job "$DS"
init plain-job
jp_expect plain_exits_0 [ $? = 0 ]
contents plain-job >"$T/plain.contents"
sed 's/^/# /' "$T/plain.contents"
jp_expect init_warns_of_the_archives grep -q '^warn .*2 archives .* would have to be unpacked in the job' "$T/plain.contents"
jp_expect init_gives_the_stage_line grep -qF "jobprep stage --unpack-archives '$DS'" "$T/plain.contents"
jp_expect plain_unpacks_nothing [ ! -e "$DS/train" ]
"$J" check --profile "$T/profile.json" "$(manifest plain-job)" >"$T/check1.out" 2>&1
sed 's/^/# /' "$T/check1.out"
jp_expect check_gives_the_stage_line grep -qF "jobprep stage --unpack-archives '$DS'" "$T/check1.out"

"$J" scan "$DS" >"$T/scan1.out" 2>&1
jp_expect scan_gives_the_stage_line grep -qF "jobprep stage --unpack-archives '$DS'" "$T/scan1.out"

# --- the line it gives: each archive into the folder beside it
line=$(sed -n "s/.*\(jobprep stage --unpack-archives '[^']*'\).*/\1/p" "$T/check1.out" | head -1)
eval "\"\$J\" stage --json${line#jobprep stage}" >"$T/line.json" 2>"$T/line.err"
jp_expect stage_line_exits_0 [ $? = 0 ]
jp_expect stage_line_unpacks_two [ "$(jp_json_get "$T/line.json" archives)" = 2 ]
jp_expect train_unpacked_beside diff -r "$T/src/train" "$DS/train"
jp_expect val_unpacked_beside diff -r "$T/src/val" "$DS/val"
jp_expect archives_kept sh -c '[ -f "$1/train.tar" ] && [ -f "$1/val.tar.gz" ]' sh "$DS"
jp_expect stage_line_leaves_no_temporary jp_no_temporaries "$DS"
"$J" check --verbose --profile "$T/profile.json" "$(manifest plain-job)" >"$T/check2.out" 2>&1
sed 's/^/# /' "$T/check2.out"
jp_expect check_then_says_unpacked grep -q '2 archives are unpacked already' "$T/check2.out"
jp_expect check_then_no_longer_warns jp_no_text "would have to be unpacked" "$T/check2.out"
"$J" scan "$DS" >"$T/scan2.out" 2>&1
sed 's/^/# /' "$T/scan2.out"
jp_expect scan_then_says_unpacked grep -q '2 archives are unpacked already' "$T/scan2.out"
jp_expect scan_then_no_longer_warns jp_no_text "would have to be unpacked" "$T/scan2.out"
"$J" stage --unpack-archives --json "$DS" >"$T/again.json" 2>&1
jp_expect stage_line_again_unpacks_nothing [ "$(jp_json_get "$T/again.json" archives)" = 0 ]
jp_expect stage_line_again_finds_them_done [ "$(jp_json_get "$T/again.json" already)" = 2 ]

# --- "unpack_archives": true in the answers: init does it before the checks
DS2="$T/shared/datasets/second set"
mkset "$DS2" || exit 99
answers unpack-job "$DS2" yes
init unpack-job
jp_expect unpack_exits_0 [ $? = 0 ]
sed 's/^/# /' "$T/unpack-job.err"
jp_expect init_unpacked_train diff -r "$T/src/train" "$DS2/train"
jp_expect init_unpacked_val diff -r "$T/src/val" "$DS2/val"
jp_expect init_leaves_no_temporary jp_no_temporaries "$DS2"
M=$(manifest unpack-job)
jp_expect manifest_records_unpack_archives \
	python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["data"][0].get("unpack_archives") is not True)' "$M"
jp_expect scanned_after_unpacking \
	python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["data"][0]["stats"]; sys.exit(s["files"] != 6 or s["archives"] != 2)' "$M"
contents unpack-job >"$T/unpack.contents"
sed 's/^/# /' "$T/unpack.contents"
jp_expect init_check_says_unpacked grep -q '^pass .*2 archives are unpacked already' "$T/unpack.contents"
"$J" check --profile "$T/profile.json" "$M" >/dev/null 2>&1
jp_expect check_passes_the_manifest [ $? = 0 ]
if python3 -c 'import jsonschema' 2>/dev/null; then
	"$J" schema >"$T/schema.json"
	jp_expect schema_accepts_it python3 -c '
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))' "$T/schema.json" "$M"
fi
ino=$(stat -c %i "$DS2/train/类 a/img2.jpg")
init unpack-job
jp_expect rerun_exits_0 [ $? = 0 ]
jp_expect rerun_rewrites_nothing [ "$(stat -c %i "$DS2/train/类 a/img2.jpg")" = "$ino" ]

# the answer must be a boolean
printf '{"data": [{"path": "%s", "unpack_archives": "yes"}]}\n' "$DS2" >"$T/bad.json"
"$J" init --answers "$T/bad.json" --profile "$T/profile.json" >/dev/null 2>"$T/bad.err"
jp_expect non_boolean_refused [ $? = 3 ]
jp_expect non_boolean_names_the_field grep -q 'unpack_archives' "$T/bad.err"
jp_done
