#!/bin/sh
# jobprep stage onto network storage: an sshfs mount of a loopback sshd with
# every cache off (testing.md), where jobprep takes each file's attributes
# from the look-up that finds it (one round trip, not two), skips the
# per-file fsync and writes a first copy as a whole-tree temporary. The
# copy is identical; a re-run writes nothing; a file whose mtime was
# changed at DEST, and one changed in the source, are found and written
# again, alone; the partial tree a kill -9 leaves on the mount is resumed.
set -u
: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/ssh.sh"
jp_ssh_available || jp_skip_all "needs root, sshd, sshfs and /dev/fuse"
cleanup() {
	jp_sshfs_umount "$T/mnt"
	[ -n "${JP_SSHFS_PID:-}" ] && wait "$JP_SSHFS_PID" 2>/dev/null
	jp_sshd_stop "$T/sshd"
}
jp_scratch stage-sshfs cleanup
mkdir -p "$T/export" "$T/src/子 dir" || exit 99
i=0
while [ $i -lt 60 ]; do
	head -c $((i * 1500)) /dev/urandom >"$T/src/子 dir/f $i"
	i=$((i + 1))
done
head -c 3000000 /dev/urandom >"$T/src/big"
jp_sshd_start "$T/sshd" || exit 99
jp_sshfs_mount "$T/sshd" "$T/export" "$T/mnt" || exit 99
D="$T/mnt/数据 dest"

"$J" stage --json "$T/src" "$D" >"$T/first.json" 2>"$T/first.err"
jp_expect first_exits_0 [ $? = 0 ]
jp_expect first_identical diff -r "$T/src" "$T/export/数据 dest"
jp_expect first_no_temporary jp_no_temporaries "$T/export"

"$J" stage --json "$T/src" "$D" >"$T/again.json" 2>/dev/null
jp_expect rerun_writes_nothing [ "$(jp_json_get "$T/again.json" written)" = 0 ]
jp_expect rerun_skips_all [ "$(jp_json_get "$T/again.json" skipped)" = 61 ]

# changed behind the mount's back (on the server's own disk)
touch -d '2020-01-01 00:00:00' "$T/export/数据 dest/子 dir/f 7"
printf 'more' >>"$T/src/子 dir/f 9"
"$J" stage --json "$T/src" "$D" >"$T/third.json" 2>/dev/null
jp_expect changed_rewritten_alone [ "$(jp_json_get "$T/third.json" written)" = 2 ]
jp_expect changed_identical diff -r "$T/src" "$T/export/数据 dest"
jp_expect changed_mtime_back [ "$(stat -c %Y "$T/src/子 dir/f 7")" = "$(stat -c %Y "$T/export/数据 dest/子 dir/f 7")" ]

# a first copy's partial tree on the mount, laid out as kill -9 leaves it
P="$T/export/.jobprep-tmp-stage-second"
mkdir -p "$P/子 dir"
cp -p "$T/src/子 dir/f 3" "$T/src/子 dir/f 4" "$P/子 dir/"
head -c 1000000 "$T/src/big" >"$P/big"
"$J" stage --json "$T/src" "$T/mnt/second" >"$T/second.json" 2>/dev/null
jp_expect partial_tree_resumed [ $? = 0 ]
jp_expect partial_tree_skips_the_complete [ "$(jp_json_get "$T/second.json" skipped)" = 2 ]
jp_expect partial_tree_identical diff -r "$T/src" "$T/export/second"
jp_expect partial_tree_gone [ ! -e "$P" ]
jp_done
