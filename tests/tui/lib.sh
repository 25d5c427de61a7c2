# Shell helpers for the wizard's tests: drive the real program in a real
# terminal (tmux) the way a person would, and read the screen back.
#
#   . "$TOP_SRCDIR/tests/tui/lib.sh"
#   tui_init NAME                 scratch dir $T, own tmux socket, pinned env
#   tui_start COLS ROWS ARGS...   jobprep ARGS in a new session (cwd $T/work,
#                                 or $TUI_CWD when set)
#   TUI_KEYS                      keys sent so far (tui_keys, tui_type: one a
#                                 character, tui_field's Tabs): what a walk costs
#   tui_keys KEY...               tmux send-keys (names: Enter, Escape, C-c...)
#   tui_type TEXT                 type TEXT literally
#   tui_wait TEXT [SECS]          wait until TEXT is on the screen (default 20 s)
#   tui_wait_gone TEXT [SECS]     wait until TEXT has left the screen
#   tui_screen                    the screen, as text
#   tui_wait_exit [SECS]          wait for jobprep to end; prints its exit code
#   tui_field LABEL               Tab to the field labelled LABEL on this step
#   tui_set LABEL TEXT            reach it, empty it (C-u) and type TEXT
#   tui_earlier_run KEY           answer the offer to start from the job's
#                                 last run (Enter takes it, n declines)
#
# Every wait polls the screen with a bounded timeout; no sleep is an
# assertion. On a failed wait the screen is printed. The tmux server is
# killed and the scratch dir removed on exit (trap).
#
# Pinned like tig's test/tools/libtest.sh: TERM=xterm-256color,
# LANG=C.UTF-8, TZ=UTC, HOME inside the scratch dir.

. "$TOP_SRCDIR/tests/lib/gitserv.sh"

tui_init() {
	command -v tmux >/dev/null 2>&1 || jp_skip_all "tmux is not installed"
	TUI_NAME=$1
	T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-tui-$1.XXXXXX") || exit 99
	TUI_BASE=jp-tui-$1-$$
	TUI_N=0
	TUI_KEYS=0
	TUI_SOCK=$TUI_BASE-0
	mkdir -p "$T/home" "$T/work"
	TUI_CLEANUP=
	trap 'tui_cleanup' EXIT
	trap 'jp_fail interrupted "by SIGINT"; jp_done' INT
	trap 'jp_fail interrupted "by SIGTERM"; jp_done' TERM
	trap 'jp_fail interrupted "by SIGHUP"; jp_done' HUP
	unset NO_COLOR JOBPREP_PROFILE XDG_STATE_HOME SSH_AUTH_SOCK GIT_ASKPASS SSH_ASKPASS
	export GIT_CONFIG_NOSYSTEM=1
}

# tui_on_exit CMD: run CMD at cleanup (stop servers).
tui_on_exit() {
	TUI_CLEANUP="$TUI_CLEANUP
$1"
}

# _tui_left: a process still running with its HOME in the test's folder (a
# wizard that got SIGHUP from kill-server and is saving its draft, its
# helpers): the folder is removed once none is left, or rm met a state
# folder being written ("Directory not empty") and the wizard could make
# it again after.
_tui_left() {
	grep -lsaF "HOME=$T/" /proc/[0-9]*/environ 2>/dev/null | grep -qv "^/proc/$$/"
}

tui_cleanup() {
	_i=0
	while [ $_i -le $TUI_N ]; do
		tmux -L "$TUI_BASE-$_i" kill-server 2>/dev/null
		_i=$((_i + 1))
	done
	_i=0
	while _tui_left && [ $_i -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	eval "$TUI_CLEANUP"
	rm -rf "$T"
}

# tui_start COLS ROWS [ENV=VALUE...] -- ARGS...: the wizard in a fresh
# session. The pane runs a small script that records the exit code and the
# terminal's modes before and after, then stays open for capture.
tui_start() {
	_cols=$1
	_rows=$2
	shift 2
	_env=
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		_env="$_env '$1'"
		shift
	done
	[ "${1:-}" = "--" ] && shift
	rm -f "$T/exit" "$T/stty.before" "$T/stty.after"
	# Each start gets a server of its own: the one before is stopped.
	tmux -L "$TUI_SOCK" kill-server 2>/dev/null
	TUI_N=$((TUI_N + 1))
	TUI_SOCK=$TUI_BASE-$TUI_N
	{
		echo "cd '${TUI_CWD:-$T/work}' || exit 1"
		echo "stty -a >'$T/stty.before'"
		printf "env HOME='%s' TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC%s '%s'" \
			"$T/home" "$_env" "$JOBPREP"
		for _a in "$@"; do
			printf " '%s'" "$_a"
		done
		echo " >'$T/stdout' 2>'$T/stderr'"
		echo "echo \$? >'$T/exit.tmp'"
		echo "stty -a >'$T/stty.after'"
		echo "mv '$T/exit.tmp' '$T/exit'"
		echo "exec sleep 3600"
	} >"$T/run.sh"
	# With stdout in a file the wizard draws on /dev/tty, and the closing
	# summary it prints lands in $T/stdout for the test to read. tmux runs
	# the command with the user's login shell: exec, so that the pane's
	# process is run.sh whatever that shell is (bash execs a lone command,
	# dash does not).
	tmux -L "$TUI_SOCK" -f /dev/null new-session -d -x "$_cols" -y "$_rows" \
		-e TERM=xterm-256color -e LANG=C.UTF-8 -e TZ=UTC -e HOME="$T/home" \
		"exec sh '$T/run.sh'"
	# Let tmux keep the size we asked for whatever a client would want.
	tmux -L "$TUI_SOCK" set-option -g window-size manual 2>/dev/null
}

tui_keys() {
	TUI_KEYS=$((TUI_KEYS + $#))
	tmux -L "$TUI_SOCK" send-keys "$@"
}

tui_type() {
	TUI_KEYS=$((TUI_KEYS + ${#1}))
	tmux -L "$TUI_SOCK" send-keys -l "$1"
}

tui_screen() {
	tmux -L "$TUI_SOCK" capture-pane -p
}

# tui_screen_esc: the screen with its colours and attributes as escapes.
tui_screen_esc() {
	tmux -L "$TUI_SOCK" capture-pane -p -e
}

tui_resize() {
	tmux -L "$TUI_SOCK" resize-window -x "$1" -y "$2"
}

# (a run of like lines, the blank rows of a box, is one line and a count:
# the whole screen fits in the few lines a CI log shows of a failure)
_tui_dump() {
	echo "--- screen ($1) ---" >&2
	tui_screen | awk '$0 == prev { n++; next }
		n { printf "  (the line above %d more times)\n", n; n = 0 }
		{ print; prev = $0 }
		END { if (n) printf "  (the line above %d more times)\n", n }' >&2
	echo "--- stderr ---" >&2
	cat "$T/stderr" >&2 2>/dev/null
	echo "---" >&2
}

tui_wait() {
	_w=0
	_max=$((${2:-20} * 20))
	while [ $_w -lt $_max ]; do
		tui_screen | grep -qF -- "$1" && return 0
		[ -e "$T/exit" ] && [ $_w -gt 2 ] && break
		sleep 0.05
		_w=$((_w + 1))
	done
	tui_screen | grep -qF -- "$1" && return 0
	_tui_dump "waited for: $1"
	return 1
}

# tui_wait_wrapped TEXT [SECS]: TEXT anywhere on the screen, where a field's
# verdict may wrap it over lines (a long path: TMPDIR with a space, say):
# the screen's lines are joined, the frame and spaces left out of both sides.
tui_wait_wrapped() {
	_want=$(printf '%s' "$1" | tr -d ' ')
	_w=0
	_max=$((${2:-20} * 20))
	while [ $_w -lt $_max ]; do
		tui_screen | sed 's/│//g' | tr -d ' \n' | grep -qF -- "$_want" && return 0
		[ -e "$T/exit" ] && [ $_w -gt 2 ] && break
		sleep 0.05
		_w=$((_w + 1))
	done
	_tui_dump "waited for (wrapped): $1"
	return 1
}

# tui_wait_modal TEXT [SECS]: TEXT in a modal box over the form, which
# wraps its text to its width and may break a long path anywhere: the
# box's lines are joined and spaces are left out of both sides.
_tui_modal_text() {
	tui_screen | awk -F'│' 'NF >= 5 { printf "%s", $3 }' | tr -d ' \n'
}

tui_wait_modal() {
	_want=$(printf '%s' "$1" | tr -d ' ')
	_w=0
	_max=$((${2:-20} * 20))
	while [ $_w -lt $_max ]; do
		_tui_modal_text | grep -qF -- "$_want" && return 0
		[ -e "$T/exit" ] && [ $_w -gt 2 ] && break
		sleep 0.05
		_w=$((_w + 1))
	done
	_tui_dump "waited for, in a modal: $1"
	return 1
}

tui_wait_gone() {
	_w=0
	_max=$((${2:-20} * 20))
	while [ $_w -lt $_max ]; do
		tui_screen | grep -qF -- "$1" || return 0
		sleep 0.05
		_w=$((_w + 1))
	done
	_tui_dump "waited for this to go: $1"
	return 1
}

# tui_wait_exit [SECS]: the wizard's exit code, or "hung".
tui_wait_exit() {
	_w=0
	while [ ! -e "$T/exit" ] && [ $_w -lt $((${1:-30} * 20)) ]; do
		sleep 0.05
		_w=$((_w + 1))
	done
	if [ -e "$T/exit" ]; then
		cat "$T/exit"
	else
		_tui_dump "the wizard did not exit" >/dev/null 2>&1
		echo hung
	fi
}

# tui_stty_same: the terminal's modes after the wizard are those before it
# (the size aside: a test may have resized the window meanwhile).
tui_stty_same() {
	sed 's/rows [0-9]*; columns [0-9]*;//' "$T/stty.before" >"$T/stty.b"
	sed 's/rows [0-9]*; columns [0-9]*;//' "$T/stty.after" >"$T/stty.a"
	cmp -s "$T/stty.b" "$T/stty.a" && [ -s "$T/stty.b" ]
}

# _tui_focused: the label of the field that has the focus (its line starts
# with the focus mark; the label ends where two spaces begin its value).
_tui_focused() {
	tui_screen | sed -n 's/^[│ ]*▸ *//p' | head -n 1 | sed 's/  .*//'
}

# tui_field LABEL [MAX]: move the focus with Tab to the field labelled
# LABEL, at most MAX (default 15) presses, each awaited until the focus has
# moved; a test names the field it wants instead of counting Tabs. Fails,
# showing the screen, when the step has no such field.
tui_field() {
	_n=0
	while :; do
		_f=$(_tui_focused)
		[ "$_f" = "$1" ] && return 0
		[ $_n -ge "${2:-15}" ] && break
		tui_keys Tab
		_n=$((_n + 1))
		_w=0
		while [ "$(_tui_focused)" = "$_f" ] && [ $_w -lt 100 ]; do
			sleep 0.05
			_w=$((_w + 1))
		done
	done
	_tui_dump "focus on the field: $1 (last: $_f)"
	return 1
}

# tui_set LABEL TEXT: the field labelled LABEL, emptied, then TEXT typed.
tui_set() {
	tui_field "$1" || return 1
	tui_keys C-u
	tui_type "$2"
}

# tui_earlier_run KEY: the job has runs already: the wizard asks whether to
# start from the last one; press KEY (Enter: yes, n: start afresh) and wait
# for the question to go.
tui_earlier_run() {
	tui_wait_modal "Start from run-" || return 1
	tui_keys "$1"
	tui_wait_gone "Start afresh"
}

# tui_step N NAME: wait for step N/6 to be on screen, up to a minute: Enter
# re-checks the step in the wizard's thread, each look a fork with its
# 1.5 s bound, and a sanitizer build beside CI's other work took over 20 s
# to leave Code (review_long_list's notnow walk).
tui_step() {
	tui_wait "$1/6  $2" 60
}

# tui_walk_to N: from the first step, Enter on each step's answers until
# step N is on screen, each step on the way a case of its own (starts,
# code, data, outputs, launch, review): the opening every walk through the
# wizard shares. tui_walk_on FROM TO: the same from step FROM, on screen.
tui_walk_to() {
	tui_must starts tui_step 1 Job
	tui_walk_on 1 "$1"
}

tui_walk_on() {
	_walk=$1
	while [ "$_walk" -lt "$2" ]; do
		_walk=$((_walk + 1))
		case $_walk in
		2) _walk_step=Code ;;
		3) _walk_step=Data ;;
		4) _walk_step=Outputs ;;
		5) _walk_step=Launch ;;
		*) _walk_step=Review ;;
		esac
		tui_keys Enter
		tui_must "$(echo "$_walk_step" | tr 'A-Z' 'a-z')" tui_step "$_walk" "$_walk_step"
	done
}

# tui_must NAME COMMAND...: like jp_expect, and stop the script on failure
# (later steps make no sense once the wizard is somewhere else): the plan
# then counts the cases run so far.
tui_must() {
	_name=$1
	shift
	if "$@"; then
		jp_pass "$_name"
	else
		jp_fail "$_name"
		jp_done
	fi
}

# tui_finish: the plan, and the script's exit status (jp_done).
tui_finish() {
	jp_done
}
