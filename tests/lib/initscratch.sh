# The platform the `jobprep init` tests run on, laid out in a folder of the
# test's own. Source it after tests/lib/gitserv.sh:
#
#   jp_init_scratch DIR
#     DIR/profile.json                 shared root DIR/shared, public root
#                                      DIR/public, the default ephemeral roots
#     DIR/repos/train.git              jp_git_repo, with fixed dates (the same
#                                      commits every time)
#     DIR/shared/datasets/text         3 files, one of them an archive
#     DIR/shared/datasets/more         1 file
#     DIR/public/imagenet-mini         2 files
#     DIR/shared/projects/existing-job a checkout of train.git
#
#   jp_answers NAME DIR OUT            tests/data/answers/NAME.json with
#                                      @SCRATCH@ replaced by DIR, into OUT
#   jp_normalise DIR < manifest        DIR -> @SCRATCH@, created_at, version
#                                      and 40-hex commits -> placeholders (a
#                                      scratch URL quoted for its space unquoted); the
#                                      checks' messages dropped (they quote free
#                                      space and this machine's mounts): their
#                                      ids, statuses and paths stay
#   jp_empty_tree DIR                  DIR/d0..d99, 200 empty files each
#                                      (20,000): a tree that takes scan and
#                                      check --deep a while to walk
#
# and, for a test in a mount namespace of its own (tests/lib/ssh.sh:
# jp_sshfs_test_open), the scratch with its shared storage on sshfs:
#
#   jp_init_scratch_sshfs DIR [TMPFS_OPTIONS]
#     DIR/shared/net                   an sshfs mount of DIR/remote
#     R, W                             train.git, and a clone of it in
#                                      DIR/work to make commits in
#   jp_sshfs_clone_v1 DIR              P: a jobprep clone of train.git at
#                                      v1 in DIR/shared/net/proj
#   jp_init_move DIR NAME REF [JOB [CMD...]]
#                                      jobprep init moving that checkout
#                                      to REF; its output in DIR/NAME.out
#                                      and DIR/NAME.err

jp_init_scratch() {
	_s=$1
	mkdir -p "$_s/repos" "$_s/shared/datasets/text" "$_s/shared/datasets/more" \
		"$_s/public/imagenet-mini" "$_s/shared/projects" || return 1
	GIT_AUTHOR_DATE='2024-01-01T00:00:00Z' GIT_COMMITTER_DATE='2024-01-01T00:00:00Z' \
		jp_git_repo "$_s/repos/train.git" >/dev/null 2>&1 || return 1
	printf '{"text": "one"}\n{"text": "two"}\n' >"$_s/shared/datasets/text/train.jsonl"
	printf '{"text": "three"}\n' >"$_s/shared/datasets/text/valid.jsonl"
	printf 'not really gzip, named like it\n' >"$_s/shared/datasets/text/raw.tar.gz"
	printf 'more data\n' >"$_s/shared/datasets/more/part-0"
	printf 'image 0\n' >"$_s/public/imagenet-mini/img0"
	printf 'image 1 !\n' >"$_s/public/imagenet-mini/img1"
	git clone -q "file://$_s/repos/train.git" "$_s/shared/projects/existing-job" || return 1
	cat >"$_s/profile.json" <<PROFILE
{
	"sandbox": true,
	"shared_roots": ["$_s/shared"],
	"public_roots": ["$_s/public"]
}
PROFILE
}

jp_answers() {
	sed "s|@SCRATCH@|$2|g" "$TOP_SRCDIR/tests/data/answers/$1.json" >"$3"
}

jp_normalise() {
	# A scratch path with a space in it is quoted in a launch command.
	sed -e "s|$1|@SCRATCH@|g" -e "s|'file://@SCRATCH@\([^' ]*\)'|file://@SCRATCH@\1|g" \
		-e 's|"created_at":\([[:space:]]*\)"[^"]*"|"created_at":\1"@TIME@"|' \
		-e 's|"version":\([[:space:]]*\)"[^"]*"|"version":\1"@VERSION@"|' \
		-e 's|[0-9a-f]\{40\}|@COMMIT@|g' \
		-e '/^[[:space:]]*"message":/d'
}

jp_empty_tree() {
	python3 - "$1" <<'EOF'
import os, sys
for d in range(100):
    os.makedirs("%s/d%d" % (sys.argv[1], d))
    for f in range(200):
        open("%s/d%d/f%d" % (sys.argv[1], d, f), "w").close()
EOF
}

# jp_init_scratch_sshfs DIR [TMPFS_OPTIONS]: the scratch of an init test
# whose shared storage is network storage, for a test inside its own mount
# namespace (jp_sshfs_test_open): jp_test_env DIR, jp_init_scratch DIR,
# then DIR/shared/net an uncached sshfs mount (jp_sshfs_mount) of DIR/remote,
# served by the sshd in DIR/sshd; R is DIR/repos/train.git and W a clone of
# it (DIR/work). With TMPFS_OPTIONS, DIR/remote is first a tmpfs mounted
# with them (the server's disk, of a size the test chooses) and the sshd is
# started here, after it, so that it serves it (open the test with
# jp_sshfs_test_open's nosshd). At exit the mount is closed (jp_sshfs_close),
# and the sshd and the tmpfs started here go too. A step that fails is a
# failed case (scratch_platform, tmpfs_mounts, sshd_starts, sshfs_mounts)
# and ends the test. Needs tests/lib/ssh.sh and tests/lib/gitserv.sh.
jp_init_scratch_sshfs() {
	_iss_dir=$1
	_iss_tmpfs=${2:-}
	trap _jp_init_scratch_sshfs_end EXIT
	jp_test_env "$1"
	jp_init_scratch "$1" || { jp_fail scratch_platform; jp_done; }
	mkdir -p "$1/remote"
	if [ -n "$_iss_tmpfs" ]; then
		mount -t tmpfs -o "$_iss_tmpfs" jobprep-remote "$1/remote" ||
			{ jp_fail tmpfs_mounts; jp_done; }
		jp_sshd_start "$1/sshd" || { jp_fail sshd_starts; jp_done; }
	fi
	jp_sshfs_mount "$1/sshd" "$1/remote" "$1/shared/net" || { jp_fail sshfs_mounts; jp_done; }
	R=$1/repos/train.git
	W=$1/work
	git clone -q "$R" "$W"
}

_jp_init_scratch_sshfs_end() {
	jp_sshfs_close "$_iss_dir/shared/net"
	[ -n "$_iss_tmpfs" ] || return 0
	jp_sshd_stop "$_iss_dir/sshd"
	umount "$_iss_dir/remote" 2>/dev/null
	return 0
}

# jp_sshfs_clone_v1 DIR: P, DIR/shared/net/proj, a checkout of DIR's
# train.git at v1 made by `jobprep clone` on the sshfs mount of
# jp_init_scratch_sshfs; the case the_checkout_is_on_sshfs checks that it
# is there (its filesystem is fuse.sshfs). A clone that fails is the failed
# case clone_onto_sshfs (with its output) and ends the test.
jp_sshfs_clone_v1() {
	P=$1/shared/net/proj
	"$JOBPREP" clone --ref v1 "file://$1/repos/train.git" "$P" >"$1/clone.out" 2>&1 ||
		{ jp_fail clone_onto_sshfs "$(cat "$1/clone.out")"; jp_done; }
	# (findmnt, not a grep of mountinfo: the kernel writes a space there as \040)
	jp_expect the_checkout_is_on_sshfs [ "$(findmnt -n -o FSTYPE -T "$P")" = fuse.sshfs ]
}

# jp_init_move DIR NAME REF [JOB [CMD...]]: `jobprep init --verbose` with
# DIR's profile and the answers DIR/NAME.json, written here: job JOB
# (default NAME), code on shared storage at DIR/shared/net/proj (the
# checkout of jp_sshfs_clone_v1) from DIR's train.git at REF, so that init
# moves the checkout there. Its output goes to DIR/NAME.out and
# DIR/NAME.err; with CMD..., jobprep runs under it (e.g. jp_traced ...).
# Returns init's status.
jp_init_move() {
	_im_dir=$1 _im_name=$2 _im_ref=$3 _im_job=${4:-$2}
	shift 3
	[ $# = 0 ] || shift
	cat >"$_im_dir/$_im_name.json" <<EOF
{"job": {"name": "$_im_job"},
 "code": {"source": "shared_storage", "path": "$_im_dir/shared/net/proj", "repo": {"url": "file://$_im_dir/repos/train.git", "ref": "$_im_ref"}}}
EOF
	"$@" "$JOBPREP" init --verbose --answers "$_im_dir/$_im_name.json" --profile "$_im_dir/profile.json" \
		>"$_im_dir/$_im_name.out" 2>"$_im_dir/$_im_name.err"
}
