#!/bin/sh
# A profile that declares a plain folder of this machine's disk its shared
# storage (as the built-in one does /mnt/public on a box that never mounted
# it): the Code step marks the default project directory ✗ with the reason
# and the way out, and Enter does not leave the step, so nothing is cloned
# onto this machine's disk. The same folder under a profile marked
# "sandbox": true (the demo's kind) is no failure: Enter goes on.
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init plain-root
mkdir -p "$T/plain"
jp_git_repo "$T/repo.git" >/dev/null 2>&1 || exit 99
printf '{"shared_roots": ["%s/plain"]}\n' "$T" >"$T/real.json"
printf '{"sandbox": true, "shared_roots": ["%s/plain"]}\n' "$T" >"$T/sandbox.json"

to_code() { # PROFILE
	tui_start 100 30 -- --profile "$1"
	tui_must "$(basename "$1" .json)_starts" tui_step 1 Job
	tui_type plainjob
	tui_keys Enter
	tui_must "$(basename "$1" .json)_reaches_code" tui_step 2 Code
	tui_field "Repository URL"
	tui_type "file://$T/repo.git"
	tui_keys Tab
}

to_code "$T/real.json"
tui_must project_dir_marked_failed tui_wait_wrapped "is declared shared storage"
tui_must the_reason_is_no_mount tui_wait_wrapped "mount point: it is a folder on"
tui_keys Enter
tui_must enter_is_refused_with_the_reason tui_wait "Project directory:"
jp_expect still_on_the_code_step sh -c "tmux -L '$TUI_SOCK' capture-pane -p | grep -qF '2/6  Code'"
jp_expect nothing_cloned_onto_this_disk [ ! -e "$T/plain/projects/plainjob" ]
tui_keys C-c
rc=$(tui_wait_exit)
jp_expect quits_with_130 [ "$rc" = 130 ]

to_code "$T/sandbox.json"
tui_keys Enter
tui_must sandbox_goes_on_to_data tui_step 3 Data
# the clone goes on in the background while the next step shows
cloned() { [ -d "$T/plain/projects/plainjob/.git" ]; }
jp_poll 300 cloned
jp_expect sandbox_clones_the_code cloned
tui_keys C-c
tui_wait_exit >/dev/null
tui_finish
