#!/bin/sh
# `jobprep export --to slurm` submitted to a real Slurm cluster (one node on
# this machine, tests/lib/slurm.sh): manifests made by `jobprep init
# --answers` with hostile paths and values (quotes, $(), backticks, %j,
# '#', backslashes, newlines, CJK); the job's output file in the log
# directory holds every exported value byte for byte, the launch command ran
# in the project directory, the script made the checkpoint directory. Three
# jobs: one Worker (bash), two Workers (the srun line, run on one node by
# overriding --nodes at submission), and one asking for a GPU (the
# --gpus-per-node line, against a GPU the node declares on /dev/null), all
# with the profile's partition and time limit (#SBATCH lines sbatch takes). Each
# runs the run's preflight.sh first; a fourth, whose data set is removed
# after the export, ends there, its log naming the path, and its launch
# command never starts.
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/report.sh"
. "$TOP_SRCDIR/tests/lib/slurm.sh"
if ! jp_slurm_have; then
	jp_skip_all "slurm-wlm and munge are not installed (apt-get install slurm-wlm munge, or run autotools/bootstrap.sh)"
fi
if [ "$(id -u)" -ne 0 ]; then
	jp_skip_all "slurmd must run as root to start jobs"
fi
command -v python3 >/dev/null 2>&1 || {
	jp_skip_all "python3 is not installed"
}

. "$TOP_SRCDIR/tests/lib/diskscratch.sh"
# On disk, not a tmpfs: the job's preflight.sh judges this folder's storage.
scratch=$(jp_disk_scratch jobprep-export-slurm) ||
	jp_skip_all "no disk folder to work in: \$TMPDIR, /tmp, /var/tmp and the build tree are all tmpfs"
scratch=$(cd -P "$scratch" && pwd)
cluster=$scratch/cluster
trap 'jp_slurm_stop "$cluster"; rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM
chmod 755 "$scratch"
failed=0
fail() {
	jp_fail "$*"
	failed=$((failed + 1))
}

# The platform in the scratch folder; answers and the expected job output.
# Values are written once, here, and reach the manifest through JSON.
python3 - "$scratch" <<'EOF' || exit 1
import json, os, sys

s = sys.argv[1]
project = s + "/shared/projects/项目 it's \"q\" $(x) `y` #1 %j \\ end"
output = s + "/shared/outputs/run 'one' %j 日志"
env = {
    "QUOTES": "it's \"double\" and 'single' $(echo pwned) `id` \\ \\n %s %j",
    "NEWLINES": "line1\nline2\n\n",
    "CJK": "你好，世界 — ñ 🚀",
    "SPACES": "  lead and trail  ",
    "EMPTY": "",
}
names = ["PROJECT_DIR", "OUTPUT_DIR", "CHECKPOINT_DIR", "LOG_DIR", "DATA_DIR"] + list(env)
launch = (
    "printf 'pwd=[%s]\\n' \"$(pwd)\"\n"
    "for n in " + " ".join(names) + "; do\n"
    "\tprintf '%s=[%s]\\n' \"$n\" \"${!n}\"\n"
    "done\n"
    "printf 'rank=[%s] world=[%s] master=[%s]\\n' \"$RANK\" \"$WORLD_SIZE\" \"$MASTER_ADDR\"\n"
    "[ -d \"$CHECKPOINT_DIR\" ] && echo 'checkpoint dir: made'\n"
    "echo 'it'\"'\"'s the end: $(not run) `not run`'"
)
os.makedirs(project)
with open(project + "/train.sh", "w") as f:
    f.write("echo train\n")
os.makedirs(s + "/shared/data/text")
with open(s + "/shared/data/text/part-0", "w") as f:
    f.write("data\n")
os.makedirs(s + "/public/models")
# (something to read: an empty data set fails since issue 31)
with open(s + "/public/models/weights.bin", "w") as f:
    f.write("weights\n")
with open(s + "/profile.json", "w") as f:
    # the cluster's one partition, and a time limit: sbatch must take both
    json.dump({"sandbox": True, "shared_roots": [s + "/shared"], "public_roots": [s + "/public"],
               "slurm": {"partition": "test", "time": "10:00"}}, f)

for name, workers, gpus in (("one-worker", 1, 0), ("two-workers", 2, 0), ("with-gpus", 1, 1)):
    out = output + " " + name
    answers = {
        "job": {"name": name, "workers": workers, "gpus_per_worker": gpus,
                "launch_command": launch, "env": env},
        "code": {"source": "shared_storage", "path": project},
        "data": [{"name": "text", "path": s + "/shared/data/text"},
                 {"name": "models", "path": s + "/public/models", "kind": "public"}],
        "outputs": {"output_dir": out, "checkpoint_dir": out + "/checkpoints",
                    "log_dir": out + "/logs \"x\" #2"},
    }
    with open(s + "/" + name + ".answers.json", "w") as f:
        json.dump(answers, f, ensure_ascii=False, indent=1)
    values = {"PROJECT_DIR": project, "OUTPUT_DIR": out,
              "CHECKPOINT_DIR": out + "/checkpoints", "LOG_DIR": out + "/logs \"x\" #2",
              "DATA_DIR": s + "/shared/data/text", **env}
    # the run's preflight.sh speaks first, on stdout when all is well
    expected = "[pass] preflight: every check passed on Worker %s, rank 0\n" % os.uname().nodename
    expected += "pwd=[%s]\n" % project
    expected += "".join("%s=[%s]\n" % (n, values[n]) for n in names)
    expected += "rank=[0] world=[1] master=[%s]\n" % os.uname().nodename
    expected += "checkpoint dir: made\n"
    expected += "it's the end: $(not run) `not run`\n"
    with open(s + "/" + name + ".expected", "wb") as f:
        f.write(expected.encode())
    with open(s + "/" + name + ".logdir", "wb") as f:
        f.write(values["LOG_DIR"].encode())
    with open(s + "/" + name + ".ckptdir", "wb") as f:
        f.write(values["CHECKPOINT_DIR"].encode())

# A data set removed after the export: the job must end at the preflight,
# before its launch command (which would leave a marker file) starts.
os.makedirs(s + "/shared/data/gone")
out = output + " gone-data"
answers = {
    "job": {"name": "gone-data", "workers": 1, "gpus_per_worker": 0,
            "launch_command": "touch \"$OUTPUT_DIR/launch-started\"; echo started"},
    "code": {"source": "shared_storage", "path": project},
    # empty (an empty data set fails since issue 31): one the job fills
    "data": [{"name": "gone", "path": s + "/shared/data/gone", "output": True}],
    "outputs": {"output_dir": out, "checkpoint_dir": out + "/checkpoints",
                "log_dir": out + "/logs"},
}
with open(s + "/gone-data.answers.json", "w") as f:
    json.dump(answers, f, ensure_ascii=False, indent=1)
with open(s + "/gone-data.out", "wb") as f:
    f.write(out.encode())
EOF

if ! jp_slurm_start "$cluster" gpu; then
	echo "FAIL: the Slurm cluster did not start"
	exit 1
fi

# A secret in the caller's environment must not reach the script.
secret=ghp_jobprepExportSecret0123456789abcdef
for job in one-worker two-workers with-gpus; do
	"$JOBPREP" init --answers "$scratch/$job.answers.json" --profile "$scratch/profile.json" \
		-o "$scratch/shared/$job.json" >"$scratch/$job.init.out" 2>&1 ||
		{ fail "$job: jobprep init exited $?: $(tail -5 "$scratch/$job.init.out")"; continue; }
	# The script, not init, must make the checkpoint directory
	rmdir "$(cat "$scratch/$job.ckptdir")" || fail "$job: init made no checkpoint directory"

	JOBPREP_GIT_TOKEN=$secret GIT_PASSWORD=$secret \
		"$JOBPREP" export --to slurm -o "$scratch/$job.sbatch" "$scratch/shared/$job.json" \
		>"$scratch/$job.export.out" 2>&1 ||
		{ fail "$job: jobprep export exited $?: $(cat "$scratch/$job.export.out")"; continue; }
	[ -s "$scratch/$job.export.out" ] && fail "$job: export with -o printed: $(cat "$scratch/$job.export.out")"
	[ "$(stat -c %a "$scratch/$job.sbatch")" = 755 ] ||
		fail "$job: the script's mode is $(stat -c %a "$scratch/$job.sbatch"), expected 755"
	grep -q -e "$secret" -e JOBPREP_GIT_TOKEN -e GIT_PASSWORD "$scratch/$job.sbatch" &&
		fail "$job: the script carries the caller's secret"
	head -n 1 "$scratch/$job.sbatch" | grep -qx '#!/bin/bash' || fail "$job: no #!/bin/bash line"
	grep -qx '#SBATCH --partition=test' "$scratch/$job.sbatch" || fail "$job: no --partition from the profile"
	grep -qx '#SBATCH --time=10:00' "$scratch/$job.sbatch" || fail "$job: no --time from the profile"

	extra=
	case $job in
	two-workers)
		grep -q '^exec srun ' "$scratch/$job.sbatch" || fail "$job: no srun line"
		grep -qx '#SBATCH --nodes=2' "$scratch/$job.sbatch" || fail "$job: no --nodes=2"
		# One node here: the srun line runs once, on it
		extra=--nodes=1
		;;
	with-gpus)
		grep -qx '#SBATCH --gpus-per-node=1' "$scratch/$job.sbatch" || fail "$job: no --gpus-per-node=1"
		;;
	*)
		grep -q '^exec bash -c ' "$scratch/$job.sbatch" || fail "$job: no bash -c line"
		grep -q 'gpus-per-node' "$scratch/$job.sbatch" && fail "$job: --gpus-per-node with no GPUs"
		;;
	esac

	# Submitted from elsewhere: --chdir, not the submit folder, decides
	id=$(cd / && sbatch --parsable $extra "$scratch/$job.sbatch" 2>"$scratch/$job.sbatch.err")
	if [ -z "$id" ]; then
		fail "$job: sbatch refused the script: $(cat "$scratch/$job.sbatch.err")"
		continue
	fi
	state=$(jp_slurm_wait "$id" 120)
	[ "$state" = COMPLETED ] ||
		fail "$job: job $id ended $state: $(scontrol show job "$id" 2>&1 | grep -i -e reason -e exitcode)"

	logdir=$(cat "$scratch/$job.logdir")
	out="$logdir/$job-$id.out"
	err="$logdir/$job-$id.err"
	if [ ! -f "$out" ]; then
		fail "$job: no output file $out; log dir holds: $(ls -A "$logdir" 2>&1)"
		continue
	fi
	# (less the preflight's table of areas: tests/integration/preflight_storage.sh)
	grep -v '^\[area\] ' "$out" | cmp -s "$scratch/$job.expected" - ||
		fail "$job: the job's output differs: $(grep -v '^\[area\] ' "$out" | diff "$scratch/$job.expected" - | head -20)"
	[ -s "$err" ] && fail "$job: the job wrote errors: $(head -5 "$err")"
	[ -d "$(cat "$scratch/$job.ckptdir")" ] || fail "$job: the checkpoint directory was not made"
done

# The data set goes after the export: the job fails at the preflight, its
# log says which path and where, and the launch command never started.
job=gone-data
run=$(cat "$scratch/$job.out")
if "$JOBPREP" init --answers "$scratch/$job.answers.json" --profile "$scratch/profile.json" \
	>"$scratch/$job.init.out" 2>&1 &&
	"$JOBPREP" export --to slurm -o "$scratch/$job.sbatch" "$run/job.json" >"$scratch/$job.export.out" 2>&1; then
	rmdir "$scratch/shared/data/gone" || fail "$job: could not remove the data set"
	id=$(cd / && sbatch --parsable "$scratch/$job.sbatch" 2>"$scratch/$job.sbatch.err")
	if [ -z "$id" ]; then
		fail "$job: sbatch refused the script: $(cat "$scratch/$job.sbatch.err")"
	else
		state=$(jp_slurm_wait "$id" 120)
		[ "$state" = FAILED ] || fail "$job: job $id ended $state, expected FAILED"
		err="$run/logs/$job-$id.err"
		grep -qF "[FAIL] data[0].path.exists: $scratch/shared/data/gone does not exist on this Worker ($(uname -n), rank 0)" "$err" ||
			fail "$job: the log does not name the missing data set: $(cat "$err" 2>&1)"
		[ -e "$run/launch-started" ] && fail "$job: the launch command started after a failed preflight"
		grep -q started "$run/logs/$job-$id.out" 2>/dev/null && fail "$job: the launch command printed"
	fi
else
	fail "$job: init or export failed: $(tail -3 "$scratch/$job.init.out" "$scratch/$job.export.out")"
fi

# Nothing was expanded by accident anywhere
[ -e "$scratch/shared/projects/pwned" ] && fail "a value was executed"

[ "$failed" -eq 0 ] && jp_pass "4 Slurm jobs from exported scripts"
jp_done
