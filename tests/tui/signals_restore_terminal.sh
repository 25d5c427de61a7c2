#!/bin/sh
# Whatever ends the wizard gives the terminal back as it was: SIGTERM and
# SIGHUP (exit 128+signal, answers kept in the draft), SIGINT from outside
# (130), and a crash (SIGSEGV, SIGABRT: the terminal is restored, then the
# signal does what it does: the process dies of it).
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init signals

# wizard_pid: the jobprep process under the pane.
wizard_pid() {
	_p=$(tmux -L "$TUI_SOCK" display-message -p '#{pane_pid}')
	_i=0
	while [ $_i -lt 5 ]; do
		for _c in $_p $(pgrep -P "$_p"); do
			[ "$(cat /proc/$_c/comm 2>/dev/null)" = jobprep ] && { echo "$_c"; return 0; }
		done
		_p=$(pgrep -P "$_p" | head -1)
		[ -n "$_p" ] || break
		_i=$((_i + 1))
	done
	return 1
}

one() {
	sig=$1
	want=$2
	rm -rf "$T/home/.local"
	tui_start 100 30 -- --demo
	tui_must "${sig}_started" tui_step 1 Job
	tui_keys Enter
	tui_must "${sig}_on_code" tui_step 2 Code
	pid=$(wizard_pid)
	tui_must "${sig}_found_the_wizard" [ -n "$pid" ]
	kill -s "$sig" "$pid"
	rc=$(tui_wait_exit)
	jp_expect "${sig}_exits_$want" [ "$rc" = "$want" ]
	jp_expect "${sig}_restores_the_terminal" cmp -s "$T/stty.before" "$T/stty.after"
}

one TERM 143
jp_expect TERM_keeps_the_answers [ -s "$T/home/.local/state/jobprep/demo-draft.json" ]
one HUP 129
one INT 130
one SEGV 139
one ABRT 134
tui_finish
