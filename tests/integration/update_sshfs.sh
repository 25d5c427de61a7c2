#!/bin/sh
# Moving an existing checkout on network storage (an uncached sshfs mount of
# a loopback sshd, in a private mount namespace): `jobprep init` writes the
# changed files on local disk and copies them with parallel writers; the
# checkout ends at the ref, clean, with an index whose stat data matches the
# copies (git diff-files says nothing without a refresh), a deleted file
# gone, a new one there, no temporary left.
set -u

if [ "${1:-}" != inside ]; then
	: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
	. "$TOP_SRCDIR/tests/lib/report.sh"
	. "$TOP_SRCDIR/tests/lib/ssh.sh"
	jp_ssh_available || jp_skip_all "needs root, unshare, sshd, ssh, sshfs and /dev/fuse"
	command -v unshare >/dev/null 2>&1 || jp_skip_all "needs unshare"
	S=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-update-sshfs.XXXXXX") || exit 99
	S=$(cd -P "$S" && pwd)
	trap 'jp_sshd_stop "$S/sshd"; rm -rf "$S"' EXIT
	mkdir -p "$S/remote"
	jp_sshd_start "$S/sshd" || exit 99
	export S JP_SSHD_PORT
	unshare -m --propagation private sh "$0" inside
	exit $?
fi

. "$TOP_SRCDIR/tests/lib/ssh.sh"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/initscratch.sh"
sshfs_pid=
cleanup_inside() {
	jp_sshfs_umount "$S/shared/net"
	[ -n "$sshfs_pid" ] && wait "$sshfs_pid" 2>/dev/null
}
trap cleanup_inside EXIT
jp_test_env "$S"
jp_init_scratch "$S" || { jp_fail scratch_platform; jp_done; }
jp_sshfs_mount "$S/sshd" "$S/remote" "$S/shared/net" || { jp_fail sshfs_mounts; jp_done; }
sshfs_pid=$JP_SSHFS_PID
R=$S/repos/train.git
# a third commit: one file changed, one deleted, one added in a new folder
W=$S/work
git clone -q "$R" "$W"
echo changed >"$W/README"
git -C "$W" rm -q link.py
mkdir -p "$W/new/deep"
echo fresh >"$W/new/deep/file.txt"
i=0
while [ $i -lt 200 ]; do
	echo "more $i" >"$W/new/f$i.txt"
	i=$((i + 1))
done
git -C "$W" add -A && git $JP_GIT_ID -C "$W" commit -qm third && git -C "$W" tag v3 &&
	git -C "$W" push -q origin main v3 || { jp_fail third_commit; jp_done; }

P=$S/shared/net/proj
"$JOBPREP" clone --ref v1 "file://$R" "$P" >"$S/clone.out" 2>&1 ||
	{ jp_fail clone_onto_sshfs "$(cat "$S/clone.out")"; jp_done; }
# (findmnt, not a grep of mountinfo: the kernel writes a space there as \040)
jp_expect the_checkout_is_on_sshfs [ "$(findmnt -n -o FSTYPE -T "$P")" = fuse.sshfs ]
cat >"$S/answers.json" <<EOF
{"job": {"name": "proj"},
 "code": {"source": "shared_storage", "path": "$P", "repo": {"url": "file://$R", "ref": "v3"}}}
EOF
"$JOBPREP" init --verbose --answers "$S/answers.json" --profile "$S/profile.json" \
	>"$S/init.out" 2>"$S/init.err"
rc=$?
jp_expect move_on_sshfs_succeeds [ "$rc" = 0 ]
jp_expect move_on_sshfs_says_what_moved grep -q "moved $P from v1 (.*) to v3 (" "$S/init.out"
jp_expect move_on_sshfs_is_at_v3 [ "$(git -C "$P" rev-parse HEAD)" = "$(git -C "$R" rev-parse v3)" ]
# (but for scripts/train.sh: jobprep makes scripts/*.sh executable, as after a clone)
git -C "$P" status --porcelain | grep -v ' scripts/train.sh$' >"$S/status"
jp_expect move_on_sshfs_is_clean [ ! -s "$S/status" ]
git -C "$P" diff-files | grep -v '	scripts/train.sh$' >"$S/diff-files"
jp_expect move_on_sshfs_index_matches_the_copies [ ! -s "$S/diff-files" ]
jp_expect move_on_sshfs_brings_the_new_files \
	[ "$(cat "$P/new/deep/file.txt")" = fresh -a "$(ls "$P/new" | wc -l)" = 201 ]
jp_expect move_on_sshfs_changes_the_changed_file [ "$(cat "$P/README")" = changed ]
jp_expect move_on_sshfs_removes_the_deleted_file [ ! -e "$P/link.py" -a ! -L "$P/link.py" ]
jp_expect move_on_sshfs_leaves_no_temporary \
	[ -z "$(find "$P" -name '.jobprep-tmp-*' -o -name '*.jobprep-*' | head -n 1)" ]
jp_expect move_on_sshfs_records_v3 grep -q "$(git -C "$R" rev-parse v3)" \
	"$S/shared/outputs/proj/run-001/job.json"
cat "$S/status" "$S/diff-files" | sed "s/^/# /" | head -20
jp_done
