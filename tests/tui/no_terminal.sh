#!/bin/sh
# Without a usable terminal the wizard does not start: TERM unset, TERM=dumb,
# a TERM curses does not know, or no terminal at all each give one clear
# line pointing to `jobprep init`, and exit 2.
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init no-term
cd "$T/work" || exit 99

# no_tty CMD...: run without a controlling terminal (a new session).
no_tty() {
	setsid "$@" </dev/null >"$T/out" 2>"$T/err"
}

no_tty env -u TERM HOME="$T/home" "$JOBPREP"
rc=$?
jp_expect term_unset_exits_2 [ "$rc" = 2 ]
jp_expect term_unset_points_to_init grep -q "jobprep init" "$T/err"
jp_expect term_unset_says_why grep -q "TERM is not set" "$T/err"

no_tty env TERM=dumb HOME="$T/home" "$JOBPREP" --demo
rc=$?
jp_expect dumb_terminal_exits_2 [ "$rc" = 2 ]
jp_expect dumb_terminal_points_to_init grep -q "jobprep init" "$T/err"
jp_expect dumb_terminal_prepares_nothing [ ! -e "$T/work/jobprep-demo" ]

no_tty env TERM=xterm-256color HOME="$T/home" "$JOBPREP"
rc=$?
jp_expect no_tty_exits_2 [ "$rc" = 2 ]
jp_expect no_tty_points_to_init grep -q "jobprep init" "$T/err"
jp_expect no_tty_message_is_one_line [ "$(wc -l <"$T/err")" = 1 ]

# An unknown TERM, in a real terminal.
tui_start 80 24 TERM=no-such-terminal-xyz --
rc=$(tui_wait_exit)
jp_expect unknown_term_exits_2 [ "$rc" = 2 ]
jp_expect unknown_term_points_to_init grep -q "jobprep init" "$T/stderr"
jp_expect unknown_term_leaves_modes_alone tui_stty_same
tui_finish
