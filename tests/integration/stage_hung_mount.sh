#!/bin/sh
# `jobprep stage` on a hung network mount (issue 11): a source or a
# destination on an sshfs mount whose ssh client is stopped (SIGSTOP:
# sshfs then holds every request it was sent, tests/lib/ssh.sh), in a mount
# namespace of the test's own. stage from there and onto there must end by
# itself with "PATH: no answer within N s" naming the path that is silent
# (exit 1, as clone and scan on a hung mount), leave nothing under the
# final name, and SIGTERM while it waits there must end it at once (143).
# Each case first proves jobprep (or its child) is really waiting in a FUSE
# request: it is judged on a hang, not on a quick failure. The stage's work
# runs in a child process that is what the mount keeps: jobprep itself
# exits, and its status is read, while the mount is still hung. Then ssh
# resumes, the mount unmounts cleanly, and a stage there succeeds.
set -u
. "$TOP_SRCDIR/tests/lib/ssh.sh" # and the reporters (jp_expect...), jp_poll
jp_sshfs_test_open T stage-hung "${1:-}"

# --- inside a private mount namespace -------------------------------------------
jp_hung_mount_env
J=$JOBPREP
trap 'jp_sshfs_close "$T/mnt"' EXIT

mkdir -p "$T/export/data/a" "$T/local/src/b" "$T/local/out" || exit 99
for i in 1 2 3 4 5 6; do
	head -c $((4096 * i)) /dev/urandom >"$T/export/data/a/f$i"
	head -c $((4096 * i)) /dev/urandom >"$T/local/src/b/g$i"
done
(cd "$T/local/src" && tar cf "$T/local/src.tar" b) || exit 99
jp_sshfs_mount "$T/sshd" "$T/export" "$T/mnt" || exit 99
[ -f "$T/mnt/data/a/f1" ] || { echo "the sshfs mount shows nothing"; exit 99; }

# Before hanging it: stage works from and onto the mount.
"$J" stage "$T/mnt/data" "$T/local/out/healthy" >"$T/healthy.out" 2>&1
jp_expect healthy_mount_stage_from_it diff -r "$T/export/data" "$T/local/out/healthy"
"$J" stage "$T/local/src" "$T/mnt/healthy" >"$T/healthy2.out" 2>&1
jp_expect healthy_mount_stage_onto_it diff -r "$T/local/src" "$T/export/healthy"

jp_sshfs_freeze "$T/sshd"

# stage_ends NAME SILENT SOURCE DEST: stage with a 1 s probe bound (4 s
# without a sign of life) is seen waiting in the mount, then ends by itself
# (the guard, 60 s, is far above the bound: only a hang reaches it), naming
# SILENT, with exit 1 and nothing at DEST (a DEST on the mount is looked
# at once it answers again: a look now would hang the test).
stage_ends() {
	_name=$1 _silent=$2
	JOBPREP_PROBE_TIMEOUT_MS=1000 "$J" stage "$3" "$4" </dev/null >"$T/$_name.out" 2>"$T/$_name.err" &
	pid=$!
	jp_poll 300 jp_in_fuse_request $pid
	jp_expect "${_name}_waits_in_the_mount" jp_in_fuse_request $pid
	jp_poll 600 jp_threads_gone $pid
	jp_expect "${_name}_on_hung_mount_ends_by_itself" jp_main_gone $pid
	jp_expect "${_name}_says_the_silent_path_did_not_answer" \
		grep -qF "$_silent: no answer within 4.0 s" "$T/$_name.err"
	jp_exits_while_hung "$_name" $pid 1
	case $4 in
	"$T/mnt"/*) ;;
	*) jp_expect "${_name}_leaves_nothing_under_the_final_name" [ ! -e "$4" ] ;;
	esac
}

stage_ends stage_from_hung_mount "$T/mnt/data" "$T/mnt/data" "$T/local/out/from-hung"
stage_ends stage_file_from_hung_mount "$T/mnt/data/a/f3" "$T/mnt/data/a/f3" "$T/local/out/f3"
stage_ends stage_onto_hung_mount "$T/mnt/staged" "$T/local/src" "$T/mnt/staged"
stage_ends stage_archive_onto_hung_mount "$T/mnt/unpacked" "$T/local/src.tar" "$T/mnt/unpacked"

# --- unpacking the archives inside a data set on the hung mount: the first
# look at the folder is bounded; it ends by itself, exit 1, saying so.
JOBPREP_PROBE_TIMEOUT_MS=1000 "$J" stage --unpack-archives "$T/mnt/data" </dev/null \
	>"$T/within.out" 2>"$T/within.err" &
pid=$!
jp_poll 300 jp_in_fuse_request $pid
jp_expect unpack_within_waits_in_the_mount jp_in_fuse_request $pid
jp_poll 600 jp_threads_gone $pid
jp_expect unpack_within_on_hung_mount_ends_by_itself jp_main_gone $pid
jp_expect unpack_within_on_hung_mount_names_the_folder \
	sh -c 'grep -F "$1" "$2" | grep -q "answer"' sh "$T/mnt/data" "$T/within.err"
jp_exits_while_hung unpack_within $pid 1

# --- init staging a data source (data[].origin.from) onto the hung mount:
# the same bounded stage; it ends by itself, says which path did not
# answer, exits 1 and writes no manifest.
printf '{"sandbox": true, "shared_roots": ["%s", "%s"]}\n' "$T/mnt" "$T/local" >"$T/profile.json"
cat >"$T/answers.json" <<A
{"job": {"name": "hung", "launch_command": "cd /workspace/app && python train.py"},
 "code": {"source": "image", "image": "registry.example.com/team/train:v1", "path": "/workspace/app"},
 "outputs": {"output_dir": "$T/local/outputs"},
 "data": [{"path": "$T/mnt/datasets/corpus", "origin": {"from": "$T/local/src"}}]}
A
JOBPREP_PROBE_TIMEOUT_MS=1000 "$J" init --answers "$T/answers.json" --profile "$T/profile.json" \
	-o "$T/local/job.json" </dev/null >"$T/init.out" 2>"$T/init.err" &
pid=$!
jp_poll 300 jp_in_fuse_request $pid
jp_expect init_stage_waits_in_the_mount jp_in_fuse_request $pid
jp_poll 600 jp_threads_gone $pid
jp_expect init_stage_on_hung_mount_ends_by_itself jp_main_gone $pid
jp_expect init_stage_on_hung_mount_says_no_answer grep -q "no answer" "$T/init.err"
jp_exits_while_hung init_stage $pid 1
jp_expect init_stage_on_hung_mount_writes_no_manifest [ ! -e "$T/local/job.json" ]

# --- SIGTERM while stage waits on the hung mount, with a bound far above
# the test's patience (120 s a probe): only the signal can end it.
JOBPREP_PROBE_TIMEOUT_MS=120000 "$J" stage "$T/local/src" "$T/mnt/term" >"$T/term.out" 2>"$T/term.err" &
jp_sigterm_while_hung stage $!

# --- resume the mount: nothing half-made under a final name there, and a
# stage onto it now succeeds.
jp_sshfs_thaw
for p in $JP_HUNG_LATE; do wait "$p"; done
jp_expect resumed_mount_answers [ -f "$T/mnt/data/a/f1" ]
for d in staged unpacked term; do
	jp_expect "nothing_named_${d}_after_the_hang" [ ! -e "$T/export/$d" ]
done
"$J" stage "$T/local/src" "$T/mnt/staged" >"$T/after.out" 2>&1
jp_expect stage_after_the_mount_resumed_succeeds diff -r "$T/local/src" "$T/export/staged"
jp_sshfs_unmounts_cleanly "$T/mnt"
jp_show_if_failed "$T"/*.out "$T"/*.err
jp_done
