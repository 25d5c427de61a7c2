#!/bin/sh
# A clone onto local disk of a tree with no filters and no submodules is
# written by the parallel checkout writer (src/git_pcheckout.c): the tree is
# exactly what `git clone` makes (contents, modes, symlinks, nested
# folders), the index matches the files (git diff-files says nothing without
# a refresh), git status is clean, and the files are made by threads other
# than the main one (seen with strace). A tree with a .gitattributes goes
# through libgit2's checkout, its filter applied.
set -u
: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/report.sh"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/proc.sh"
command -v strace >/dev/null 2>&1 || jp_skip_all "needs strace (to see who writes the files)"
S=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-clone-parallel.XXXXXX") || exit 99
trap 'rm -rf "$S"' EXIT
jp_test_env "$S"

W=$S/work
git init -q -b main "$W" || exit 99
mkdir -p "$W/scripts" "$W/a/b/c" "$W/d"
printf '#!/bin/sh\necho run\n' >"$W/scripts/run.sh"
printf 'x\n' >"$W/tool" && chmod +x "$W/tool"
ln -s a/b/c/deep.txt "$W/link"
echo deep >"$W/a/b/c/deep.txt"
i=0
while [ $i -lt 150 ]; do
	echo "file $i" >"$W/d/f$i.txt"
	i=$((i + 1))
done
git -C "$W" add -A && git $JP_GIT_ID -C "$W" commit -qm plain || exit 99
git clone -q --bare "$W" "$S/plain.git" || exit 99
printf '*.txt text eol=crlf\n' >"$W/.gitattributes"
git -C "$W" add -A 2>/dev/null && git $JP_GIT_ID -C "$W" commit -qm attrs || exit 99
git clone -q --bare "$W" "$S/attrs.git" || exit 99

jp_traced -f -qq -e trace=openat -o "$S/trace" "$JOBPREP" clone "file://$S/plain.git" "$S/j" \
	>"$S/clone.out" 2>&1
jp_expect parallel_clone_succeeds [ $? = 0 ]
git clone -q "file://$S/plain.git" "$S/g" && chmod +x "$S/g/scripts/run.sh"
jp_expect parallel_clone_tree_is_gits diff -r --no-dereference -x .git "$S/g" "$S/j"
jp_expect parallel_clone_modes_are_gits [ "$(cd "$S/g" && find . -path ./.git -prune -o -printf '%y %m %p %l\n' | sort)" = \
	"$(cd "$S/j" && find . -path ./.git -prune -o -printf '%y %m %p %l\n' | sort)" ]
jp_expect parallel_clone_index_matches [ -z "$(git -C "$S/j" diff-files | grep -v '	scripts/run.sh$')" ]
jp_expect parallel_clone_is_clean [ -z "$(git -C "$S/j" status --porcelain | grep -v ' scripts/run.sh$')" ]
main=$(head -n 1 "$S/trace" | awk '{ print $1 }')
by=$(grep -E 'openat\([0-9]+, "f[0-9]+\.txt", O_WRONLY\|O_CREAT\|O_EXCL' "$S/trace" | awk '{ print $1 }' |
	grep -vx "$main" | head -n 1)
jp_expect parallel_clone_written_by_worker_threads [ -n "$by" ]

"$JOBPREP" clone "file://$S/attrs.git" "$S/ja" >"$S/clone2.out" 2>&1
jp_expect filtered_clone_succeeds [ $? = 0 ]
jp_expect filtered_clone_filter_applied grep -q "$(printf 'deep\r')" "$S/ja/a/b/c/deep.txt"
jp_expect filtered_clone_is_clean [ -z "$(git -C "$S/ja" status --porcelain | grep -v ' scripts/run.sh$')" ]
jp_done
