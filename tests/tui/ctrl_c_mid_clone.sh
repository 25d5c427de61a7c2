#!/bin/sh
# Ctrl-C while the clone runs asks first; quitting stops the clone, leaves
# no partial clone and no temporary behind, exits 130, and gives the
# terminal back exactly as it was (stty -a before and after are the same).
# Answering "keep going" the first time leaves the clone running.
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init ctrl-c
jp_git_big_repo "$T/srv/big.git" 8 || exit 99
jp_gitd_start "$T/gitd" "$T/srv" slow || exit 99
tui_on_exit 'jp_gitd_stop "$T/gitd"'
URL=git://127.0.0.1:$JP_GITD_PORT/big.git
mkdir -p "$T/scratch"

tui_start 100 30 TMPDIR="$T/scratch" -- --demo
tui_walk_to 2
tui_must url_typed_in_its_field tui_set "Repository URL" "$URL"
tui_keys Enter
tui_must data tui_step 3 Data
tui_must clone_runs tui_wait "receiving"

tui_keys C-c
tui_must ctrl_c_asks_first tui_wait "Quit now?"
tui_keys n
tui_must no_keeps_going tui_wait_gone "Quit now?"
tui_must clone_still_running tui_wait "receiving"
tui_keys C-c
tui_must asks_again tui_wait "Quit now?"
tui_keys y
rc=$(tui_wait_exit 60)
jp_expect exits_130 [ "$rc" = 130 ]
P=$T/work/jobprep-demo/shared/projects
jp_expect no_partial_clone [ ! -e "$P/demo" ]
# the clone made projects/ for its target: gone again, or holding no temporary
no_temporary_beside() { jp_no_temporaries "$(dirname "$1")" && { [ ! -e "$1" ] || jp_no_temporaries "$1"; }; }
jp_expect no_temporary_beside_the_target no_temporary_beside "$P"
jp_expect no_temporary_in_scratch jp_dir_empty "$T/scratch"
jp_expect stty_unchanged cmp -s "$T/stty.before" "$T/stty.after"
jp_expect says_answers_are_kept grep -q "resume" "$T/stderr"
tui_finish
