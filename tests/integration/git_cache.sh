#!/bin/sh
# The local mirror cache ($XDG_CACHE_HOME/jobprep/git), against a real smart
# http server (lighttpd + git http-backend) whose upload-pack counts every
# pack it sends (uploadpack.packObjectsHook): a second prep of the same URL
# into a new folder transfers no pack; --no-cache does; a corrupted mirror
# (truncated pack, refs to missing objects) is fetched again and the clone
# is still right; no credential anywhere under the cache; two clones at once
# with an empty cache both succeed; the cache keeps to its size cap.
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/report.sh"
for tool in git lighttpd truncate; do
	command -v "$tool" >/dev/null 2>&1 || jp_skip_all "$tool is not installed"
done
[ -x /usr/lib/git-core/git-http-backend ] || jp_skip_all "no git-http-backend"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/initscratch.sh"

T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-git-cache.XXXXXX") || exit 99
T=$(cd -P "$T" && pwd)
H=$T/httpd
cleanup() {
	jp_httpd_stop "$H"
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
jp_test_env "$T"
jp_init_scratch "$T" || { echo "not ok - scratch platform: cannot lay it out"; exit 99; }
XDG_CACHE_HOME=$T/xdg
export XDG_CACHE_HOME
C=$XDG_CACHE_HOME/jobprep/git
R=$T/repos
mkdir -p "$R/private"
jp_git_repo "$R/train.git" 20 >/dev/null 2>&1 || exit 99
jp_git_repo "$R/other.git" 5 >/dev/null 2>&1 || exit 99
cp -R "$R/train.git" "$R/private/train.git"
jp_httpd_start "$H" "$R" || exit 99
# every pack upload-pack sends adds a line to $T/packs
cat >"$T/count-hook" <<EOF
#!/bin/sh
echo pack >>'$T/packs'
exec "\$@"
EOF
chmod +x "$T/count-hook"
printf "[uploadpack]\n\tpackObjectsHook = '%s'\n" "$T/count-hook" >"$H/httpd-home/.gitconfig"
: >"$T/packs"
packs() { wc -l <"$T/packs" | tr -d ' '; }
URL=http://127.0.0.1:$JP_HTTPD_PORT/git/train.git
TOKEN_URL=http://alice:s3cret@127.0.0.1:$JP_HTTPD_PORT/git/private/train.git
P=$T/shared/projects

clone() {
	"$JOBPREP" clone "$@" >"$T/last.out" 2>"$T/last.err"
}
# same_as_server DIR [REPO]: a sound clone at the server's main
same_as_server() {
	[ "$(git -C "$1" rev-parse HEAD)" = "$(git -C "${2:-$R/train.git}" rev-parse main)" ] &&
		git -C "$1" fsck --no-progress >/dev/null 2>&1 &&
		[ -z "$(git -C "$1" status --porcelain --untracked-files=no | grep -v 'scripts/train.sh')" ] &&
		[ "$(git -C "$1" ls-files | wc -l)" = "$(git -C "${2:-$R/train.git}" ls-tree -r main | wc -l)" ]
}

# --- first prep fills the cache, the second into a new folder is local ------
clone "$URL" "$P/one"
jp_expect first_clone_succeeds same_as_server "$P/one"
jp_expect first_clone_fetches_one_pack [ "$(packs)" = 1 ]
jp_expect first_clone_leaves_a_mirror_in_the_cache \
	sh -c '[ -d "$1" ] && ls "$1" | grep -q "^[0-9a-f]\{40\}\.git$"' sh "$C"
jp_expect the_cache_is_private [ "$(stat -c %a "$C")" = 700 ]
clone "$URL" "$P/two"
jp_expect second_clone_into_a_new_folder_succeeds same_as_server "$P/two"
jp_expect second_clone_transfers_no_pack [ "$(packs)" = 1 ]
jp_expect second_clone_origin_is_the_server [ "$(git -C "$P/two" remote get-url origin)" = "$URL" ]
jp_expect second_clone_has_the_tags [ "$(git -C "$P/two" tag | sort | tr '\n' ' ')" = "light v1 " ]
has_ref() { git -C "$1" rev-parse -q --verify "$2" >/dev/null; }
jp_expect second_clone_has_the_branches has_ref "$P/two" refs/remotes/origin/dev
# on the mirror's own filesystem the pack is a hard link (as git clone of a
# local path makes it), not a second copy of every object
linked_packs() { find "$1/.git/objects/pack" -name '*.pack' -links +1 | wc -l; }
jp_expect second_clone_links_the_mirror_s_pack [ "$(linked_packs "$P/two")" -ge 1 ]

clone --no-cache "$URL" "$P/three"
jp_expect no_cache_clone_succeeds same_as_server "$P/three"
jp_expect no_cache_clone_transfers_a_pack [ "$(packs)" = 2 ]

# --- init: the flow goes through the cache, or not with --no-cache ------------
answers() {
	cat >"$T/answers.json" <<EOF
{"job": {"name": "$1"},
 "code": {"source": "shared_storage", "repo": {"url": "$URL", "ref": "${2:-main}"}}}
EOF
}
init() {
	"$JOBPREP" init --answers "$T/answers.json" --profile "$T/profile.json" "$@" \
		>"$T/last.out" 2>"$T/last.err"
}
answers cached-job
init
jp_expect init_clone_succeeds same_as_server "$P/cached-job"
jp_expect init_clone_transfers_no_pack [ "$(packs)" = 2 ]
answers uncached-job
init --no-cache
jp_expect init_no_cache_succeeds same_as_server "$P/uncached-job"
jp_expect init_no_cache_transfers_a_pack [ "$(packs)" = 3 ]
JOBPREP_NO_CACHE=1 clone "$URL" "$P/env-off"
jp_expect jobprep_no_cache_env_transfers_a_pack [ "$(packs)" = 4 ]

# --- new commits: the mirror is fetched incrementally; an update goes through it
W=$T/work
git clone -q "$R/train.git" "$W"
echo three >>"$W/README"
git $JP_GIT_ID -C "$W" commit -qam third
git $JP_GIT_ID -C "$W" tag -a -m "version 2" v2
git -C "$W" push -q origin main v2
before=$(packs)
answers cached-job v2
init --verbose
jp_expect update_through_the_mirror_succeeds grep -q "moved $P/cached-job from main .* to v2" "$T/last.out"
jp_expect update_is_at_the_new_tag \
	[ "$(git -C "$P/cached-job" rev-parse HEAD)" = "$(git -C "$R/train.git" rev-parse 'v2^{commit}')" ]
jp_expect update_leaves_the_checkout_clean \
	[ -z "$(git -C "$P/cached-job" status --porcelain --untracked-files=no | grep -v scripts/train.sh)" ]
jp_expect update_fetches_only_into_the_mirror [ "$(packs)" = $((before + 1)) ]
# the pack the mirror just fetched is copied as it is (nothing built again)
copied=0
for pk in "$C"/*.git/objects/pack/pack-*.pack; do
	[ -e "$P/cached-job/.git/objects/pack/${pk##*/}" ] && copied=1
done
jp_expect update_copies_the_mirror_s_new_pack [ "$copied" = 1 ]
clone "$URL" "$P/after-push"
jp_expect clone_after_a_push_has_the_new_commit same_as_server "$P/after-push"
jp_expect clone_after_a_push_transfers_no_more_packs [ "$(packs)" = $((before + 1)) ]

# --- a corrupted mirror is fetched again, never trusted blindly ---------------
mirror=$(ls -d "$C"/*.git | head -n 1)
for pack in "$mirror"/objects/pack/*.pack; do
	# (packs are read-only: only root could truncate them as they are)
	chmod u+w "$pack" && truncate -s -64 "$pack" || exit 99
done
before=$(packs)
clone "$URL" "$P/after-truncate"
jp_expect truncated_pack_clone_succeeds same_as_server "$P/after-truncate"
jp_expect truncated_pack_is_fetched_again [ "$(packs)" = $((before + 1)) ]
rm -f "$mirror"/objects/pack/*
before=$(packs)
clone "$URL" "$P/after-missing"
jp_expect refs_to_missing_objects_clone_succeeds same_as_server "$P/after-missing"
jp_expect refs_to_missing_objects_are_fetched_again [ "$(packs)" = $((before + 1)) ]
# the mirror goes (jobprep cache --clear): a clone whose pack is a link to
# the mirror's stays whole
jp_expect refetched_clone_links_the_mirror_s_pack [ "$(linked_packs "$P/after-missing")" -ge 1 ]
"$JOBPREP" cache --clear >/dev/null 2>&1
jp_expect the_cache_is_cleared [ -z "$(ls -d "$C"/*.git 2>/dev/null)" ]
jp_expect a_linked_clone_outlives_its_mirror same_as_server "$P/after-missing"

# --- a token in the URL is used, and stored nowhere under the cache ------------
clone "$TOKEN_URL" "$P/private"
jp_expect token_clone_succeeds same_as_server "$P/private" "$R/private/train.git"
clone "$TOKEN_URL" "$P/private-two"
jp_expect token_second_clone_succeeds same_as_server "$P/private-two" "$R/private/train.git"
jp_expect no_token_anywhere_under_the_cache jp_no_text -ra "s3cret" "$XDG_CACHE_HOME"
jp_expect no_user_in_any_mirror_config jp_no_text alice "$C"/*.git/config
jp_expect no_token_in_the_clone_config jp_no_text "s3cret" "$P/private-two/.git/config"

# --- two clones at once, with an empty cache --------------------------------
XDG_CACHE_HOME=$T/xdg-empty
export XDG_CACHE_HOME
"$JOBPREP" clone "$URL" "$P/both-a" >"$T/a.out" 2>"$T/a.err" &
a=$!
"$JOBPREP" clone "$URL" "$P/both-b" >"$T/b.out" 2>"$T/b.err" &
b=$!
jp_wait_exit $a 120
rca=$JP_RC
jp_wait_exit $b 120
rcb=$JP_RC
jp_expect two_clones_at_once_both_succeed sh -c '[ "$1" = 0 ] && [ "$2" = 0 ]' sh "$rca" "$rcb"
jp_expect two_clones_at_once_are_both_right same_as_server "$P/both-a"
same_as_server "$P/both-b" || jp_fail two_clones_at_once_second_is_right "$(cat "$T/b.err")"
jp_expect two_clones_at_once_share_one_mirror [ "$(ls -d "$XDG_CACHE_HOME"/jobprep/git/*.git | wc -l)" = 1 ]

# --- the size cap: the least recently used mirror goes ------------------------
train_mirror=$(ls -d "$XDG_CACHE_HOME"/jobprep/git/*.git)
JOBPREP_CACHE_MAX=1 clone "http://127.0.0.1:$JP_HTTPD_PORT/git/other.git" "$P/other"
jp_expect capped_clone_succeeds same_as_server "$P/other" "$R/other.git"
jp_expect capped_cache_removes_the_least_recently_used_mirror [ ! -e "$train_mirror" ]
jp_expect capped_cache_keeps_the_one_just_used [ "$(ls -d "$XDG_CACHE_HOME"/jobprep/git/*.git | wc -l)" = 1 ]

# --- clearing it: rm -rf of the folder, and the next prep fetches anew ---------
rm -rf "$XDG_CACHE_HOME/jobprep"
before=$(packs)
clone "$URL" "$P/after-clear"
jp_expect clone_after_clearing_the_cache_succeeds same_as_server "$P/after-clear"
jp_expect clone_after_clearing_fetches_a_pack [ "$(packs)" = $((before + 1)) ]
jp_done
