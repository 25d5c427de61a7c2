#!/bin/sh
# An interrupted jobprep stage (issue 14): kill -9, SIGINT and SIGTERM in
# the middle of a copy leave no file half-made under its final name; SIGINT
# exits 130 and SIGTERM 143 with their temporaries removed; the next run
# resumes (the files already complete are skipped, not written again) and
# ends identical (diff -r) with no temporary left.
#
# The tree (20,406 files, each flushed before its rename, with one writer)
# takes well over the 0.1 s after which jobprep prints its first progress
# line even where flushing costs nothing (a tmpfs /tmp copies 406 files in
# 0.2 s, so 20,000 small sparse files made by bench/mktree weigh it: 1.3 s
# there); a case acts only once that line is in its stderr file (only
# jobprep writes there), and then checks the files under their final names
# are fewer than the source's: the signal came in the middle of the work.
# Each case's copy is removed after it, so a 1 GiB /tmp holds the test.
set -u
: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-stage-int.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT
jp_test_env "$T"
J=$JOBPREP

S="$T/src 数据"
i=0
while [ $i -lt 400 ]; do
	d="$S/d$((i % 8)) 目录"
	[ -d "$d" ] || mkdir -p "$d"
	head -c $((65536 + i * 97)) /dev/urandom >"$d/f $i.bin"
	i=$((i + 1))
done
# and a few files bigger than a writer's 1 MiB buffer, copied first (the
# biggest go first): a signal then finds one half-written
i=0
while [ $i -lt 6 ]; do
	head -c $((6 * 1048576 + i)) /dev/urandom >"$S/d0 目录/big $i.bin"
	i=$((i + 1))
done
"${TOP_BUILDDIR:?}/bench/mktree" "$S/filler" 20000 500 50 >/dev/null || exit 99
total=$(find "$S" -type f | wc -l)

# finals DIR: files under their final names
finals() {
	find "$1" -type f ! -name '.jobprep-tmp-*' | wc -l
}
temps() {
	find "$1" -name '.jobprep-tmp-*' | wc -l
}
# none_half_made DIR: every file under its final name is the source's,
# bytes and mtime (a copy gets its mtime only once every byte is written)
none_half_made() {
	(cd "$1" && find . -type f ! -name '.jobprep-tmp-*' -print) | while IFS= read -r f; do
		cmp -s "$S/$f" "$1/$f" || { echo "half-made: $f" >&2; exit 1; }
		[ "$(stat -c %.9Y "$S/$f")" = "$(stat -c %.9Y "$1/$f")" ] ||
			{ echo "not finished: $f" >&2; exit 1; }
	done
}

for sig in KILL INT TERM; do
	C=$T/$sig
	mkdir -p "$C"
	D="$C/dest 目标"
	(
		trap - EXIT
		exec "$J" stage --progress --jobs 1 "$S" "$D" 2>"$C/err"
	) &
	PID=$!
	if ! jp_wait_text "$C/err" "copying"; then
		jp_fail "${sig}_mid_copy" "no progress line: $(tr '\r' '\n' <"$C/err" | tail -n 2)"
		kill -9 $PID 2>/dev/null
		wait $PID
		continue
	fi
	kill -$sig $PID
	jp_wait_exit $PID
	rc=$JP_RC
	n=$(finals "$D")
	t=$(temps "$D")
	echo "# $sig: exit $rc, $n of $total files under final names, $t temporaries"
	jp_expect "${sig}_came_mid_copy" [ "$n" -lt "$total" ]
	case $sig in
	KILL) jp_expect kill_9_dies [ "$rc" = 137 ] ;;
	INT)
		jp_expect sigint_exits_130 [ "$rc" = 130 ]
		jp_expect sigint_says_canceled grep -q 'canceled' "$C/err"
		jp_expect sigint_removes_its_temporary [ "$t" = 0 ] ;;
	TERM)
		jp_expect sigterm_exits_143 [ "$rc" = 143 ]
		jp_expect sigterm_removes_its_temporary [ "$t" = 0 ] ;;
	esac
	jp_expect "${sig}_leaves_nothing_half_made" none_half_made "$D"
	"$J" stage --json "$S" "$D" >"$C/resume.json" 2>"$C/resume.err"
	rc=$?
	jp_expect "${sig}_resume_exits_0" [ "$rc" = 0 ]
	skipped=$(jp_json_get "$C/resume.json" skipped)
	jp_expect "${sig}_resume_skips_what_was_done" [ "$skipped" = "$n" ]
	jp_expect "${sig}_resume_is_identical" diff -r "$S" "$D"
	jp_expect "${sig}_resume_leaves_no_temporary" [ "$(temps "$D")" = 0 ]
	rm -rf "$D"
done
jp_done
