#!/bin/sh
# Issue 21: the files a launch command names must be in the code, and the sh
# scripts it runs are read like the command itself. On a real repository
# (cloned by `init` from a bare one): a config operand or --config value that
# is not in the checkout fails `init` (exit 1, no manifest), and so does a
# script's unconditional `python3 X.py` whose file is missing, named
# script:line; the same line inside `if` is a warning; a launcher inside a
# script is judged on several Workers. Outputs under /tmp in the command, and
# a path-valued job.env entry there, fail (they were warnings); TMPDIR=/tmp
# does not. An unpack into /workspace gets a `jobprep stage` line onto shared
# storage. `check --json` on a forced manifest reports the failures, with
# their paths, and the Chinese catalogue has the new messages.
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
for tool in git python3 tar; do
	command -v "$tool" >/dev/null 2>&1 || { echo "SKIP: $tool is not installed"; exit 77; }
done
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/initscratch.sh"
jp_scratch launch-files
T=$(cd -P "$T" && pwd)
. "$TOP_SRCDIR/tests/lib/zh.sh"
zh_env
jp_init_scratch "$T" || { echo "not ok - scratch platform: cannot lay it out"; exit 99; }

# the training project, as a team would push it
W=$T/work
git init -q -b main "$W" && mkdir -p "$W/configs" "$W/scripts" || exit 99
printf 'import os\nprint(os.environ.get("CHECKPOINT_DIR"))\n' >"$W/train.py"
printf 'lr: 0.1\n' >"$W/configs/base.yaml"
printf '#!/bin/sh\nset -e\npython3 train.py --config configs/base.yaml\npython3 eval.py\n' >"$W/scripts/run.sh"
printf '#!/bin/sh\nif [ -f extra.py ]; then\n\tpython3 extra.py\nfi\n' >"$W/scripts/maybe.sh"
printf 'torchrun --nproc_per_node 8 train.py --config configs/base.yaml\n' >"$W/scripts/multi.sh"
printf '#!/bin/sh\ncd "$(dirname "$0")/.." && exec python3 train.py --config configs/base.yaml\n' >"$W/scripts/ok.sh"
git -C "$W" add -A && git $JP_GIT_ID -C "$W" commit -qm code || exit 99
git clone -q --bare "$W" "$T/repos/code.git" || exit 99
mkdir -p "$T/shared/raw" && tar czf "$T/shared/raw/corpus.tar.gz" -C "$W" configs || exit 99

# case NAME WORKERS COMMAND [ENV_JSON [ARG...]]: init of job NAME (its own
# checkout and runs); rc in $T/NAME.rc, output in $T/NAME.out (stdout+stderr)
case_init() {
	_n=$1 _w=$2 _c=$3 _e=${4:-'{}'}
	shift 3
	[ $# -gt 0 ] && shift
	python3 - "$T/$_n.json" "$_n" "$_w" "$_c" "$_e" "file://$T/repos/code.git" <<'PY'
import json, sys
f, name, workers, cmd, env, url = sys.argv[1:]
json.dump({"job": {"name": name, "workers": int(workers), "gpus_per_worker": 8,
                   "launch_command": cmd, "env": json.loads(env)},
           "code": {"source": "shared_storage", "repo": {"url": url, "ref": "main"}}},
          open(f, "w"))
PY
	"$J" init --answers "$T/$_n.json" --profile "$T/profile.json" "$@" >"$T/$_n.out" 2>&1
	echo $? >"$T/$_n.rc"
}
rc() { cat "$T/$1.rc"; }
manifest() { find "$T/shared/outputs/$1" -name job.json 2>/dev/null | head -n 1; }
# status MANIFEST ID: the status of the first check ID in it
status() {
	python3 -c 'import json,sys
c=[c for c in json.load(open(sys.argv[1]))["checks"] if c["id"]==sys.argv[2]]
print(c[0]["status"] if c else "none")' "$1" "$2" 2>/dev/null
}
says() { grep -qF -- "$2" "$T/$1.out" || jp_fail "$3" "$(head -c 600 "$T/$1.out")"; }
P=$T/shared/projects

# --- a file the command names is not in the code ---------------------------
case_init argfile 1 'cd "$PROJECT_DIR" && python3 train.py config/nope.py'
jp_expect missing_config_operand_fails_init [ "$(rc argfile)" = 1 -a -z "$(manifest argfile)" ]
says argfile "'config/nope.py': $P/argfile/config/nope.py is not in the code ($P/argfile)" \
	missing_config_operand_is_named_with_its_path

case_init optfile 1 'cd "$PROJECT_DIR" && python3 train.py --config configs/x.yaml'
jp_expect missing_config_option_value_fails_init [ "$(rc optfile)" = 1 -a -z "$(manifest optfile)" ]
says optfile "'configs/x.yaml': $P/optfile/configs/x.yaml is not in the code" \
	missing_config_option_value_is_named

# --- the scripts it runs are read ------------------------------------------
case_init script 1 'cd "$PROJECT_DIR" && bash scripts/run.sh'
jp_expect script_running_a_missing_file_fails_init [ "$(rc script)" = 1 -a -z "$(manifest script)" ]
says script "scripts/run.sh:4: 'eval.py': $P/script/eval.py does not exist in the project" \
	script_finding_names_script_and_line

case_init script 1 'cd "$PROJECT_DIR" && bash scripts/run.sh' '{}' --force
M=$(manifest script)
"$J" check --json "$M" >"$T/check.json" 2>"$T/check.err"
jp_expect check_of_forced_manifest_fails [ $? = 1 ]
# (the path is in the run's own copy of the code, its code.path)
python3 - "$T/check.json" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["code"]["path"])' "$M")/eval.py" <<'PY' || jp_fail check_json_reports_the_script_line "$(grep -A3 launch.script "$T/check.json")"
import json, sys
out = json.load(open(sys.argv[1]))
c = [c for c in out if c["id"] == "launch.script"]
sys.exit(0 if c and c[0]["status"] == "fail" and c[0]["path"] == sys.argv[2]
         and c[0]["message"].startswith("scripts/run.sh:4: ") else 1)
PY

case_init maybe 1 'cd "$PROJECT_DIR" && bash scripts/maybe.sh'
jp_expect missing_file_inside_if_only_warns [ "$(rc maybe)" = 0 -a "$(status "$(manifest maybe)" launch.script)" = warn ]

# a plain torchrun on 2 Workers: two trainings that never meet, a failure
# since issue 31 (it was a warning)
case_init multi 2 'cd "$PROJECT_DIR" && bash scripts/multi.sh'
jp_expect launcher_inside_a_script_fails_init [ "$(rc multi)" = 1 -a -z "$(manifest multi)" ]
case_init multi 2 'cd "$PROJECT_DIR" && bash scripts/multi.sh' '{}' --force
jp_expect launcher_inside_a_script_is_a_failed_check [ "$(status "$(manifest multi)" launch.launcher)" = fail ]
says multi "scripts/multi.sh:1: 'torchrun' without its multi-node options" launcher_finding_names_script_and_line

case_init good 1 'cd "$PROJECT_DIR" && bash scripts/ok.sh && python3 train.py --config configs/base.yaml'
jp_expect command_whose_files_are_all_there_passes [ "$(rc good)" = 0 -a -n "$(manifest good)" ]
jp_expect it_has_no_file_findings [ "$(status "$(manifest good)" launch.file)$(status "$(manifest good)" launch.script)" = nonenone ]

# --- what the job writes on the wiped disk fails -----------------------------
case_init tmpout 1 'cd "$PROJECT_DIR" && python3 train.py --config configs/base.yaml --out /tmp/out'
jp_expect tmp_output_fails_init [ "$(rc tmpout)" = 1 -a -z "$(manifest tmpout)" ]
says tmpout "'--out /tmp/out' writes to /tmp/out, under /tmp, which is wiped" tmp_output_says_why

case_init tmpout 1 'cd "$PROJECT_DIR" && python3 train.py --config configs/base.yaml --out /tmp/out' '{}' --force
"$J" export --to slurm -o "$T/tmpout.sbatch" "$(manifest tmpout)" >"$T/export.out" 2>&1
jp_expect export_refuses_the_tmp_output [ $? = 1 -a ! -e "$T/tmpout.sbatch" ]
# its recorded checks emptied: export lints the command again
python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); m["checks"]=[]; json.dump(m, open(sys.argv[2], "w"))' "$(manifest tmpout)" "$T/bare.json"
"$J" export --to slurm -o "$T/bare.sbatch" "$T/bare.json" >"$T/export.out" 2>&1
says export "the launch command fails its checks; fix it, or export anyway with --force" \
	export_says_the_command_fails_its_checks

case_init envtmp 1 'cd "$PROJECT_DIR" && python3 train.py --config configs/base.yaml' '{"HF_HOME": "/tmp/hf"}'
jp_expect ephemeral_job_env_fails_init [ "$(rc envtmp)" = 1 -a -z "$(manifest envtmp)" ]
case_init scratch 1 'cd "$PROJECT_DIR" && python3 train.py --config configs/base.yaml' '{"TMPDIR": "/tmp"}'
jp_expect tmpdir_on_tmp_only_warns [ "$(rc scratch)" = 0 -a "$(status "$(manifest scratch)" launch.env_path)" = warn ]

# --- the stage hint onto shared storage, never the wiped disk ----------------
case_init unpack 1 "tar xzf '$T/shared/raw/corpus.tar.gz' -C /workspace && cd \"\$PROJECT_DIR\" && python3 train.py --config configs/base.yaml"
says unpack "before submitting with: jobprep stage '$T/shared/raw/corpus.tar.gz' '$T/shared/datasets/corpus'" \
	unpack_hint_stages_onto_shared_storage
jp_expect unpack_hint_never_names_workspace jp_no_text -F "'/workspace'" "$T/unpack.out"

# --- a checkout not on this machine: nothing is missing from it --------------
M=$(manifest good)
# (the checkout and the run's own copy of its code, both under $P)
sed "s|$P/|$T/elsewhere/|g" "$M" >"$T/moved.json"
"$J" check --json "$T/moved.json" >"$T/moved.out" 2>&1
python3 - "$T/moved.out" <<'PY' || jp_fail moved_checkout_fails_code_path_only
import json, sys
ids = {c["id"]: c["status"] for c in json.load(open(sys.argv[1]))}
sys.exit(0 if ids.get("code.path.exists") == "fail" and "launch.file" not in ids
         and "launch.script" not in ids else 1)
PY

# --- in Chinese ----------------------------------------------------------------
case_init zh 1 'cd "$PROJECT_DIR" && python3 train.py config/nope.py'
zh_run "$J" init --answers "$T/zh.json" --profile "$T/profile.json" >"$T/zh.out" 2>&1
says zh "不在代码中" missing_file_message_is_in_chinese
# issue 31's verdicts too: a process count other than the GPUs
case_init zhcount 1 'cd "$PROJECT_DIR" && torchrun --nproc_per_node=2 train.py --config configs/base.yaml'
zh_run "$J" init --answers "$T/zhcount.json" --profile "$T/profile.json" >"$T/zhcount.out" 2>&1
jp_expect process_count_message_is_in_chinese grep -qF "在每个 Worker 上启动 2 个进程" "$T/zhcount.out"

jp_done
