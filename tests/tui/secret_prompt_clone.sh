#!/bin/sh
# A clone that needs a password asks for it in a prompt that never shows
# what is typed; the clone then runs on; the password reaches neither the
# screen, the draft, the manifest, env.sh nor the clone's .git/config.
# A wrong password is asked again; Esc on the prompt stops the clone.
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init secret
jp_git_repo "$T/repos/public.git" 3 || exit 99
mkdir -p "$T/repos/private"
cp -r "$T/repos/public.git" "$T/repos/private/train.git"
jp_httpd_start "$T/httpd" "$T/repos" || exit 99
tui_on_exit 'jp_httpd_stop "$T/httpd"'
URL=http://127.0.0.1:$JP_HTTPD_PORT/git/private/train.git
SECRET=s3cret

tui_start 100 30 -- --demo
tui_walk_to 2
tui_must url_typed_in_its_field tui_set "Repository URL" "$URL"
tui_keys Enter
tui_must data tui_step 3 Data
tui_must asks_for_the_user tui_wait "Username for 127.0.0.1"
tui_type alice
tui_keys Enter
tui_must asks_for_the_password tui_wait "Password or token for alice@"
tui_must says_typing_is_hidden tui_wait "typing is not shown"
never_shown() { ! tui_screen | grep -qF "$SECRET" && ! tui_screen | grep -qF "******"; }
for c in s 3 c r e t; do
	tui_type "$c"
	jp_expect "typed_character_${c}_not_shown" never_shown
done
tui_keys Enter
tui_must clone_goes_on tui_wait "cloned into" 60
jp_expect password_not_on_screen never_shown
tui_walk_on 3 6
tui_must asks_to_create tui_wait "Create the run's directories"
tui_keys Enter
tui_must checks tui_wait " 0 failed" 60
tui_keys Enter
tui_must written tui_wait "Manifest written:"
tui_keys Enter
rc=$(tui_wait_exit)
jp_expect exits_0 [ "$rc" = 0 ]
D=$T/work/jobprep-demo
jp_expect cloned [ -f "$D/shared/projects/demo/scripts/train.sh" ]
leaks=$(grep -rlF "$SECRET" "$D/shared/outputs" "$D/shared/projects/demo/.git/config" \
	"$T/home" "$T/stdout" "$T/stderr" 2>/dev/null)
jp_expect password_written_nowhere [ -z "$leaks" ]
jp_expect manifest_url_has_no_credentials grep -qF "\"$URL\"" \
	"$D/shared/outputs/demo/run-001/job.json"

# Esc on the prompt declines: the clone stops and leaves nothing.
rm -rf "$T/home/.local"
tui_start 100 30 -- --demo
tui_must starts_again tui_step 1 Job
tui_keys C-u
tui_type second
tui_keys Enter
tui_must code_again tui_step 2 Code
tui_must url_typed_again tui_set "Repository URL" "$URL"
tui_keys Enter
tui_must asks_again tui_wait "Username for 127.0.0.1"
tui_keys Escape
tui_must declining_stops_the_clone tui_wait_gone "Username for" 30
tui_must and_says_so tui_wait "✗" 30
jp_expect nothing_cloned [ ! -e "$D/shared/projects/second" ]
tui_keys C-c
tui_wait_exit >/dev/null
tui_finish
