#!/bin/sh
# A refused init shows what it refused: one `[FAIL] id: message` line per
# finding (a launch command with several findings gives several lines, never
# a literal "\n"), and --json lists them in "checks"; `init --dry-run` runs
# every check and claims no run folder; `jobprep runs` with no JOB lists the
# jobs prepared on this account, the latest first.
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/report.sh"
for tool in git sed python3; do
	command -v "$tool" >/dev/null 2>&1 || jp_skip_all "$tool is not installed"
done
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/initscratch.sh"

T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-refusal-shown.XXXXXX") || exit 99
T=$(cd -P "$T" && pwd)
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
XDG_STATE_HOME=$T/state
export XDG_STATE_HOME
jp_init_scratch "$T" || { echo "not ok - scratch platform: cannot lay it out"; exit 99; }
runs=$T/shared/outputs/existing-job

# answers NAME KEY=VALUE...: shared-existing.json with job fields set
answers() {
	_out=$T/$1.json
	shift
	jp_answers shared-existing "$T" "$_out.in" &&
		python3 - "$_out.in" "$_out" "$@" <<'EOF'
import json, sys
a = json.load(open(sys.argv[1]))
for kv in sys.argv[3:]:
    k, v = kv.split("=", 1)
    section, key = k.split(".", 1)
    a.setdefault(section, {})[key] = int(v) if v.isdigit() else v
json.dump(a, open(sys.argv[2], "w"))
EOF
}
init() { "$JOBPREP" init --profile "$T/profile.json" "$@"; }

# --- a launch command with a failing finding and two warnings ------------------
answers launch 'job.workers=2' \
	'job.launch_command=torchrun --nproc_per_node=2 train.py config/missing.py'
init --answers "$T/launch.json" >"$T/launch.out" 2>"$T/launch.err"
jp_expect launch_refusal_exits_1 [ $? = 1 ]
jp_expect launch_refusal_prints_its_fail_line \
	grep -q "^\[FAIL\] launch\.[a-z_]*: 'config/missing.py': " "$T/launch.out"
jp_expect launch_refusal_prints_each_finding_on_a_line_of_its_own \
	[ "$(grep -c '^\[\(FAIL\|warn\)\] launch\.' "$T/launch.out")" -ge 2 ]
jp_expect launch_refusal_never_joins_findings_with_a_literal_backslash_n \
	sh -c '[ -s "$1" ] && ! grep -q "\\\\n" "$1" "$2"' sh "$T/launch.err" "$T/launch.out"
jp_expect launch_refusal_names_the_finding_on_stderr \
	grep -q "job.launch_command: 'config/missing.py': " "$T/launch.err"
jp_expect launch_refusal_writes_no_run [ ! -e "$runs/run-001" ]

init --json --answers "$T/launch.json" >"$T/launch.json.out" 2>/dev/null
jp_expect launch_refusal_json_exits_1 [ $? = 1 ]
jp_expect launch_refusal_json_lists_the_findings python3 - "$T/launch.json.out" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
ids = [(c["id"], c["status"]) for c in d["checks"]]
assert d["ok"] is False and d["written"] is False, d
assert any(s == "fail" and i.startswith("launch.") for i, s in ids), ids
assert len([i for i, s in ids if i.startswith("launch.")]) >= 2, ids
EOF

# --- a refused path answer ------------------------------------------------------
answers wiped 'outputs.output_dir=/tmp/jobprep-refusal-shown-nowhere'
init --answers "$T/wiped.json" >"$T/wiped.out" 2>"$T/wiped.err"
jp_expect wiped_output_refusal_exits_1 [ $? = 1 ]
jp_expect wiped_output_refusal_prints_its_fail_line \
	grep -q '^\[FAIL\] outputs\.output_dir: /tmp/jobprep-refusal-shown-nowhere is under /tmp' \
	"$T/wiped.out"
jp_expect wiped_output_refusal_leaves_nothing [ ! -e /tmp/jobprep-refusal-shown-nowhere ]

# --- the healthy twin: no [FAIL] line, a run written --------------------------
answers healthy
init --answers "$T/healthy.json" >"$T/healthy.out" 2>"$T/healthy.err"
jp_expect healthy_init_exits_0 [ $? = 0 ]
jp_expect healthy_init_prints_no_fail_line \
	sh -c '[ -s "$1" ] && ! grep -q "^\[FAIL\]" "$1"' sh "$T/healthy.out"
jp_expect healthy_init_writes_run_001 [ -f "$runs/run-001/job.json" ]

# --- --dry-run -----------------------------------------------------------------
head=$(git -C "$T/shared/projects/existing-job" rev-parse HEAD)
init --dry-run --answers "$T/healthy.json" >"$T/dry.out" 2>"$T/dry.err"
jp_expect dry_run_exits_0 [ $? = 0 ]
jp_expect dry_run_prints_the_checks grep -q '^[0-9]* passed, [0-9]* warnings\{0,1\}, 0 failed$' "$T/dry.out"
jp_expect dry_run_says_what_it_would_make \
	grep -qF "Nothing was written (--dry-run): init would make the run $runs/run-002" "$T/dry.out"
jp_expect dry_run_claims_no_run_folder sh -c '[ -d "$1/run-001" ] && [ ! -e "$1/run-002" ]' sh "$runs"
jp_expect dry_run_leaves_the_checkout [ "$(git -C "$T/shared/projects/existing-job" rev-parse HEAD)" = "$head" ]
init --dry-run --answers "$T/launch.json" >"$T/dry-refused.out" 2>&1
jp_expect dry_run_of_refused_answers_exits_1 [ $? = 1 ]
jp_expect dry_run_of_refused_answers_shows_the_fail_line grep -q '^\[FAIL\] launch\.' "$T/dry-refused.out"
init --dry-run --json --answers "$T/healthy.json" >"$T/dry.json" 2>/dev/null
jp_expect dry_run_json_says_nothing_written python3 - "$T/dry.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["ok"] is True and d["written"] is False, d
assert d["checks"], d
EOF
jp_expect dry_run_json_claims_no_run_folder [ ! -e "$runs/run-002" ]

# --- runs with no JOB ----------------------------------------------------------
XDG_STATE_HOME=$T/empty-state "$JOBPREP" runs >"$T/nojobs.out" 2>&1
jp_expect runs_without_jobs_exits_0 [ $? = 0 ]
jp_expect runs_without_jobs_says_so grep -q '^No jobs prepared on this account yet' "$T/nojobs.out"
answers other 'job.name=other-job'
init --answers "$T/other.json" >"$T/other.out" 2>&1
jp_expect second_job_prepared [ $? = 0 ]
"$JOBPREP" runs >"$T/jobs.out" 2>"$T/jobs.err"
jp_expect runs_without_job_exits_0 [ $? = 0 ]
jp_expect runs_without_job_lists_the_jobs_latest_first \
	[ "$(grep -v '^ ' "$T/jobs.out" | tr '\n' ' ')" = "other-job existing-job " ]
jp_expect runs_without_job_gives_the_last_run \
	grep -q "^  last run  *$runs/run-001\$" "$T/jobs.out"
"$JOBPREP" runs --json >"$T/jobs.json"
jp_expect runs_without_job_json python3 - "$T/jobs.json" "$runs/run-001" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert [j["job"] for j in d] == ["other-job", "existing-job"], d
assert d[1]["last_run"] == sys.argv[2], d
EOF
"$JOBPREP" runs a b >/dev/null 2>&1
jp_expect runs_with_two_jobs_is_a_usage_error [ $? = 2 ]

jp_show_if_failed "$T/launch.out" "$T/launch.err" "$T/wiped.out" "$T/dry.out" "$T/jobs.out"
jp_done
