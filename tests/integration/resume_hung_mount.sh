#!/bin/sh
# Resuming on network storage (issue 29): the job's runs on an uncached sshfs
# mount (tests/lib/ssh.sh) in a mount namespace of the test's own. While it
# answers, the second prep of a job that resumes fails naming run-001's
# checkpoint there, and --resume-from run-001 passes with RESUME_FROM in
# env.sh. Hung (its ssh client stopped), `check` of a run that resumes from
# a checkpoint there ends by itself within its probe bound, fails
# job.resume_from.checkpoint saying the folder did not answer, and exits 1
# while the mount is still hung.
set -u
. "$TOP_SRCDIR/tests/lib/ssh.sh"
jp_sshfs_test_open T resume-hung "${1:-}"

# --- inside a private mount namespace -------------------------------------------
. "$TOP_SRCDIR/tests/lib/gitserv.sh" # the reporters: jp_pass, jp_fail, jp_expect
jp_hung_mount_env
J=$JOBPREP
trap 'jp_sshfs_close "$T/mnt"' EXIT
XDG_STATE_HOME=$T/state XDG_CACHE_HOME=$T/cache
export XDG_STATE_HOME XDG_CACHE_HOME

mkdir -p "$T/export/projects" "$T/mnt" "$T/local/proj" "$T/local/out/ckpt" "$T/local/out/logs" ||
	exit 99
# a nanoGPT-like project: a config sets init_from = 'resume'
P=$T/src
mkdir -p "$P/config" || exit 99
printf "init_from = 'scratch'\nexec(open('configurator.py').read())\n" >"$P/train.py"
printf "import sys\n" >"$P/configurator.py"
printf "init_from = 'resume'\n" >"$P/config/resume.py"
(cd "$P" && git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm one) ||
	exit 99
git clone -q "$P" "$T/export/projects/nano" || exit 99
printf 'print(1)\n' >"$T/local/proj/train.py"
printf '{"sandbox": true, "shared_roots": ["%s"]}\n' "$T/mnt" >"$T/mnt-profile.json"
printf '{"sandbox": true, "shared_roots": ["%s"]}\n' "$T/local" >"$T/local-profile.json"
printf '{"job": {"name": "nano", "launch_command": "%s"}, "code": {"source": "shared_storage", "path": "%s"}}\n' \
	'cd \"$PROJECT_DIR\" && python3 train.py config/resume.py --out_dir=\"$CHECKPOINT_DIR\"' \
	"$T/mnt/projects/nano" >"$T/answers.json"
jp_sshfs_mount "$T/sshd" "$T/export" "$T/mnt" || exit 99
[ -f "$T/mnt/projects/nano/train.py" ] || { echo "the sshfs mount shows nothing"; exit 99; }
outs=$T/mnt/outputs/nano

# prep NAME [OPTION...]: init of the answers on the mount; $T/NAME.{out,err,rc}
prep() {
	_n=$1
	shift
	"$J" init --answers "$T/answers.json" --profile "$T/mnt-profile.json" "$@" \
		>"$T/$_n.out" 2>"$T/$_n.err"
	echo $? >"$T/$_n.rc"
}

# --- the mount answers ------------------------------------------------------------
prep first
jp_expect first_prep_on_sshfs_passes [ "$(cat "$T/first.rc")" = 0 ]
printf 'weights\n' >"$outs/run-001/checkpoints/ckpt.pt"
prep second
jp_expect second_prep_on_sshfs_fails_naming_run_001 \
	sh -c '[ "$(cat "$1")" = 1 ] && grep -q "launch.resume: .*run-001 left a complete checkpoint in $2" "$3"' \
	sh "$T/second.rc" "$outs/run-001/checkpoints" "$T/second.out"
prep chosen --resume-from run-001
jp_expect resume_from_on_sshfs_passes \
	[ "$(cat "$T/chosen.rc")" = 0 -a \
	  "$(sh -c '. "$1" && printf %s "$RESUME_FROM"' sh "$outs/run-002/env.sh")" = "$outs/run-001/checkpoints" ]

# a run on local disk that resumes from run-001's checkpoint on the mount
python3 - "$T" "$outs/run-001/checkpoints" >"$T/local.json" <<'PY' || exit 99
import json, sys
t, ckpt = sys.argv[1:3]
json.dump({
    "schema_version": 1,
    "generator": {"name": "jobprep", "version": "0.1.0"},
    "created_at": "2024-05-01T12:00:00Z",
    "job": {"name": "local", "workers": 1, "gpus_per_worker": 1,
            "launch_command": 'cd "$PROJECT_DIR" && python3 train.py --init_from=resume',
            "env": {}, "resume_from": ckpt},
    "code": {"source": "shared_storage", "path": t + "/local/proj"},
    "data": [],
    "outputs": {"output_dir": t + "/local/out", "checkpoint_dir": t + "/local/out/ckpt",
                "log_dir": t + "/local/out/logs"},
    "checks": []}, sys.stdout)
PY
"$J" check --profile "$T/local-profile.json" --json "$T/local.json" >"$T/healthy.out" 2>&1
jp_expect healthy_check_passes_the_chosen_checkpoint \
	sh -c 'grep -A1 "\"job.resume_from.checkpoint\"" "$1" | grep -q "\"pass\""' sh "$T/healthy.out"

# --- hung ----------------------------------------------------------------------------
jp_sshfs_freeze "$T/sshd"
JOBPREP_PROBE_TIMEOUT_MS=1000 "$J" check --profile "$T/local-profile.json" --json "$T/local.json" \
	>"$T/hung.out" 2>"$T/hung.err" &
pid=$!
jp_poll 600 jp_threads_gone $pid
jp_expect check_of_a_resume_on_hung_mount_ends_by_itself jp_main_gone $pid
jp_expect check_says_the_checkpoint_did_not_answer \
	sh -c 'grep -A3 "\"job.resume_from.checkpoint\"" "$1" | grep -q "could not be looked at: .*no answer"' \
	sh "$T/hung.out"
jp_exits_while_hung check_of_a_resume_on_hung_mount $pid 1

jp_sshfs_thaw
for p in $JP_HUNG_LATE; do wait "$p"; done
jp_sshfs_unmounts_cleanly "$T/mnt"
jp_show_if_failed "$T"/*.out "$T"/*.err
jp_done
