#!/bin/sh
# The next run picks up where the last one stopped. A nanoGPT-like project
# (train.py reads out_dir/ckpt.pt when init_from == 'resume', a config file
# sets it) prepared twice: after run-001 left a real checkpoint, the second
# prep fails (launch.resume) naming run-001's checkpoint folder and the fix;
# with job.resume_from chosen it passes, env.sh exports RESUME_FROM (the
# launch line run as a Worker resumes from it), the manifest records it and
# `jobprep runs` shows the chain. The other forms (--resume_from_checkpoint,
# `resume: true` in a YAML config, --resume auto) are read the same way. Healthy
# twins: a command that does not resume, an earlier run that left nothing,
# and a checkpoint folder holding only a temporary, get no failure and no
# offer.
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/report.sh"
for tool in git python3 sed grep; do
	command -v "$tool" >/dev/null 2>&1 || jp_skip_all "$tool is not installed"
done

T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-init-resume.XXXXXX") || exit 99
T=$(cd -P "$T" && pwd)
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
XDG_STATE_HOME=$T/state XDG_CACHE_HOME=$T/cache
export XDG_STATE_HOME XDG_CACHE_HOME
mkdir -p "$T/shared/projects" "$T/public" || exit 99
cat >"$T/profile.json" <<EOF || exit 99
{"sandbox": true, "shared_roots": ["$T/shared"], "public_roots": ["$T/public"]}
EOF

# The project: nanoGPT's layout, cut down. train.py resumes from
# $RESUME_FROM when env.sh sets it, else from out_dir.
P=$T/proj
mkdir -p "$P/config" || exit 99
cat >"$P/train.py" <<'EOF'
import os
out_dir = 'out'
init_from = 'scratch' # 'scratch' or 'resume'
exec(open('configurator.py').read())
if init_from == 'resume':
    ckpt_path = os.path.join(os.environ.get('RESUME_FROM', out_dir), 'ckpt.pt')
    print("resuming from", ckpt_path, open(ckpt_path).read().strip())
else:
    print("training from scratch")
os.makedirs(out_dir, exist_ok=True)
EOF
cat >"$P/configurator.py" <<'EOF'
import sys
for arg in sys.argv[1:]:
    if '=' not in arg:
        exec(open(arg).read())
    else:
        key, val = arg.split('=', 1)
        globals()[key[2:]] = val
EOF
printf "# go on from the last checkpoint\ninit_from = 'resume'\n" >"$P/config/train_resume.py"
printf "# a fresh start\ninit_from = 'scratch'\nmax_iters = 10\n" >"$P/config/train_fresh.py"
printf 'trainer:\n  max_steps: 10\n  resume: true\n' >"$P/config/hf.yaml"
(cd "$P" && git init -q && git add -A &&
	git -c user.name=t -c user.email=t@example.com commit -qm one) || exit 99
git clone -q "$P" "$T/shared/projects/nano" || exit 99
CODE=$T/shared/projects/nano

# answers JOB COMMAND [EXTRA_JOB_JSON [EXTRA_TOP_JSON]]: an answers file in $T/JOB-answers.json
answers() {
	python3 - "$T/$1-answers.json" "$1" "$2" "$CODE" "${3:-}" "${4:-}" <<'EOF'
import json, sys
out, job, cmd, code, extra_job, extra_top = sys.argv[1:7]
a = {"job": {"name": job, "launch_command": cmd},
     "code": {"source": "shared_storage", "path": code}}
if extra_job:
    a["job"].update(json.loads(extra_job))
if extra_top:
    a.update(json.loads(extra_top))
json.dump(a, open(out, "w"))
EOF
}
# prep JOB [OPTION...]: init of $T/JOB-answers.json; output in $T/JOB.{out,err,rc}
prep() {
	_job=$1
	shift
	"$JOBPREP" init --answers "$T/$_job-answers.json" --profile "$T/profile.json" "$@" \
		>"$T/$_job.out" 2>"$T/$_job.err"
	echo $? >"$T/$_job.rc"
}
rc() { cat "$T/$1.rc"; }
outs=$T/shared/outputs
RESUME='cd "$PROJECT_DIR" && python3 train.py config/train_resume.py --out_dir="$CHECKPOINT_DIR"'

# --- nanoGPT: init_from = 'resume' in the config the command names -----------
answers nano "$RESUME"
prep nano
jp_expect first_run_with_nothing_before_it_passes [ "$(rc nano)" = 0 ]
jp_expect first_run_gets_no_resume_check \
	sh -c '[ -s "$1" ] && ! grep -q launch.resume "$1"' sh "$outs/nano/run-001/job.json"
printf 'step 2000 weights\n' >"$outs/nano/run-001/checkpoints/ckpt.pt"
printf '{"iter": 2000}\n' >"$outs/nano/run-001/checkpoints/state.json"

prep nano
jp_expect second_prep_without_a_choice_fails [ "$(rc nano)" = 1 ]
jp_expect failure_is_launch_resume_naming_run_001_checkpoint \
	grep -q "launch.resume: .*config/train_resume.py:2: init_from = 'resume'.*run-001 left a complete checkpoint in $outs/nano/run-001/checkpoints" "$T/nano.out"
jp_expect failure_names_the_fix \
	grep -q 'set job.resume_from to "run-001" (init --resume-from run-001; ' "$T/nano.out"
jp_expect failure_names_the_same_folder_way \
	grep -q "outputs.checkpoint_dir to $outs/nano/run-001/checkpoints to go on in the same folder (init --resume-in run-001)" "$T/nano.out"
jp_expect refused_prep_writes_no_run_002_manifest [ ! -e "$outs/nano/run-002/job.json" ]

answers nano "$RESUME" '{"resume_from": "run-001"}'
prep nano
jp_expect with_resume_from_run_001_init_passes [ "$(rc nano)" = 0 ]
jp_expect env_sh_exports_resume_from_run_001 \
	[ "$(sh -c '. "$1" && printf %s "$RESUME_FROM"' sh "$outs/nano/run-002/env.sh")" = \
	  "$outs/nano/run-001/checkpoints" ]
jp_expect manifest_records_resume_from \
	grep -q "\"resume_from\":[[:space:]]*\"$outs/nano/run-001/checkpoints\"" "$outs/nano/run-002/job.json"
# run-002's launch line, as a Worker runs it: it resumes from run-001's checkpoint
(. "$outs/nano/run-002/env.sh" && eval "$RESUME") >"$T/worker.out" 2>&1
jp_expect worker_resumes_from_run_001_checkpoint \
	grep -q "resuming from $outs/nano/run-001/checkpoints/ckpt.pt step 2000 weights" "$T/worker.out"
"$JOBPREP" runs --profile "$T/profile.json" nano >"$T/runs.out" 2>&1
jp_expect runs_shows_run_002_resumes_run_001 \
	sh -c 'sed -n "/run-002\$/,\$p" "$1" | grep -q "^  resumes *run-001 ($2)"' sh "$T/runs.out" \
	"$outs/nano/run-001/checkpoints"
jp_expect runs_shows_no_chain_for_run_001 \
	sh -c '[ -s "$1" ] && ! sed -n "/run-001\$/,/run-002\$/p" "$1" | grep -q resumes' sh "$T/runs.out"
"$JOBPREP" runs --profile "$T/profile.json" --json nano >"$T/runs.json" 2>&1
jp_expect runs_json_names_the_run_resumed python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r[0]["resumes_from"] is None
assert r[1]["resumes_from"]["run"] == sys.argv[2] + "/run-001", r[1]
' "$T/runs.json" "$outs/nano"
"$JOBPREP" show "$outs/nano/run-002/job.json" >"$T/show.out" 2>&1
jp_expect show_names_the_checkpoint_resumed_from \
	grep -q "^  resumes from *$outs/nano/run-001/checkpoints\$" "$T/show.out"
"$JOBPREP" check "$outs/nano/run-002/job.json" >"$T/check.out" 2>&1
jp_expect check_of_run_002_passes_the_chosen_checkpoint \
	sh -c '[ -s "$1" ] && ! grep -q "FAIL" "$1" && grep -q "passed" "$1"' sh "$T/check.out"

# "last" takes the last complete checkpoint (run-001: run-002 left none)
answers nano "$RESUME" '{"resume_from": "last"}'
prep nano
jp_expect resume_from_last_takes_run_001 \
	[ "$(rc nano)" = 0 -a "$(sh -c '. "$1" && printf %s "$RESUME_FROM"' sh "$outs/nano/run-003/env.sh")" = \
	  "$outs/nano/run-001/checkpoints" ]
# a checkpoint file itself, by its path
answers nano "$RESUME" "{\"resume_from\": \"$outs/nano/run-001/checkpoints/ckpt.pt\"}"
prep nano
jp_expect resume_from_a_checkpoint_file_passes \
	sh -c '[ "$(cat "$1")" = 0 ] && grep -q "resume_from.*run-001/checkpoints/ckpt.pt" "$2"' sh \
	"$T/nano.rc" "$(ls -d "$outs"/nano/run-* | tail -n 1)/job.json"
answers nano "$RESUME" '{"resume_from": "run-009"}'
prep nano
jp_expect resume_from_a_run_that_is_not_there_is_refused \
	sh -c '[ "$(cat "$1")" != 0 ] && grep -q "run-009 is no earlier run of nano" "$2"' sh \
	"$T/nano.rc" "$T/nano.err"

# --- the same folder, chosen by outputs.checkpoint_dir ------------------------
answers nano "$RESUME" '' "{\"outputs\": {\"checkpoint_dir\": \"$outs/nano/run-001/checkpoints\"}}"
prep nano
jp_expect same_folder_choice_passes [ "$(rc nano)" = 0 ]
"$JOBPREP" runs --profile "$T/profile.json" nano >"$T/runs.out" 2>&1
jp_expect runs_shows_same_folder_chain \
	sh -c 'sed -n "/run-005\$/,\$p" "$1" | grep -q "^  resumes *run-001 (goes on in its checkpoint folder)"' sh "$T/runs.out"

# --- the same two ways on the command line --------------------------------------
answers cli "$RESUME"
prep cli
printf 'step 10\n' >"$outs/cli/run-001/checkpoints/ckpt.pt"
prep cli --resume-from run-001
jp_expect cli_resume_from_passes_and_exports_resume_from \
	[ "$(rc cli)" = 0 -a "$(sh -c '. "$1" && printf %s "$RESUME_FROM"' sh "$outs/cli/run-002/env.sh")" = \
	  "$outs/cli/run-001/checkpoints" ]
# run-002 trained too; its manifest as the next run's answers carries
# run-001's folder: a warning names run-002's later checkpoint
printf 'step 20\n' >"$outs/cli/run-002/checkpoints/ckpt.pt"
cp "$outs/cli/run-002/job.json" "$T/cli-answers.json"
prep cli
jp_expect carried_resume_from_warns_of_the_later_checkpoint \
	sh -c '[ "$(cat "$1")" = 0 ] && grep -q "launch.resume: job.resume_from takes .*/run-001/checkpoints, but run-002 left a later complete checkpoint" "$2"' \
	sh "$T/cli.rc" "$T/cli.out"
answers cli "$RESUME"
prep cli --resume-in last
jp_expect cli_resume_in_last_goes_on_in_run_002_folder \
	[ "$(rc cli)" = 0 -a "$(sh -c '. "$1" && printf %s "$CHECKPOINT_DIR"' sh "$outs/cli/run-004/env.sh")" = \
	  "$outs/cli/run-002/checkpoints" ]
prep cli --resume-from run-001 --resume-in run-001
jp_expect cli_both_ways_at_once_is_a_usage_error [ "$(rc cli)" = 2 ]

# --- healthy twin: the same job, a command that does not resume ----------------
answers fresh 'cd "$PROJECT_DIR" && python3 train.py config/train_fresh.py --out_dir="$CHECKPOINT_DIR"'
prep fresh
printf 'weights\n' >"$outs/fresh/run-001/checkpoints/ckpt.pt"
prep fresh
jp_expect not_resuming_second_prep_passes [ "$(rc fresh)" = 0 ]
jp_expect not_resuming_gets_no_resume_check \
	sh -c '[ -s "$1" -a -s "$2" ] && ! grep -q "launch.resume\|RESUME_FROM" "$1" "$2"' sh \
	"$outs/fresh/run-002/job.json" "$outs/fresh/run-002/env.sh"

# --- healthy twin: an earlier run that left nothing -------------------------------
answers empty "$RESUME"
prep empty
prep empty
jp_expect earlier_run_left_nothing_passes [ "$(rc empty)" = 0 ]
jp_expect earlier_run_left_nothing_no_resume_check \
	sh -c '[ -s "$1" ] && ! grep -q launch.resume "$1"' sh "$outs/empty/run-002/job.json"

# --- healthy twin: an earlier run whose checkpoint folder holds only the
# preflight's marks (a multi-Worker run stopped before its first checkpoint)
answers marks "$RESUME"
prep marks
: >"$outs/marks/run-001/checkpoints/.jobprep-preflight-ready"
: >"$outs/marks/run-001/checkpoints/.jobprep-preflight-vm-123"
prep marks
jp_expect preflight_marks_are_no_checkpoint [ "$(rc marks)" = 0 ]
jp_expect preflight_marks_are_not_offered \
	sh -c '[ -s "$1" ] && ! grep -q "launch.resume\|resume_from" "$1"' sh "$outs/marks/run-002/job.json"

# --- a checkpoint folder holding only a temporary is not offered ---------------------
answers partial "$RESUME"
prep partial
printf 'half a checkpoint' >"$outs/partial/run-001/checkpoints/ckpt.pt.tmp"
prep partial
jp_expect temporary_only_is_not_a_failure [ "$(rc partial)" = 0 ]
jp_expect temporary_only_is_not_offered \
	sh -c '[ -s "$1" -a -s "$2" ] && ! grep -q RESUME_FROM "$1" && ! grep -q resume_from "$2"' sh \
	"$outs/partial/run-002/env.sh" "$outs/partial/run-002/job.json"
jp_expect temporary_only_warns_naming_the_temporary \
	grep -q "launch.resume: .*no earlier run left a complete checkpoint: run-001's checkpoint folder .* holds a temporary (ckpt.pt.tmp)" "$T/partial.out"
answers partial "$RESUME" '{"resume_from": "run-001"}'
prep partial
jp_expect temporary_only_cannot_be_chosen \
	sh -c '[ "$(cat "$1")" != 0 ] && grep -q "holds a temporary (ckpt.pt.tmp)" "$2"' sh \
	"$T/partial.rc" "$T/partial.err"

# --- the other forms: each read from the command (or its YAML config) ---------------
n=0
for cmd in 'cd "$PROJECT_DIR" && python3 train.py --resume_from_checkpoint "$CHECKPOINT_DIR"' \
	'cd "$PROJECT_DIR" && python3 train.py --config config/hf.yaml' \
	'cd "$PROJECT_DIR" && python3 train.py --resume auto' \
	'cd "$PROJECT_DIR" && python3 train.py --init_from=resume'; do
	n=$((n + 1))
	answers "form$n" "$cmd"
	prep "form$n"
	printf 'weights\n' >"$outs/form$n/run-001/checkpoints/model.safetensors"
	prep "form$n"
	jp_expect "resume_form_${n}_fails_naming_run_001" \
		sh -c '[ "$(cat "$1")" = 1 ] && grep -q "launch.resume: .*run-001 left a complete checkpoint" "$2"' \
		sh "$T/form$n.rc" "$T/form$n.out"
done
# ... and their negations are no resume
answers neg 'cd "$PROJECT_DIR" && python3 train.py --resume_from_checkpoint=None --init_from=scratch'
prep neg
printf 'weights\n' >"$outs/neg/run-001/checkpoints/model.safetensors"
prep neg
jp_expect resume_none_and_scratch_are_no_resume [ "$(rc neg)" = 0 ]

jp_show_if_failed "$T/nano.out" "$T/nano.err" "$T/runs.out" "$T/partial.out" "$T/partial.err"
jp_done
