#!/bin/sh
# jobprep stage onto a disk that fills up half-way (issue 14): a tiny tmpfs
# of the test's own (a private mount namespace) takes part of the tree; the
# run fails with exit 1 and a message that says there is no space left,
# leaves no temporary and no half-made file; once space is freed (the tmpfs
# made bigger), the next run resumes and ends identical; the same for an
# archive; a download from lighttpd on loopback that cannot fit is refused
# before it writes anything. Needs root.
set -u
: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
if why=$(jp_mountns_unavailable); then
	jp_skip_all "$why"
fi
jp_scratch stage-full '[ -z "${URL:-}" ] || jp_filesrv_stop "$T"'
# a file to download, from a server outside the test's mount namespace
# (loopback is the same inside it)
URL=
if command -v lighttpd >/dev/null 2>&1; then
	. "$TOP_SRCDIR/tests/lib/filesrv.sh"
	mkdir -p "$T/www" || exit 99
	head -c 3000000 /dev/urandom >"$T/www/big.bin"
	touch -d '1 hour ago' "$T/www/big.bin" # else lighttpd sends no validator
	PORT=$(jp_free_port) || exit 99
	jp_filesrv_start "$T" "$PORT" 0 || exit 99
	URL=http://127.0.0.1:$PORT
fi
export URL

mkdir -p "$T/src/sub 子" "$T/mnt" || exit 99
i=0
while [ $i -lt 24 ]; do
	head -c 100000 /dev/urandom >"$T/src/sub 子/f$i"
	i=$((i + 1))
done
cat >"$T/inner.sh" <<'IN'
set -u
T=$1
. "$TOP_SRCDIR/tests/lib/report.sh"
mount -t tmpfs -o size=1m,mode=755 jp-stage-tiny "$T/mnt" || exit 99
# DEST exists: the run starts (no up-front refusal) and meets the full disk
mkdir "$T/mnt/d"
"$JOBPREP" stage --json "$T/src" "$T/mnt/d" >"$T/full.json" 2>"$T/full.err"
rc=$?
n=$(find "$T/mnt/d" -type f ! -name '.jobprep-tmp-*' | wc -l)
echo "# full: exit $rc, $n files under final names: $(cat "$T/full.err")"
jp_expect full_disk_exits_1 [ "$rc" = 1 ]
jp_expect full_disk_says_so grep -q 'No space left on device' "$T/full.err"
jp_expect full_disk_names_the_file grep -q 'sub 子/f' "$T/full.err"
jp_expect full_disk_names_no_temporary jp_no_text "jobprep-tmp" "$T/full.err"
jp_expect full_disk_wrote_part sh -c '[ "$1" -gt 0 ] && [ "$1" -lt 24 ]' sh "$n"
jp_expect full_disk_leaves_no_temporary sh -c '[ -d "$1" ] && ! find "$1" -name ".jobprep-tmp-*" | grep -q .' sh "$T/mnt/d"
(cd "$T/mnt/d" && find . -type f) | while IFS= read -r f; do
	cmp -s "$T/src/$f" "$T/mnt/d/$f" || echo "$f" >>"$T/half"
done
jp_expect full_disk_leaves_nothing_half_made [ ! -e "$T/half" ]
# DEST missing: refused before anything is written, with both sizes
"$JOBPREP" stage "$T/src" "$T/mnt/new" >/dev/null 2>"$T/room.err"
rc=$?
jp_expect no_room_up_front_exits_1 [ "$rc" = 1 ]
jp_expect no_room_up_front_says_so grep -q 'not enough room' "$T/room.err"
jp_expect no_room_up_front_writes_nothing [ ! -e "$T/mnt/new" ]
# an archive whose members do not fit, on a tiny disk of its own: a failed
# write(2) is a failure (libarchive's disk writer calls it a mere warning),
# never a member of the right size with a hole where its bytes should be;
# once there is room, the next run (which goes on from the unpack folder
# the full disk left) ends with the archive's exact bytes
tar -C "$T/src" -cf "$T/src.tar" . || exit 99
mkdir -p "$T/mnt2"
mount -t tmpfs -o size=1m,mode=755 jp-stage-tiny2 "$T/mnt2" || exit 99
"$JOBPREP" stage "$T/src.tar" "$T/mnt2/unpacked" >"$T/tar.out" 2>"$T/tar.err"
rc=$?
echo "# archive: exit $rc: $(cat "$T/tar.err")"
jp_expect full_disk_archive_exits_1 [ "$rc" = 1 ]
jp_expect full_disk_archive_says_so grep -q 'No space left on device' "$T/tar.err"
jp_expect full_disk_archive_puts_nothing_in_place [ ! -e "$T/mnt2/unpacked" ]
mount -o remount,size=8m "$T/mnt2" || exit 99
"$JOBPREP" stage "$T/src.tar" "$T/mnt2/unpacked" >"$T/tar2.out" 2>"$T/tar2.err"
rc=$?
jp_expect full_disk_archive_next_run_exits_0 [ "$rc" = 0 ]
jp_expect full_disk_archive_next_run_is_identical diff -r "$T/src" "$T/mnt2/unpacked"
jp_expect full_disk_archive_next_run_leaves_no_temporary \
	sh -c '[ -d "$1" ] && ! ls -A "$1" | grep -q jobprep-tmp' sh "$T/mnt2"
umount "$T/mnt2"
# a download that does not fit (issue 30): refused before a byte is
# written, exit 1, saying what it needs and naming the file given, nothing
# left to fill the disk; once there is room the next run ends identical
if [ -n "$URL" ]; then
	mkdir -p "$T/mnt3"
	mount -t tmpfs -o size=1m,mode=755 jp-stage-tiny3 "$T/mnt3" || exit 99
	"$JOBPREP" stage --no-progress "$URL/big.bin" "$T/mnt3/big.bin" >/dev/null 2>"$T/dl.err"
	rc=$?
	echo "# download: exit $rc: $(cat "$T/dl.err")"
	jp_expect full_disk_download_exits_1 [ "$rc" = 1 ]
	jp_expect full_disk_download_says_so grep -q 'not enough room for the download: it needs 2.9 MiB more' "$T/dl.err"
	jp_expect full_disk_download_names_the_file_given \
		sh -c 'grep -qF "$2: not enough room" "$1" && ! grep -q "jobprep-tmp" "$1"' sh "$T/dl.err" "$T/mnt3/big.bin"
	jp_expect full_disk_download_no_final_file [ ! -e "$T/mnt3/big.bin" ]
	jp_expect full_disk_download_wrote_nothing sh -c '[ -z "$(ls -A "$1")" ]' sh "$T/mnt3"
	mount -o remount,size=8m "$T/mnt3" || exit 99
	"$JOBPREP" stage --json --no-progress "$URL/big.bin" "$T/mnt3/big.bin" >"$T/dl2.json" 2>"$T/dl2.err"
	rc=$?
	jp_expect full_disk_download_next_run_exits_0 [ "$rc" = 0 ]
	jp_expect full_disk_download_next_run_identical cmp -s "$T/www/big.bin" "$T/mnt3/big.bin"
	jp_expect full_disk_download_leaves_no_temporary \
		sh -c '[ -d "$1" ] && ! ls -A "$1" | grep -q jobprep-tmp' sh "$T/mnt3"
	umount "$T/mnt3"
fi
mount -o remount,size=8m "$T/mnt" || exit 99
"$JOBPREP" stage --json "$T/src" "$T/mnt/d" >"$T/resume.json" 2>"$T/resume.err"
rc=$?
jp_expect after_space_freed_exits_0 [ "$rc" = 0 ]
jp_expect after_space_freed_skips_what_was_done \
	[ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["skipped"])' "$T/resume.json")" = "$n" ]
jp_expect after_space_freed_identical diff -r "$T/src" "$T/mnt/d"
umount "$T/mnt"
jp_done
IN
jp_cases_in unshare -m --propagation private sh "$T/inner.sh" "$T"
jp_done
