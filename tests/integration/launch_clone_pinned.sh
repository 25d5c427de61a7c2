#!/bin/sh
# code.source launch_clone: the launch command must clone the repository and
# check out the pinned commit before it runs anything else. `init` with a
# launch command that never clones (`python train.py`) fails (exit 1, no
# manifest) and says the exact line to put first; --force writes a manifest
# recording the failed check, which `check` fails and `export --to slurm`
# refuses (no script that runs a job with no code) unless --force. A
# manifest edited by hand to drop the clone is refused by export too. The
# default launch command (the pinned clone line, then the script) passes,
# and the line it gives, run by sh, checks out exactly the recorded commit.
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/report.sh"
for tool in git sed python3; do
	command -v "$tool" >/dev/null 2>&1 || jp_skip_all "$tool is not installed"
done
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/initscratch.sh"

T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-launch-clone.XXXXXX") || exit 99
T=$(cd -P "$T" && pwd)
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
jp_test_env "$T"
jp_init_scratch "$T" || { echo "not ok - scratch platform: cannot lay it out"; exit 99; }
url=file://$T/repos/train.git
# the URL as a shell word (quoted when $TMPDIR has a space in it)
qurl=$(python3 -c 'import shlex, sys; print(shlex.quote(sys.argv[1]))' "$url")
commit=$(git --git-dir="$T/repos/train.git" rev-parse v1^{commit})
runs=$T/shared/outputs/lc-job

answers() { # answers FILE LAUNCH-COMMAND (empty: the default)
	python3 - "$1" "$url" "$2" <<'EOF'
import json, sys
a = {"job": {"name": "lc-job"},
     "code": {"source": "launch_clone", "repo": {"url": sys.argv[2], "ref": "v1"}}}
if sys.argv[3]:
    a["job"]["launch_command"] = sys.argv[3]
json.dump(a, open(sys.argv[1], "w"))
EOF
}
init() { # init ANSWERS [ARG...]
	_a=$1
	shift
	"$JOBPREP" init --answers "$_a" --profile "$T/profile.json" "$@" >"$T/init.out" 2>"$T/init.err"
	echo $? >"$T/rc"
}
rc() { cat "$T/rc"; }

# --- a launch command that never clones ------------------------------------
answers "$T/noclone.json" "python train.py"
init "$T/noclone.json"
jp_expect init_without_the_clone_fails [ "$(rc)" = 1 ]
jp_expect init_without_the_clone_writes_no_manifest [ -z "$(find "$T/shared" -name job.json)" ]
line="git init -q /workspace/lc-job && git -C /workspace/lc-job remote add origin $qurl && { git -C /workspace/lc-job fetch -q --depth 1 origin $commit || git -C /workspace/lc-job fetch -q origin; } && git -C /workspace/lc-job -c advice.detachedHead=false checkout -q --detach $commit &&"
grep -qF "'python' runs before the code is cloned" "$T/init.out" "$T/init.err" &&
	grep -qF "Put this line first: $line" "$T/init.out" "$T/init.err" ||
	jp_fail init_says_the_exact_line_to_put_first "$(cat "$T/init.out" "$T/init.err")"

init "$T/noclone.json" --force
jp_expect forced_init_writes_the_manifest [ "$(rc)" = 0 -a -s "$runs/run-001/job.json" ]
M=$runs/run-001/job.json
python3 - "$M" <<'EOF' || jp_fail forced_manifest_records_the_failed_clone_check
import json, sys
m = json.load(open(sys.argv[1]))
c = [c for c in m["checks"] if c["id"] == "launch.clone_first"]
sys.exit(0 if c and c[0]["status"] == "fail" else 1)
EOF
"$JOBPREP" check "$M" >"$T/check.out" 2>&1
jp_expect check_fails_the_manifest [ $? = 1 ]
grep -q '^\[FAIL\] launch.clone_first: ' "$T/check.out" ||
	jp_fail check_names_launch_clone_first "$(cat "$T/check.out")"

"$JOBPREP" export --to slurm -o "$T/job.sbatch" "$M" >"$T/export.out" 2>&1
jp_expect slurm_export_of_it_is_refused [ $? = 1 -a ! -e "$T/job.sbatch" ]

# the same manifest with its recorded checks emptied (made by hand, or by an
# older jobprep): export still sees that the job would run without its code
python3 - "$M" "$T/bare.json" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
m["checks"] = []
json.dump(m, open(sys.argv[2], "w"), indent=2)
EOF
"$JOBPREP" export --to slurm -o "$T/bare.sbatch" "$T/bare.json" >"$T/export.out" 2>&1
jp_expect export_relints_a_manifest_without_recorded_failures [ $? = 1 -a ! -e "$T/bare.sbatch" ]
grep -qF "Put this line first: $line" "$T/export.out" ||
	jp_fail export_says_the_line_to_put_first "$(cat "$T/export.out")"
"$JOBPREP" export --to slurm --force -o "$T/bare.sbatch" "$T/bare.json" >"$T/export.out" 2>&1
jp_expect export_force_writes_it_anyway [ $? = 0 -a -s "$T/bare.sbatch" ]

# --- a clone of the branch, never of the commit ----------------------------
rm -rf "$runs"
answers "$T/branch.json" "git clone $qurl /workspace/lc-job && cd /workspace/lc-job && python train.py"
init "$T/branch.json"
jp_expect clone_without_the_pinned_commit_fails [ "$(rc)" = 1 ]
grep -qF "does not check out the recorded commit $commit before it runs anything else" "$T/init.out" "$T/init.err" ||
	jp_fail clone_without_the_commit_says_so "$(cat "$T/init.out" "$T/init.err")"

# --- a hand-written clone and checkout of the commit passes ----------------
answers "$T/manual.json" "git clone -q $qurl /workspace/lc-job && git -C /workspace/lc-job checkout -q ${commit%????????????????????????????????} && cd /workspace/lc-job && bash scripts/train.sh"
init "$T/manual.json"
jp_expect clone_then_checkout_of_the_commit_passes [ "$(rc)" = 0 ]
jp_expect manual_clone_has_no_clone_finding jp_no_text launch.clone_first "$runs/run-001/job.json"

# --- the default: the pinned line, then the script -------------------------
rm -rf "$runs"
answers "$T/default.json" ""
init "$T/default.json"
jp_expect default_launch_command_passes [ "$(rc)" = 0 ]
M=$runs/run-001/job.json
jp_expect default_has_no_clone_finding jp_no_text launch.clone_first "$M"
"$JOBPREP" export --to slurm -o "$T/ok.sbatch" "$M" >"$T/export.out" 2>&1
jp_expect default_exports_to_slurm [ $? = 0 -a -s "$T/ok.sbatch" ]
# the line it put first, run by sh, gives exactly the recorded commit
cmd=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["job"]["launch_command"])' "$M")
qwork=$(python3 -c 'import shlex, sys; print(shlex.quote(sys.argv[1]))' "$T/work")
clone=$(printf '%s' "$cmd" | sed "s|/workspace/lc-job|$qwork|g; s| && cd \"\$PROJECT_DIR\".*||")
sh -c "$clone" >"$T/clone.out" 2>&1
jp_expect pinned_line_checks_out_the_recorded_commit \
	[ "$(git -C "$T/work" rev-parse HEAD 2>/dev/null)" = "$commit" ]

jp_done
