#!/bin/sh
# A field's failure goes everywhere at once when it is fixed (issue 22):
# the refusal "✗ Checkpoints: /tmp/ckpt ..." left the status line of the
# Launch and Review steps only later, or never; and a list's rows show an
# item's fields as they are typed (they lagged one edit behind: "EPOCHS="
# while its value read 3; a new data source "(no path yet)" while its path
# was typed).
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init fixed-field-clears
D=$T/work/jobprep-demo
mkdir -p "$T/work"

tui_start 100 30 -- --demo
tui_walk_to 3
# a data source's row follows its path as it is typed
tui_keys a
tui_must source_added tui_wait "Data sources  (3)"
tui_type "$D/shared/datasets/typed-here"
jp_expect source_row_shows_the_typed_path tui_wait "/shared/datasets/typed-here team"
tui_keys C-u
tui_keys BTab
tui_must back_on_the_list tui_wait "add a data source (a)"
tui_keys d
tui_must source_deleted tui_wait "Data sources  (2)"
tui_keys Enter
tui_must outputs tui_step 4 Outputs
tui_must set_tmp tui_set "Checkpoints" "/tmp/ckpt"
tui_keys Enter
tui_must refused tui_wait "✗ Checkpoints: /tmp/ckpt"
tui_keys C-u
tui_type "$D/shared/ckpt"
tui_keys Enter
tui_must launch tui_step 5 Launch
jp_expect launch_shows_no_stale_refusal tui_wait_gone "✗ Checkpoints" 2
# an environment variable's row follows its value as it is typed
tui_must env_list tui_field "Environment variables"
tui_keys a
tui_must env_name tui_wait "▸   Name"
tui_type EPOCHS
tui_keys Tab
tui_type 3
jp_expect env_row_shows_the_typed_value tui_wait " 1  EPOCHS=3"
tui_keys Enter
tui_must review tui_step 6 Review
jp_expect review_shows_no_stale_refusal tui_wait_gone "✗ Checkpoints" 2
tui_must asks_to_create tui_wait "Create the run's directories" 60
tui_keys n
tui_wait_gone "Create the run's directories"
tui_keys C-c
tui_wait_modal "Quit" 5 >/dev/null 2>&1 && tui_keys y
jp_expect quits [ "$(tui_wait_exit)" != hung ]
tui_finish
