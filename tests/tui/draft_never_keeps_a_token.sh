#!/bin/sh
# A token typed into the Repository URL field (user:TOKEN@ or a lone
# TOKEN@) never reaches the draft file: quitting keeps the URL without it,
# and resuming brings back that URL (the clone asks for the token again).
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init draft-token
DRAFT=$T/home/.local/state/jobprep/demo-draft.json
TOK=tok-7c1e94b2aa

for form in "alice:$TOK" "$TOK"; do
	case $form in alice:*) c=user_and_token ;; *) c=lone_token ;; esac
	rm -f "$DRAFT"
	tui_start 100 30 -- --demo
	tui_must "${c}_starts" tui_step 1 Job
	tui_keys Enter
	tui_must "${c}_code" tui_step 2 Code
	tui_keys Tab Tab C-u
	tui_type "https://$form@git.example.com/team/train.git"
	tui_must "${c}_url_typed" tui_wait "git.example.com/team/train.git"
	tui_must "${c}_flagged_inline" tui_wait "the URL holds a password or token"
	# Enter takes the answer (and stays: the verdict failed), so it is
	# one the draft would keep.
	tui_keys Enter
	tui_must "${c}_stays_on_code" tui_wait "✗ Repository URL:"
	tui_keys C-c
	rc=$(tui_wait_exit)
	jp_expect "${c}_quit_exits_130" [ "$rc" = 130 ]
	jp_expect "${c}_draft_kept" [ -s "$DRAFT" ]
	jp_expect "${c}_draft_has_no_token" jp_no_text -F "$TOK" "$DRAFT"
	jp_expect "${c}_draft_keeps_the_url_without_it" \
		grep -qF '"https://git.example.com/team/train.git"' "$DRAFT"

	tui_start 100 30 -- --demo
	tui_must "${c}_offers_to_resume" tui_wait "Resume where"
	tui_keys Enter
	tui_must "${c}_resumes_on_code" tui_step 2 Code
	tui_must "${c}_resumed_url_has_no_token" tui_wait "https://git.example.com/team/train.git"
	tui_screen >"$T/screen"
	jp_expect "${c}_token_not_on_the_resumed_screen" jp_no_text -F "$TOK" "$T/screen"
	tui_keys C-c
	tui_wait_exit >/dev/null
done
tui_finish
