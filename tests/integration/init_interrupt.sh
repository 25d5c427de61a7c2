#!/bin/sh
# `jobprep init` never leaves anything half-made and never hangs on a person:
# Ctrl-C (SIGINT) in the middle of the clone exits 130 with no project
# directory, no temporary, no output directory and no manifest; a repository
# that needs a password fails at once with a message (nobody is asked). The
# servers are a git daemon whose packs trickle out and lighttpd with Basic
# auth, both on loopback (tests/lib/gitserv.sh).
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/initscratch.sh"
S=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-init-int.XXXXXX") || exit 99
trap 'jp_gitd_stop "$S/gitd"; jp_httpd_stop "$S/httpd"; rm -rf "$S"' EXIT
jp_test_env "$S"
jp_init_scratch "$S" || exit 99
mkdir -p "$S/srv/private" "$S/gitd" "$S/httpd"
jp_git_big_repo "$S/srv/big.git" 4 || exit 99
cp -r "$S/repos/train.git" "$S/srv/private/train.git"

# --- Ctrl-C while the clone trickles in
jp_gitd_start "$S/gitd" "$S/srv" slow || exit 99
cat >"$S/big.json" <<EOF
{"job": {"name": "big-job"},
 "code": {"source": "shared_storage", "repo": {"url": "git://127.0.0.1:$JP_GITD_PORT/big.git"}}}
EOF
# (timeout: a hang fails the test instead of stalling it; 124 = timed out)
timeout -s KILL 120 "$JOBPREP" init --answers "$S/big.json" --profile "$S/profile.json" \
	>"$S/big.out" 2>"$S/big.err" &
pid=$!
# the clone is under way once its temporary exists beside the target
w=0
while [ $w -lt 300 ] && ! ls -A "$S/shared/projects" | grep -q jobprep-tmp; do
	sleep 0.1
	w=$((w + 1))
done
if ls -A "$S/shared/projects" | grep -q jobprep-tmp; then
	sleep 0.5
	# timeout passes the signal on to jobprep
	kill -INT $pid
	wait $pid
	rc=$?
	jp_expect sigint_mid_clone_exits_130 [ "$rc" = 130 ]
	jp_expect sigint_mid_clone_says_so grep -q "interrupted" "$S/big.err"
	jp_expect sigint_mid_clone_leaves_no_project [ ! -e "$S/shared/projects/big-job" ]
	jp_expect sigint_mid_clone_leaves_no_temporary jp_no_temporaries "$S/shared/projects"
	jp_expect sigint_mid_clone_makes_no_output_dir [ ! -e "$S/shared/outputs/big-job" ]
else
	jp_fail sigint_mid_clone "the clone never started: $(cat "$S/big.err")"
	kill $pid
fi
jp_gitd_stop "$S/gitd"

# --- a repository behind a password: no prompt, a clear failure
jp_httpd_start "$S/httpd" "$S/srv" || exit 99
cat >"$S/private.json" <<EOF
{"job": {"name": "private-job"},
 "code": {"source": "shared_storage", "repo": {"url": "http://127.0.0.1:$JP_HTTPD_PORT/git/private/train.git"}}}
EOF
timeout -s KILL 60 "$JOBPREP" init --answers "$S/private.json" --profile "$S/profile.json" \
	</dev/null >"$S/private.out" 2>"$S/private.err"
rc=$?
jp_expect password_needed_fails_without_asking [ "$rc" = 1 ]
jp_expect password_needed_message_says_why grep -qiE "password|credential|authenticat" "$S/private.err"
jp_expect password_needed_makes_nothing [ ! -e "$S/shared/projects/private-job" ]
jp_expect password_needed_makes_no_output_dir [ ! -e "$S/shared/outputs/private-job" ]
cat "$S/private.err"

jp_done
