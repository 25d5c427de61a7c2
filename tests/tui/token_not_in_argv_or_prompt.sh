#!/bin/sh
# A token written in the URL given to `clone` or `repo --remote` leaves the
# process's command line (ps, /proc/PID/cmdline) once jobprep has read it:
# user:TOKEN@ and a lone TOKEN@ (which jobprep itself treats as a token over
# http) alike; and the credential prompt in the terminal never shows it.
# Each command is read while it waits at that prompt (the server refused the
# token or asked for a password): a state it stays in until a key is typed.
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init token-argv
jp_git_repo "$T/repos/public.git" || exit 99
mkdir -p "$T/repos/private"
cp -r "$T/repos/public.git" "$T/repos/private/x.git"
jp_httpd_start "$T/httpd" "$T/repos" || exit 99
tui_on_exit 'jp_httpd_stop "$T/httpd"'
H=127.0.0.1:$JP_HTTPD_PORT
TOK=tok-9d41c7e2b8

# jobprep's pid in the pane: the pane's shell runs `env ... jobprep`,
# which execs it.
jobprep_pid() {
	_pp=$(tmux -L "$TUI_SOCK" display-message -p '#{pane_pid}')
	for _c in $(cat "/proc/$_pp/task/$_pp/children" 2>/dev/null); do
		[ "$(readlink "/proc/$_c/exe" 2>/dev/null)" = "$(readlink -f "$JOBPREP")" ] && echo "$_c"
	done
}

# check_case NAME PROMPT ARGS...: start jobprep ARGS, wait for PROMPT on
# stderr, then read its command line (retrying until it is read: reading
# nothing is a failure), and judge it and the prompt.
check_case() {
	_cn=$1
	_cp=$2
	shift 2
	rm -f "$T/stderr" # the last case's prompt is not this one's
	tui_start 100 30 -- "$@"
	if ! jp_wait_text "$T/stderr" "Password or token for" 30; then
		jp_fail "${_cn}_reaches_the_prompt" "stderr: $(cat "$T/stderr")"
		return
	fi
	if jp_wait_text "$T/stderr" "$_cp" 10; then
		jp_pass "${_cn}_asks_the_expected_question"
	else
		jp_fail "${_cn}_asks_the_expected_question"
		cat -A "$T/stderr" | sed 's/^/# /'
	fi
	_cmd=
	_n=0
	while [ -z "$_cmd" ] && [ $_n -lt 100 ]; do
		_pid=$(jobprep_pid)
		[ -n "$_pid" ] && _cmd=$(tr '\0' ' ' <"/proc/$_pid/cmdline" 2>/dev/null)
		[ -n "$_cmd" ] || sleep 0.05
		_n=$((_n + 1))
	done
	jp_expect "${_cn}_command_line_was_read" [ -n "$_cmd" ]
	echo "# $_cn: $_cmd"
	jp_expect "${_cn}_command_line_has_no_token" sh -c "! printf '%s' '$_cmd' | grep -qF '$TOK'"
	jp_expect "${_cn}_command_line_shows_it_blanked" sh -c "printf '%s' '$_cmd' | grep -qF '**********@$H'"
	jp_expect "${_cn}_prompt_has_no_token" jp_no_text -F "$TOK" "$T/stderr"
	# SIGINT to jobprep alone (C-c would reach the pane's shell too).
	[ -n "$_pid" ] && kill -INT "$_pid"
	_rc=$(tui_wait_exit)
	echo "# exit: $_rc"
	jp_expect "${_cn}_ends_when_interrupted" sh -c '[ "$1" != hung ] && [ "$1" != 0 ]' sh "$_rc"
	tui_screen >"$T/screen"
	jp_expect "${_cn}_screen_never_shows_the_token" jp_no_text -F "$TOK" "$T/screen"
}

check_case repo_remote_user_and_token "Password or token for alice@" \
	repo --remote "http://alice:$TOK@$H/git/private/x.git"
check_case repo_remote_lone_token "Password or token for $H" \
	repo --remote "http://$TOK@$H/git/private/x.git"
check_case clone_lone_token "Password or token for $H" \
	clone "http://$TOK@$H/git/private/x.git" "$T/out/x"
check_case clone_user_and_token "Password or token for alice@" \
	clone "http://alice:$TOK@$H/git/private/x.git" "$T/out/y"
tui_finish
