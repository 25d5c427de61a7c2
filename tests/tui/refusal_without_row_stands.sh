#!/bin/sh
# A refusal with no row of its own stands over background progress until
# it is fixed, as a refusal tied to a row does (issue 32, part 4): the move
# of an existing checkout, asked for on leaving the Code step, is refused in
# the background (an uncommitted edit to a file the new commit changes
# too) while the person is on the Data step, where code.repo.ref has no
# row; work on a data source that ends a moment later ("staged onto ...")
# ("staged onto ...", "scanned ...") must not replace it. The work is made to end while the refusal stands: a
# download from a web server on loopback that holds the body while a flag
# file exists. The healthy twin: the same walk with no edit in the way
# moves the checkout, and the staged source's news shows.
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init refusal-no-row
command -v python3 >/dev/null 2>&1 || jp_skip_all "python3 is not installed"
mkdir -p "$T/www" || exit 99
printf 'one line of data\n' >"$T/www/words.txt"
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

(cd "$T/work" && HOME=$T/home "$JOBPREP" init --demo >"$T/init.out" 2>&1) || {
	cat "$T/init.out"
	exit 99
}
demo=$T/work/jobprep-demo
proj=$demo/shared/projects/demo
OLD=$(git -C "$proj" rev-parse HEAD)
# the branch moves on: README.md changes
echo "# v2" >>"$demo/repo/README.md"
git -C "$demo/repo" add README.md
# shellcheck disable=SC2086
git $JP_GIT_ID -C "$demo/repo" commit -qm v2 || exit 99

# walk NAME [ask]: from the first step to the Data step (saying yes to the
# move when it is asked about); then a download staged on the Data step,
# held until the test lets go
walk() {
	rm -rf "$T/home/.local/state/jobprep"
	: >"$T/hold"
	tui_start 100 30 -- --demo
	tui_must "$1_offers_the_earlier_run" tui_earlier_run n
	tui_walk_to 2
	tui_keys Enter
	if [ "${2:-}" = ask ]; then
		tui_must "$1_asks_before_moving" tui_wait "Move the checkout in" 60
		tui_keys y
	fi
	tui_must "$1_data" tui_step 3 Data
	tui_keys a
	tui_must "$1_adds_a_source" tui_wait "Data sources  (3)"
	tui_type "$URL"
	tui_keys Enter
	tui_must "$1_download_is_offered" tui_wait "[ Download ]"
	tui_keys Enter
	tui_must "$1_the_download_is_held" tui_wait "staging..."
}

# --- the move is refused in the background: an edit in its way ----------------
echo "an edit of mine" >>"$proj/README.md"
walk refused
tui_must refusal_on_the_status_line tui_wait_wrapped "has uncommitted" 60
jp_expect refusal_was_made_in_the_background tui_wait "3/6  Data" 1
rm -f "$T/hold"
# the staged source's row shows what its scan counted: drawn in the same
# pass as the status line, which must still say why the move was refused
jp_expect staged_source_scanned tui_wait "1 file" 60
jp_expect refusal_still_on_the_status_line tui_wait_wrapped "has uncommitted" 2
jp_expect staged_news_does_not_replace_it sh -c "tmux -L '$TUI_SOCK' capture-pane -p >'$T/refused.screen'; [ -s '$T/refused.screen' ] && ! grep -q 'staged onto\\|scanned words.txt' '$T/refused.screen'"
jp_expect the_checkout_did_not_move [ "$(git -C "$proj" rev-parse HEAD)" = "$OLD" ]
jp_expect the_edit_is_kept grep -q "an edit of mine" "$proj/README.md"
jp_show_if_failed "$T/refused.screen"
tui_keys C-c
tui_wait "Quit?" 5 >/dev/null 2>&1 && tui_keys y
tui_wait_exit >/dev/null

# --- the healthy twin: nothing in the way, the move goes, the news shows -------
git -C "$proj" checkout -q -- README.md
walk moved ask
rm -f "$T/hold"
jp_expect twin_staged_source_scanned tui_wait "1 file" 60
jp_expect twin_staged_news_shows tui_wait "scanned words.txt" 10
jp_expect twin_no_refusal sh -c "tmux -L '$TUI_SOCK' capture-pane -p >'$T/moved.screen'; [ -s '$T/moved.screen' ] && ! grep -q 'uncommitted changes' '$T/moved.screen'"
jp_show_if_failed "$T/moved.screen"
tui_keys C-c
tui_wait "Quit?" 5 >/dev/null 2>&1 && tui_keys y
tui_wait_exit >/dev/null
tui_finish
