#!/bin/sh
# Issue 31: what makes a job fail or waste its GPUs for certain is a failure
# of `init` (exit 1, no manifest), each beside a healthy twin that stays
# quiet. On a nanoGPT-shaped project (train.py, configurator.py, model.py,
# config/*.py, data/shakespeare_char/prepare.py) and an accelerate-shaped
# example, cloned by `init` from a bare repository: a script run relative to
# the starting directory, or after a cd out of the project; a plain torchrun
# on two Workers; --nproc_per_node, --num_processes, --nnodes against the
# GPUs and Workers (the exports then ask for the GPUs the command uses, and
# the launcher's hint never proposes a second --nproc_per_node); an output on
# /tmp reached through a config the command names (Python, YAML, JSON), a
# key=value override, or a job.env variable.
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
for tool in git python3; do
	command -v "$tool" >/dev/null 2>&1 || { echo "SKIP: $tool is not installed"; exit 77; }
done
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/initscratch.sh"
jp_scratch launch-verdicts
T=$(cd -P "$T" && pwd)
jp_init_scratch "$T" || { echo "not ok - scratch platform: cannot lay it out"; exit 99; }

# --- nanoGPT, as its repository has it (the parts the lint reads) ------------
W=$T/work
git init -q -b main "$W" &&
	mkdir -p "$W/config" "$W/data/shakespeare_char" "$W/data/shakespeare" "$W/examples" || exit 99
cat >"$W/train.py" <<'EOF'
import os
import numpy as np
import torch
from model import GPT
out_dir = 'out'
eval_interval = 2000
wandb_log = False # disabled by default
wandb_project = 'owt'
dataset = 'openwebtext'
init_from = 'scratch' # 'scratch' or 'resume' or 'gpt2*'
config_keys = [k for k,v in globals().items() if not k.startswith('_')]
exec(open('configurator.py').read()) # overrides from command line or config file
data_dir = os.path.join('data', dataset)
def get_batch(split):
    if split == 'train':
        data = np.memmap(os.path.join(data_dir, 'train.bin'), dtype=np.uint16, mode='r')
    else:
        data = np.memmap(os.path.join(data_dir, 'val.bin'), dtype=np.uint16, mode='r')
    return data
if init_from == 'scratch':
    model = GPT()
elif init_from.startswith('gpt2'):
    override_args = dict(dropout=0.0)
    model = GPT.from_pretrained(init_from, override_args)
if wandb_log and master_process:
    import wandb
    wandb.init(project=wandb_project, name=wandb_run_name, config=config)
os.makedirs(out_dir, exist_ok=True)
EOF
cat >"$W/configurator.py" <<'EOF'
import sys
from ast import literal_eval
for arg in sys.argv[1:]:
    if '=' not in arg:
        config_file = arg
        exec(open(config_file).read())
EOF
cat >"$W/model.py" <<'EOF'
class GPT:
    @classmethod
    def from_pretrained(cls, model_type, override_args=None):
        from transformers import GPT2LMHeadModel
        return GPT2LMHeadModel.from_pretrained(model_type)
EOF
cat >"$W/config/train_shakespeare_char.py" <<'EOF'
out_dir = 'out-shakespeare-char'
eval_interval = 250 # keep frequent because we'll overfit
wandb_log = False # override via command line if you like
wandb_project = 'shakespeare-char'
dataset = 'shakespeare_char'
EOF
cat >"$W/config/finetune_shakespeare.py" <<'EOF'
import time
out_dir = 'out-shakespeare'
eval_interval = 5
wandb_log = False # feel free to turn on
wandb_run_name = 'ft-' + str(time.time())
dataset = 'shakespeare'
init_from = 'gpt2-xl' # this is the largest GPT-2 model
EOF
printf "out_dir = '/tmp/out'\ndataset = 'shakespeare_char'\n" >"$W/config/tmp_out.py"
printf 'run:\n  out_dir: /tmp/evalout\n  dataset: shakespeare_char\n' >"$W/config/eval.yaml"
printf '{"trainer": {"output_dir": "/tmp/jsonout"}, "dataset": "shakespeare_char"}\n' >"$W/config/eval.json"
printf '{"trainer": {"output_dir": "/mnt/elsewhere"}, "dataset": "shakespeare_char"}\n' >"$W/config/good.json"
cat >"$W/data/shakespeare_char/prepare.py" <<'EOF'
import os
import requests
input_file_path = os.path.join(os.path.dirname(__file__), 'input.txt')
if not os.path.exists(input_file_path):
    data_url = 'https://raw.githubusercontent.com/karpathy/char-rnn/master/data/tinyshakespeare/input.txt'
    with open(input_file_path, 'w') as f:
        f.write(requests.get(data_url).text)
EOF
cat >"$W/data/shakespeare/prepare.py" <<'EOF'
import os
import requests
import numpy as np
input_file_path = os.path.join(os.path.dirname(__file__), 'input.txt')
if not os.path.exists(input_file_path):
    data_url = 'https://raw.githubusercontent.com/karpathy/char-rnn/master/data/tinyshakespeare/input.txt'
    with open(input_file_path, 'w', encoding='utf-8') as f:
        f.write(requests.get(data_url).text)
np.array([1, 2]).tofile(os.path.join(os.path.dirname(__file__), 'train.bin'))
EOF
printf 'name = input("run name? ")\nprint(name)\n' >"$W/ask.py"
printf 'import sys\nname = sys.argv[1]\n' >"$W/noask.py"
printf 'tokens\n' >"$W/data/shakespeare_char/train.bin"
printf 'tokens\n' >"$W/data/shakespeare_char/val.bin"
printf 'compute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_GPU\nnum_machines: 2\nnum_processes: 8\n' >"$W/config/acc8.yaml"
printf 'compute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_GPU\nnum_machines: 2\nnum_processes: 16\n' >"$W/config/acc16.yaml"
cat >"$W/examples/nlp_example.py" <<'EOF'
from accelerate import Accelerator
accelerator = Accelerator()
EOF
git -C "$W" add -A && git $JP_GIT_ID -C "$W" commit -qm code || exit 99
git clone -q --bare "$W" "$T/repos/nanogpt.git" || exit 99

# case NAME WORKERS COMMAND [ENV_JSON [ARG...]]: init of job NAME (its own
# data source: $DATA when set;
# checkout and runs; the job is NAME with '-' for '_'); rc in $T/NAME.rc,
# output in $T/NAME.out
case_init() {
	_n=$1 _w=$2 _c=$3 _e=${4:-'{}'}
	shift 3
	[ $# -gt 0 ] && shift
	python3 - "$T/$_n.json" "$_n" "$_w" "$_c" "$_e" "file://$T/repos/nanogpt.git" "${DATA:-}" <<'PY'
import json, os, sys
f, name, workers, cmd, env, url, data = sys.argv[1:]
a = {"job": {"name": name.replace("_", "-"), "workers": int(workers), "gpus_per_worker": 8,
             "launch_command": cmd, "env": json.loads(env)},
     "code": {"source": "shared_storage", "repo": {"url": url, "ref": "main"}}}
if data:
    a["data"] = [{"path": data}]
    if os.environ.get("DATA_OUTPUT"):
        a["data"][0]["output"] = True
json.dump(a, open(f, "w"))
PY
	"$J" init --answers "$T/$_n.json" --profile "$T/profile.json" "$@" >"$T/$_n.out" 2>&1
	echo $? >"$T/$_n.rc"
}
rc() { cat "$T/$1.rc"; }
manifest() { find "$T/shared/outputs/$(printf %s "$1" | tr _ -)" -name job.json 2>/dev/null | head -n 1; }
# status NAME ID: the status of check ID in job NAME's manifest ("none")
status() {
	python3 -c 'import json,sys
c=[c for c in json.load(open(sys.argv[1]))["checks"] if c["id"]==sys.argv[2]]
print(c[0]["status"] if c else "none")' "$(manifest "$1")" "$2" 2>/dev/null || echo nomanifest
}
# message NAME ID: its message
message() {
	python3 -c 'import json,sys
c=[c for c in json.load(open(sys.argv[1]))["checks"] if c["id"]==sys.argv[2]]
print(c[0]["message"] if c else "")' "$(manifest "$1")" "$2" 2>/dev/null
}
# refused NAME ID: init of NAME refused (exit 1, no manifest), and forced it
# records ID failed
refused() {
	[ "$(rc "$1")" = 1 ] && [ -z "$(manifest "$1")" ] || return 1
	case_init "$1" "$(cat "$T/$1.w")" "$(cat "$T/$1.c")" "$(cat "$T/$1.e")" --force
	[ "$(status "$1" "$2")" = fail ]
}
# quiet NAME ID: init of NAME wrote its manifest, without check ID
quiet() { [ "$(rc "$1")" = 0 ] && [ "$(status "$1" "$2")" = none ]; }
run() { # run NAME WORKERS COMMAND [ENV]: remembered for refused's --force
	_env=${4:-}
	[ -n "$_env" ] || _env='{}'
	printf '%s' "$2" >"$T/$1.w"
	printf '%s' "$3" >"$T/$1.c"
	printf '%s' "$_env" >"$T/$1.e"
	case_init "$1" "$2" "$3" "$_env"
}
OUT='--out_dir="$CHECKPOINT_DIR"'
FORM='--nnodes="$WORLD_SIZE" --node_rank="$RANK" --master_addr="$MASTER_ADDR" --master_port="$MASTER_PORT"'
CFG=config/train_shakespeare_char.py

# --- 1: the script is not where the command runs it ---------------------------
run relative 1 "python3 train.py $CFG $OUT"
jp_expect relative_script_fails_init refused relative launch.script
run relative_cd 1 "cd \"\$PROJECT_DIR\" && python3 train.py $CFG $OUT"
jp_expect relative_script_after_cd_into_the_project_is_quiet quiet relative_cd launch.script
run cd_out 1 "cd \"$T/shared\" && python3 train.py $CFG $OUT"
jp_expect script_after_cd_out_of_the_project_fails_init refused cd_out launch.script

# --- 1: a plain torchrun on two Workers --------------------------------------
run plain 2 "cd \"\$PROJECT_DIR\" && torchrun --nproc_per_node=8 train.py $CFG $OUT"
jp_expect plain_torchrun_on_two_workers_fails_init refused plain launch.launcher
run meets 2 "cd \"\$PROJECT_DIR\" && torchrun $FORM --nproc_per_node=8 train.py $CFG $OUT"
jp_expect torchrun_that_meets_is_quiet quiet meets launch.launcher

# --- 2: counts --------------------------------------------------------------------
run nproc 2 "cd \"\$PROJECT_DIR\" && torchrun $FORM --nproc_per_node=2 train.py $CFG $OUT"
jp_expect nproc_below_the_gpus_fails_init refused nproc launch.processes
jp_expect nproc_meeting_the_gpus_is_quiet quiet meets launch.processes
"$J" export --to slurm --force -o "$T/nproc.sbatch" "$(manifest nproc)" >"$T/export.out" 2>&1
jp_expect slurm_export_asks_for_the_gpus_the_command_uses grep -qx '#SBATCH --gpus-per-node=2' "$T/nproc.sbatch"
"$J" export --to pytorchjob --force -o "$T/nproc.yaml" "$(manifest nproc)" >"$T/export.out" 2>&1
jp_expect pytorchjob_asks_for_the_gpus_the_command_uses grep -q 'nvidia.com/gpu: "*2"*$' "$T/nproc.yaml"
"$J" export --to slurm --force -o "$T/meets.sbatch" "$(manifest meets)" >"$T/export.out" 2>&1
jp_expect slurm_export_of_the_twin_asks_for_8 grep -qx '#SBATCH --gpus-per-node=8' "$T/meets.sbatch"

run hint 2 "cd \"\$PROJECT_DIR\" && torchrun --nproc_per_node=2 train.py $CFG $OUT"
jp_expect plain_torchrun_with_its_count_fails refused hint launch.launcher
message hint launch.launcher >"$T/hint.msg"
jp_expect launcher_hint_proposes_no_second_nproc_per_node \
	sh -c 'grep -qF -- "--master_port=" "$1" && ! grep -qF -- "--nproc_per_node" "$1"' sh "$T/hint.msg"

run nnodes 2 "cd \"\$PROJECT_DIR\" && torchrun --nnodes=4 --node_rank=\"\$RANK\" --master_addr=\"\$MASTER_ADDR\" --master_port=\"\$MASTER_PORT\" --nproc_per_node=8 train.py $CFG $OUT"
jp_expect nnodes_other_than_the_workers_fails_init refused nnodes launch.nodes
jp_expect nnodes_of_world_size_is_quiet quiet meets launch.nodes

ACC='accelerate launch --num_machines 2 --machine_rank "$RANK" --main_process_ip "$MASTER_ADDR" --main_process_port "$MASTER_PORT"'
run acc 2 "cd \"\$PROJECT_DIR\" && $ACC --num_processes 8 examples/nlp_example.py --output_dir \"\$CHECKPOINT_DIR\""
jp_expect accelerate_num_processes_below_the_job_gpus_fails_init refused acc launch.processes
run acc_ok 2 "cd \"\$PROJECT_DIR\" && $ACC --num_processes 16 examples/nlp_example.py --output_dir \"\$CHECKPOINT_DIR\""
jp_expect accelerate_num_processes_of_all_gpus_is_quiet quiet acc_ok launch.processes

# accelerate's own config file gives the count
ACCF='--machine_rank "$RANK" --main_process_ip "$MASTER_ADDR" --main_process_port "$MASTER_PORT" examples/nlp_example.py --output_dir "$CHECKPOINT_DIR"'
run accf 2 "cd \"\$PROJECT_DIR\" && accelerate launch --config_file config/acc8.yaml $ACCF"
jp_expect accelerate_config_num_processes_below_the_job_gpus_fails_init refused accf launch.processes
run accf_ok 2 "cd \"\$PROJECT_DIR\" && accelerate launch --config_file config/acc16.yaml $ACCF"
jp_expect accelerate_config_of_all_gpus_is_quiet quiet accf_ok launch.processes

# --- 3: outputs on the wiped disk, however they are reached ------------------
run pycfg 1 "cd \"\$PROJECT_DIR\" && python3 train.py config/tmp_out.py"
jp_expect python_config_output_on_tmp_fails_init refused pycfg launch.ephemeral_output
message pycfg launch.ephemeral_output >"$T/pycfg.msg"
jp_expect its_message_names_the_config_and_tmp grep -qF "config/tmp_out.py:1: out_dir = '/tmp/out'" "$T/pycfg.msg"
jp_expect no_finding_says_tmp_lands_inside_the_project \
	sh -c '[ -s "$1" ] && ! grep -q "lands inside the project" "$1"' sh "$(manifest pycfg)"
run pycfg_ok 1 "cd \"\$PROJECT_DIR\" && python3 train.py $CFG"
jp_expect python_config_with_a_relative_output_has_no_ephemeral_output quiet pycfg_ok launch.ephemeral_output
message pycfg_ok launch.outputs >"$T/pycfg_ok.msg"
jp_expect relative_config_output_is_named_as_landing_in_the_project \
	grep -qF "out_dir = 'out-shakespeare-char'" "$T/pycfg_ok.msg"

run yaml 1 "cd \"\$PROJECT_DIR\" && python3 train.py --config config/eval.yaml $OUT"
jp_expect yaml_config_output_on_tmp_fails_init refused yaml launch.ephemeral_output
run json 1 "cd \"\$PROJECT_DIR\" && python3 train.py --config config/eval.json $OUT"
jp_expect json_config_output_on_tmp_fails_init refused json launch.ephemeral_output
run json_ok 1 "cd \"\$PROJECT_DIR\" && python3 train.py --config config/good.json $OUT"
jp_expect json_config_output_elsewhere_is_quiet quiet json_ok launch.ephemeral_output
run override 1 "cd \"\$PROJECT_DIR\" && python3 train.py $CFG out_dir=/tmp/o"
jp_expect key_value_override_on_tmp_fails_init refused override launch.ephemeral_output
run override_ok 1 "cd \"\$PROJECT_DIR\" && python3 train.py $CFG out_dir=\"\$CHECKPOINT_DIR\""
jp_expect key_value_override_to_the_run_is_quiet quiet override_ok launch.ephemeral_output
run envvar 1 "cd \"\$PROJECT_DIR\" && python3 train.py $CFG --out_dir=\"\$TMPDIR/out\"" '{"TMPDIR": "/tmp"}'
jp_expect output_through_a_job_env_variable_on_tmp_fails_init refused envvar launch.ephemeral_output
run envvar_ok 1 "cd \"\$PROJECT_DIR\" && python3 train.py $CFG --out_dir=\"\$SAVE/out\"" "{\"SAVE\": \"$T/shared/save\"}"
jp_expect output_through_a_job_env_variable_on_shared_storage_is_quiet quiet envvar_ok launch.ephemeral_output

# --- 4: data the job reads ---------------------------------------------------------
# the finetune config sets dataset = 'shakespeare': train.py reads
# data/shakespeare/train.bin, which the clone does not have
run nodata 1 "cd \"\$PROJECT_DIR\" && python3 train.py config/finetune_shakespeare.py $OUT"
jp_expect data_path_the_code_reads_missing_fails_init refused nodata launch.data
message nodata launch.data >"$T/nodata.msg"
jp_expect its_message_names_the_file_and_line grep -qF "train.py:16: np.memmap reads $T/shared/projects/nodata/data/shakespeare/train.bin, which does not exist" "$T/nodata.msg"
jp_expect data_path_there_is_quiet quiet relative_cd launch.data
# its prepare.py, run first, makes it beside itself: no launch.data
run prepfirst 1 "cd \"\$PROJECT_DIR\" && python3 data/shakespeare/prepare.py && python3 train.py config/finetune_shakespeare.py $OUT"
case_init prepfirst 1 "$(cat "$T/prepfirst.c")" '{}' --force
jp_expect data_made_by_a_step_the_command_runs_first_is_no_failure \
	sh -c '[ -n "$1" ] && [ "$(python3 -c "import json,sys; print(len([c for c in json.load(open(sys.argv[1]))[\"checks\"] if c[\"id\"] == \"launch.data\"]))" "$1")" = 0 ]' sh "$(manifest prepfirst)"

DATA=$T/shared/datasets/text
export DATA
run unused 1 "cd \"\$PROJECT_DIR\" && python3 train.py $CFG $OUT"
jp_expect data_source_never_named_warns sh -c '[ "$(cat "$1/unused.rc")" = 0 ]' sh "$T"
jp_expect data_source_never_named_is_launch_data_warn sh -c '[ "$1" = warn ]' sh "$(status unused launch.data)"
message unused launch.data >"$T/unused.msg"
jp_expect it_says_where_the_code_reads_instead grep -qF "the code reads data/shakespeare_char/train.bin inside the project instead (train.py:16: $T/shared/projects/unused/data/shakespeare_char/train.bin)" "$T/unused.msg"
run used 1 "cd \"\$PROJECT_DIR\" && python3 train.py $CFG $OUT --data_dir=\"\$DATA_DIR\""
jp_expect data_source_passed_on_is_quiet quiet used launch.data
# an empty data source: nothing to read, unless the job fills it
mkdir -p "$T/shared/datasets/empty" || exit 99
DATA=$T/shared/datasets/empty
run empty 1 "cd \"\$PROJECT_DIR\" && python3 train.py $CFG $OUT --data_dir=\"\$DATA_DIR\""
jp_expect empty_data_source_fails_init refused empty 'data[0].path.contents'
DATA_OUTPUT=1
export DATA_OUTPUT
run empty_out 1 "cd \"\$PROJECT_DIR\" && python3 train.py $CFG $OUT --data_dir=\"\$DATA_DIR\""
jp_expect empty_data_source_marked_output_passes sh -c '[ "$(cat "$1")" = 0 ] && [ "$2" = pass ]' sh "$T/empty_out.rc" "$(status empty_out 'data[0].path.contents')"
unset DATA DATA_OUTPUT

# --- 5: a job that waits for a keyboard ---------------------------------------------
run wandb 1 "cd \"\$PROJECT_DIR\" && python3 train.py $CFG $OUT --wandb_log=True"
jp_expect wandb_init_without_key_or_mode_fails_init refused wandb launch.prompt
run wandb_off 1 "cd \"\$PROJECT_DIR\" && python3 train.py $CFG $OUT --wandb_log=True" '{"WANDB_MODE": "offline"}'
jp_expect wandb_init_with_wandb_mode_is_quiet quiet wandb_off launch.prompt
jp_expect wandb_init_the_config_turns_off_is_quiet quiet relative_cd launch.prompt
run ask 1 'cd "$PROJECT_DIR" && python3 ask.py'
jp_expect input_in_the_script_fails_init refused ask launch.prompt
run noask 1 'cd "$PROJECT_DIR" && python3 noask.py run1'
jp_expect script_without_input_is_quiet quiet noask launch.prompt
run hflogin 1 "huggingface-cli login && cd \"\$PROJECT_DIR\" && python3 train.py $CFG $OUT"
jp_expect huggingface_cli_login_fails_init refused hflogin launch.prompt
run hftoken 1 "huggingface-cli login --token \"\$HF_TOKEN\" && cd \"\$PROJECT_DIR\" && python3 train.py $CFG $OUT"
jp_expect huggingface_cli_login_with_a_token_is_quiet quiet hftoken launch.prompt
run wblogin 1 "wandb login && cd \"\$PROJECT_DIR\" && python3 train.py $CFG $OUT"
jp_expect wandb_login_fails_init refused wblogin launch.prompt

# --- 6: Hub downloads by a variable, a download step ---------------------------------
# (the forced manifest of nodata: its config sets init_from = 'gpt2-xl')
jp_expect model_named_by_a_config_variable_is_a_hub_download sh -c '[ "$1" = warn ]' sh "$(status nodata launch.hub_download)"
message nodata launch.hub_download >"$T/hubvar.msg"
jp_expect it_names_gpt2_xl_where_train_py_loads_it grep -qF 'train.py:24: from_pretrained("gpt2-xl")' "$T/hubvar.msg"
jp_expect scratch_config_has_no_hub_download quiet relative_cd launch.hub_download

FULL="torchrun $FORM --nproc_per_node=8 train.py $CFG $OUT"
run prep 2 "cd \"\$PROJECT_DIR\" && python3 data/shakespeare_char/prepare.py && $FULL"
jp_expect download_step_is_flagged sh -c '[ "$1" = warn ]' sh "$(status prep launch.download)"
message prep launch.download >"$T/prep.msg"
jp_expect download_step_gets_the_stage_line grep -qF "data/shakespeare_char/prepare.py:7: requests.get('https://raw.githubusercontent.com/karpathy/char-rnn/master/data/tinyshakespeare/input.txt') downloads when the job starts" "$T/prep.msg"
jp_expect and_the_jobprep_stage_command grep -qF "jobprep stage 'https://raw.githubusercontent.com/karpathy/char-rnn/master/data/tinyshakespeare/input.txt' '$T/shared/datasets/input.txt'" "$T/prep.msg"
jp_expect download_step_gets_no_torchrun_advice quiet prep launch.launcher
jp_expect the_training_alone_has_no_download quiet meets launch.download

# --- check --json lists them (its own lint of the forced manifests) ----------------
for job in nproc:launch.processes nnodes:launch.nodes wandb:launch.prompt nodata:launch.data \
	pycfg:launch.ephemeral_output relative:launch.script; do
	"$J" check --json "$(manifest "${job%%:*}")" >"$T/check-${job%%:*}.json" 2>/dev/null
	jp_expect "check_json_fails_${job#*:}" python3 -c 'import json, sys
c = [c for c in json.load(open(sys.argv[1])) if c["id"] == sys.argv[2]]
sys.exit(0 if c and c[0]["status"] == "fail" and c[0]["message"] else 1)' "$T/check-${job%%:*}.json" "${job#*:}"
done

jp_done
