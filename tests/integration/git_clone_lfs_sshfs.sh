#!/bin/sh
# A clone with files stored with Git LFS onto network storage (issue 21):
# sshfs over a loopback sshd (in a mount namespace of the test's own), the
# objects on the batch-API server of tests/lib/lfs_server.py. The clone is
# built on local disk and copied, then git-lfs fetches the content into it
# before it is put in place: every file byte for byte, git sees them
# clean, git-lfs's objects were kept on the local scratch disk meanwhile
# (no second copy of them on shared storage), and no temporary is left on
# either side. Needs root.
set -u
. "$TOP_SRCDIR/tests/lib/ssh.sh"
command -v git-lfs >/dev/null 2>&1 || jp_skip_all "git-lfs is not installed (Debian: git-lfs)"
jp_sshfs_test_open T clone-lfs-sshfs "${1:-}"

# --- inside a private mount namespace -------------------------------------------
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/lfs.sh"
jp_hung_mount_env
J=$JOBPREP
trap 'jp_lfs_server_stop "$T/lfs"; jp_sshfs_close "$T/mnt"' EXIT
jp_test_env "$T"
export GIT_CONFIG_NOSYSTEM=1
mkdir -p "$T/export" "$T/mnt" "$T/scratch" || exit 99
JOBPREP_SCRATCH=$T/scratch
export JOBPREP_SCRATCH

jp_lfs_server_start "$T/lfs" || exit 99
jp_lfs_repo "$T/work" "$T/models.git" "http://127.0.0.1:$JP_LFS_PORT/models.git/info/lfs" \
	>/dev/null 2>&1 || exit 99
jp_sshfs_mount "$T/sshd" "$T/export" "$T/mnt" || exit 99
P=$T/mnt/models

timeout -s KILL 300 "$J" clone "$T/models.git" "$P" >"$T/clone.out" 2>"$T/clone.err"
rc=$?
if [ "$rc" = 0 ] && grep -q 'copied to shared storage' "$T/clone.out" &&
	grep -q '^4 file(s) stored with Git LFS fetched' "$T/clone.out"; then
	jp_pass staged_clone_fetches_the_lfs_content
else
	jp_fail staged_clone_fetches_the_lfs_content "rc=$rc $(cat "$T/clone.out" "$T/clone.err")"
fi
jp_expect the_checkout_is_on_sshfs [ "$(findmnt -n -o FSTYPE -T "$P")" = fuse.sshfs ]
differ=
for f in model.safetensors weights/big.bin tiny.bin train.py; do
	cmp -s "$T/work/$f" "$P/$f" || differ="$differ $f"
done
jp_expect every_file_byte_for_byte [ -z "$differ" ]
# (before any git status: git's clean filter, git-lfs, stores what it hashes)
objs=$(find "$T/export/models/.git/lfs/objects" -type f 2>/dev/null | wc -l)
jp_expect no_second_copy_on_shared_storage [ "$objs" = 0 ]
st=$(git -C "$P" status --porcelain -- model.safetensors weights tiny.bin legacy.pt)
jp_expect git_sees_them_clean [ -z "$st" ]
jp_expect no_temporary_on_scratch sh -c '[ -d "$1" ] && ! ls -A "$1" | grep -q "^jobprep-"' sh "$T/scratch"
jp_expect no_temporary_on_shared_storage jp_no_temporaries "$T/mnt"
jp_show_if_failed "$T/clone.out" "$T/clone.err"
jp_done
