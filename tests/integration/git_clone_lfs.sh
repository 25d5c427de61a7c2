#!/bin/sh
# The content of files stored with Git LFS, fetched as part of the clone
# (issue 21). A real LFS server on loopback (tests/lib/lfs_server.py: the
# batch API) holds the objects the real git-lfs client pushed; the
# repository, whose .lfsconfig names that server, comes from a git daemon.
# `jobprep clone` fetches the content (with progress), byte for byte what
# the real client fetches, and git sees the files clean, a pointer
# committed without an attribute naming it too (named in the clone's own
# .git/info/attributes: git-lfs 3.6 fetches nothing else); `init` that clones
# passes code.repo.lfs; Ctrl-C mid-download exits 130 with nothing left
# (no target, no temporary, no git-lfs); a server that stops sending fails
# the clone after --timeout, one missing an object fails it with git-lfs's
# words, both leaving nothing; one that wants credentials (which jobprep
# cannot hand to git-lfs) leaves the pointers and the pull command, which
# the real client then runs given them; without git-lfs on PATH the clone
# keeps the pointers and says so.
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/initscratch.sh"
. "$TOP_SRCDIR/tests/lib/lfs.sh"
command -v git-lfs >/dev/null 2>&1 || jp_skip_all "git-lfs is not installed (Debian: git-lfs)"
jp_scratch git-clone-lfs 'jp_gitd_stop "$T/gitd"; jp_lfs_server_stop "$T/lfs"'
jp_init_scratch "$T" || exit 99
jp_lfs_server_start "$T/lfs" || exit 99
jp_lfs_repo "$T/work" "$T/repos/models.git" \
	"http://127.0.0.1:$JP_LFS_PORT/models.git/info/lfs" || exit 99
mkdir -p "$T/gitd"
jp_gitd_start "$T/gitd" "$T/repos" || exit 99
URL=git://127.0.0.1:$JP_GITD_PORT/models.git
NOLFS=$(jp_no_lfs_path "$T/nolfs") || exit 99
S=$T/shared/projects
LFS_FILES="model.safetensors weights/big.bin tiny.bin legacy.pt"
TO="timeout -s KILL 120"
has() { case $1 in *"$2"*) return 0 ;; esac; return 1; }
nothing_left() { [ ! -e "$1" ] && jp_no_temporaries "$(dirname "$1")"; }

jp_expect the_real_client_pushed_four_objects [ "$(ls "$T/lfs/objects" | wc -l)" = 4 ]

# --- the clone fetches the content, as the real client does
: >"$T/lfs/access.log"
$TO "$J" clone --progress "$URL" "$S/a" >"$T/a.out" 2>"$T/a.err"
rc=$?
if [ "$rc" = 0 ] && grep -q '^4 file(s) stored with Git LFS fetched' "$T/a.out" &&
	[ "$(wc -c <"$S/a/model.safetensors")" = 300000 ]; then
	jp_pass clone_fetches_the_lfs_content
else
	jp_fail clone_fetches_the_lfs_content "rc=$rc $(cat "$T/a.out" "$T/a.err")"
fi
jp_expect progress_shows_the_download grep -q 'downloading: 4/4 (100%)' "$T/a.err"
cp "$T/lfs/access.log" "$T/a.log"
GIT_LFS_SKIP_SMUDGE=1 git clone -q "$URL" "$T/real" 2>"$T/real.err" &&
	git -C "$T/real" lfs install --local >/dev/null && git -C "$T/real" lfs pull 2>>"$T/real.err"
# A pointer committed as a plain file (legacy.pt, no attribute names it) is
# left alone by the pull of git-lfs 3.6 and later: its bytes are what the
# client's smudge filter gives for it (a file that is no pointer, notes.md,
# passes through).
for f in $(git -C "$T/real" ls-files); do
	head -c 42 "$T/real/$f" | grep -q 'git-lfs.github.com/spec/v1' || continue
	(cd "$T/real" && git lfs smudge -- "$f" <"$f" >"$f.smudged" 2>>"$T/real.err" &&
		mv "$f.smudged" "$f")
done
differ=
for f in $(git -C "$T/real" ls-files); do
	cmp -s "$S/a/$f" "$T/real/$f" || differ="$differ $f"
done
if [ -z "$differ" ] && [ "$(wc -c <"$T/real/model.safetensors")" = 300000 ]; then
	jp_pass same_bytes_as_the_real_git_lfs_client
else
	jp_fail same_bytes_as_the_real_git_lfs_client "differ:$differ $(cat "$T/real.err")"
fi
dirty=
st=$(git -C "$S/a" status --porcelain)
for f in $LFS_FILES; do
	has "$st" "$f" && dirty="$dirty $f"
done
jp_expect git_sees_the_fetched_files_clean \
	sh -c '[ -z "$1" ] && [ "$(wc -c <"$2")" = 5000 ] && [ "$(wc -c <"$3")" = 1024 ]' \
	sh "$dirty" "$S/a/weights/big.bin" "$S/a/legacy.pt"
# legacy.pt got its content because the clone's own attributes name it
# (git-lfs 3.6 and later fetch nothing else), and only it; the committed
# .gitattributes is as it was
jp_expect the_pointer_no_attribute_names_is_named_in_the_clones_attributes \
	sh -c 'git -C "$1" diff --quiet HEAD -- .gitattributes &&
		grep -qx "/legacy.pt filter=lfs diff=lfs merge=lfs -text" "$1/.git/info/attributes" &&
		[ "$(grep -c filter=lfs "$1/.git/info/attributes")" = 1 ]' sh "$S/a"
jp_expect lfs_server_saw_the_batch_and_downloads \
	sh -c 'grep -q "^POST /models.git/info/lfs/objects/batch 200" "$1" &&
		[ "$(grep -c "^GET .* 200$" "$1")" -ge 4 ]' sh "$T/a.log"

# --- init that clones the code: code.repo.lfs passes
cat >"$T/init.json" <<EOF
{"job": {"name": "models", "launch_command": "cd \"\$PROJECT_DIR\" && python train.py"},
 "code": {"source": "shared_storage", "repo": {"url": "$URL"}}}
EOF
$TO "$J" init --verbose --answers "$T/init.json" --profile "$T/profile.json" \
	</dev/null >"$T/init.out" 2>"$T/init.err"
rc=$?
if [ "$rc" = 0 ] && grep -q '^\[pass\] code.repo.lfs:' "$T/init.out" &&
	[ "$(wc -c <"$S/models/model.safetensors")" = 300000 ]; then
	jp_pass init_clones_with_the_content_and_passes
else
	jp_fail init_clones_with_the_content_and_passes "rc=$rc $(cat "$T/init.out" "$T/init.err")"
fi

# --- Ctrl-C mid-download: 130, nothing left, git-lfs gone too
echo 40000 >"$T/lfs/rate"
: >"$T/lfs/access.log"
mkdir -p "$T/c"
(
	trap - EXIT
	exec "$J" clone --progress "$URL" "$T/c/t" 2>"$T/c.err" >/dev/null
) &
PID=$!
if jp_poll 600 grep -q '^GET .* begun$' "$T/lfs/access.log"; then
	lfs_pid=$(pgrep -P "$PID" | head -n 1)
	kill -INT "$PID"
	jp_wait_exit "$PID"
	rc=$JP_RC
	jp_expect sigint_mid_download_exits_130 [ "$rc" = 130 ]
	jp_expect sigint_mid_download_leaves_nothing nothing_left "$T/c/t"
	jp_expect sigint_mid_download_ends_git_lfs \
		sh -c '[ -n "$1" ] && ! kill -0 "$1" 2>/dev/null' sh "$lfs_pid"
else
	kill -9 "$PID" 2>/dev/null
	wait "$PID" 2>/dev/null
	for c in exits_130 leaves_nothing ends_git_lfs; do
		jp_fail "sigint_mid_download_$c" "no download began: $(cat "$T/c.err")"
	done
fi
rm -f "$T/lfs/rate"

# --- a server that stops sending: --timeout, then nothing left
: >"$T/lfs/hang"
mkdir -p "$T/h"
$TO "$J" clone --timeout 3 "$URL" "$T/h/t" >"$T/h.out" 2>"$T/h.err"
rc=$?
if [ "$rc" = 1 ] && grep -q 'Git LFS server sent nothing for 3 s' "$T/h.err" &&
	nothing_left "$T/h/t"; then
	jp_pass stalled_lfs_server_fails_the_clone_after_the_timeout
else
	jp_fail stalled_lfs_server_fails_the_clone_after_the_timeout "rc=$rc $(cat "$T/h.err")"
fi
rm -f "$T/lfs/hang"

# --- an object the server does not have: the clone fails, nothing left
big=$(git -C "$T/work" lfs ls-files -l | awk '$3 == "weights/big.bin" {print $1}')
mv "$T/lfs/objects/$big" "$T/lfs/big.away"
mkdir -p "$T/m"
$TO "$J" clone "$URL" "$T/m/t" >"$T/m.out" 2>"$T/m.err"
rc=$?
if [ "$rc" = 1 ] && grep -q 'git-lfs could not fetch' "$T/m.err" &&
	grep -qi 'not exist\|404' "$T/m.err" && nothing_left "$T/m/t"; then
	jp_pass missing_object_fails_the_clone_with_git_lfs_words
else
	jp_fail missing_object_fails_the_clone_with_git_lfs_words "rc=$rc $(cat "$T/m.err")"
fi
mv "$T/lfs/big.away" "$T/lfs/objects/$big"

# --- an LFS server that wants credentials jobprep cannot pass on: the
# clone is made with the pointers and says how to fetch them; the real
# client, given them by a credential helper, does
echo alice:s3cret >"$T/lfs/auth"
$TO "$J" clone "$URL" "$S/auth" >"$T/auth.out" 2>"$T/auth.err"
rc=$?
if [ "$rc" = 0 ] && grep -q 'the LFS server wants credentials' "$T/auth.err" &&
	grep -q "git -C '$S/auth' lfs pull" "$T/auth.err" &&
	head -c 42 "$S/auth/model.safetensors" | grep -q 'git-lfs.github.com/spec/v1'; then
	jp_pass lfs_server_wanting_credentials_leaves_pointers_and_the_pull
else
	jp_fail lfs_server_wanting_credentials_leaves_pointers_and_the_pull "rc=$rc $(cat "$T/auth.err")"
fi
# shellcheck disable=SC2016
$TO git -C "$S/auth" -c credential.helper='!f() { echo username=alice; echo password=s3cret; }; f' \
	lfs pull >"$T/auth-pull.out" 2>&1
jp_expect the_printed_pull_with_credentials_fetches_them \
	sh -c '[ "$(wc -c <"$1")" = 300000 ]' sh "$S/auth/model.safetensors"
rm -f "$T/lfs/auth"

# --- without git-lfs: the pointers stay, and the clone says so
$TO env PATH="$NOLFS" "$J" clone "$URL" "$S/n" >"$T/n.out" 2>"$T/n.err"
rc=$?
if [ "$rc" = 0 ] && grep -q '4 file(s) stored with Git LFS are only pointers' "$T/n.err" &&
	grep -q 'git-lfs is not installed' "$T/n.err" &&
	head -c 42 "$S/n/model.safetensors" | grep -q 'git-lfs.github.com/spec/v1'; then
	jp_pass without_git_lfs_the_clone_keeps_pointers_and_says_so
else
	jp_fail without_git_lfs_the_clone_keeps_pointers_and_says_so "rc=$rc $(cat "$T/n.err")"
fi

jp_done
