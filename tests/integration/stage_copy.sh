#!/bin/sh
# jobprep stage SOURCE DEST for a directory and a file (issue 14): the copy
# is identical (diff -r), modes and mtimes kept, symlinks kept and the one
# leaving the tree reported; a re-run rewrites nothing (same inodes) and
# deletes nothing; a changed file is rewritten, alone; --verify finds a
# file whose bytes differ behind the same size and mtime. Names with spaces
# and CJK characters throughout.
set -u
: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
jp_scratch stage-copy

S="$T/源 data"
mkdir -p "$S/a b/子目录" "$S/empty dir" "$S/ro" || exit 99
printf 'hello\n' >"$S/a b/子目录/文件 one.txt"
head -c 1500000 /dev/urandom >"$S/big file.bin"
head -c 70000 /dev/urandom >"$S/a b/mid"
: >"$S/empty file"
printf '#!/bin/sh\n' >"$S/run me.sh"
chmod 0750 "$S/run me.sh"
chmod 0600 "$S/a b/mid"
printf 'r\n' >"$S/ro/readonly"
chmod 0444 "$S/ro/readonly"
chmod 0555 "$S/ro"
ln -s "big file.bin" "$S/link in"
ln -s "../../outside/secret" "$S/a b/link out"
touch -d '2021-03-04 05:06:07.123456789' "$S/big file.bin" "$S/a b/子目录/文件 one.txt"
touch -h -d '2019-01-01 00:00:00' "$S/link in"
touch -d '2020-02-02 02:02:02' "$S/a b/子目录" "$S/empty dir"
D="$T/目标 dest"

inodes() {
	(cd "$1" && find . -type f -printf '%P|%i\n' | LC_ALL=C sort)
}

"$J" stage --json "$S" "$D" >"$T/first.json" 2>"$T/first.err"
rc=$?
jp_expect first_copy_exits_0 [ "$rc" = 0 ]
jp_expect first_copy_is_identical diff -r --no-dereference "$S" "$D"
jp_tree_meta "$S" >"$T/meta.src"
jp_tree_meta "$D" >"$T/meta.dst"
jp_expect modes_mtimes_and_links_kept cmp -s "$T/meta.src" "$T/meta.dst"
jp_expect link_leaving_the_tree_reported grep -q 'a b/link out.*leads outside the tree' "$T/first.err"
jp_expect link_leaving_the_tree_in_json grep -q '"a b/link out"' "$T/first.json"
jp_expect link_inside_not_reported jp_no_text "link in" "$T/first.err"
jp_expect first_copy_writes_every_file [ "$(jp_json_get "$T/first.json" written)" = 8 ]
jp_expect no_temporaries_after_copy sh -c '[ -d "$1" ] && ! find "$1" -name ".jobprep-tmp-*" | grep -q .' sh "$D"

# --- a re-run: nothing rewritten (inodes kept), nothing deleted
printf 'mine\n' >"$D/a b/only at dest"
inodes "$D" >"$T/ino.before"
"$J" stage --json "$S" "$D" >"$T/second.json" 2>/dev/null
rc=$?
jp_expect rerun_exits_0 [ "$rc" = 0 ]
jp_expect rerun_writes_nothing [ "$(jp_json_get "$T/second.json" written)" = 0 ]
jp_expect rerun_skips_every_file [ "$(jp_json_get "$T/second.json" skipped)" = 8 ]
inodes "$D" >"$T/ino.after"
jp_expect rerun_keeps_every_inode cmp -s "$T/ino.before" "$T/ino.after"
jp_expect rerun_deletes_nothing [ -f "$D/a b/only at dest" ]
jp_tree_meta "$D" | grep -v 'only at dest' >"$T/meta.dst2"
jp_expect rerun_keeps_mtimes cmp -s "$T/meta.src" "$T/meta.dst2"
rm -f "$D/a b/only at dest"

# --- a changed source file is rewritten, alone
printf 'changed\n' >>"$S/a b/子目录/文件 one.txt"
"$J" stage --json "$S" "$D" >"$T/third.json" 2>/dev/null
jp_expect changed_file_rewritten_alone [ "$(jp_json_get "$T/third.json" written)" = 1 ]
jp_expect changed_file_identical cmp -s "$S/a b/子目录/文件 one.txt" "$D/a b/子目录/文件 one.txt"

# --- same size and mtime, other bytes: only --verify sees it
printf 'X' | dd of="$D/big file.bin" bs=1 seek=1000 conv=notrunc 2>/dev/null
touch -d '2021-03-04 05:06:07.123456789' "$D/big file.bin"
"$J" stage --json "$S" "$D" >"$T/plain.json" 2>/dev/null
jp_expect size_and_mtime_decide_without_verify [ "$(jp_json_get "$T/plain.json" written)" = 0 ]
"$J" stage --verify --json "$S" "$D" >"$T/verify.json" 2>/dev/null
rc=$?
jp_expect verify_exits_0 [ "$rc" = 0 ]
jp_expect verify_rewrites_the_differing_file [ "$(jp_json_get "$T/verify.json" written)" = 1 ]
jp_expect verify_leaves_it_identical cmp -s "$S/big file.bin" "$D/big file.bin"

# --- one file: into a folder, or to a name
mkdir "$T/one dir"
"$J" stage "$S/big file.bin" "$T/one dir" >/dev/null 2>&1
jp_expect file_into_folder cmp -s "$S/big file.bin" "$T/one dir/big file.bin"
jp_expect file_mtime_kept [ "$(stat -c %.9Y "$S/big file.bin")" = "$(stat -c %.9Y "$T/one dir/big file.bin")" ]
"$J" stage "$S/run me.sh" "$T/one dir/新名字" >/dev/null 2>&1
jp_expect file_to_a_name cmp -s "$S/run me.sh" "$T/one dir/新名字"
jp_expect file_mode_kept [ "$(stat -c %a "$T/one dir/新名字")" = 750 ]

# --- a symlink at DEST where the source has a folder is not followed
mkdir -p "$T/elsewhere" "$T/trap dest"
ln -s "$T/elsewhere" "$T/trap dest/a b"
"$J" stage "$S" "$T/trap dest" >/dev/null 2>"$T/trap.err"
rc=$?
jp_expect symlink_at_dest_fails [ "$rc" = 1 ]
jp_expect symlink_at_dest_named grep -q 'a b: Not a directory' "$T/trap.err"
jp_expect symlink_at_dest_not_followed jp_dir_empty "$T/elsewhere"

# --- refusals: usage, a missing source
"$J" stage "$S" >/dev/null 2>&1
jp_expect one_operand_is_usage [ $? = 2 ]
"$J" stage "$T/nowhere" "$T/x" >/dev/null 2>"$T/missing.err"
jp_expect missing_source_fails [ $? = 1 ]
jp_expect missing_source_named grep -q 'nowhere' "$T/missing.err"
chmod -R u+w "$S" "$D"
# --- the progress line never counts past its total (the last phase's
# files were counted twice in the final line: "808/408 (198%)")
"$JOBPREP" stage --progress --jobs 1 "$S" "$T/progress-dest" >/dev/null 2>"$T/progress.err"
# (the entries are the line's last figures: "..., DONE/TOTAL")
jp_expect progress_never_passes_its_total sh -c 'tr "\r" "\n" <"$1" | sed -n "s/.*, \([0-9]*\)\/\([0-9]*\)\$/\1 \2/p" |
	awk "\$1 > \$2 { bad = 1 } END { exit bad || NR == 0 }"' sh "$T/progress.err"
jp_expect progress_ends_at_its_total sh -c 'tr "\r" "\n" <"$1" | grep -q "(100%)"' sh "$T/progress.err"
jp_done
