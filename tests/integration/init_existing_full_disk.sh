#!/bin/sh
# A full disk while an existing checkout moves (issue 10): on a tmpfs of its
# own (a private mount namespace), a new commit whose files need more room
# than is free is refused before anything is written; one that runs out of
# inodes half-way through the checkout is put back: in both cases HEAD,
# `git status` and every file are as they were, and no manifest is written.
# Needs root (mount); skips otherwise.
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null 2>&1; then
	jp_skip_all "needs root and unshare (a tmpfs of the test's own)"
fi
. "$TOP_SRCDIR/tests/lib/initscratch.sh"
S=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-fulldisk.XXXXXX") || exit 99
trap 'jp_gitd_stop "$S/gitd"; rm -rf "$S"' EXIT
jp_test_env "$S"
jp_init_scratch "$S" || exit 99
mkdir -p "$S/gitd"
jp_gitd_start "$S/gitd" "$S/repos" || exit 99
URL=git://127.0.0.1:$JP_GITD_PORT/train.git

# big: 4 MiB more; many: 2000 more files
git clone -q "$S/repos/train.git" "$S/work" || exit 99
mkdir -p "$S/work/data"
head -c 4194304 /dev/urandom >"$S/work/data/blob"
git -C "$S/work" add -A
# shellcheck disable=SC2086
git $JP_GIT_ID -C "$S/work" commit -qm big && git -C "$S/work" tag big || exit 99
git -C "$S/work" checkout -q --detach light || exit 99
i=0
mkdir -p "$S/work/many"
while [ $i -lt 2000 ]; do
	echo "file $i" >"$S/work/many/f$i.txt"
	i=$((i + 1))
done
git -C "$S/work" add -A
# shellcheck disable=SC2086
git $JP_GIT_ID -C "$S/work" commit -qm many && git -C "$S/work" tag many &&
	git -C "$S/work" push -q origin refs/tags/big refs/tags/many || exit 99

cat >"$S/inner.sh" <<'EOF'
set -u
S=$1 URL=$2 MANY=$3
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
P=$S/shared/projects
mount -t tmpfs -o size=16m,mode=755 jp-tiny "$P" || exit 99
answers() {
	cat >"$S/tiny.json" <<J
{"job": {"name": "tiny"}, "code": {"source": "shared_storage", "repo": {"url": "$URL", "ref": "$1"}}}
J
}
prep() {
	timeout -s KILL 120 "$JOBPREP" init --answers "$S/tiny.json" --profile "$S/profile.json" \
		</dev/null >"$S/tiny.out" 2>"$S/tiny.err"
}
answers light
prep || { echo "first prep failed: $(cat "$S/tiny.err")"; exit 99; }
before_head=$(git -C "$P/tiny" rev-parse HEAD)

# --- not enough room for the new files: refused before any is written
used=$(df -k --output=used "$P" | tail -1)
mount -o remount,size=$((used + 1024))k "$P" || exit 99
jp_git_snapshot "$P/tiny" >"$S/room.before"
answers big
prep
rc=$?
jp_git_snapshot "$P/tiny" >"$S/room.after"
jp_expect no_room_refuses_the_move [ "$rc" = 1 ]
jp_expect no_room_says_so grep -q "the new files take 4.0 MiB and the disk has" "$S/tiny.err"
jp_expect no_room_touches_nothing cmp -s "$S/room.before" "$S/room.after"
jp_expect no_room_writes_no_manifest [ ! -e "$S/shared/outputs/tiny/run-002/job.json" ]
mount -o remount,size=16m "$P" || exit 99

# --- out of inodes half-way through the checkout: put back
iused=$(df --output=iused "$P" | tail -1)
mount -o remount,nr_inodes=$((iused + 300)) "$P" || exit 99
jp_git_snapshot "$P/tiny" >"$S/inodes.before"
answers many
prep
rc=$?
jp_git_snapshot "$P/tiny" >"$S/inodes.after"
jp_expect no_inodes_fails [ "$rc" = 1 ]
# the fetch got through (the commit is there): the checkout is what failed
jp_expect no_inodes_failed_after_the_fetch git -C "$P/tiny" cat-file -e "$MANY^{commit}"
jp_expect no_inodes_says_no_space grep -qi "no space" "$S/tiny.err"
jp_expect no_inodes_puts_the_checkout_back cmp -s "$S/inodes.before" "$S/inodes.after"
jp_expect no_inodes_is_still_at_light [ "$(git -C "$P/tiny" rev-parse HEAD)" = "$before_head" ]
jp_expect no_inodes_writes_no_manifest [ ! -e "$S/shared/outputs/tiny/run-002/job.json" ]
jp_done
EOF
jp_cases_in unshare -m --propagation private sh "$S/inner.sh" "$S" "$URL" "$(git -C "$S/work" rev-parse many)"
jp_done
