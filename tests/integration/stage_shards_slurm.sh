#!/bin/sh
# jobprep stage --shards 4 --emit slurm (issue 14: "when one machine is not
# enough") on the real single-node Slurm of tests/lib/slurm.sh: the script
# it prints, run with sh, submits an array of 4 tasks, task i staging shard
# i/4 (`jobprep stage --shard i/4`), and a job over the whole that waits
# for them (afterok). Every task and the last job complete; the shards
# together wrote every file once, each shard some of them, balanced by
# bytes; the last job wrote nothing (it found every file complete); the
# result is identical to the source (diff -r). Then a shard run again on
# its own skips all its files (resumable on its own), and --shard is
# refused for a file source, --emit without --shards.
set -u
: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/slurm.sh"
jp_slurm_have ||
	jp_skip_all "slurm-wlm and munge are not installed (apt-get install slurm-wlm munge, or run autotools/bootstrap.sh)"
[ "$(id -u)" -eq 0 ] || jp_skip_all "slurmd must run as root to start jobs"
T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-stage-shards.XXXXXX") || exit 99
T=$(cd -P "$T" && pwd)
cluster=$T/cluster
trap 'jp_slurm_stop "$cluster"; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
chmod 755 "$T"
jp_test_env "$T"
J=$JOBPREP

S="$T/源 data"
jp_random_tree "$S" 120 6 1000 3000 || exit 99
head -c 3000000 /dev/urandom >"$S/large one"
ln -s "large one" "$S/link"
total=$(find "$S" -type f -o -type l | wc -l)
D="$T/shared/目标 dest"
mkdir -p "$T/shared"

"$J" stage --shards 4 --emit slurm "$S" "$D" >"$T/stage.sh" 2>"$T/emit.err"
jp_expect emit_exits_0 [ $? = 0 ]
jp_expect emit_is_an_array_of_4 grep -q -- '--array=0-3' "$T/stage.sh"
jp_expect emit_waits_for_every_task grep -q -- '--dependency=afterok:' "$T/stage.sh"
jp_expect emit_writes_nothing [ ! -e "$D" ]

jp_slurm_start "$cluster" || { jp_fail slurm_starts; jp_done; }
(cd "$T" && sh "$T/stage.sh") >"$T/ids" 2>"$T/submit.err"
jp_expect submit_exits_0 [ $? = 0 ]
read -r array whole <"$T/ids"
echo "# array $array, whole $whole"
state=$(jp_slurm_wait "$whole" 120)
echo "# the last job: $state"
jp_expect last_job_completed [ "$state" = COMPLETED ]
for t in 0 1 2 3; do
	f="$T/jobprep-stage-${array}_$t.out"
	sed "s/^/# task $t: /" "$f" 2>/dev/null
	jp_expect "task_${t}_wrote_some" grep -q ' [1-9][0-9]* written' "$f"
done
written=$(cat "$T"/jobprep-stage-"${array}"_*.out 2>/dev/null |
	sed -n 's/.* files, \([0-9]*\) written.*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
echo "# the shards wrote $written of $total files"
jp_expect shards_wrote_every_file_once [ "$written" = "$total" ]
sed 's/^/# whole: /' "$T/jobprep-stage-whole-$whole.out" 2>/dev/null
jp_expect last_job_wrote_nothing grep -q ' 0 written' "$T/jobprep-stage-whole-$whole.out"
jp_expect shards_identical diff -r --no-dereference "$S" "$D"
jp_expect shards_leave_no_temporary jp_no_temporaries "$D"

# one shard again on its own: all of its files are there
"$J" stage --json --shard 2/4 "$S" "$D" >"$T/again.json" 2>/dev/null
jp_expect shard_rerun_exits_0 [ $? = 0 ]
jp_expect shard_rerun_writes_nothing [ "$(jp_json_get "$T/again.json" written)" = 0 ]
jp_expect shard_rerun_skips_its_files [ "$(jp_json_get "$T/again.json" skipped)" -gt 0 ]

"$J" stage --shard 1/4 "$S/large one" "$T/x" >/dev/null 2>"$T/file.err"
jp_expect shard_of_a_file_is_usage [ $? = 2 ]
"$J" stage --emit slurm "$S" "$D" >/dev/null 2>&1
jp_expect emit_without_shards_is_usage [ $? = 2 ]
"$J" stage --shard 4/4 "$S" "$D" >/dev/null 2>&1
jp_expect shard_out_of_range_is_usage [ $? = 2 ]
jp_done
