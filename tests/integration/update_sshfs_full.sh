#!/bin/sh
# The direct move on network storage (src/git_pcheckout.c) running out of
# room half-way: the sshfs mount serves a tmpfs with few inodes left, the
# move adds 300 files (the room check, which counts bytes, lets it start),
# the writers fail with ENOSPC part of the way, and the checkout is put back
# exactly as it was: HEAD, git status clean, the changed file's old
# content, none of the added files or folders left, no journal, no
# temporary; then, with room again, the same move succeeds.
set -u
. "$TOP_SRCDIR/tests/lib/ssh.sh"
jp_sshfs_test_open S update-full "${1:-}" nosshd

. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/initscratch.sh"
# the server's disk: a tmpfs of its own in this namespace (the sshd, started
# after it, sees it)
jp_init_scratch_sshfs "$S" size=64m,nr_inodes=4000
echo changed >"$W/README"
jp_numbered_files "$W/many" 300 file
jp_push_tag "$W" big || { jp_fail big_commit; jp_done; }

jp_sshfs_clone_v1 "$S"
# few inodes left: 100 more, the move adds 300 files and a folder
used=$(df --output=iused "$S/remote" | tail -n 1 | tr -d ' ')
mount -o remount,nr_inodes=$((used + 100)) "$S/remote" || jp_fail tmpfs_shrinks
git -C "$P" rev-parse HEAD >"$S/head.before"
cp -p "$S/remote/proj/.git/index" "$S/index.before"
jp_init_move "$S" init big proj
rc=$?
jp_expect full_move_fails [ "$rc" != 0 ]
jp_expect full_move_says_no_space grep -qi "disk is full\|no space" "$S/init.out" "$S/init.err"
# (the parallel writer's word: it is the one that ran out of room)
jp_expect full_move_failed_in_the_writer \
	grep -q "$P/many/f[0-9]*\.txt: the disk is full" "$S/init.out" "$S/init.err"
jp_expect full_move_head_stays [ "$(git -C "$P" rev-parse HEAD)" = "$(cat "$S/head.before")" ]
jp_expect full_move_old_content_back [ "$(cat "$P/README")" = one ]
jp_expect full_move_leaves_no_added_file [ ! -e "$P/many" ]
jp_expect full_move_index_put_back cmp -s "$S/index.before" "$S/remote/proj/.git/index"
# (but for scripts/train.sh: jobprep makes scripts/*.sh executable)
jp_expect full_move_status_clean \
	[ -z "$(git -C "$P" status --porcelain | grep -v ' scripts/train.sh$')" ]
jp_expect full_move_no_journal [ ! -e "$P/.git/jobprep-move" ]
jp_expect full_move_no_temporary \
	[ -z "$(find "$P" -name '.jobprep-tmp-*' -o -name '*.jobprep-*' | head -n 1)" ]

# room again: the same move goes through, the direct way
mount -o remount,nr_inodes=8000 "$S/remote" || jp_fail tmpfs_grows
jp_init_move "$S" init2 big proj
jp_expect then_the_move_succeeds [ $? = 0 ]
jp_expect then_it_went_the_direct_way grep -q "parallel writers" "$S/init2.out"
jp_expect then_it_is_at_big [ "$(git -C "$P" rev-parse HEAD)" = "$(git -C "$R" rev-parse big)" ]
jp_expect then_all_files_there [ "$(ls "$P/many" | wc -l)" = 300 ]
jp_expect then_it_is_clean \
	[ -z "$(git -C "$P" status --porcelain | grep -v ' scripts/train.sh$')" ]
sed "s/^/# /" "$S/init.err" | head -5
jp_done
