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
