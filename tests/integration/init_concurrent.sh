#!/bin/sh
# Two `jobprep init` of the same job at once, ten rounds: each gets a run
# folder of its own (claimed with mkdir(2), never shared), and when both
# bring the same checkout to a ref, one waits for the other: both succeed,
# the checkout ends clean at the ref, never a mixed tree.
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/report.sh"
for tool in git sha256sum; do
	command -v "$tool" >/dev/null 2>&1 || jp_skip_all "$tool is not installed"
done
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/initscratch.sh"

T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-init-concurrent.XXXXXX") || exit 99
T=$(cd -P "$T" && pwd)
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
jp_test_env "$T"
jp_init_scratch "$T" || { echo "not ok - scratch platform: cannot lay it out"; exit 99; }
runs=$T/shared/outputs/existing-job
co=$T/shared/projects/existing-job
repo=$T/repos/train.git
v1=$(git -C "$repo" rev-parse 'v1^{commit}')
main=$(git -C "$repo" rev-parse main)

# answers REF: the existing checkout brought to REF from its own remote
answers() {
	cat >"$T/answers.json" <<EOF
{
	"job": {"name": "existing-job"},
	"code": {"source": "shared_storage", "path": "$co",
		 "repo": {"url": "file://$repo", "ref": "$1"}},
	"data": [{"path": "$T/shared/datasets/text"}]
}
EOF
}

shared_folder=0 failed=0 mixed=0 missing=0 prepared=0
round=0
while [ $round -lt 10 ]; do
	round=$((round + 1))
	if [ $((round % 2)) = 1 ]; then ref=v1 want=$v1; else ref=main want=$main; fi
	answers "$ref"
	"$JOBPREP" init --answers "$T/answers.json" --profile "$T/profile.json" --json \
		>"$T/a.out" 2>"$T/a.err" &
	a=$!
	"$JOBPREP" init --answers "$T/answers.json" --profile "$T/profile.json" --json \
		>"$T/b.out" 2>"$T/b.err" &
	b=$!
	jp_wait_exit $a 120
	rca=$JP_RC
	jp_wait_exit $b 120
	rcb=$JP_RC
	if [ "$rca" != 0 ] || [ "$rcb" != 0 ]; then
		failed=$((failed + 1))
		echo "# round $round: exit $rca and $rcb: $(cat "$T/a.err" "$T/b.err")"
	fi
	# each init's manifest names its own run folder
	da=$(jp_json_get "$T/a.out" manifest 2>/dev/null)
	db=$(jp_json_get "$T/b.out" manifest 2>/dev/null)
	if [ -z "$da" ] || [ -z "$db" ]; then
		missing=$((missing + 1))
	elif [ "$da" = "$db" ]; then
		shared_folder=$((shared_folder + 1))
		echo "# round $round: both inits wrote $da"
	fi
	if [ "$(git -C "$co" rev-parse HEAD)" != "$want" ] ||
		[ -n "$(git -C "$co" status --porcelain)" ]; then
		mixed=$((mixed + 1))
		echo "# round $round: checkout at $(git -C "$co" rev-parse HEAD), status:" \
			"$(git -C "$co" status --porcelain | head -n 3)"
	fi
	prepared=$((prepared + 2))
done

jp_expect both_inits_succeed_every_round [ "$failed" = 0 ]
jp_expect every_init_names_its_run_folder [ "$missing" = 0 ]
jp_expect no_two_inits_share_a_run_folder [ "$shared_folder" = 0 ]
jp_expect checkout_is_clean_at_the_ref_every_round [ "$mixed" = 0 ]
n=$(ls -d "$runs"/run-* 2>/dev/null | wc -l)
jp_expect one_run_folder_per_init [ "$n" = "$prepared" ]
m=$(ls "$runs"/run-*/job.json 2>/dev/null | wc -l)
jp_expect one_manifest_per_run_folder [ "$m" = "$prepared" ]
# a run that lost the race for a number names the folder it got, everywhere
wrong=0
for d in "$runs"/run-*; do
	[ "$(sh -c '. "$1" && printf "%s" "$OUTPUT_DIR"' sh "$d/env.sh")" = "$d" ] &&
		[ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["outputs"]["output_dir"])' "$d/job.json")" = "$d" ] &&
		[ -d "$d/checkpoints" ] || { wrong=$((wrong + 1)); echo "# $d: its files name another folder"; }
done
jp_expect each_run_s_env_sh_and_manifest_name_its_own_folder [ "$wrong" = 0 ]
jp_done
