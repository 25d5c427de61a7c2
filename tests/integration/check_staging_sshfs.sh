#!/bin/sh
# Data a `jobprep stage` has not finished, and data sets of many tiny
# files, judged by `jobprep check` on network storage: an sshfs mount of a
# loopback sshd with every cache off (testing.md).
#
# data[i].path.staging fails, naming what is unfinished and the command
# that finishes it: while a stage is writing the data path (its record
# beside it), once that stage was killed half-way (kill -9), for a
# temporary found inside the data set and for an unpack folder beside it;
# each Worker's preflight.sh refuses the same. The same stage run again
# finishes it and the check passes. data[i].path.small_files warns (never
# fails) for 30,000 files of 64 B, with the figures and the way out, and
# passes 10,000 files of 1 MiB and a few small ones. On a mount that stops
# answering, check still ends in bounded time. `jobprep scan --json` gives
# the median size, the small files and the temporaries.
set -u
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/ssh.sh"
jp_sshfs_test_open T check-staging "${1:-}"
jp_test_env "$T"
J=$JOBPREP
jp_hung_mount_env
stage_pid=
cleanup_inside() {
	[ -n "$stage_pid" ] && kill -9 "$stage_pid" 2>/dev/null
	jp_sshfs_close "$T/mnt"
}
trap 'cleanup_inside; jp_sshd_stop "$T/sshd"; rm -rf "$T"' EXIT

mkdir -p "$T/export/datasets/small" "$T/export/datasets/tiny" "$T/export/datasets/large" \
	"$T/export/datasets/leftover" "$T/export/datasets/arch" "$T/src" || exit 99
python3 - "$T" <<'EOF' || exit 99
import os, sys
t = sys.argv[1]
for i in range(5):
    open("%s/export/datasets/small/part-%d" % (t, i), "w").write("x" * 100)
# 30,000 files of 64 B, in 30 folders
for d in range(30):
    os.makedirs("%s/export/datasets/tiny/d%d" % (t, d))
    for f in range(1000):
        open("%s/export/datasets/tiny/d%d/f%d" % (t, d, f), "w").write("y" * 64)
# 10,000 files of 1 MiB (sparse: the size is what the scan reads)
for d in range(10):
    os.makedirs("%s/export/datasets/large/d%d" % (t, d))
    for f in range(1000):
        with open("%s/export/datasets/large/d%d/f%d" % (t, d, f), "w") as h:
            h.truncate(1 << 20)
# what a stage into an existing folder leaves when killed: a file's temporary
for i in range(3):
    open("%s/export/datasets/leftover/part-%d" % (t, i), "w").write("z")
open("%s/export/datasets/leftover/.jobprep-tmp-part-3" % t, "w").write("half")
# the source a stage copies slowly (one writer)
for d in range(8):
    os.makedirs("%s/src/d%d" % (t, d))
    for f in range(1000):
        open("%s/src/d%d/f%d" % (t, d, f), "w").write("s%d" % f)
EOF
printf 'x\n' >"$T/export/datasets/arch/x"
mkdir -p "$T/export/datasets/.jobprep-tmp-unpack-arch"
jp_git_repo "$T/repo.git" >/dev/null 2>&1 || exit 99
jp_sshfs_mount "$T/sshd" "$T/export" "$T/mnt" || exit 99
M=$T/mnt
printf '{"shared_roots": ["%s"]}\n' "$M" >"$T/profile.json"

# a manifest on the mount, with the small data set
cat >"$T/answers.json" <<EOF
{"job": {"name": "sft"},
 "code": {"source": "shared_storage", "repo": {"url": "file://$T/repo.git"}},
 "data": [{"path": "$M/datasets/small"}]}
EOF
"$J" init --profile "$T/profile.json" --answers "$T/answers.json" >"$T/init.out" 2>&1
jp_expect init_on_the_mount_passes [ $? = 0 ]
jp_show_if_failed "$T/init.out"
cp "$M/outputs/sft/run-001/job.json" "$T/job.json"

# manifest DATA-PATH: a copy of the manifest with that data path
manifest() {
	python3 - "$T/job.json" "$1" "$T/m.json" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
m["data"][0]["path"] = sys.argv[2]
json.dump(m, open(sys.argv[3], "w"))
EOF
}
# field OUT ID KEY: the check ID's KEY (status, message) in check --json's OUT
field() {
	python3 -c 'import json, sys
for c in json.load(open(sys.argv[1])):
    if c["id"] == sys.argv[2]: print(c[sys.argv[3]]); break' "$1" "$2" "$3"
}
has() { # TEXT WORDS: TEXT holds WORDS
	case "$1" in *"$2"*) return 0 ;; esac
	return 1
}
staging_of() { # NAME DATA-PATH [check options]: check --json into $T/NAME.json
	_n=$1 _p=$2
	shift 2
	manifest "$_p"
	"$J" check --json "$@" "$T/m.json" >"$T/$_n.json" 2>"$T/$_n.err"
	echo $? >"$T/$_n.rc"
}

staging_of small "$M/datasets/small"
jp_expect complete_data_passes_staging [ "$(field "$T/small.json" 'data[0].path.staging' status)" = pass ]
jp_expect few_files_pass_small_files [ "$(field "$T/small.json" 'data[0].path.small_files' status)" = pass ]

# --- a stage still running into the data path, then killed ----------------
D=$M/datasets/incoming
jp_bg "$T/stage.out" "$T/stage.err" "$J" stage --jobs 1 "$T/src" "$D"
stage_pid=$JP_PID
record_there() { ls "$T/export/datasets/.jobprep-tmp-staging-incoming/"*.json >/dev/null 2>&1; }
jp_poll 300 record_there
jp_expect stage_writes_its_record record_there
staging_of running "$D"
kill -0 "$stage_pid" 2>/dev/null && still=yes || still=no
msg=$(field "$T/running.json" 'data[0].path.staging' message)
echo "# while staging: $msg"
jp_expect running_stage_fails [ "$(field "$T/running.json" 'data[0].path.staging' status)" = fail ]
if [ $still = yes ]; then
	jp_expect running_stage_is_named_running has "$msg" "is still being staged"
else
	jp_skip running_stage_is_named_running "the stage ended before the check did"
fi
jp_expect running_stage_names_the_command has "$msg" "jobprep stage '$T/src' '$D'"
"$J" preflight "$T/m.json" >"$T/preflight.sh"
sh "$T/preflight.sh" >/dev/null 2>"$T/preflight.err"
jp_expect preflight_refuses_it [ $? = 1 ]
jp_expect preflight_names_the_check grep -q "^\[FAIL\] data\[0\]\.path\.staging: $D is not completely staged" "$T/preflight.err"

kill -9 "$stage_pid"
wait "$stage_pid" 2>/dev/null
stage_pid=
# its child (the work) goes with it: wait until no process holds the record's pid
rec_pid=$(python3 -c 'import json, glob, sys
print(json.load(open(glob.glob(sys.argv[1] + "/*.json")[0]))["pid"])' \
	"$T/export/datasets/.jobprep-tmp-staging-incoming")
gone() { ! kill -0 "$rec_pid" 2>/dev/null; }
jp_poll 300 gone
staging_of killed "$D"
msg=$(field "$T/killed.json" 'data[0].path.staging' message)
echo "# killed: $msg"
jp_expect killed_stage_fails [ "$(field "$T/killed.json" 'data[0].path.staging' status)" = fail ]
jp_expect killed_stage_is_named_stopped has "$msg" "stopped before it finished"
jp_expect killed_stage_says_run_it_again has "$msg" "run the same stage again to finish it: jobprep stage '$T/src' '$D'"
jp_expect killed_check_exits_1 [ "$(cat "$T/killed.rc")" = 1 ]

"$J" stage "$T/src" "$D" >"$T/again.out" 2>&1
jp_expect the_same_stage_finishes_it [ $? = 0 ]
jp_expect its_record_is_gone [ ! -e "$T/export/datasets/.jobprep-tmp-staging-incoming" ]
staging_of finished "$D"
jp_expect finished_stage_passes [ "$(field "$T/finished.json" 'data[0].path.staging' status)" = pass ]
jp_expect finished_check_exits_0 [ "$(cat "$T/finished.rc")" = 0 ]

# --- temporaries without a record ------------------------------------------
staging_of leftover "$M/datasets/leftover"
msg=$(field "$T/leftover.json" 'data[0].path.staging' message)
jp_expect temporary_inside_fails [ "$(field "$T/leftover.json" 'data[0].path.staging' status)" = fail ]
jp_expect temporary_inside_is_named has "$msg" "$M/datasets/leftover/.jobprep-tmp-part-3"
staging_of arch "$M/datasets/arch"
msg=$(field "$T/arch.json" 'data[0].path.staging' message)
jp_expect unpack_folder_beside_fails [ "$(field "$T/arch.json" 'data[0].path.staging' status)" = fail ]
jp_expect unpack_folder_beside_is_named has "$msg" "$M/datasets/.jobprep-tmp-unpack-arch"

# --- many tiny files: a warning with the figures ----------------------------
staging_of tiny "$M/datasets/tiny" --deep
msg=$(field "$T/tiny.json" 'data[0].path.small_files' message)
echo "# tiny: $msg"
jp_expect tiny_files_warn [ "$(field "$T/tiny.json" 'data[0].path.small_files' status)" = warn ]
jp_expect tiny_files_give_the_count has "$msg" "holds 30000 files in "
jp_expect tiny_files_give_the_median has "$msg" "median size about 64 B"
jp_expect tiny_files_say_pack_into_shards has "$msg" "pack them into shards"
jp_expect tiny_files_never_fail [ "$(cat "$T/tiny.rc")" = 0 ]
"$J" scan --json "$M/datasets/tiny" "$M/datasets/leftover" >"$T/scan.json" 2>/dev/null
jp_expect scan_gives_the_median_and_the_temporaries python3 -c 'import json, sys
a, b = json.load(open(sys.argv[1]))
assert a["median_bytes"] == 64 and a["small_files"] == 30000 and a["temporaries"] == 0, a
assert b["temporaries"] == 1, b' "$T/scan.json"
staging_of large "$M/datasets/large" --deep
jp_expect many_large_files_pass [ "$(field "$T/large.json" 'data[0].path.small_files' status)" = pass ]

# --- a mount that stops answering: check ends all the same ------------------
manifest "$M/datasets/small"
jp_sshfs_freeze "$T/sshd"
jp_bg "$T/hung.out" "$T/hung.err" env JOBPREP_PROBE_TIMEOUT_MS=1500 "$J" check --json "$T/m.json"
hung_pid=$JP_PID
jp_poll 600 jp_main_gone "$hung_pid"
jp_exits_while_hung check "$hung_pid" 1
jp_sshfs_thaw
for p in $JP_HUNG_LATE; do wait "$p" 2>/dev/null; done
jp_done
