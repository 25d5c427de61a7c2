#!/bin/sh
# A step's refusal stays on the status line while background work finishes
# behind it: Enter refused a field, so the person must read why, and work
# on another data source that ends a moment later ("staged onto ...",
# "scanned ...: 1 file") must not replace it (CI's review_long_list once
# lost the refusal of its launch command to the demo corpus's late scan).
# The refusal leaves once its field is fixed. The work is made to end while
# the refusal stands: a download staged in the background from a web server
# on loopback that holds the body while a flag file exists; the test lets
# go once the refusal is on the screen, and judges the status line when the
# source's row shows what the scan of the staged data counted (drawn in the
# same pass as the status line).
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init refusal-stays
command -v python3 >/dev/null 2>&1 || jp_skip_all "python3 is not installed"
mkdir -p "$T/www" || exit 99
printf 'one line of data\n' >"$T/www/words.txt"
: >"$T/hold"
python3 "$TOP_SRCDIR/tests/lib/held_httpd.py" "$T/www" "$T/hold" "$T/port" &
httpd=$!
tui_on_exit "rm -f '$T/hold'; kill $httpd 2>/dev/null"
w=0
while [ ! -s "$T/port" ] && [ $w -lt 100 ]; do
	sleep 0.1
	w=$((w + 1))
done
[ -s "$T/port" ] || { echo "the web server did not start"; exit 99; }
URL=http://127.0.0.1:$(cat "$T/port")/words.txt

tui_start 100 30 -- --demo
tui_walk_to 3
tui_keys a
tui_must adds_a_source tui_wait "Data sources  (3)"
tui_type "$URL"
tui_keys Enter
tui_must download_is_offered tui_wait "[ Download ]"
tui_keys Enter
tui_must the_download_is_held tui_wait "staging..."

# a fourth source with a path that is not one: Enter refuses it
tui_keys BTab
tui_must back_on_the_list tui_wait "add a data source (a)"
tui_keys a
tui_must adds_another tui_wait "Data sources  (4)"
tui_type "not/absolute"
tui_keys Enter
tui_must refused tui_wait "✗ Path: "
tui_screen | grep "✗ Path: " | sed 's/^/# /'
jp_expect still_staging tui_wait "staging..." 1

# the download, then the scan of what it staged, end while the refusal stands
rm -f "$T/hold"
tui_must the_stage_ends tui_wait_gone "staging..."
tui_must the_row_shows_the_count tui_wait " 1 file "
jp_expect the_refusal_stays tui_wait "✗ Path: " 1
jp_expect nothing_said_over_it sh -c "! tmux -L '$TUI_SOCK' capture-pane -p | grep -qE 'staged onto|scanned '"

# fixed, the refusal leaves
tui_keys C-u
tui_type "$T/work/jobprep-demo/public/demo-corpus"
tui_must fixed_clears_it tui_wait_gone "✗ Path: "
tui_keys C-c
rc=$(tui_wait_exit)
jp_expect ctrl_c_quits_with_130 [ "$rc" = 130 ]
tui_finish
