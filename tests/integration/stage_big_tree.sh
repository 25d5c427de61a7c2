#!/bin/sh
# jobprep stage of trees bigger than the few thousand entries it holds at
# once (issue 14: peak memory stays bounded whatever the tree size). A tree
# of 20,000 entries, one folder of 9,000 files across two batches, read-only
# and dated folders whose contents come in later batches, a link leaving
# the tree in the last one: the copy is identical, modes and times kept,
# the link reported, the progress counts the whole tree, a re-run writes
# nothing. Then peak memory: staging 40,000 files takes no more than
# staging 10,000 (it grew about 130 bytes a file while the whole tree was
# listed before the copy: 6.6 MiB more for 60,000 files than for 10,000).
set -u
: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
jp_scratch stage-big-tree

S="$T/src"
python3 - "$S" <<'EOF' || exit 99
import os, sys
top = sys.argv[1]
# 9,000 files in one folder (it spans two batches), then 40 folders of
# 250 files three levels down, each with a file of its own beside
wide = os.path.join(top, "a wide")
os.makedirs(wide)
for i in range(9000):
    with open(os.path.join(wide, "f%05d" % i), "w") as f:
        f.write("w%d\n" % i)
for i in range(40):
    d = os.path.join(top, "deep", "l%02d" % (i % 4), "m%02d" % i)
    os.makedirs(d, exist_ok=True)
    for j in range(250):
        with open(os.path.join(d, "g%03d" % j), "w") as f:
            f.write("d%d.%d\n" % (i, j))
os.makedirs(os.path.join(top, "zz last", "空 folder"))
os.symlink("../../../outside", os.path.join(top, "zz last", "out link"))
EOF
# read-only and dated folders, their files walked in later batches
chmod 0555 "$S/a wide" "$S/deep/l03/m39"
chmod 0750 "$S/deep/l01"
touch -d '2020-02-02 02:02:02' "$S/deep/l02/m38" "$S/zz last/空 folder" "$S/deep"
touch -d '2019-01-01 00:00:00' "$S/a wide" "$S/deep/l03/m39"
D="$T/dest"

entries=$(find "$S" -mindepth 1 | wc -l)

"$JOBPREP" stage --json --progress "$S" "$D" >"$T/first.json" 2>"$T/first.err"
rc=$?
jp_expect big_tree_copy_exits_0 [ "$rc" = 0 ]
jp_expect big_tree_copy_is_identical diff -r --no-dereference "$S" "$D"
jp_tree_meta "$S" >"$T/meta.src"
jp_tree_meta "$D" >"$T/meta.dst"
diff "$T/meta.src" "$T/meta.dst" >"$T/meta.diff"
jp_expect big_tree_modes_and_times_kept [ ! -s "$T/meta.diff" ]
jp_show_if_failed "$T/meta.diff"
jp_expect big_tree_writes_every_file [ "$(jp_json_get "$T/first.json" written)" = 19001 ]
jp_expect big_tree_link_leaving_reported grep -q '"zz last/out link"' "$T/first.json"
jp_expect big_tree_no_temporaries sh -c '[ -d "$1" ] && [ -d "$2" ] && ! find "$1" "$2" -name ".jobprep-tmp-*" | grep -q .' sh "$D" "$T"
# the progress: the whole tree's entries as its total from the start,
# counted up to it, never past (the line's last figures: "..., DONE/TOTAL")
tr '\r' '\n' <"$T/first.err" | sed -n 's/^.*copying: .*, \([0-9]*\)\/\([0-9]*\)$/\1 \2/p' >"$T/progress"
jp_expect big_tree_progress_total_is_the_tree awk -v n="$entries" \
	'$2 != n { bad = 1 } END { exit bad || NR == 0 }' "$T/progress"
jp_expect big_tree_progress_ends_at_the_total grep -q "^$entries $entries\$" "$T/progress"

"$JOBPREP" stage --json "$S" "$D" >"$T/second.json" 2>/dev/null
jp_expect big_tree_rerun_writes_nothing [ "$(jp_json_get "$T/second.json" written)" = 0 ]
jp_expect big_tree_rerun_skips_every_file [ "$(jp_json_get "$T/second.json" skipped)" = 19001 ]
jp_tree_meta "$D" >"$T/meta.dst2"
jp_expect big_tree_rerun_keeps_the_times cmp -s "$T/meta.src" "$T/meta.dst2"
chmod -R u+w "$S" "$D"
rm -rf "$S" "$D"

# --- peak memory: 10,000 files and 40,000 (all of one size: each writer's
# buffer is touched as far in either run)
python3 - "$T/m10" 10000 "$T/m40" 40000 <<'EOF' || exit 99
import os, sys
for top, n in ((sys.argv[1], int(sys.argv[2])), (sys.argv[3], int(sys.argv[4]))):
    for i in range(n):
        d = os.path.join(top, "d%03d" % (i // 500))
        if i % 500 == 0:
            os.makedirs(d)
        with open(os.path.join(d, "file-%06d" % i), "w") as f:
            f.write("x" * 100)
EOF
# peak_kib DIR: the most private memory of staging DIR, in KiB, jobprep's
# and the process it stages in (tests/lib/peak_private.py; the list the
# copy works from was held all through it)
peak_kib() {
	python3 "$TOP_SRCDIR/tests/lib/peak_private.py" "$JOBPREP" stage --no-progress "$1" "$1-copy" |
		cut -d' ' -f2
}
if ldd "$JOBPREP" 2>/dev/null | grep -q libasan; then
	jp_skip big_tree_peak_memory_does_not_grow "AddressSanitizer's allocator keeps what is freed (its quarantine)"
else
	k10=$(peak_kib "$T/m10") && k40=$(peak_kib "$T/m40") || exit 99
	echo "# peak private memory: $k10 KiB staging 10,000 files, $k40 KiB staging 40,000"
	jp_expect big_tree_peak_memory_does_not_grow [ $((k40 - k10)) -lt 2048 ]
	jp_expect big_tree_all_copied diff -r "$T/m40" "$T/m40-copy"
fi
jp_done
