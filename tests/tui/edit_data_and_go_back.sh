#!/bin/sh
# A person's flow, typed: add a data source by typing its path (completed
# with Tab), make it public data, add another one and delete it again, go
# back to the first step and rename the job: the defaults that follow the
# name (project and output directories) follow; the manifest holds it all.
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init edit-data

tui_start 100 32 -- --demo
tui_must starts tui_step 1 Job
D=$T/work/jobprep-demo
# A second public data set, made once the sandbox exists.
mkdir -p "$D/public/extra-corpus" && head -c 4096 /dev/urandom >"$D/public/extra-corpus/part-0.bin"
tui_keys Enter
tui_must code tui_step 2 Code
tui_keys Enter
tui_must data tui_step 3 Data
tui_must two_sources_from_the_demo tui_wait "Data sources  (2)"

# add a source: straight to its Path field
tui_keys a
tui_must a_adds_a_source tui_wait "Data sources  (3)"
tui_type "$D/public/ex"
tui_keys Tab
tui_must tab_completes_the_path tui_wait "public/extra-corpus/"
tui_keys Tab
tui_must name_follows_the_path tui_wait "extra-corpus   "
tui_keys Tab
tui_must kind_choice_has_focus tui_wait "▸   Kind"
tui_must kind_follows_the_public_root tui_wait "(•) Public data"
tui_keys Up Space
tui_must team_data_chosen tui_wait "(•) Team data"
tui_keys Down Space
tui_must public_data_chosen tui_wait "(•) Public data"
tui_must list_shows_public_read_only tui_wait "public ro"

# add another with Insert, type a path that does not exist, delete it
tui_keys IC
tui_must insert_adds_a_source tui_wait "Data sources  (4)"
tui_type /nonexistent/data
tui_must missing_path_marked_inline tui_wait "✗ "
tui_keys BTab
tui_must back_on_the_list tui_wait "add a data source (a)"
tui_keys d
tui_must d_deletes_the_source tui_wait "Data sources  (3)"
tui_must deleted_source_is_gone tui_wait_gone "/nonexistent/data"

# back to the job and rename it: the defaults follow
tui_keys Escape
tui_must esc_goes_back_to_code tui_step 2 Code
tui_keys Escape
tui_must esc_goes_back_to_job tui_step 1 Job
tui_keys C-u
tui_type llama-sft
tui_keys Enter
tui_must code_after_rename tui_step 2 Code
tui_must project_dir_follows_the_name tui_wait "shared/projects/llama-sft "
tui_keys Enter
tui_must data_kept tui_step 3 Data
tui_must three_sources_kept tui_wait "Data sources  (3)"
tui_keys Enter
tui_must outputs_after_rename tui_step 4 Outputs
tui_must output_dir_follows_the_name tui_wait "outputs/llama-sft/run-001 "
tui_walk_on 4 6
tui_must asks_to_create tui_wait "Create the run's directories"
tui_keys Enter
tui_must checks tui_wait "Checks:"
tui_must nothing_failed tui_wait " 0 failed" 60
tui_keys Enter
tui_must written tui_wait "Manifest written:"
tui_keys Enter
rc=$(tui_wait_exit)
jp_expect exits_0 [ "$rc" = 0 ]

m=$D/shared/outputs/llama-sft/run-001/job.json
python3 - "$m" "$D" >"$T/verify.out" 2>&1 <<'PY'
import json, sys
m = json.load(open(sys.argv[1])); d = sys.argv[2]
assert m["job"]["name"] == "llama-sft", m["job"]["name"]
# the live checkout, and the run's own read-only copy of its code (issue 29)
assert m["code"]["checkout"] == d + "/shared/projects/llama-sft", m["code"]
assert m["code"]["path"].startswith(d + "/shared/projects/.jobprep-trees/llama-sft/"), m["code"]["path"]
assert len(m["code"]["repo"]["commit"]) == 40
assert [x["path"] for x in m["data"]] == [d + "/shared/datasets/demo-data", d + "/public/demo-corpus", d + "/public/extra-corpus"], m["data"]
x = m["data"][2]
assert x["kind"] == "public" and x["read_only"] is True and x["name"] == "extra-corpus", x
assert m["outputs"]["output_dir"] == d + "/shared/outputs/llama-sft/run-001", m["outputs"]
PY
jp_expect manifest_holds_the_answers [ $? = 0 ]
cat "$T/verify.out"
"$JOBPREP" check "$m" >/dev/null 2>&1
jp_expect jobprep_check_passes [ $? = 0 ]
tui_finish
