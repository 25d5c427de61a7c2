#!/bin/sh
# A password with a raw '?' or '#' in it (git://bob:pa#ss@host/x.git): every
# part of jobprep agrees it is a password (the last '@' before the path ends
# the user info), so `init` never writes it into the manifest and `check`
# refuses a manifest that holds one, whatever the code source.
set -u
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/initscratch.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-url-cred.XXXXXX") || exit 99
trap 'jp_gitd_stop "$T"; rm -rf "$T"' EXIT
jp_test_env "$T"
S=$T/s
jp_init_scratch "$S" || exit 99
jp_gitd_start "$T" "$S/repos" || exit 99

i=0
for secret in 'pa#ss' 'pa?ss' 'p@ss#x'; do
	i=$((i + 1))
	name=case$i
	url="git://bob:$secret@127.0.0.1:$JP_GITD_PORT/train.git"
	cat >"$T/answers-$name.json" <<EOF2
{
	"job": {"name": "pinned-job", "gpus_per_worker": 1},
	"code": {"source": "launch_clone", "repo": {"url": "$url", "ref": "v1"}},
	"data": [{"path": "$S/public/imagenet-mini"}],
	"outputs": {"output_dir": "$S/shared/outputs/pinned/run-$name"}
}
EOF2
	"$JOBPREP" init --profile "$S/profile.json" --answers "$T/answers-$name.json" \
		-o "$T/job-$name.json" </dev/null >"$T/out" 2>"$T/err"
	rc=$?
	echo "# $secret: init exit $rc: $(head -c 300 "$T/err")"
	jp_expect "init_${name}_never_prints_the_password" jp_no_text -F "$secret" "$T/out" "$T/err"
	if [ "$rc" = 0 ]; then
		jp_expect "init_${name}_never_writes_the_password" jp_no_text -F "$secret" "$T/job-$name.json"
	else
		jp_expect "init_${name}_refused_writes_no_manifest" jp_path_missing "$T/job-$name.json"
	fi
	jp_expect "init_${name}_refuses_or_writes_a_manifest_check_accepts" \
		sh -c "[ $rc != 0 ] || '$JOBPREP' check '$T/job-$name.json' >/dev/null 2>&1 || [ \$? = 1 ]"
done
jp_done
