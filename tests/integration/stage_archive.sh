#!/bin/sh
# jobprep stage ARCHIVE DEST (issue 14): archives made by tar with gzip,
# zstd, xz and bzip2, plain tar and zip, unpack identical to `tar x` /
# `unzip`; DEST appears only whole (no unpack folder left); a re-run into
# the existing DEST writes nothing; hostile archives made with python3's
# tarfile ("../x", "/abs", a symlink member then a member written through
# it, a hard link out) are refused with a message naming the member and
# write nothing outside DEST (nor DEST itself); a device node and a FIFO are
# left out and a set-uid bit dropped, each with a note; a 1 TiB sparse
# member is unpacked with its holes kept. Names with spaces and CJK
# characters.
set -u
: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
jp_scratch stage-ar

mkdir -p "$T/tree/数据 set/sub dir" "$T/tree/empty" || exit 99
printf 'hello\n' >"$T/tree/数据 set/文件 a.txt"
head -c 300000 /dev/urandom >"$T/tree/数据 set/sub dir/blob.bin"
printf '#!/bin/sh\n' >"$T/tree/run.sh"
chmod 0755 "$T/tree/run.sh"
ln -s "数据 set/文件 a.txt" "$T/tree/link"
touch -d '2021-05-06 07:08:09' "$T/tree/数据 set/文件 a.txt" "$T/tree/数据 set/sub dir"
(cd "$T/tree" && tar cf "$T/a.tar" . && gzip -c "$T/a.tar" >"$T/a.tar.gz" &&
	zstd -q -c "$T/a.tar" >"$T/a.tar.zst" && xz -c "$T/a.tar" >"$T/a.tar.xz" &&
	bzip2 -c "$T/a.tar" >"$T/a.tar.bz2" && zip -qry "$T/a.zip" .) || exit 99

# meta DIR: path, type, mode, size, mtime (whole seconds: zip keeps no more)
meta() {
	(cd "$1" && find . -mindepth 1 -printf '%P|%y|%m|%s|%TY%Tm%Td%TH%TM|%l\n' | LC_ALL=C sort)
}
mkdir "$T/ref"
tar xf "$T/a.tar" -C "$T/ref" || exit 99
meta "$T/ref" >"$T/ref.meta"
for a in a.tar a.tar.gz a.tar.zst a.tar.xz a.tar.bz2 a.zip; do
	D="$T/out $a/目标"
	mkdir -p "$T/out $a"
	"$J" stage --json "$T/$a" "$D" >"$T/$a.json" 2>"$T/$a.err"
	rc=$?
	jp_expect "${a}_exits_0" [ "$rc" = 0 ]
	jp_expect "${a}_same_as_tar_x" diff -r --no-dereference "$T/ref" "$D"
	if [ "$a" != a.zip ]; then
		jp_expect "${a}_modes_and_mtimes" sh -c 'cd "$1" && find . -mindepth 1 -printf "%P|%y|%m|%s|%TY%Tm%Td%TH%TM|%l\n" | LC_ALL=C sort | cmp -s - "$2"' sh "$D" "$T/ref.meta"
	fi
	jp_expect "${a}_leaves_no_unpack_folder" jp_no_temporaries "$T/out $a"
done
unzip -q "$T/a.zip" -d "$T/ref-zip" && jp_expect zip_same_as_unzip diff -r --no-dereference "$T/ref-zip" "$T/out a.zip/目标"

# --no-unpack: the archive itself, as it is
mkdir "$T/as is"
"$J" stage --no-unpack "$T/a.tar.gz" "$T/as is" >/dev/null 2>&1
jp_expect no_unpack_copies_the_archive cmp -s "$T/a.tar.gz" "$T/as is/a.tar.gz"

# a re-run into the existing DEST: nothing written, nothing lost
D="$T/out a.tar.gz/目标"
printf 'mine\n' >"$D/only mine"
ino=$(stat -c %i "$D/数据 set/sub dir/blob.bin")
"$J" stage --json "$T/a.tar.gz" "$D" >"$T/again.json" 2>"$T/again.err"
rc=$?
jp_expect rerun_exits_0 [ "$rc" = 0 ]
jp_expect rerun_writes_only_the_symlink [ "$(jp_json_get "$T/again.json" written)" = 1 ]
jp_expect rerun_keeps_the_inode [ "$(stat -c %i "$D/数据 set/sub dir/blob.bin")" = "$ino" ]
jp_expect rerun_deletes_nothing [ -f "$D/only mine" ]
rm "$D/only mine"
jp_expect rerun_still_identical diff -r --no-dereference "$T/ref" "$D"
jp_expect rerun_leaves_no_unpack_folder jp_no_temporaries "$T/out a.tar.gz"

# --- hostile archives
cat >"$T/mk.py" <<'PY'
import io, sys, tarfile
def add(t, name, data=b"x", **kw):
    i = tarfile.TarInfo(name)
    for k, v in kw.items():
        setattr(i, k, v)
    if i.type == tarfile.REGTYPE:
        i.size = len(data)
        t.addfile(i, io.BytesIO(data))
    else:
        t.addfile(i)
kind, out, victim = sys.argv[1], sys.argv[2], sys.argv[3]
with tarfile.open(out, "w:gz") as t:
    add(t, "fine.txt", b"fine\n")
    if kind == "dotdot":
        add(t, "sub/../../escaped", b"pwned\n")
    elif kind == "absolute":
        add(t, victim + "/abs", b"pwned\n")
    elif kind == "symlink":
        add(t, "ln", type=tarfile.SYMTYPE, linkname=victim)
        add(t, "ln/through", b"pwned\n")
    elif kind == "hardlink":
        add(t, "hl", type=tarfile.LNKTYPE, linkname="../outside")
    elif kind == "special":
        add(t, "dev", type=tarfile.CHRTYPE, devmajor=1, devminor=3)
        add(t, "fifo", type=tarfile.FIFOTYPE)
        add(t, "suid", b"#!/bin/sh\n", mode=0o4755)
        add(t, "sgid", b"#!/bin/sh\n", mode=0o2755)
PY
V="$T/victim"
mkdir "$V"
for kind in dotdot absolute symlink hardlink; do
	mkdir -p "$T/h-$kind"
	python3 "$T/mk.py" $kind "$T/h-$kind.tar.gz" "$V" || exit 99
	"$J" stage "$T/h-$kind.tar.gz" "$T/h-$kind/d" >"$T/h-$kind.out" 2>"$T/h-$kind.err"
	rc=$?
	echo "# $kind: exit $rc: $(cat "$T/h-$kind.err")"
	jp_expect "hostile_${kind}_refused" [ "$rc" = 1 ]
	jp_expect "hostile_${kind}_says_refused" grep -q 'the archive is refused' "$T/h-$kind.err"
	jp_expect "hostile_${kind}_writes_nothing_outside" sh -c '[ -z "$(ls -A "$1")" ] && [ ! -e "$2/escaped" ] && [ ! -e "$2/outside" ]' sh "$V" "$T"
	jp_expect "hostile_${kind}_no_dest" [ ! -e "$T/h-$kind/d" ]
	jp_expect "hostile_${kind}_no_unpack_folder" jp_dir_empty "$T/h-$kind"
done
grep -q '"sub/../../escaped"' "$T/h-dotdot.err"
jp_expect hostile_dotdot_names_the_member [ $? = 0 ]
jp_expect hostile_symlink_names_the_link grep -q 'through the symlink member "ln"' "$T/h-symlink.err"

mkdir -p "$T/h-special"
python3 "$T/mk.py" special "$T/h-special.tar.gz" "$V" || exit 99
"$J" stage "$T/h-special.tar.gz" "$T/h-special/d" >/dev/null 2>"$T/h-special.err"
rc=$?
jp_expect special_exits_0 [ "$rc" = 0 ]
jp_expect device_left_out sh -c '[ ! -e "$1/dev" ] && [ ! -e "$1/fifo" ]' sh "$T/h-special/d"
jp_expect device_noted grep -q 'dev: left out: a device node' "$T/h-special.err"
jp_expect fifo_noted grep -q 'fifo: left out' "$T/h-special.err"
jp_expect setuid_dropped [ "$(stat -c %a "$T/h-special/d/suid")" = 755 ]
jp_expect setgid_dropped [ "$(stat -c %a "$T/h-special/d/sgid")" = 755 ]
jp_expect setuid_noted grep -q 'suid: set-uid/set-gid bit dropped' "$T/h-special.err"
jp_expect special_rest_unpacked grep -q fine "$T/h-special/d/fine.txt"

# --- kill -9 mid-unpack: DEST is not there, the unpack folder is; the next
# run goes on from it (the members it holds complete are not written
# again) and ends identical with no folder left
mkdir -p "$T/big/t 大" "$T/kill"
i=0
while [ $i -lt 400 ]; do
	seq $i 100000 | head -c 262144 >"$T/big/t 大/f$i"
	i=$((i + 1))
done
(cd "$T/big" && tar cf - . | gzip -1 >"$T/big.tar.gz") || exit 99
(
	trap - EXIT
	exec "$J" stage --progress "$T/big.tar.gz" "$T/kill/d" 2>"$T/kill.err"
) &
pid=$!
if jp_wait_text "$T/kill.err" unpacking; then
	kill -9 $pid
	wait $pid 2>/dev/null
	n=$(find "$T/kill" -type f | wc -l)
	echo "# killed mid-unpack: $n of 400 files in the unpack folder"
	jp_expect kill_9_came_mid_unpack [ "$n" -lt 400 ]
	jp_expect kill_9_leaves_no_dest [ ! -e "$T/kill/d" ]
	jp_expect kill_9_leaves_the_unpack_folder [ -d "$T/kill/.jobprep-tmp-unpack-d" ]
	"$J" stage --json "$T/big.tar.gz" "$T/kill/d" >"$T/kill.json" 2>/dev/null
	rc=$?
	jp_expect kill_9_resume_exits_0 [ "$rc" = 0 ]
	jp_expect kill_9_resume_identical diff -r "$T/big" "$T/kill/d"
	skipped=$(jp_json_get "$T/kill.json" skipped)
	echo "# the resume skipped $skipped members already complete"
	jp_expect kill_9_resume_leaves_no_folder jp_no_temporaries "$T/kill"
else
	jp_fail kill_9_mid_unpack "no progress line"
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
fi

# not an archive behind an archive's name
printf 'not a tar' >"$T/bad.tar.gz"
mkdir "$T/bad"
"$J" stage "$T/bad.tar.gz" "$T/bad/d" >/dev/null 2>"$T/bad.err"
rc=$?
jp_expect corrupt_archive_fails [ "$rc" != 0 ]
jp_expect corrupt_archive_no_dest [ ! -e "$T/bad/d" ]
jp_expect corrupt_archive_no_unpack_folder jp_dir_empty "$T/bad"

# a 1 TiB sparse member (GNU tar --sparse): its holes stay holes, its two
# bytes of data land where they belong, nothing like 1 TiB is written
mkdir -p "$T/sparse/in"
truncate -s 1T "$T/sparse/in/huge 大" &&
	printf 'middle' | dd of="$T/sparse/in/huge 大" bs=1 seek=549755813888 conv=notrunc 2>/dev/null &&
	printf 'end' | dd of="$T/sparse/in/huge 大" bs=1 seek=$((1099511627776 - 3)) conv=notrunc 2>/dev/null &&
	tar --sparse -czf "$T/sparse.tar.gz" -C "$T/sparse/in" . || exit 99
"$J" stage --json "$T/sparse.tar.gz" "$T/sparse/out" >"$T/sparse.json" 2>"$T/sparse.err"
jp_expect sparse_exits_0 [ $? = 0 ]
jp_expect sparse_size_kept [ "$(stat -c %s "$T/sparse/out/huge 大")" = 1099511627776 ]
jp_expect sparse_holes_kept [ "$(du -k "$T/sparse/out/huge 大" | cut -f1)" -lt 1024 ]
jp_expect sparse_data_in_place sh -c '[ "$(dd if="$1" bs=1 skip=549755813888 count=6 2>/dev/null)" = middle ] &&
	[ "$(tail -c 3 "$1")" = end ]' sh "$T/sparse/out/huge 大"
jp_expect sparse_writes_the_data_only [ "$(jp_json_get "$T/sparse.json" bytes_written)" -lt 1048576 ]
jp_done
