#!/bin/sh
# `jobprep show MANIFEST` summarises a run's manifest (code and commit, data
# with sizes, outputs, the checks counted with the warnings listed, the line
# for the platform's form, the same one init prints); `jobprep runs JOB`
# lists the runs prepared for a job, oldest first, with when, commit and
# manifest, as text and as JSON; a job with no runs says so.
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/report.sh"
for tool in git sed; do
	command -v "$tool" >/dev/null 2>&1 || jp_skip_all "$tool is not installed"
done
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/initscratch.sh"

T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-show-runs.XXXXXX") || exit 99
T=$(cd -P "$T" && pwd)
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
XDG_STATE_HOME=$T/state
export XDG_STATE_HOME
jp_init_scratch "$T" || { echo "not ok - scratch platform: cannot lay it out"; exit 99; }
runs=$T/shared/outputs/existing-job
jp_answers shared-existing "$T" "$T/answers.json"
init() { "$JOBPREP" init --answers "$T/answers.json" --profile "$T/profile.json" >"$T/init$1.out" 2>&1; }

init 1
init 2
commit=$(git -C "$T/shared/projects/existing-job" rev-parse HEAD)

# --- show -------------------------------------------------------------------
"$JOBPREP" show "$runs/run-002/job.json" >"$T/show.out" 2>"$T/show.err"
jp_expect show_exits_0 [ $? = 0 ]
jp_expect show_names_the_job grep -q '^Job: existing-job$' "$T/show.out"
jp_expect show_gives_the_commit grep -q "^  commit  *$commit\$" "$T/show.out"
jp_expect show_gives_the_data_with_sizes grep -q '^    3 files, 81 B, 1 archive$' "$T/show.out"
jp_expect show_gives_the_outputs grep -q "^  checkpoints  *$runs/run-002/checkpoints\$" "$T/show.out"
jp_expect show_counts_the_checks grep -q '^Checks: [0-9]* passed, [0-9]* warnings\{0,1\}, 0 failed$' "$T/show.out"
jp_expect show_lists_the_warnings_not_the_passes \
	sh -c 'grep -q "^  \[warn\] launch.outputs: " "$1" && ! grep -q "\[pass\]" "$1"' sh "$T/show.out"
jp_expect show_gives_inits_launch_line \
	sh -c 'l=$(grep -A1 "^Launch command for" "$1" | tail -n 1) && [ -n "$l" ] && grep -qxF -- "$l" "$2"' \
	sh "$T/show.out" "$T/init2.out"
"$JOBPREP" show "$T/nothing.json" >/dev/null 2>"$T/show-missing.err"
jp_expect show_of_a_missing_file_exits_3 [ $? = 3 ]
"$JOBPREP" show >/dev/null 2>&1
jp_expect show_without_a_manifest_is_a_usage_error [ $? = 2 ]

# --- runs -------------------------------------------------------------------
"$JOBPREP" runs --profile "$T/profile.json" existing-job >"$T/runs.out" 2>"$T/runs.err"
jp_expect runs_exits_0 [ $? = 0 ]
jp_expect runs_lists_both_runs_oldest_first \
	[ "$(grep -v '^ ' "$T/runs.out" | tr '\n' ' ')" = "$runs/run-001 $runs/run-002 " ]
jp_expect runs_gives_when grep -q '^  when  *20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]T' "$T/runs.out"
jp_expect runs_gives_the_commit [ "$(grep -c "^  commit  *$commit\$" "$T/runs.out")" = 2 ]
jp_expect runs_gives_the_manifest grep -q "^  manifest  *$runs/run-002/job.json\$" "$T/runs.out"

"$JOBPREP" runs --json --profile "$T/profile.json" existing-job >"$T/runs.json"
jp_expect runs_json_exits_0 [ $? = 0 ]
if command -v python3 >/dev/null 2>&1; then
	jp_expect runs_json_is_an_array_of_runs python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
want = [sys.argv[2] + "/run-001", sys.argv[2] + "/run-002"]
assert [x["dir"] for x in r] == want, r
assert all(x["commit"] == sys.argv[3] for x in r), r
assert r[1]["manifest"] == want[1] + "/job.json" and r[0]["created_at"]
' "$T/runs.json" "$runs" "$commit"
else
	jp_skip runs_json_is_an_array_of_runs "python3 is not installed"
fi

# without --profile: the profile the job's runs were made with (issue 22)
"$JOBPREP" runs existing-job >"$T/runs-noprofile.out" 2>&1
jp_expect runs_without_profile_finds_the_runs \
	[ "$(grep -v '^ ' "$T/runs-noprofile.out" | tr '\n' ' ')" = "$runs/run-001 $runs/run-002 " ]
XDG_STATE_HOME=$T/other-state "$JOBPREP" runs existing-job >"$T/runs-noindex.out" 2>&1
jp_expect runs_without_profile_or_index_uses_the_built_in_one \
	[ "$(cat "$T/runs-noindex.out")" = "No runs of existing-job yet" ]

# a run folder whose manifest is gone is still listed, without one, and
# said to be unfinished: the last one, empty, is taken by the next prep
mkdir -p "$runs/run-003/logs"
"$JOBPREP" runs --profile "$T/profile.json" existing-job >"$T/runs3.out"
jp_expect runs_lists_a_run_without_manifest \
	sh -c 'grep -A3 "^$1/run-003\$" "$2" | grep -q "^  manifest  *(none)\$"' sh "$runs" "$T/runs3.out"
jp_expect runs_says_the_next_prep_takes_it_again \
	sh -c 'grep -A4 "^$1/run-003\$" "$2" | grep -q "^  state  *unfinished: .*next prep takes this folder again\$"' \
	sh "$runs" "$T/runs3.out"
"$JOBPREP" runs --json --profile "$T/profile.json" existing-job >"$T/runs3.json"
jp_expect runs_json_marks_it_unfinished \
	grep -q '"taken_again":[[:space:]]*true' "$T/runs3.json"

"$JOBPREP" runs --profile "$T/profile.json" other-job >"$T/none.out"
jp_expect runs_of_a_job_without_runs_says_so [ $? = 0 -a "$(cat "$T/none.out")" = "No runs of other-job yet" ]
"$JOBPREP" runs --profile "$T/profile.json" Bad_Job >/dev/null 2>&1
jp_expect runs_of_a_bad_job_name_is_a_usage_error [ $? = 2 ]
jp_done
