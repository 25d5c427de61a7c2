#!/bin/sh
# Submodules a checkout lacks, in the wizard (issue 21): the demo's
# repository gains a submodule; the wizard moves the checkout there, and
# the Review lists the failed code.repo.submodules; Enter on it offers to
# clone them, "yes" clones them and the checks run again and pass; the
# manifest records the passing check, as `jobprep check` does.
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init review-fill-in
(cd "$T/work" && HOME=$T/home "$JOBPREP" init --demo >"$T/init.out" 2>&1) || {
	cat "$T/init.out"
	exit 99
}
demo=$T/work/jobprep-demo
proj=$demo/shared/projects/demo
# a library repository, and the demo's repository using it as a submodule
git init -q -b main "$T/lib" && echo 'def helper(): pass' >"$T/lib/helper.py" &&
	git -C "$T/lib" add -A && git $JP_GIT_ID -C "$T/lib" commit -qm lib || exit 99
git -C "$demo/repo" -c protocol.file.allow=always submodule add -q "$T/lib" vendor/lib &&
	git $JP_GIT_ID -C "$demo/repo" commit -qm "vendor/lib" || exit 99

tui_start 100 30 -- --demo
tui_must starts tui_step 1 Job
# the job has a run (init --demo above): start afresh, as this test did
# before the wizard offered it
tui_must offers_the_earlier_run tui_earlier_run n
tui_keys Enter
tui_must code tui_step 2 Code
tui_keys Enter
tui_must asks_before_moving tui_wait "Move the checkout in" 60
tui_keys y
tui_must says_what_moved tui_wait "✓ moved "
tui_must data tui_step 3 Data
tui_walk_on 3 6
tui_wait "Create the run's directories" 5 >/dev/null 2>&1 && tui_keys Enter
tui_must review_lists_the_failure tui_wait "code.repo.submodules" 60
tui_must one_failed tui_wait "1 failed"
jp_expect the_submodule_is_not_there_yet [ ! -e "$proj/vendor/lib/.git" ]
tui_must enter_offers_the_clone tui_wait "clone the submodules and fetch the Git LFS"
tui_keys Enter
tui_must asks_first tui_wait "Fill in the checkout"
tui_keys y
tui_must nothing_fails_after_it tui_wait " 0 failed" 60
jp_expect the_submodule_is_cloned [ -f "$proj/vendor/lib/helper.py" ]
tui_keys Enter
tui_must written tui_wait "Manifest written:"
tui_keys Enter
rc=$(tui_wait_exit)
jp_expect exits_0 [ "$rc" = 0 ]
m=$(ls "$demo"/shared/outputs/demo/run-*/job.json | tail -1)
status_of() {
	python3 -c 'import json,sys
for c in json.load(open(sys.argv[1]))["checks"]:
    if c["id"] == sys.argv[2]: print(c["status"])' "$1" "$2"
}
jp_expect manifest_records_the_pass [ "$(status_of "$m" code.repo.submodules)" = pass ]
tui_finish
