#!/bin/sh
# jobprep stage ARCHIVE onto network storage spreads its writers over the
# folders: an archive lists a folder's files one after the other, and the
# kernel makes creates in one folder wait for each other (each two round
# trips on an uncached sshfs, under the folder's lock), so writers that
# simply took the next member all waited in one folder while the rest sat
# queued. Seen here with the mount frozen mid-unpack (its ssh client
# stopped): every writer stuck in a create is in a folder of its own, and
# many folders are being written at once. Then the mount is thawed and the
# tree is whole and identical.
set -u
: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/ssh.sh"
jp_ssh_available || jp_skip_all "needs root, sshd, sshfs and /dev/fuse"
case $(uname -m) in
x86_64) openat=257 ;;
aarch64) openat=56 ;;
*) jp_skip_all "openat's number here is not known" ;;
esac
cleanup() {
	jp_sshfs_thaw
	[ -n "${pid:-}" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	jp_sshfs_umount "$T/mnt"
	[ -n "${JP_SSHFS_PID:-}" ] && wait "$JP_SSHFS_PID" 2>/dev/null
	jp_sshd_stop "$T/sshd"
}
jp_scratch stage-unpack-folders cleanup

# 32 folders of 100 small files; the archive lists the folders first, so
# the unpack has made them all before the first file and the writers have
# every folder's files to choose from
python3 - "$T/src" <<'EOF' || exit 99
import os, sys
top = sys.argv[1]
for d in range(32):
    os.makedirs(os.path.join(top, "d%02d" % d))
    for f in range(100):
        with open(os.path.join(top, "d%02d" % d, "f%03d" % f), "wb") as out:
            out.write(os.urandom(2048 + 64 * f))
EOF
(cd "$T/src" && { ls -d d*; find d* -type f | LC_ALL=C sort; } >"$T/list" &&
	tar czf "$T/tree.tgz" --no-recursion -T "$T/list") || exit 99
mkdir -p "$T/export" || exit 99
jp_sshd_start "$T/sshd" || exit 99
jp_sshfs_mount "$T/sshd" "$T/export" "$T/mnt" || exit 99

"$J" stage --no-progress --jobs 16 "$T/tree.tgz" "$T/mnt/dst" >"$T/out" 2>"$T/err" &
pid=$!
# the first file on the server's disk (not the stage's record): the writers are under way
w=0
while [ -z "$(find "$T/export" -type f ! -path '*/.jobprep-tmp-staging-*' -print -quit 2>/dev/null)" ] &&
	[ $w -lt 3000 ]; do
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.01
	w=$((w + 1))
done
jp_sshfs_freeze "$T/sshd"
# every writer free to go has taken a file and sits in its create
sleep 2
# the threads of jobprep (and of the child it unpacks in) in openat, by
# the folder (descriptor) they create in
for p in $pid $(pgrep -P "$pid"); do
	cat /proc/"$p"/task/*/syscall 2>/dev/null
done | awk -v n="$openat" '$1 == n { print $2 }' | LC_ALL=C sort | uniq -c >"$T/creates"
jp_expect caught_mid_unpack [ -s "$T/creates" ]
jp_expect one_create_per_folder [ "$(awk 'BEGIN { m = 0 } $1 > m { m = $1 } END { print m }' "$T/creates")" = 1 ]
jp_expect many_folders_at_once [ "$(wc -l <"$T/creates")" -ge 8 ]
jp_show_if_failed "$T/creates"
jp_sshfs_thaw

jp_wait_exit "$pid" 120
pid=
jp_expect unpack_exits_0 [ "$JP_RC" = 0 ]
jp_show_if_failed "$T/err"
jp_expect unpack_identical diff -r "$T/src" "$T/export/dst"
jp_expect no_temporary jp_no_temporaries "$T/export"
jp_done
