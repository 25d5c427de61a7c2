#!/bin/sh
# Moving an existing checkout on network storage (an uncached sshfs mount of
# a loopback sshd, in a private mount namespace): `jobprep init` writes the
# changed files on local disk and copies them with parallel writers; the
# checkout ends at the ref, clean, with an index whose stat data matches the
# copies (git diff-files says nothing without a refresh), a deleted file
# gone, a new one there, no temporary left.
set -u
. "$TOP_SRCDIR/tests/lib/ssh.sh"
jp_sshfs_test_open S update-sshfs "${1:-}"

. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/initscratch.sh"
jp_init_scratch_sshfs "$S"
# a third commit: one file changed, one deleted, one added in a new folder
echo changed >"$W/README"
git -C "$W" rm -q link.py
mkdir -p "$W/new/deep"
echo fresh >"$W/new/deep/file.txt"
jp_numbered_files "$W/new" 200 more
jp_push_tag "$W" v3 third || { jp_fail third_commit; jp_done; }

jp_sshfs_clone_v1 "$S"
jp_init_move "$S" init v3 proj
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
