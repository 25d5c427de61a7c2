#!/bin/sh
# `jobprep init` stages a data source that names where its data comes from
# (data[].origin.from in the answers) onto its path before the scan and the
# checks, through the same core as `jobprep stage`: a directory is copied, an
# archive unpacked, an http(s) URL downloaded (and unpacked) from lighttpd
# on loopback; the manifest records the origin (kind, digest, when); a
# re-run with the same answers writes nothing again (the staged files keep
# their inodes); a download's SHA-256 from the answers is checked; a
# failure says which source, exits 1 and writes no manifest; Ctrl-C while
# it stages exits 130 with no manifest and no temporary; a token in the URL
# is used for the download and never reaches the manifest, env.sh, the
# output or the error messages.
set -u
: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/filesrv.sh"
. "$TOP_SRCDIR/tests/lib/initscratch.sh"
command -v lighttpd >/dev/null 2>&1 || jp_skip_all "lighttpd is not installed"
command -v python3 >/dev/null 2>&1 || jp_skip_all "python3 is not installed"
T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-init-stage.XXXXXX") || exit 99
T=$(cd -P "$T" && pwd)
trap 'stop; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
jp_test_env "$T"
unset JOBPREP_HTTP_TOKEN
jp_init_scratch "$T" || exit 99
J=$JOBPREP
TOK=tok-5e1f0c9a77

# the data on "this machine" (outside the profile's roots)
mkdir -p "$T/home/corpus/子 dir" "$T/www"
printf 'one\n' >"$T/home/corpus/a.txt"
printf 'two\n' >"$T/home/corpus/子 dir/b.txt"
head -c 200000 /dev/urandom >"$T/home/corpus/c.bin"
(cd "$T/home/corpus" && tar czf "$T/home/corpus.tar.gz" .) || exit 99
cp "$T/home/corpus.tar.gz" "$T/www/corpus.tar.gz"
head -c 3000000 /dev/urandom >"$T/www/big.bin"
touch -d '1 hour ago' "$T/www/big.bin" "$T/www/corpus.tar.gz"

PORT=$(jp_free_port) || exit 99
# start KBPS: lighttpd on $PORT, throttled when KBPS > 0, logging each
# request's Authorization
start() { jp_filesrv_start "$T" "$PORT" "$1"; }
stop() { jp_filesrv_stop "$T"; }
start 0 || exit 99
URL=http://127.0.0.1:$PORT

# answers JOB PATH FROM [DIGEST]: an image job with one data source
answers() {
	dig=
	[ -n "${4:-}" ] && dig=", \"digest\": {\"algorithm\": \"sha256\", \"value\": \"$4\"}"
	cat >"$T/$1.json" <<A
{"job": {"name": "$1", "launch_command": "cd /workspace/app && python train.py"},
 "code": {"source": "image", "image": "registry.example.com/team/train:v1", "path": "/workspace/app"},
 "data": [{"path": "$2", "origin": {"from": "$3"$dig}}]}
A
}
init() {
	"$J" init --answers "$T/$1.json" --profile "$T/profile.json" >"$T/$1.out" 2>"$T/$1.err"
}
# origin JOB KEY: data[0].origin.KEY (digest: its value) of JOB's first run
origin() {
	python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))["data"][0].get("origin", {})
v = o.get(sys.argv[2])
print(v["algorithm"] + ":" + v["value"] if isinstance(v, dict) else (v or ""))' \
		"$T/shared/outputs/$1/run-001/job.json" "$2"
}
manifest() { echo "$T/shared/outputs/$1/run-001/job.json"; }

# --- a directory on this machine is copied onto shared storage
D=$T/shared/datasets/corpus
answers dir-job "$D" "$T/home/corpus"
init dir-job
jp_expect dir_exits_0 [ $? = 0 ]
jp_expect dir_copied diff -r "$T/home/corpus" "$D"
jp_expect dir_origin_from [ "$(origin dir-job from)" = "$T/home/corpus" ]
jp_expect dir_origin_kind [ "$(origin dir-job kind)" = dir ]
jp_expect dir_origin_staged_at sh -c 'echo "$1" | grep -q "^20[0-9-]*T[0-9:]*Z$"' sh "$(origin dir-job staged_at)"
jp_expect dir_scanned_after_staging \
	python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["data"][0]["stats"]; sys.exit(s["files"] != 3)' \
	"$(manifest dir-job)"
jp_expect dir_manifest_passes_check sh -c '"$1" check "$2" >/dev/null; [ $? -le 1 ]' sh "$J" "$(manifest dir-job)"
jp_expect dir_leaves_no_temporary jp_no_temporaries "$D"

# --- the same answers again: nothing is written again
ino_before=$(stat -c %i "$D/a.txt" "$D/子 dir/b.txt" "$D/c.bin" | tr '\n' ' ')
init dir-job
jp_expect rerun_exits_0 [ $? = 0 ]
jp_expect rerun_wrote_a_second_run [ -s "$T/shared/outputs/dir-job/run-002/job.json" ]
jp_expect rerun_rewrote_no_file [ "$(stat -c %i "$D/a.txt" "$D/子 dir/b.txt" "$D/c.bin" | tr '\n' ' ')" = "$ino_before" ]
printf 'three\n' >"$T/home/corpus/new.txt"
init dir-job
jp_expect rerun_brings_what_is_new cmp -s "$T/home/corpus/new.txt" "$D/new.txt"
jp_expect rerun_still_rewrote_nothing_else [ "$(stat -c %i "$D/a.txt" "$D/子 dir/b.txt" "$D/c.bin" | tr '\n' ' ')" = "$ino_before" ]
rm "$T/home/corpus/new.txt"

# --- an archive is unpacked
answers archive-job "$T/shared/datasets/unpacked" "$T/home/corpus.tar.gz"
init archive-job
jp_expect archive_exits_0 [ $? = 0 ]
jp_expect archive_unpacked diff -r "$T/home/corpus" "$T/shared/datasets/unpacked"
jp_expect archive_origin_kind [ "$(origin archive-job kind)" = archive ]

# --- an http URL: downloaded and unpacked, its SHA-256 checked and recorded
sum=$(sha256sum "$T/www/corpus.tar.gz" | cut -d' ' -f1)
answers url-job "$T/shared/datasets/fetched" "$URL/corpus.tar.gz" "$sum"
init url-job
jp_expect url_exits_0 [ $? = 0 ]
jp_expect url_unpacked diff -r "$T/home/corpus" "$T/shared/datasets/fetched"
jp_expect url_origin_kind [ "$(origin url-job kind)" = url ]
jp_expect url_origin_from [ "$(origin url-job from)" = "$URL/corpus.tar.gz" ]
jp_expect url_origin_digest [ "$(origin url-job digest)" = "sha256:$sum" ]
jp_expect url_leaves_no_temporary jp_no_temporaries "$T/shared/datasets"

answers badsum-job "$T/shared/datasets/badsum" "$URL/big.bin" "$(printf '%064d' 0)"
init badsum-job
jp_expect wrong_sha256_exits_1 [ $? = 1 ]
jp_expect wrong_sha256_says_so grep -q 'SHA-256 is' "$T/badsum-job.err"
jp_expect wrong_sha256_writes_no_manifest [ ! -e "$T/shared/outputs/badsum-job" ]
jp_expect wrong_sha256_leaves_nothing sh -c '[ -d "$1" ] && ! ls -A "$1" | grep -q badsum' sh "$T/shared/datasets"

# --- failures: a clear message naming the source, exit 1, no manifest
answers dead-job "$T/shared/datasets/dead" "http://127.0.0.1:$(jp_free_port)/x.tar.gz"
init dead-job
jp_expect dead_server_exits_1 [ $? = 1 ]
jp_expect dead_server_names_the_source grep -q 'data\[0\]: staging http://127.0.0.1:[0-9]*/x.tar.gz onto' "$T/dead-job.err"
jp_expect dead_server_writes_no_manifest [ ! -e "$T/shared/outputs/dead-job" ]
answers gone-job "$T/shared/datasets/gone" "$T/home/not-there"
init gone-job
jp_expect missing_source_exits_1 [ $? = 1 ]
jp_expect missing_source_says_so grep -q "$T/home/not-there does not exist: nothing to stage from" "$T/gone-job.err"
jp_expect missing_source_writes_no_manifest [ ! -e "$T/shared/outputs/gone-job" ]

printf '{"data": [{"path": "%s/shared/datasets/e", "origin": {}}]}\n' "$T" >"$T/empty-origin.json"
"$J" init --answers "$T/empty-origin.json" --profile "$T/profile.json" >/dev/null 2>"$T/empty-origin.err"
jp_expect origin_without_from_is_refused [ $? = 3 ]
jp_expect origin_without_from_names_the_field grep -q 'data\[0\]\.origin\.from: expected' "$T/empty-origin.err"

# --- a token in the URL: used, never written down or shown
: >"$T/access.log"
answers tok-job "$T/shared/datasets/tok" "http://me:$TOK@127.0.0.1:$PORT/corpus.tar.gz"
"$J" init --json --answers "$T/tok-job.json" --profile "$T/profile.json" >"$T/tok-job.out" 2>"$T/tok-job.err"
jp_expect token_url_exits_0 [ $? = 0 ]
stop
start 0 || exit 99
basic=$(printf 'me:%s' "$TOK" | base64)
jp_expect token_was_sent grep -q "authorization=Basic $basic" "$T/access.log"
jp_expect token_url_unpacked diff -r "$T/home/corpus" "$T/shared/datasets/tok"
jp_expect token_url_recorded_without_it [ "$(origin tok-job from)" = "$URL/corpus.tar.gz" ]
jp_expect token_in_no_file_of_the_run jp_no_text -rF "$TOK" "$T/shared/outputs/tok-job"
jp_expect token_not_printed jp_no_text -F "$TOK" "$T/tok-job.out" "$T/tok-job.err"
answers tokdead-job "$T/shared/datasets/tokdead" "http://me:$TOK@127.0.0.1:$(jp_free_port)/x.tar.gz"
init tokdead-job
jp_expect token_failure_exits_1 [ $? = 1 ]
jp_expect token_not_in_the_failure sh -c '[ -s "$2" ] && [ -f "$3" ] && ! grep -qF "$1" "$2" "$3"' sh "$TOK" "$T/tokdead-job.err" "$T/tokdead-job.out"

# --- Ctrl-C while a download trickles in: 130, no manifest, no temporary
stop
start 100 || exit 99
answers int-job "$T/shared/datasets/slow" "$URL/big.bin"
"$J" init --answers "$T/int-job.json" --profile "$T/profile.json" >"$T/int.out" 2>"$T/int.err" &
pid=$!
w=0
while [ $w -lt 200 ] && [ "$(stat -c %s "$T/shared/datasets/.jobprep-tmp-slow" 2>/dev/null || echo 0)" -lt 100000 ]; do
	sleep 0.05
	w=$((w + 1))
done
jp_expect interrupt_lands_mid_download [ "$(stat -c %s "$T/shared/datasets/.jobprep-tmp-slow" 2>/dev/null || echo 0)" -ge 100000 ]
kill -INT $pid
jp_wait_exit $pid 60
jp_expect interrupt_exits_130 [ "$JP_RC" = 130 ]
jp_expect interrupt_writes_no_manifest [ ! -e "$T/shared/outputs/int-job" ]
jp_expect interrupt_leaves_no_final_file [ ! -e "$T/shared/datasets/slow" ]
stop
start 0 || exit 99
init int-job
jp_expect after_interrupt_rerun_completes cmp -s "$T/www/big.bin" "$T/shared/datasets/slow"
jp_expect after_interrupt_no_temporary jp_no_temporaries "$T/shared/datasets"
jp_done
