#!/bin/sh
# Answers survive: quitting keeps them in a draft; starting again offers to
# resume where the person left off (on the same step, with the same
# answers); Esc on that question keeps the draft untouched; "start over"
# forgets it.
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init resume
DRAFT=$T/home/.local/state/jobprep/demo-draft.json

tui_start 100 30 -- --demo
tui_must starts tui_step 1 Job
tui_keys C-u
tui_type resume-me
tui_keys Enter
tui_must code tui_step 2 Code
tui_must project_dir_follows tui_wait "projects/resume-me "
tui_keys C-c
rc=$(tui_wait_exit)
jp_expect quit_exits_130 [ "$rc" = 130 ]
jp_expect draft_kept [ -s "$DRAFT" ]
jp_expect draft_is_private [ "$(stat -c %a "$DRAFT")" = 600 ]

tui_start 100 30 -- --demo
tui_must offers_to_resume tui_wait "Resume where"
tui_must names_the_job tui_wait '"resume-me"'
tui_keys Enter
tui_must resumes_on_the_step_left tui_step 2 Code
tui_must with_the_answers tui_wait "projects/resume-me "
tui_keys C-c
tui_wait_exit >/dev/null

# Esc is no answer (dialog's 255): the draft stays as it was, this
# session keeps none over it, and the next start offers it again
cp "$DRAFT" "$T/draft.before"
tui_start 100 30 -- --demo
tui_must offers_once_more tui_wait "Resume where"
tui_keys Escape
tui_must esc_starts_without_it tui_wait "the draft is kept as it was"
tui_keys Enter
tui_must esc_goes_on tui_step 2 Code
tui_keys C-c
tui_wait_modal "Quit" 3 >/dev/null 2>&1 && tui_keys y
tui_wait_exit >/dev/null
jp_expect esc_leaves_the_draft_as_it_was cmp -s "$DRAFT" "$T/draft.before"

tui_start 100 30 -- --demo
tui_must offers_again tui_wait "Resume where"
tui_keys n
tui_must start_over_begins_at_job tui_step 1 Job
tui_must with_the_defaults tui_wait "demo     "
# (the wizard may draw the first step before it removes the file)
jp_expect start_over_forgets_the_draft jp_wait_gone "$DRAFT"
tui_keys C-c
tui_wait_exit >/dev/null

# A draft that is no draft (cut short, edited) is said, not passed over.
mkdir -p "${DRAFT%/*}" && printf '{"draft_version": 1, "answ' >"$DRAFT"
tui_start 100 30 -- --demo
tui_must corrupt_draft_starts_at_job tui_step 1 Job
# (the message names the draft's path, which TMPDIR makes long: it may wrap)
tui_must corrupt_draft_is_reported tui_wait_wrapped "not a draft; it cannot be resumed"
tui_keys C-c
tui_wait_exit >/dev/null
tui_finish
