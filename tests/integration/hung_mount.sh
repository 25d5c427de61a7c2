#!/bin/sh
# A hung network mount costs a timeout, never a process stuck in the kernel.
# The mount is sshfs over a loopback sshd (tests/lib/ssh.sh), in a mount
# namespace of the test's own, hung by stopping its ssh client (SIGSTOP):
# sshfs then holds every request it was sent. `jobprep check` on a manifest
# whose code.path and launch script are there must end within its probe
# bound, say the storage did not answer, and SIGTERM must end it at once; a
# full scan there, a clone into or from it and `repo` on a checkout there must end
# by themselves too. Then ssh resumes and the mount unmounts cleanly.
#
# A process whose thread waits in a FUSE request already sent cannot be
# reaped until the mount answers (the kernel's rule). jobprep's looks that
# hand back a flat answer run in a child process, which is what the mount
# keeps: check, scan, repo and clones into and from there exit, and their
# status is read, while the mount is still hung.
set -u
. "$TOP_SRCDIR/tests/lib/ssh.sh"
jp_sshfs_test_open T hung "${1:-}"

# --- inside a private mount namespace -------------------------------------------
. "$TOP_SRCDIR/tests/lib/gitserv.sh" # the reporters: jp_pass, jp_fail, jp_expect
jp_hung_mount_env
J=$JOBPREP
trap 'jp_sshfs_close "$T/mnt"' EXIT

mkdir -p "$T/export/proj/scripts" "$T/export/data/a/b" "$T/local/proj" "$T/out/ckpt" "$T/out/logs"
echo 'python train.py' >"$T/export/proj/scripts/train.sh"
echo 'print(1)' >"$T/export/proj/train.py"
echo 'print(1)' >"$T/local/proj/train.py" # local.json's 'python train.py'
mkdir -p "$T/export/proj/configs" && echo 'lr: 1' >"$T/export/proj/configs/a.yaml"
echo 'python train.py' >"$T/export/run.sh"
for i in 1 2 3 4 5 6 7 8; do : >"$T/export/data/a/b/f$i"; done
git init -q "$T/export/repo" && git -C "$T/export/repo" -c user.name=t -c user.email=t@t \
	commit -q --allow-empty -m one || exit 99
git init -q --bare "$T/src.git" && git -C "$T/export/repo" push -q "$T/src.git" HEAD:refs/heads/main ||
	exit 99
git clone -q --bare "$T/src.git" "$T/export/src.git" || exit 99
mkdir -p "$T/export/outputs/hung/run-001"
printf '{"sandbox": true, "shared_roots":["%s"]}\n' "$T/mnt" >"$T/mnt-profile.json"
jp_sshfs_mount "$T/sshd" "$T/export" "$T/mnt" || exit 99
[ -f "$T/mnt/proj/scripts/train.sh" ] || { echo "the sshfs mount shows nothing"; exit 99; }

# manifest FILE CODE_PATH LAUNCH_COMMAND
manifest() {
	cat >"$1" <<EOF
{
  "schema_version": 1,
  "generator": {"name": "jobprep", "version": "0.1.0"},
  "created_at": "2024-05-01T12:00:00Z",
  "job": {"name": "hung", "workers": 2, "gpus_per_worker": 1,
          "launch_command": "$3", "env": {}},
  "code": {"source": "shared_storage", "path": "$2"},
  "data": [],
  "outputs": {"output_dir": "$T/out", "checkpoint_dir": "$T/out/ckpt", "log_dir": "$T/out/logs"},
  "checks": []
}
EOF
}
# the files it names are looked at there too (issue 21): the script is read,
# configs/b.yaml is missing; hung, the first look costs the bound, no more
manifest "$T/code-there.json" "$T/mnt/proj" 'cd \"$PROJECT_DIR\" && bash scripts/train.sh --config configs/a.yaml --config configs/b.yaml && python train.py c1.yaml c2.yaml c3.yaml c4.yaml'
manifest "$T/script-there.json" "$T/local/proj" "bash \\\"$T/mnt/run.sh\\\""

# files a person names, there: a manifest, answers, a profile
manifest "$T/export/job.json" "$T/local/proj" 'python train.py'
printf '{"job": {"name": "hung-answers"}}\n' >"$T/export/answers.json"
printf '{"sandbox": true, "shared_roots": ["%s"]}\n' "$T/local" >"$T/export/profile.json"
printf '{"sandbox": true, "shared_roots": ["%s"]}\n' "$T/local" >"$T/profile.json"
manifest "$T/local.json" "$T/local/proj" 'python train.py'
printf '{"job": {"name": "hung-clone"}, "code": {"source": "shared_storage", "path": "%s", "repo": {"url": "file://%s"}}}\n' \
	"$T/mnt/new-clone" "$T/src.git" >"$T/clone-answers.json"
# (cd first: a relative script run from the platform's own directory is a
# failure since issue 31, which would stop init before the look at -o)
printf '{"job": {"name": "hung-out", "launch_command": "cd $PROJECT_DIR && python train.py"}, "code": {"source": "shared_storage", "path": "%s"}}\n' \
	"$T/local/code" >"$T/local-answers.json"
mkdir -p "$T/local/code" && echo 'print(1)' >"$T/local/code/train.py"

# Before hanging it: the mount answers, and check sees the script.
"$J" check --json "$T/code-there.json" >"$T/healthy.out" 2>&1
jp_expect healthy_mount_check_finds_the_script \
	jp_no_text "launch.script" "$T/healthy.out"
jp_expect healthy_mount_check_finds_a_config_missing \
	grep -q "configs/b.yaml is not in the code" "$T/healthy.out"

"$J" runs --profile "$T/mnt-profile.json" hung >"$T/runs-healthy.out" 2>&1
jp_expect healthy_mount_runs_lists_the_run grep -q "run-001" "$T/runs-healthy.out"

jp_sshfs_freeze "$T/sshd"

# --- check ends within its bound (1 s a probe), with a clear message. The
# guard (60 s) is far above the bound: only a hang reaches it.
JOBPREP_PROBE_TIMEOUT_MS=1000 "$J" check --json "$T/code-there.json" >"$T/hung.out" 2>"$T/hung.err" &
pid=$!
jp_poll 600 jp_threads_gone $pid
jp_expect check_on_hung_mount_ends_by_itself jp_main_gone $pid
jp_expect check_on_hung_mount_says_code_storage_hung \
	sh -c 'grep -A2 "\"code.path.storage\"" "$1" | grep -q "did not answer in time"' sh "$T/hung.out"
jp_expect check_on_hung_mount_says_the_script_did_not_answer \
	grep -q "scripts/train.sh did not answer in time" "$T/hung.out"
jp_exits_while_hung check_on_hung_mount $pid 1

# --- SIGTERM while check waits on the hung mount: the launch script is the
# first thing there it looks at (code.path is on local disk), with a probe
# bound far above the test's patience, so only the signal can end it.
JOBPREP_PROBE_TIMEOUT_MS=120000 "$J" check --json "$T/script-there.json" >"$T/term.out" 2>"$T/term.err" &
jp_sigterm_while_hung check $!

# --- a full scan there ends by itself: its classification times out, and
# the scan does not wait a second time on a mount known to hang.
JOBPREP_PROBE_TIMEOUT_MS=1000 "$J" scan "$T/mnt/data" >"$T/scan.out" 2>"$T/scan.err" &
pid=$!
jp_poll 600 jp_threads_gone $pid
jp_expect scan_on_hung_mount_ends_by_itself jp_main_gone $pid
jp_expect scan_on_hung_mount_says_its_mount_did_not_answer \
	grep -q "$T/mnt/data: no answer: $T/mnt, the mount it is on, has not answered" "$T/scan.err"
jp_exits_while_hung scan_on_hung_mount $pid 1

# ends_by_itself CASE WANT TEXT ARG...: jobprep ARG... on the hung mount, with
# a 1 s probe bound (the guard, 60 s, only a hang reaches), its output in
# $T/CASE.out and $T/CASE.err: it ends by itself (CASE_ends_by_itself), says
# TEXT (CASE_says_no_answer) and exits WANT while the mount is still hung.
ends_by_itself() {
	_name=$1 _want=$2 _text=$3
	shift 3
	JOBPREP_PROBE_TIMEOUT_MS=1000 "$J" "$@" </dev/null >"$T/$_name.out" 2>"$T/$_name.err" &
	pid=$!
	jp_poll 600 jp_threads_gone $pid
	jp_expect "${_name}_ends_by_itself" jp_main_gone $pid
	jp_expect "${_name}_says_no_answer" grep -q "$_text" "$T/$_name.err"
	jp_exits_while_hung "$_name" $pid "$_want"
}

# --- clone into the hung mount, from a source there, and repo on a checkout
# there: each ends by itself, saying the path did not answer; so does
# `runs` for a job whose runs are there.
ends_by_itself clone_into_hung_mount 1 "no answer within 1.0 s" clone "$T/src.git" "$T/mnt/clone"
ends_by_itself clone_from_hung_mount 1 "no answer" clone "$T/mnt/src.git" "$T/local/from-hung"
jp_expect clone_from_hung_mount_leaves_nothing sh -c '[ -d "$1" ] && ! ls -A "$1" | grep -q from-hung' sh "$T/local"
ends_by_itself repo_on_hung_mount 1 "no answer" repo "$T/mnt/repo"
ends_by_itself runs_on_hung_mount 1 "no answer" runs --profile "$T/mnt-profile.json" hung

# --- every other command, each with what it reads or writes there: it ends
# by itself within its bound, saying the storage did not answer, with the
# status of an unreadable file (3) or of failed work (1)
ends_by_itself check_manifest_on_hung_mount 3 "no answer" check "$T/mnt/job.json"
ends_by_itself env_manifest_on_hung_mount 3 "no answer" env "$T/mnt/job.json"
ends_by_itself preflight_manifest_on_hung_mount 3 "no answer" preflight "$T/mnt/job.json"
ends_by_itself show_manifest_on_hung_mount 3 "no answer" show "$T/mnt/job.json"
ends_by_itself export_manifest_on_hung_mount 3 "no answer" export --to slurm "$T/mnt/job.json"
ends_by_itself export_output_on_hung_mount 1 "no answer" export --to slurm -o "$T/mnt/job.sbatch" "$T/local.json"
ends_by_itself init_answers_on_hung_mount 3 "no answer" init --answers "$T/mnt/answers.json" --profile "$T/profile.json"
ends_by_itself init_profile_on_hung_mount 3 "no answer" init --answers "$T/local.json" --profile "$T/mnt/profile.json"
ends_by_itself runs_profile_on_hung_mount 3 "no answer" runs --profile "$T/mnt/profile.json" hung
# a clone into a new folder there: the look at that folder did not answer,
# which is no verdict on the folder ("not a directory jobprep can clone
# into" stopped init before it tried, and refused Enter in the wizard)
ends_by_itself init_clone_into_hung_mount 1 "no answer" init --answers "$T/clone-answers.json" --profile "$T/mnt-profile.json"
jp_expect init_clone_into_hung_mount_blames_no_folder \
	jp_no_text "not a directory jobprep can clone into" "$T/init_clone_into_hung_mount.err"
# the manifest written there (-o): likewise, not "does not exist"
ends_by_itself init_output_on_hung_mount 1 "no answer" init --answers "$T/local-answers.json" --profile "$T/profile.json" -o "$T/mnt/runs/job.json"
jp_expect init_output_on_hung_mount_blames_no_folder \
	jp_no_text "does not exist" "$T/init_output_on_hung_mount.err"
ends_by_itself scan_profile_on_hung_mount 3 "no answer" scan --profile "$T/mnt/profile.json" "$T/local"
# (stage from or onto a hung mount: tests/integration/stage_hung_mount.sh)

# --- resume the mount: the rest is reaped, with the status it chose.
jp_sshfs_thaw
jp_expect clone_into_hung_mount_leaves_nothing sh -c '[ -d "$1" ] && ! ls -A "$1" | grep -q clone' sh "$T/export"
for p in $JP_HUNG_LATE; do wait "$p"; done
jp_expect resumed_mount_answers [ -f "$T/mnt/proj/scripts/train.sh" ]
jp_sshfs_unmounts_cleanly "$T/mnt"
jp_show_if_failed "$T"/*.out "$T"/*.err
jp_done
