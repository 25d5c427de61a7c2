#!/bin/sh
# Fields tell the truth as they are typed: a branch the remote does not
# have fails on the Code screen at once (ls-remote in the background),
# naming the default branch; Enter is refused with the reason on the status
# line, which leaves once the ref is fixed; a new data source's empty Path
# shows no ✗ before anything was typed; a path under the public data root
# says the kind is set to public (it is), not "choose kind public".
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init fields-truth
mkdir -p "$T/srv"
jp_git_repo "$T/srv/nanoGPT.git" || exit 99
git --git-dir="$T/srv/nanoGPT.git" branch -m main master || exit 99
git --git-dir="$T/srv/nanoGPT.git" symbolic-ref HEAD refs/heads/master || exit 99
jp_gitd_start "$T/gitd" "$T/srv" || exit 99
tui_on_exit 'jp_gitd_stop "$T/gitd"'
URL=git://127.0.0.1:$JP_GITD_PORT/nanoGPT.git

tui_start 100 30 -- --demo
tui_walk_to 2
tui_must url_typed tui_set "Repository URL" "$URL"
tui_must ref_typed tui_set "Branch, tag or commit" main
tui_must miss_shown_as_typed tui_wait "nanoGPT has no branch or tag 'main'"
tui_must miss_names_the_default_branch tui_wait "default branch is 'master'"
tui_keys Enter
tui_must enter_refused_on_the_code_step tui_wait "Branch, tag or commit: nanoGPT has no branch"
jp_expect still_on_code tui_step 2 Code
tui_keys C-u
tui_type master
tui_must fixed_ref_clears_the_field tui_wait_gone "has no branch"
jp_expect no_stale_error_on_the_status_line sh -c "! tmux -L '$TUI_SOCK' capture-pane -p | grep -q 'Branch, tag or commit:'"
tui_keys Enter
tui_must then_enter_goes_on tui_step 3 Data

tui_keys a
tui_must a_adds_a_source tui_wait "Data sources  (3)"
tui_must path_focused tui_wait "▸   Path"
jp_expect no_mark_before_typing sh -c "! tmux -L '$TUI_SOCK' capture-pane -p | grep '▸   Path' | grep -q '[✓!✗] *│\$'"
jp_expect no_message_before_typing sh -c "! tmux -L '$TUI_SOCK' capture-pane -p | grep -q 'expected an absolute path\|is required\|needs a value'"
tui_type "$T/work/jobprep-demo/public/demo-corpus"
tui_must public_path_says_kind_set tui_wait "kind set to public"
jp_expect not_choose_kind sh -c "! tmux -L '$TUI_SOCK' capture-pane -p | grep -q 'choose kind'"
tui_keys Tab
tui_must kind_is_public tui_wait "(•) Public data"
tui_keys C-c
tui_finish
