#!/bin/sh
# jobprep stage goes on from a partial copy an interrupted run left (issue
# 14: after kill -9 the resumed run writes the remainder plus at most one
# chunk per file that was in flight), but only one it can trust: written
# after the source last changed, and its last kept chunk the source's.
# Each case lays out by hand what a killed run leaves: a temporary beside
# the final name in an existing DEST, or a file in the partial tree of a
# first copy; then checks the bytes written and that the end is identical.
set -u
: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
jp_scratch stage-part

S="$T/源 src"
mkdir -p "$S/sub" || exit 99
size=$((5 * 1048576 + 123))
head -c $size /dev/urandom >"$S/sub/big 大.bin"
printf 'small\n' >"$S/small"
touch -d '2022-06-01 10:00:00' "$S/sub/big 大.bin" "$S/small"
cut=$((3 * 1048576 + 1000))

# partial FILE [stale]: the first $cut bytes of the big file at FILE,
# written now (after the source's mtime); with stale one byte of the
# 512 KiB before the cut a resume keeps changed
partial() {
	head -c $cut "$S/sub/big 大.bin" >"$1"
	[ "${2:-}" = stale ] &&
		printf 'X' | dd of="$1" bs=1 seek=$((2 * 1048576 + 4096)) conv=notrunc 2>/dev/null
	return 0
}

# --- into an existing DEST: the temporary beside the final name
D=$T/into
mkdir -p "$D/sub"
partial "$D/sub/.jobprep-tmp-big 大.bin"
"$J" stage --json "$S" "$D" >"$T/into.json" 2>"$T/into.err"
jp_expect into_exits_0 [ $? = 0 ]
wrote=$(jp_json_get "$T/into.json" bytes_written)
echo "# into: wrote $wrote of $size (+6) bytes, $cut were there"
jp_expect into_goes_on_from_the_partial [ "$wrote" -le $((size + 6 - cut + 524288)) ]
jp_expect into_identical diff -r "$S" "$D"
jp_expect into_no_temporary jp_no_temporaries "$D"

# --- the same, but the partial's bytes are not the source's: from zero
D=$T/stale
mkdir -p "$D/sub"
partial "$D/sub/.jobprep-tmp-big 大.bin" stale
"$J" stage --json "$S" "$D" >"$T/stale.json" 2>/dev/null
jp_expect stale_exits_0 [ $? = 0 ]
wrote=$(jp_json_get "$T/stale.json" bytes_written)
jp_expect stale_written_from_zero [ "$wrote" = $((size + 6)) ]
jp_expect stale_identical diff -r "$S" "$D"

# --- the partial is older than the source (changed since): from zero
D=$T/older
mkdir -p "$D/sub"
partial "$D/sub/.jobprep-tmp-big 大.bin"
touch -d '2021-01-01 00:00:00' "$D/sub/.jobprep-tmp-big 大.bin"
"$J" stage --json "$S" "$D" >"$T/older.json" 2>/dev/null
jp_expect older_exits_0 [ $? = 0 ]
jp_expect older_written_from_zero [ "$(jp_json_get "$T/older.json" bytes_written)" = $((size + 6)) ]
jp_expect older_identical diff -r "$S" "$D"

# --- a first copy's partial tree: the file under its own name there
D=$T/first
P=$T/.jobprep-tmp-stage-first
mkdir -p "$P/sub"
partial "$P/sub/big 大.bin"
"$J" stage --json "$S" "$D" >"$T/first.json" 2>/dev/null
jp_expect first_exits_0 [ $? = 0 ]
wrote=$(jp_json_get "$T/first.json" bytes_written)
echo "# first: wrote $wrote of $size (+6) bytes, $cut were there"
jp_expect first_goes_on_from_the_partial [ "$wrote" -le $((size + 6 - cut + 524288)) ]
jp_expect first_identical diff -r "$S" "$D"
jp_expect first_partial_tree_gone [ ! -e "$P" ]
jp_expect first_no_temporary jp_no_temporaries "$D"
jp_done
