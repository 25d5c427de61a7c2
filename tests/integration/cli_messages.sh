#!/bin/sh
# The command line's messages: `jobprep scan` and `jobprep clone` errors
# start with "jobprep scan: " / "jobprep clone: " as the other commands'
# do, and counts take the right English plural ("1 file", "1 archive",
# "1 directory", "2 files").
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/report.sh"

T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-cli-messages.XXXXXX") || exit 99
T=$(cd -P "$T" && pwd)
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT

"$JOBPREP" scan "$T/missing" >/dev/null 2>"$T/scan.err"
jp_expect scan_error_exits_1 [ $? = 1 ]
jp_expect scan_error_has_the_prefix grep -q "^jobprep scan: $T/missing: " "$T/scan.err"

"$JOBPREP" clone "file://$T/no-such-repo" "$T/clone" >/dev/null 2>"$T/clone.err"
jp_expect clone_error_exits_1 [ $? = 1 ]
jp_expect clone_error_has_the_prefix grep -q "^jobprep clone: file://$T/no-such-repo: " "$T/clone.err"
jp_expect clone_error_leaves_nothing [ ! -e "$T/clone" ]

mkdir -p "$T/one/sub" "$T/two"
printf 'x\n' >"$T/one/sub/a.tar.gz"
printf 'a\n' >"$T/two/a"
printf 'b\n' >"$T/two/b"
ln -s nowhere "$T/one/dangling"
"$JOBPREP" scan "$T/one" >"$T/one.out" 2>&1
jp_expect scan_one_file_is_singular grep -q '^  1 file, 2 B (2 bytes), 2 directories, 1 symlink$' "$T/one.out"
jp_expect scan_one_archive_is_singular grep -q '^  1 archive (2 B) would have to be unpacked in the job: unpack it ' "$T/one.out"
jp_expect scan_one_dangling_link_is_singular grep -q '^  1 symlink points at nothing$' "$T/one.out"
"$JOBPREP" scan "$T/two" >"$T/two.out" 2>&1
jp_expect scan_two_files_is_plural grep -q '^  2 files, 4 B (4 bytes), 1 directory, 0 symlinks$' "$T/two.out"
jp_done
