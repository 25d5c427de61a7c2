#!/bin/sh
# Data step: `a` adds a source and focuses its Path field; typing a path
# and pressing Insert (add another) while the field is still being edited
# commits the typed path (which rebuilds the form's rows) before adding.
# The list row must not be read through a pointer into the old rows (a
# heap use-after-free that a sanitizer build aborts on): the wizard stays
# up, keeps the typed source and adds the next one.
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init data-add-editing

tui_start 100 32 -- --demo
tui_must starts tui_step 1 Job
D=$T/work/jobprep-demo
tui_keys Enter
tui_must code tui_step 2 Code
tui_keys Enter
tui_must data tui_step 3 Data
tui_must two_sources_from_the_demo tui_wait "Data sources  (2)"
tui_keys a
tui_must a_adds_a_source tui_wait "Data sources  (3)"
tui_type "$D/public/demo-corpus"
tui_keys IC
tui_must insert_while_editing_adds_another tui_wait "Data sources  (4)"
jp_expect wizard_still_running [ ! -e "$T/exit" ]
jp_expect no_sanitizer_report jp_no_text 'AddressSanitizer\|runtime error' "$T/stderr"
tui_keys BTab
tui_must back_on_the_list tui_wait "add a data source (a)"
tui_keys d
tui_must d_deletes_the_empty_source tui_wait "Data sources  (3)"
tui_must typed_source_kept tui_wait "public/demo-corpus"
tui_keys C-c
rc=$(tui_wait_exit)
jp_expect quits [ "$rc" != hung ]
jp_expect no_sanitizer_report_at_exit jp_no_text 'AddressSanitizer\|runtime error' "$T/stderr"
tui_finish
