#!/bin/sh
# The repeat loop (issue 10): `jobprep init` on a project whose checkout is
# already there, against what a user would otherwise run in it, side by
# side in one run, on local disk, served by the same git daemon on loopback:
#
#  1. the same answers again (nothing to fetch): jobprep init, the whole
#     prep, vs `git fetch && git checkout TAG` (goal: init under 0.5 s);
#  2. from one release tag to the next (objects to fetch, files to write):
#     jobprep init vs `git fetch && git checkout TAG` (goal: <= 1.0x);
#  3. the same move with both checkouts on an uncached sshfs mount of a
#     loopback sshd (goal: <= 0.5x; needs root, sshd, sshfs; one run unless
#     BENCH_UPDATE_SSHFS_RUNS, as every run clones 20,000 files onto it twice).
#
# jobprep uses its local mirror cache ($XDG_CACHE_HOME/jobprep/git, in the
# bench's own HOME), as a user's repeat preps do: the prep at r1 fills it.
#
# The repository: ~20,000 files, 60 commits of 1,000 changed files each
# (~80,000 objects, made with git fast-import); tags r1 (commit 50) and r2
# (commit 60). For 2. the daemon first serves a copy that ends at r1 (the
# checkouts are made from it), then the full repository under the same URL.
# Medians of BENCH_UPDATE_RUNS runs (default 3), alternating who goes first.
# Needs python3 and git. BENCH_UPDATE_CACHE=DIR keeps the repositories.
set -u
: "${JOBPREP:=$(pwd)/jobprep}"
: "${TOP_SRCDIR:=$(pwd)}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/ssh.sh"
BENCH_NAME=bench_update
. "$TOP_SRCDIR/bench/lib.sh"
for t in python3 git; do
	command -v $t >/dev/null 2>&1 || { echo "bench_update: $t is missing" >&2; exit 77; }
done
RUNS=${BENCH_UPDATE_RUNS:-3}

T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-bench-update.XXXXXX") || exit 1
trap 'jp_gitd_stop "$T"; jp_sshd_stop "$T/sshd"; rm -rf "$T"' EXIT
CACHE=${BENCH_UPDATE_CACHE:-$T/cache}
mkdir -p "$CACHE" "$T/srv" "$T/shared/projects"
jp_test_env "$T" # HOME=$T/home, its own mirror cache, no agent, no tokens

# ---- the repository, and its copy that ends at r1 ----
if [ ! -d "$CACHE/full.git" ]; then
	echo "bench_update: making a repository of ~80,000 objects (fast-import)..."
	bench_big_repo "$CACHE/full.git" 7 60 r1=50 r2=60 || exit 1
	git init -q --bare -b main "$CACHE/old.git" &&
		git -C "$CACHE/full.git" push -q "$CACHE/old.git" r1 'r1^{commit}:refs/heads/main' || exit 1
fi
objs=$(git -C "$CACHE/full.git" count-objects -v | awk '/^in-pack/ { print $2 }')
changed=$(git -C "$CACHE/full.git" diff --name-only r1 r2 | wc -l)
echo "bench_update: $objs objects; r1 -> r2: 10 commits, $changed files changed"

jp_gitd_start "$T" "$T/srv" || exit 1
URL=git://127.0.0.1:$JP_GITD_PORT/repo.git
serve() { rm -f "$T/srv/repo.git" && ln -s "$CACHE/$1.git" "$T/srv/repo.git"; }
cat >"$T/profile.json" <<EOF
{"sandbox": true, "shared_roots": ["$T/shared"], "public_roots": ["$T/public"]}
EOF
mkdir -p "$T/public"
answers() {
	cat >"$T/$1.json" <<EOF
{"job": {"name": "$1", "launch_command": "python train.py"},
 "code": {"source": "shared_storage", "repo": {"url": "$URL", "ref": "$2"}}}
EOF
}
# (scripts, for measure runs a program)
printf '#!/bin/sh\nexec "%s" init --force --answers "%s/$1.json" --profile "%s/profile.json"\n' \
	"$JOBPREP" "$T" "$T" >"$T/init"
printf '#!/bin/sh\ngit -C "$1" fetch -q origin && git -C "$1" -c advice.detachedHead=false checkout -q "$2"\n' \
	>"$T/gitmove"
chmod +x "$T/init" "$T/gitmove"
init() { "$T/init" "$@"; }

# ---- 1. the same answers again ----
serve full
answers same r2
init same >/dev/null 2>&1 || { echo "bench_update: the first prep failed" >&2; exit 1; }
git clone -q "$URL" "$T/git-same" && git -C "$T/git-same" -c advice.detachedHead=false checkout -q r2 || exit 1
i=0
while [ $i -lt "$RUNS" ]; do
	if [ $((i % 2)) = 0 ]; then
		bench_measure "$T/same.git" "$T/gitmove" "$T/git-same" r2
		bench_measure "$T/same.jobprep" "$T/init" same
	else
		bench_measure "$T/same.jobprep" "$T/init" same
		bench_measure "$T/same.git" "$T/gitmove" "$T/git-same" r2
	fi
	i=$((i + 1))
done
g=$(bench_median "$T/same.git")
j=$(bench_median "$T/same.jobprep")
echo "same answers again (nothing to fetch): git fetch && git checkout ${g}s," \
	"jobprep init (the whole prep) ${j}s (goal < 0.5 s), ratio $(bench_ratio "$j" "$g")"

# ---- 2. from r1 to r2 ----
i=0
while [ $i -lt "$RUNS" ]; do
	serve old
	rm -rf "$T/shared/projects/move" "$T/shared/outputs/move" "$T/git-move"
	answers move r1
	init move >/dev/null 2>&1 || { echo "bench_update: the prep at r1 failed" >&2; exit 1; }
	git clone -q "$URL" "$T/git-move" &&
		git -C "$T/git-move" -c advice.detachedHead=false checkout -q r1 || exit 1
	serve full
	answers move r2
	sync
	if [ $((i % 2)) = 0 ]; then
		bench_measure "$T/move.git" "$T/gitmove" "$T/git-move" r2
		sync
		bench_measure "$T/move.jobprep" "$T/init" move
	else
		bench_measure "$T/move.jobprep" "$T/init" move
		sync
		bench_measure "$T/move.git" "$T/gitmove" "$T/git-move" r2
	fi
	[ "$(git -C "$T/shared/projects/move" rev-parse HEAD)" = "$(git -C "$T/git-move" rev-parse HEAD)" ] ||
		{ echo "bench_update: the two checkouts differ" >&2; exit 1; }
	i=$((i + 1))
done
g=$(bench_median "$T/move.git")
j=$(bench_median "$T/move.jobprep")
echo "r1 -> r2 ($changed files), local disk: git fetch && git checkout ${g}s," \
	"jobprep init (the whole prep) ${j}s: ratio $(bench_ratio "$j" "$g") (goal <= 1.0)"

# ---- 3. from r1 to r2 on an uncached sshfs mount ----
if ! jp_ssh_available || ! command -v sshfs >/dev/null 2>&1; then
	echo "r1 -> r2 on sshfs: skipped (needs root, sshd, sshfs, /dev/fuse)"
	exit 0
fi
jp_sshd_start "$T/sshd" || exit 1
mkdir -p "$T/export" "$T/mnt"
SRUNS=${BENCH_UPDATE_SSHFS_RUNS:-1}
export T URL SRUNS CACHE TOP_SRCDIR JP_SSHD_PORT BENCH_NAME
unshare -m --propagation private sh -c '
	. "$TOP_SRCDIR/tests/lib/ssh.sh"
	. "$TOP_SRCDIR/tests/lib/gitserv.sh"
	. "$TOP_SRCDIR/bench/lib.sh"
	serve() { rm -f "$T/srv/repo.git" && ln -s "$CACHE/$1.git" "$T/srv/repo.git"; }
	smove() {
		printf "{\"job\": {\"name\": \"smove\", \"launch_command\": \"python train.py\"}, \"code\": {\"source\": \"shared_storage\", \"path\": \"%s\", \"repo\": {\"url\": \"%s\", \"ref\": \"%s\"}}}\n" \
			"$T/mnt/move" "$URL" "$1" >"$T/smove.json"
	}
	jp_sshfs_mount "$T/sshd" "$T/export" "$T/mnt" || exit 1
	i=0
	while [ $i -lt "$SRUNS" ]; do
		serve old
		rm -rf "$T/mnt/move" "$T/mnt/git-move" "$T/shared/outputs/smove"
		smove r1
		"$T/init" smove >/dev/null 2>&1 || { echo "bench_update: the prep at r1 on sshfs failed" >&2; exit 1; }
		git clone -q "$URL" "$T/mnt/git-move" &&
			git -C "$T/mnt/git-move" -c advice.detachedHead=false checkout -q r1 || exit 1
		serve full
		smove r2
		sync
		if [ $((i % 2)) = 0 ]; then
			bench_measure "$T/smove.git" "$T/gitmove" "$T/mnt/git-move" r2
			sync
			bench_measure "$T/smove.jobprep" "$T/init" smove
		else
			bench_measure "$T/smove.jobprep" "$T/init" smove
			sync
			bench_measure "$T/smove.git" "$T/gitmove" "$T/mnt/git-move" r2
		fi
		[ "$(git -C "$T/mnt/move" rev-parse HEAD)" = "$(git -C "$T/mnt/git-move" rev-parse HEAD)" ] ||
			{ echo "bench_update: the two sshfs checkouts differ" >&2; exit 1; }
		i=$((i + 1))
	done
	rm -rf "$T/mnt/move" "$T/mnt/git-move"
	jp_sshfs_umount "$T/mnt"
	kill $JP_SSHFS_PID 2>/dev/null
	wait' || exit 1
jp_sshd_stop "$T/sshd"
g=$(bench_median "$T/smove.git")
j=$(bench_median "$T/smove.jobprep")
echo "r1 -> r2 ($changed files), uncached sshfs: git fetch && git checkout ${g}s," \
	"jobprep init (the whole prep) ${j}s: ratio $(bench_ratio "$j" "$g") (goal <= 0.5)"
