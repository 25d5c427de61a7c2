#!/bin/sh
# An interrupted jobprep stage (issue 14): kill -9, SIGINT and SIGTERM in
# the middle of a copy leave no file half-made under its final name; SIGINT
# exits 130 and SIGTERM 143 with their temporaries removed; the next run
# resumes (the files already complete are skipped, not written again) and
# ends identical (diff -r) with no temporary left.
# A first copy (DEST not there) is written whole into the partial tree
# ".jobprep-tmp-stage-NAME" beside DEST and renamed to DEST at the end, so
# DEST never shows up half-made; into an existing DEST (case KILL_INTO) each
# file goes through a temporary of its own. After kill -9 the resumed run
# writes at most what was left plus one chunk for the file in flight.
#
# The tree (20,406 files, with one writer) takes well over the 0.1 s after
# which jobprep prints its first progress line; a case acts only once that line is in its stderr file (only
# jobprep writes there), and then checks the files under their final names
# are fewer than the source's: the signal came in the middle of the work.
set -u
: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
jp_scratch stage-int

S="$T/src 数据"
jp_random_tree "$S" 400 8 65536 97 || exit 99
# and a few files bigger than a writer's 1 MiB buffer, copied first (the
# biggest go first): a signal then finds one half-written
i=0
while [ $i -lt 6 ]; do
	head -c $((6 * 1048576 + i)) /dev/urandom >"$S/d0 目录/big $i.bin"
	i=$((i + 1))
done
# and 20,000 small sparse files (bench/mktree): where flushing costs nothing
# (a tmpfs /tmp) the 406 above are copied in 0.2 s, before a signal lands;
# with these the copy lasts over a second even there
"${TOP_BUILDDIR:?}/bench/mktree" "$S/filler" 20000 500 50 >/dev/null || exit 99
total=$(find "$S" -type f | wc -l)

# finals DIR: files under their final names
finals() {
	find "$1" -type f ! -name '.jobprep-tmp-*' | wc -l
}
temps() {
	find "$1" -mindepth 1 -name '.jobprep-tmp-*' | wc -l
}
# judge MODE DIR: over every file under its final name in DIR, in one
# process (20,000 cmp and stat would take minutes): MODE "half" fails on a
# file that is not the source's, bytes and mtime (a copy gets its mtime only
# once every byte is written); MODE "complete" prints how many are.
judge() {
	python3 - "$1" "$S" "$2" <<'PY'
import os, sys
mode, src, dst = sys.argv[1:]
whole = 0
for root, dirs, files in os.walk(dst):
    for f in files:
        if f.startswith(".jobprep-tmp-"):
            continue
        d = os.path.join(root, f)
        s = os.path.join(src, os.path.relpath(d, dst))
        ok = False
        try:
            if os.stat(s).st_mtime_ns == os.stat(d).st_mtime_ns:
                with open(s, "rb") as a, open(d, "rb") as b:
                    ok = a.read() == b.read()
        except OSError:
            pass
        if ok:
            whole += 1
        elif mode == "half":
            print("half-made or not finished: " + d, file=sys.stderr)
            sys.exit(1)
print(whole)
PY
}
none_half_made() { judge half "$1" >/dev/null; }
complete() { judge complete "$1"; }
# bytes DIR: of every file there (complete or partial, temporaries too)
bytes() {
	find "$1" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'
}
total_bytes=$(bytes "$S")

for case in KILL INT TERM KILL_INTO; do
	C=$T/$case
	sig=${case%_INTO}
	mkdir -p "$C"
	D="$C/dest 目标"
	P="$C/.jobprep-tmp-stage-dest 目标"
	[ "$case" = KILL_INTO ] && mkdir "$D"
	(
		trap - EXIT
		exec "$J" stage --progress --jobs 1 "$S" "$D" 2>"$C/err"
	) &
	PID=$!
	if ! jp_wait_text "$C/err" "copying"; then
		jp_fail "${case}_mid_copy" "no progress line: $(tr '\r' '\n' <"$C/err" | tail -n 2)"
		kill -9 $PID 2>/dev/null
		wait $PID
		continue
	fi
	kill -$sig $PID
	jp_wait_exit $PID
	rc=$JP_RC
	# a first copy works in the partial tree, DEST is not there yet
	W=$D
	if [ "$case" != KILL_INTO ]; then
		jp_expect "${case}_came_mid_copy_no_dest_until_whole" [ ! -e "$D" ]
		W=$P
	fi
	n=$(finals "$W")
	t=$(temps "$W")
	whole=$(complete "$W")
	have=$(bytes "$W")
	echo "# $case: exit $rc, $n of $total files under final names ($whole complete), $t temporaries, $have bytes there"
	# mid-work: some file not complete yet; for a first copy it may be the
	# end (the tree flushed, renamed) that was still to come
	if [ "$case" = KILL_INTO ]; then
		jp_expect "${case}_came_mid_copy" [ "$whole" -lt "$total" ]
	fi
	case $sig in
	KILL) jp_expect "${case}_kill_9_dies" [ "$rc" = 137 ] ;;
	INT)
		jp_expect sigint_exits_130 [ "$rc" = 130 ]
		jp_expect sigint_says_canceled grep -q 'canceled' "$C/err"
		jp_expect sigint_removes_its_temporary [ "$t" = 0 ] ;;
	TERM)
		jp_expect sigterm_exits_143 [ "$rc" = 143 ]
		jp_expect sigterm_removes_its_temporary [ "$t" = 0 ] ;;
	esac
	if [ "$case" = KILL ]; then
		# the one file in flight (one writer) is the only one unfinished
		jp_expect "${case}_at_most_one_file_unfinished" [ $((n - whole)) -le 1 ]
	else
		jp_expect "${case}_leaves_nothing_half_made" none_half_made "$W"
	fi
	"$J" stage --json "$S" "$D" >"$C/resume.json" 2>"$C/resume.err"
	rc=$?
	jp_expect "${case}_resume_exits_0" [ "$rc" = 0 ]
	skipped=$(jp_json_get "$C/resume.json" skipped)
	jp_expect "${case}_resume_skips_what_was_done" [ "$skipped" = "$whole" ]
	if [ "$sig" = KILL ]; then
		wrote=$(jp_json_get "$C/resume.json" bytes_written)
		echo "# $case: the resumed run wrote $wrote bytes, $((total_bytes - have)) were left"
		jp_expect "${case}_resume_writes_the_rest_and_a_chunk" \
			[ "$wrote" -le $((total_bytes - have + 524288)) ]
	fi
	jp_expect "${case}_resume_is_identical" diff -r "$S" "$D"
	jp_expect "${case}_resume_leaves_no_temporary" [ "$(temps "$D")" = 0 ]
	jp_expect "${case}_resume_leaves_no_partial_tree" [ ! -e "$P" ]
	rm -rf "$C"
done
jp_done
