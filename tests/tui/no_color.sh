#!/bin/sh
# Colour when the terminal has it; none with NO_COLOR set or on a
# monochrome terminal (xterm-mono), where the screen still says everything
# (the ✓ / ! / ✗ marks, the focus) through symbols and attributes.
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init no-color

# has_color: a colour escape (30-37, 90-97, 38;5;N) anywhere on the screen.
has_color() {
	tui_screen_esc | grep -qE "$(printf '\033')\\[([0-9;]*;)?(3[0-7]|9[0-7]|38;5;[0-9]+)m"
}
has_bold() {
	tui_screen_esc | grep -qE "$(printf '\033')\\[([0-9;]*;)?1m"
}
run_case() {
	rm -rf "$T/home/.local"
	tui_start 100 30 "$@" -- --demo
	tui_wait "1/6  Job" && tui_wait "✓"
}

run_case
jp_expect colour_by_default has_color
tui_keys C-c
tui_wait_exit >/dev/null

run_case NO_COLOR=1
if has_color; then jp_fail no_colour_escape_with_NO_COLOR; else jp_pass no_colour_escape_with_NO_COLOR; fi
jp_expect marks_still_shown_with_NO_COLOR tui_wait "✓"
jp_expect attributes_still_used_with_NO_COLOR has_bold
tui_keys C-c
tui_wait_exit >/dev/null

run_case TERM=xterm-mono
if has_color; then jp_fail no_colour_on_a_monochrome_terminal; else jp_pass no_colour_on_a_monochrome_terminal; fi
jp_expect wizard_works_on_a_monochrome_terminal tui_wait "Enter next"
tui_keys Enter
jp_expect keys_work_on_a_monochrome_terminal tui_step 2 Code
tui_keys C-c
rc=$(tui_wait_exit)
jp_expect quits [ "$rc" = 130 ]
tui_finish
