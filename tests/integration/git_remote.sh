#!/bin/sh
# jobprep repo --remote: ls-remote pins a branch, a tag, a commit or the
# remote's HEAD, and the clone line it prints for a launch command, run by sh
# against the same git daemon, checks out exactly that commit (by a
# one-commit fetch, or by the fallback when the server will not allow it).
set -u
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-git-remote.XXXXXX") || exit 99
trap 'jp_gitd_stop "$T"; rm -rf "$T"' EXIT
jp_test_env "$T"
J=$JOBPREP

jp_git_repo "$T/srv/r.git" || exit 99
# Two more commits on main, so main~1 is no branch or tag tip.
git clone -q "$T/srv/r.git" "$T/w" && for n in 3 4; do
	echo "$n" >>"$T/w/README" && git $JP_GIT_ID -C "$T/w" commit -qam "commit $n" || exit 99
done && git -C "$T/w" push -q origin main || exit 99
jp_gitd_start "$T" "$T/srv" || exit 99
U=git://127.0.0.1:$JP_GITD_PORT/r.git
rev() { git --git-dir="$T/srv/r.git" rev-parse "$1"; }
pin() { "$J" repo --json --remote "$U" "$@" </dev/null >"$T/pin.json" 2>"$T/err"; }

pin
jp_expect remote_head_is_pinned [ "$(jp_json_get "$T/pin.json" commit)" = "$(rev main)" ]
jp_expect remote_head_names_its_branch [ "$(jp_json_get "$T/pin.json" ref)" = refs/heads/main ]
pin --ref dev
jp_expect remote_branch_is_pinned [ "$(jp_json_get "$T/pin.json" commit)" = "$(rev dev)" ]
pin --ref v1
jp_expect remote_annotated_tag_is_pinned_to_its_commit \
	[ "$(jp_json_get "$T/pin.json" commit)" = "$(rev 'v1^{commit}')" ]
pin --ref "$(rev dev | cut -c1-8)"
jp_expect remote_short_commit_of_a_tip_is_pinned [ "$(jp_json_get "$T/pin.json" commit)" = "$(rev dev)" ]
first=$(rev 'main~1')
pin --ref "$first"
jp_expect remote_full_commit_is_taken_unverified \
	[ "$(jp_json_get "$T/pin.json" commit_verified)" = false ]
jp_expect remote_full_commit_is_pinned_as_given [ "$(jp_json_get "$T/pin.json" commit)" = "$first" ]
pin --ref no-such-thing
jp_expect remote_unknown_ref_fails [ $? = 1 ]
"$J" repo --remote "git://127.0.0.1:1/r.git" </dev/null >/dev/null 2>"$T/err"
jp_expect remote_unreachable_server_fails [ $? = 1 ]

# The clone line, run as a launch command would, into an awkward path.
dir="$T/run/my 'code' dir"
mkdir -p "$T/run"
"$J" repo --json --remote "$U" --ref v1 --into "$dir" </dev/null >"$T/pin.json" 2>"$T/err"
cmd=$(jp_json_get "$T/pin.json" command)
sh -c "$cmd" >/dev/null 2>"$T/err"
jp_expect clone_line_checks_out_the_pinned_commit \
	[ "$(git -C "$dir" rev-parse HEAD 2>/dev/null)" = "$(rev 'v1^{commit}')" ]
jp_expect clone_line_fetches_one_commit [ "$(git -C "$dir" rev-list --count HEAD 2>/dev/null)" = 1 ]

# A server that will not hand out unadvertised commits (protocol v0, no
# allow*SHA1InWant): the line falls back to a full fetch.
"$J" repo --json --remote "$U" --ref "$first" --into "$T/run/fallback" </dev/null >"$T/pin.json" 2>"$T/err"
cmd=$(jp_json_get "$T/pin.json" command)
GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=protocol.version GIT_CONFIG_VALUE_0=0 \
	sh -c "$cmd" >/dev/null 2>"$T/err"
jp_expect clone_line_falls_back_to_a_full_fetch \
	[ "$(git -C "$T/run/fallback" rev-parse HEAD 2>/dev/null)" = "$first" ]

jp_done
