#!/bin/sh
# Issue 21, item 5, end to end: a project whose train.py imports a module
# that calls from_pretrained("acme/tiny") gets the warning
# launch.hub_download from `jobprep init` and `jobprep check` (--json too),
# naming the file and line and the fix, `jobprep stage hf://acme/tiny DEST`
# with HF_HOME=DEST and HF_HUB_OFFLINE=1; an answers file that stages
# hf://acme/tiny onto a data source (origin.from) downloads it from the Hub
# on loopback (tests/lib/hf_hub.py) before the checks, records the origin
# (kind hub, the commit as a git-commit digest) and, with job.env
# HF_HOME on shared storage and HF_HUB_OFFLINE=1, has no warning left; the
# manifest is what `jobprep schema` accepts and `jobprep check` reads back.
# HF_TOKEN never reaches the manifest, env.sh or the output.
set -u
: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/initscratch.sh"
. "$TOP_SRCDIR/tests/lib/hfhub.sh"
jp_scratch init-stage-hf 'jp_hfhub_stop "$T/hub"'
T=$(cd -P "$T" && pwd)
unset HF_HOME HF_HUB_CACHE HF_HUB_OFFLINE HUGGING_FACE_HUB_TOKEN JOBPREP_HTTP_TOKEN
jp_init_scratch "$T" || exit 99
P=$T/shared/projects/hfjob
mkdir -p "$P/models" "$T/hub/models/acme/tiny" || exit 99
printf 'import sys\nfrom models.load import model\nprint(model)\n' >"$P/train.py"
printf 'from transformers import AutoModel\n\n# the model\nmodel = AutoModel.from_pretrained("acme/tiny")\n' >"$P/models/load.py"
: >"$P/models/__init__.py"
printf '{"model_type": "gpt2"}\n' >"$T/hub/models/acme/tiny/config.json"
head -c 1500000 /dev/urandom >"$T/hub/models/acme/tiny/model.safetensors"
echo '{"token": "hf-s3cret-77"}' >"$T/hub/config.json"
jp_hfhub_start "$T/hub" || exit 99
HF_ENDPOINT=$HUB_URL HF_TOKEN=hf-s3cret-77
export HF_ENDPOINT HF_TOKEN
CMD='cd \"$PROJECT_DIR\" && python train.py --out_dir \"$OUTPUT_DIR\"'

# answers NAME ENV DATA
answers() {
	cat >"$T/$1.json" <<A
{"job": {"name": "$1", "launch_command": "$CMD", "env": {$2}},
 "code": {"source": "shared_storage", "path": "$P"},
 "data": [$3]}
A
}
# check_of FILE ID: the status and message of check ID in a check --json array
check_of() {
	python3 -c 'import json,sys
for c in json.load(open(sys.argv[1])):
    if c["id"] == sys.argv[2]: print(c["status"], c["message"])' "$1" "$2"
}

# --- no HF_HOME: the warning names the file, the line and the fix
answers plain '' "{\"path\": \"$T/shared/datasets/text\"}"
"$J" init --json --answers "$T/plain.json" --profile "$T/profile.json" >"$T/plain.out" 2>"$T/plain.err"
jp_expect init_writes_with_a_warning [ $? -eq 0 ]
jp_show_if_failed cat "$T/plain.err"
python3 -c 'import json,sys; json.dump(json.load(open(sys.argv[1]))["checks"], open(sys.argv[2], "w"))' "$T/plain.out" "$T/plain.checks"
got=$(check_of "$T/plain.checks" launch.hub_download)
echo "# $got"
jp_expect init_warns_hub_download sh -c 'case "$1" in
	"warn models/load.py:4: from_pretrained(\"acme/tiny\") downloads acme/tiny from the Hugging Face Hub when the job starts"*"jobprep stage '"'"'hf://acme/tiny'"'"' '"'"'$2/shared/hf'"'"'"*HF_HUB_OFFLINE=1*) exit 0;; esac; exit 1' sh "$got" "$T"
M=$(jp_json_get "$T/plain.out" manifest)
"$J" check --json --profile "$T/profile.json" "$M" >"$T/check.json" 2>/dev/null
jp_expect check_json_has_it [ "$(check_of "$T/check.json" launch.hub_download)" = "$got" ]

# --- staged from the Hub by init, HF_HOME on shared storage and offline: no warning
H=$T/shared/hf
answers staged "\"HF_HOME\": \"$H\", \"HF_HUB_OFFLINE\": \"1\"" \
	"{\"path\": \"$H\", \"origin\": {\"from\": \"hf://acme/tiny\"}}"
"$J" init --json --answers "$T/staged.json" --profile "$T/profile.json" >"$T/staged.out" 2>"$T/staged.err"
jp_expect init_stages_from_the_hub [ $? -eq 0 ]
jp_show_if_failed cat "$T/staged.err"
out=$(python3 "$TOP_SRCDIR/tests/lib/hf_offline.py" "$H" model acme/tiny model.safetensors)
jp_expect staged_loadable_offline [ "${out##* }" = "$(sha256sum <"$T/hub/models/acme/tiny/model.safetensors" | cut -d' ' -f1)" ]
M=$(jp_json_get "$T/staged.out" manifest)
C=$(cat "$H/hub/models--acme--tiny/refs/main")
jp_expect origin_recorded python3 -c 'import json,sys
o = json.load(open(sys.argv[1]))["data"][0]["origin"]
assert o["from"] == "hf://acme/tiny" and o["kind"] == "hub", o
assert o["digest"] == {"algorithm": "git-commit", "value": sys.argv[2]}, o' "$M" "$C"
python3 -c 'import json,sys; json.dump(json.load(open(sys.argv[1]))["checks"], open(sys.argv[2], "w"))' "$T/staged.out" "$T/staged.checks"
jp_expect no_warning_when_staged_and_offline sh -c '[ -s "$1" ] && [ -z "$2" ]' sh "$T/staged.checks" "$(check_of "$T/staged.checks" launch.hub_download)"
"$J" check --json --profile "$T/profile.json" "$M" >"$T/check2.json" 2>"$T/check2.err"
jp_expect manifest_reads_back sh -c '[ $1 -eq 0 ] && [ -s "$2" ] && [ -z "$3" ]' sh $? "$T/check2.json" "$(check_of "$T/check2.json" launch.hub_download)"
jp_show_if_failed cat "$T/check2.err"
jp_expect token_nowhere jp_no_text -r hf-s3cret-77 "$T/shared/outputs" "$T/staged.out" "$T/staged.err" "$T/plain.out"
jp_done
