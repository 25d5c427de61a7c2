#!/bin/sh
# jobprep stage with names holding newlines, spaces and CJK characters
# (issue 14's Tests): a folder whose own name and whose files' names hold a
# newline is copied identical (diff -r), and a re-run writes nothing; a tar
# archive whose members hold them unpacks identical to `tar x`; a data set
# folder with a newline in its name has its archives unpacked beside them
# (--unpack-archives); every summary stays one line on the terminal (the
# newline shown escaped, never printed raw), and no temporary is left.
set -u
: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-stage-odd.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT
jp_test_env "$T"
J=$JOBPREP
NL='
'
S="$T/源 src${NL}line two"
mkdir -p "$S/子 dir${NL}more" "$S/plain" || exit 99
printf 'one\n' >"$S/file${NL}with newline.txt"
printf 'two\n' >"$S/子 dir${NL}more/文件 ${NL}b"
head -c 200000 /dev/urandom >"$S/plain/空 格.bin"
ln -s "file${NL}with newline.txt" "$S/link${NL}in"

# --- a copy
D="$T/dest${NL}目标"
"$J" stage --no-progress "$S" "$D" >"$T/copy.out" 2>"$T/copy.err"
jp_expect copy_exits_0 [ $? = 0 ]
jp_expect copy_identical diff -r --no-dereference "$S" "$D"
jp_expect copy_summary_is_one_line [ "$(wc -l <"$T/copy.out")" = 1 ]
jp_expect copy_leaves_no_temporary jp_no_temporaries "$T"
"$J" stage --json --no-progress "$S" "$D" >"$T/again.json" 2>/dev/null
jp_expect rerun_writes_nothing [ "$(jp_json_get "$T/again.json" written)" = 0 ]

# --- an archive whose members hold them
(cd "$S" && tar cf "$T/odd.tar" .) || exit 99
mkdir "$T/ref"
tar xf "$T/odd.tar" -C "$T/ref" || exit 99
A="$T/unpacked${NL}数据"
"$J" stage --no-progress "$T/odd.tar" "$A" >"$T/tar.out" 2>"$T/tar.err"
jp_expect archive_exits_0 [ $? = 0 ]
jp_expect archive_same_as_tar_x diff -r --no-dereference "$T/ref" "$A"
jp_expect archive_summary_is_one_line [ "$(wc -l <"$T/tar.out")" = 1 ]
jp_expect archive_leaves_no_temporary jp_no_temporaries "$T"

# --- archives in a data set whose name holds a newline: unpacked beside them
DS="$T/data set${NL}图像"
mkdir -p "$DS" || exit 99
cp "$T/odd.tar" "$DS/train${NL}part.tar" || exit 99
"$J" stage --unpack-archives --no-progress "$DS" >"$T/within.out" 2>"$T/within.err"
jp_expect within_exits_0 [ $? = 0 ]
jp_expect within_unpacked_beside diff -r --no-dereference "$T/ref" "$DS/train${NL}part"
jp_expect within_summary_is_two_lines [ "$(wc -l <"$T/within.out")" = 2 ]
jp_expect within_leaves_no_temporary jp_no_temporaries "$DS"
jp_done
