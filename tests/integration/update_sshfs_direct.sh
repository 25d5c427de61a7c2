#!/bin/sh
# Moving a checkout on network storage the direct way (an uncached sshfs
# mount of a loopback sshd, in a private mount namespace): the status is
# taken by parallel lstat of the tracked files against the index
# (src/git_pstatus.c, not libgit2's walk: no lstat of a tracked file by its
# full path), and the changed files are written straight into the checkout
# by the parallel checkout writer (src/git_pcheckout.c; the summary says
# so). Proved here: the tree is exactly a local `git checkout` of the ref
# (contents, modes, a symlink retargeted, a mode change, deletions, new
# folders), the index matches the files, no temporary is left; a tracked
# file changed to the same size is refused by name, one only touched is
# not; an untracked file in the way is refused; and a tree with a
# .gitattributes goes through libgit2 (its filter applied).
set -u
. "$TOP_SRCDIR/tests/lib/ssh.sh"
command -v strace >/dev/null 2>&1 || jp_skip_all "needs strace (to see which way the status went)"
jp_sshfs_test_open S update-direct "${1:-}"

. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/initscratch.sh"
jp_init_scratch_sshfs "$S"
# v2: a changed file, a mode change only, a symlink retargeted, new files in
# new folders
echo changed >"$W/README"
printf '#!/bin/sh\necho training v2\n' >"$W/scripts/train.sh"
chmod +x "$W/src/train.py"
ln -sfn README "$W/link.py"
mkdir -p "$W/new/deep"
echo fresh >"$W/new/deep/a.txt"
jp_numbered_files "$W/new" 60 more
jp_push_tag "$W" v2 || { jp_fail v2; jp_done; }
# v3: a deletion, a change deep down
git -C "$W" rm -q new/f0.txt
echo fresher >"$W/new/deep/a.txt"
jp_push_tag "$W" v3 || { jp_fail v3; jp_done; }
# v4: a new file at the top
echo added >"$W/added.txt"
jp_push_tag "$W" v4 || { jp_fail v4; jp_done; }
# v5: a .gitattributes with a filter (line endings); v6: a file it filters
printf '*.txt text eol=crlf\n' >"$W/.gitattributes"
jp_push_tag "$W" v5 || { jp_fail v5; jp_done; }
echo crlf >"$W/new/deep/b.txt"
jp_push_tag "$W" v6 || { jp_fail v6; jp_done; }

jp_sshfs_clone_v1 "$S"

# init NAME REF [strace]: jobprep init moving $P to REF (jp_init_move), as
# the job NAME, its files $S/NAME.*
init() {
	if [ "${3:-}" = strace ]; then
		jp_init_move "$S" "$1" "$2" "$1" jp_traced -f -qq -e trace=lstat,newfstatat,statx -o "$S/$1.trace"
	else
		jp_init_move "$S" "$1" "$2"
	fi
}
# same REF: $P is exactly a local checkout of REF (contents, modes, links)
same() {
	rm -rf "$S/ref"
	git clone -q --no-checkout "$R" "$S/ref" &&
		git -C "$S/ref" -c advice.detachedHead=false checkout -q "$1" 2>/dev/null &&
		chmod +x "$S/ref/scripts/train.sh" &&
		diff -r --no-dereference -x .git "$S/ref" "$P" >"$S/diff.out" 2>&1 &&
		[ "$(cd "$S/ref" && find . -path ./.git -prune -o -printf '%y %m %p\n' | sort)" = \
			"$(cd "$P" && find . -path ./.git -prune -o -printf '%y %m %p\n' | sort)" ]
}
clean() {
	# (but for scripts/train.sh: jobprep makes scripts/*.sh executable)
	[ -z "$(git -C "$P" status --porcelain | grep -v ' scripts/train.sh$')" ] &&
		[ -z "$(git -C "$P" diff-files | grep -v '	scripts/train.sh$')" ]
}

# a script a job is running: sh reads it as it goes
exec 3<"$P/scripts/train.sh"
init v2 v2 strace
jp_expect direct_move_succeeds [ $? = 0 ]
jp_expect running_script_keeps_its_content [ "$(cat <&3)" = "$(printf '#!/bin/sh\necho training')" ]
exec 3<&-
jp_expect running_script_is_v2 grep -q "training v2" "$P/scripts/train.sh"
jp_expect direct_move_says_parallel_writers grep -q "moved $P from v1 (.*) to v2 (.*parallel writers" "$S/v2.out"
jp_expect direct_move_is_at_v2 [ "$(git -C "$P" rev-parse HEAD)" = "$(git -C "$R" rev-parse v2)" ]
jp_expect direct_move_tree_is_v2 same v2
jp_expect direct_move_mode_change [ -x "$P/src/train.py" ]
jp_expect direct_move_link_retargeted [ "$(readlink "$P/link.py")" = README ]
jp_expect direct_move_is_clean clean
jp_expect direct_move_leaves_no_temporary \
	[ -z "$(find "$P" -name '.jobprep-tmp-*' -o -name '*.jobprep-*' | head -n 1)" ]
# the status went the parallel way: no lstat of a tracked file by its full
# path (libgit2's status makes one of each, before and after the move), and
# an unchanged tracked file stat'ed relative to its folder by a thread
# other than the main one
jp_expect status_is_not_libgit2s \
	[ -z "$(grep -F "\"$P/link.py\"" "$S/v2.trace" | grep AT_SYMLINK_NOFOLLOW | head -n 1)" ]
main=$(head -n 1 "$S/v2.trace" | awk '{ print $1 }')
by=$(grep -E 'newfstatat\([0-9]+, "train\.sh"' "$S/v2.trace" | awk '{ print $1 }' | grep -vx "$main" | head -n 1)
jp_expect status_is_parallel [ -n "$by" ]

# a tracked file the move changes too, changed to the same size: refused by
# name, nothing touched (an edit of a file the move does not change goes
# with it: issue 29)
printf 'FRESH\n' >"$P/new/deep/a.txt"
init v3a v3
jp_expect same_size_change_refused [ $? != 0 ]
jp_expect same_size_change_named grep -q "uncommitted changes to new/deep/a.txt" "$S/v3a.out" "$S/v3a.err"
jp_expect same_size_change_kept [ "$(cat "$P/new/deep/a.txt")" = FRESH ]
jp_expect same_size_change_head_stays [ "$(git -C "$P" rev-parse HEAD)" = "$(git -C "$R" rev-parse v2)" ]

# only touched (the same content, a new mtime): not a change, the move goes;
# a file with a second hard link (a snapshot made with cp -al, server side)
# is not written through: the other link keeps what it had
echo changed >"$P/README"
echo fresh >"$P/new/deep/a.txt"
touch -d '2030-01-01' "$P/new/f5.txt"
ln "$S/remote/proj/new/deep/a.txt" "$S/remote/a-link"
init v3 v3
jp_expect touched_file_moves [ $? = 0 ]
jp_expect hard_link_keeps_its_content [ "$(cat "$S/remote/a-link")" = fresh ]
jp_expect hard_linked_file_is_v3 [ "$(cat "$P/new/deep/a.txt")" = fresher ]
jp_expect touched_move_is_at_v3 [ "$(git -C "$P" rev-parse HEAD)" = "$(git -C "$R" rev-parse v3)" ]
jp_expect touched_move_tree_is_v3 same v3
jp_expect touched_move_deleted_file_gone [ ! -e "$P/new/f0.txt" ]
jp_expect touched_move_is_clean clean

# an untracked file where v4 adds one: refused, untouched
echo mine >"$P/added.txt"
echo other >"$P/untracked-elsewhere.txt"
init v4a v4
jp_expect untracked_in_the_way_refused [ $? != 0 ]
jp_expect untracked_in_the_way_named grep -q "added.txt" "$S/v4a.out" "$S/v4a.err"
jp_expect untracked_in_the_way_kept [ "$(cat "$P/added.txt")" = mine ]
rm -f "$P/added.txt" "$P/untracked-elsewhere.txt"
init v4 v4
jp_expect then_v4_moves [ $? = 0 ]
jp_expect v4_tree same v4

# a .gitattributes: libgit2 writes the files (with their filter), not the
# parallel writer
init v5 v5
jp_expect attributes_move_succeeds [ $? = 0 ]
jp_expect attributes_move_is_at_v5 [ "$(git -C "$P" rev-parse HEAD)" = "$(git -C "$R" rev-parse v5)" ]
jp_expect attributes_move_not_direct jp_no_text 'parallel writers' "$S/v5.out"
init v6 v6
jp_expect filtered_move_succeeds [ $? = 0 ]
jp_expect filtered_move_not_direct jp_no_text 'parallel writers' "$S/v6.out"
jp_expect attributes_filter_applied grep -q "$(printf 'crlf\r')" "$P/new/deep/b.txt"
jp_expect attributes_move_is_clean clean
cat "$S/diff.out" "$S/v2.err" 2>/dev/null | sed "s/^/# /" | head -20
jp_done
