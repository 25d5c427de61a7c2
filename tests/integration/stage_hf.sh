#!/bin/sh
# jobprep stage hf://ORG/NAME DEST (issue 21, item 5) against a Hub on
# loopback (tests/lib/hf_hub.py: the revision API, resolve with its
# X-Repo-Commit / ETag / X-Linked-Etag / X-Linked-Size headers, LFS files
# redirected to a CDN on another host that takes ranges). The result is
# checked the way huggingface_hub loads it offline (tests/lib/hf_offline.py
# writes down the documented layout: python3-huggingface-hub is not in
# Debian 12): HF_HOME=DEST, refs/main the commit without a newline,
# snapshots/COMMIT/FILE relative symlinks into blobs/ named by SHA-256 or
# git blob id. Also: a re-run fetches nothing; several ranges for a large
# file; a run killed mid-file is resumed with Range, one interrupted
# (SIGINT) exits 130 with nothing under a final name; HF_TOKEN goes to the
# Hub and not to the CDN, and is never printed; a data set; a commit as
# revision; a renamed repository (relative redirects); an empty file, and
# one named with spaces, + and %; a corrupt
# LFS file and a corrupt small file are refused and leave no blob, no link,
# no ref; a sibling named ../x is refused with nothing written; a
# repository that is not there; a Hub that never answers is named as such.
set -u
: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/hfhub.sh"
jp_scratch stage-hf 'jp_hfhub_stop "$T/hub"'
unset HF_TOKEN HUGGING_FACE_HUB_TOKEN HF_HUB_CACHE JOBPREP_HTTP_TOKEN
R=$T/hub/models/acme/tiny
mkdir -p "$R/sub/dir" "$T/hub/datasets/acme/ds/data" "$T/hub/models/acme/bad" \
	"$T/hub/models/acme/badsmall" "$T/hub/models/acme/big" || exit 99
printf '{"model_type": "gpt2"}\n' >"$R/config.json"
cp "$R/config.json" "$R/copy.json"
printf 'tokens\n' >"$R/sub/dir/tok.txt"
: >"$R/empty.txt"
mkdir -p "$R/odd dir" && printf 'odd\n' >"$R/odd dir/a b+c%.txt"
head -c 3000000 /dev/urandom >"$R/model.safetensors"
head -c 17000000 /dev/urandom >"$T/hub/models/acme/big/weights.bin"
printf 'a,b\n1,2\n' >"$T/hub/datasets/acme/ds/data/train.csv"
head -c 1500000 /dev/urandom >"$T/hub/models/acme/bad/w.bin"
printf 'small\n' >"$T/hub/models/acme/badsmall/c.json"
jp_hfhub_start "$T/hub" || exit 99
HF_ENDPOINT=$HUB_URL
export HF_ENDPOINT
# the offline lookup, as a function: TOP_SRCDIR may hold a space
off() { python3 "$TOP_SRCDIR/tests/lib/hf_offline.py" "$@"; }
sha() { sha256sum <"$1" | cut -d' ' -f1; }
log() { cat "$T/hub/requests.log" 2>/dev/null; }

# --- a model: the cache layout huggingface_hub loads offline
D=$T/hf
"$J" stage --json hf://acme/tiny "$D" >"$T/1.json" 2>"$T/1.err"
jp_expect model_staged [ $? -eq 0 ]
jp_show_if_failed cat "$T/1.err"
C=$(jp_json_get "$T/1.json" commit)
jp_expect json_says_hub_and_commit sh -c '[ "$1" = hub ] && echo "$2" | grep -Eq "^[0-9a-f]{40}$"' \
	sh "$(jp_json_get "$T/1.json" kind)" "$C"
ok=yes
for f in config.json copy.json sub/dir/tok.txt model.safetensors empty.txt "odd dir/a b+c%.txt"; do
	out=$(off "$D" model acme/tiny "$f") || ok=no
	[ "${out##* }" = "$(sha "$R/$f")" ] || ok=no
done
jp_expect offline_load_finds_every_file [ $ok = yes ]
M=$D/hub/models--acme--tiny
jp_expect ref_is_the_commit_without_newline sh -c '[ "$(cat "$1")" = "$2" ] && [ "$(stat -c %s "$1")" -eq 40 ]' sh "$M/refs/main" "$C"
jp_expect nested_link_is_relative [ "$(readlink "$M/snapshots/$C/sub/dir/tok.txt")" = "../../../../blobs/$(git hash-object "$R/sub/dir/tok.txt")" ]
jp_expect lfs_blob_named_by_sha256 [ -f "$M/blobs/$(sha "$R/model.safetensors")" ]
jp_expect same_bytes_one_blob [ "$(ls "$M/blobs" | wc -l)" -eq 5 ]
jp_expect lfs_file_came_from_the_cdn sh -c 'grep -q "^127.0.0.2:[0-9]* GET /blob/$1 200" "$2"' sh "$(sha "$R/model.safetensors")" "$T/hub/requests.log"
jp_expect blobs_listed_no_head_per_file sh -c 'grep -q "GET /api/models/acme/tiny/revision/main?blobs=true 200" "$1" &&
	! grep -q "HEAD /acme/tiny/resolve/" "$1"' sh "$T/hub/requests.log"
jp_expect no_temporaries_left sh -c '[ -d "$1" ] && ! find "$1" -name ".jobprep-tmp*" | grep -q .' sh "$D"

# --- a re-run asks the revision and fetches nothing
: >"$T/hub/requests.log"
"$J" stage --json hf://acme/tiny "$D" >"$T/2.json" 2>"$T/2.err"
jp_expect rerun_fetches_nothing sh -c '[ $1 -eq 0 ] && [ "$2" = 0 ] &&
	[ "$(wc -l <"$3")" -eq 1 ] && grep -q "GET /api/models/acme/tiny/revision/main?blobs=true 200" "$3"' \
	sh $? "$(jp_json_get "$T/2.json" written)" "$T/hub/requests.log"

# --- a large file: several ranges at once from the CDN
: >"$T/hub/requests.log"
"$J" stage hf://acme/big "$T/big" >/dev/null 2>"$T/big.err"
out=$(off "$T/big" model acme/big weights.bin)
jp_expect large_file_staged [ "${out##* }" = "$(sha "$T/hub/models/acme/big/weights.bin")" ]
jp_show_if_failed cat "$T/big.err"
jp_expect large_file_in_ranges [ "$(grep -c '^127.0.0.2:.* GET /blob/.* 206 range=bytes=' "$T/hub/requests.log")" -ge 4 ]

# --- killed mid-file, then resumed where it stopped
echo '{"kbps": 300}' >"$T/hub/config.json"
rm -rf "$T/k"
"$J" stage hf://acme/tiny "$T/k" 2>/dev/null &
pid=$!
part=$T/k/hub/models--acme--tiny/blobs/.jobprep-tmp-$(sha "$R/model.safetensors")
_w=0
while [ $_w -lt 300 ] && [ "$(stat -c %s "$part" 2>/dev/null || echo 0)" -lt 100000 ]; do
	sleep 0.05
	_w=$((_w + 1))
done
kill -9 $pid
wait $pid 2>/dev/null
have=$(stat -c %s "$part" 2>/dev/null || echo 0)
echo "# killed after $have bytes"
echo '{}' >"$T/hub/config.json"
: >"$T/hub/requests.log"
"$J" stage hf://acme/tiny "$T/k" >/dev/null 2>"$T/k.err"
out=$(off "$T/k" model acme/tiny model.safetensors)
jp_expect killed_run_resumed sh -c '[ "$1" -gt 0 ] && [ "$2" = "$3" ] && grep -q "GET /blob/.* 206 range=bytes=[1-9]" "$4"' \
	sh "$have" "${out##* }" "$(sha "$R/model.safetensors")" "$T/hub/requests.log"
jp_show_if_failed cat "$T/k.err"

# --- Ctrl-C mid-file: 130, no blob under its name, no link, no ref
echo '{"kbps": 300}' >"$T/hub/config.json"
"$J" stage hf://acme/tiny "$T/i" 2>"$T/i.err" &
pid=$!
part=$T/i/hub/models--acme--tiny/blobs/.jobprep-tmp-$(sha "$R/model.safetensors")
_w=0
while [ $_w -lt 300 ] && [ "$(stat -c %s "$part" 2>/dev/null || echo 0)" -lt 50000 ]; do
	sleep 0.05
	_w=$((_w + 1))
done
kill -INT $pid
wait $pid
rc=$?
echo '{}' >"$T/hub/config.json"
M2=$T/i/hub/models--acme--tiny
jp_expect interrupted_exits_130_advertising_nothing sh -c '[ $1 -eq 130 ] && [ ! -e "$2/refs/main" ] &&
	[ ! -e "$2/blobs/$3" ] && [ ! -e "$2/snapshots" ]' sh $rc "$M2" "$(sha "$R/model.safetensors")"

# --- HF_TOKEN: to the Hub, not to the CDN, never printed
echo '{"token": "s3cret-hf"}' >"$T/hub/config.json"
"$J" stage hf://acme/tiny "$T/t0" >"$T/t0.out" 2>"$T/t0.err"
jp_expect no_token_refused_naming_HF_TOKEN sh -c '[ $1 -eq 1 ] && grep -q HF_TOKEN "$2"' sh $? "$T/t0.err"
: >"$T/hub/requests.log"
HF_TOKEN=s3cret-hf "$J" stage hf://acme/tiny "$T/t1" >"$T/t1.out" 2>"$T/t1.err"
jp_expect token_accepted [ $? -eq 0 ]
jp_expect token_sent_to_the_hub grep -q '^127.0.0.1:.* auth=yes' "$T/hub/requests.log"
jp_expect token_not_sent_to_the_cdn sh -c 'grep "^127.0.0.2" "$1" | grep -q . && [ -f "$1" ] && ! grep "^127.0.0.2" "$1" | grep -q auth=yes' sh "$T/hub/requests.log"
jp_expect token_never_printed jp_no_text s3cret "$T/t0.out" "$T/t0.err" "$T/t1.out" "$T/t1.err"
echo '{}' >"$T/hub/config.json"

# --- a data set, from a server that lists no blob ids (?blobs=true
# unknown): each file's HEAD says them
echo '{"noblobs": true}' >"$T/hub/config.json"
: >"$T/hub/requests.log"
"$J" stage hf://datasets/acme/ds "$T/ds" >/dev/null 2>"$T/ds.err"
out=$(off "$T/ds" dataset acme/ds data/train.csv)
jp_expect dataset_staged sh -c '[ "$1" = "$2" ] && grep -q "GET /api/datasets/acme/ds/revision/main" "$3" &&
	grep -q "HEAD /datasets/acme/ds/resolve/" "$3"' sh "${out##* }" "$(sha "$T/hub/datasets/acme/ds/data/train.csv")" "$T/hub/requests.log"

# --- a commit as the revision: no ref needed
"$J" stage "hf://acme/tiny@$C" "$T/c" >/dev/null 2>"$T/c.err"
jp_expect commit_revision_staged sh -c 'python3 "$1" "$2" model acme/tiny config.json "$3" >/dev/null && [ ! -e "$2/hub/models--acme--tiny/refs/main" ]' sh "$TOP_SRCDIR/tests/lib/hf_offline.py" "$T/c" "$C"

# --- a renamed repository: the Hub's relative redirects are followed, the
# cache keeps the name asked for (as huggingface_hub's does)
echo '{"renamed": {"acme/old": "acme/tiny"}, "noblobs": true}' >"$T/hub/config.json"
: >"$T/hub/requests.log"
"$J" stage hf://acme/old "$T/old" >/dev/null 2>"$T/old.err"
out=$(off "$T/old" model acme/old model.safetensors)
jp_expect renamed_repo_followed sh -c '[ "$1" = "$2" ] && grep -q "HEAD /acme/old/resolve/.* 307" "$3"' \
	sh "${out##* }" "$(sha "$R/model.safetensors")" "$T/hub/requests.log"
jp_show_if_failed cat "$T/old.err"

# --- corrupt bytes are refused, nothing advertised
echo '{"corrupt": ["w.bin", "c.json"]}' >"$T/hub/config.json"
"$J" stage hf://acme/bad "$T/bad" >/dev/null 2>"$T/bad.err"
jp_expect corrupt_lfs_refused sh -c '[ $1 -eq 1 ] && grep -q "SHA-256" "$2" &&
	[ -z "$(ls "$3/blobs")" ] && [ ! -e "$3/refs/main" ] && [ ! -e "$3/snapshots" ]' \
	sh $? "$T/bad.err" "$T/bad/hub/models--acme--bad"
"$J" stage hf://acme/badsmall "$T/bads" >/dev/null 2>"$T/bads.err"
jp_expect corrupt_small_file_refused sh -c '[ $1 -eq 1 ] && grep -q "git blob id" "$2" &&
	[ -z "$(ls "$3/blobs")" ] && [ ! -e "$3/refs/main" ]' sh $? "$T/bads.err" "$T/bads/hub/models--acme--badsmall"

# --- a sibling that leaves the snapshot is refused before anything is written
echo '{"extra": ["../../../../evil"]}' >"$T/hub/config.json"
"$J" stage hf://acme/tiny "$T/ev/x" >/dev/null 2>"$T/ev.err"
jp_expect hostile_name_refused sh -c '[ $1 -eq 1 ] && grep -q "will not write" "$2" && [ ! -e "$3/evil" ] &&
	[ -z "$(ls "$4/blobs")" ]' sh $? "$T/ev.err" "$T/ev" "$T/ev/x/hub/models--acme--tiny"
echo '{}' >"$T/hub/config.json"

# --- a repository that is not there; a name that is not one
"$J" stage hf://acme/nothere "$T/nx" >/dev/null 2>"$T/nx.err"
jp_expect missing_repo_named sh -c '[ $1 -eq 1 ] && grep -q "hf://acme/nothere: the revision: not found" "$2"' sh $? "$T/nx.err"
# --- --sha256 is for a URL; --jobs 1 fetches one file at a time
"$J" stage --sha256 "$(sha "$R/config.json")" hf://acme/tiny "$T/s256" >/dev/null 2>"$T/s256.err"
jp_expect sha256_option_refused sh -c '[ $1 -eq 2 ] && grep -q "\-\-sha256 is for an http(s) URL" "$2"' sh $? "$T/s256.err"
"$J" stage --jobs 1 hf://acme/tiny "$T/j1" >/dev/null 2>"$T/j1.err"
out=$(off "$T/j1" model acme/tiny model.safetensors)
jp_expect one_job_stages_too [ "${out##* }" = "$(sha "$R/model.safetensors")" ]

# --- a CDN whose 206 answers carry at most 1 MiB (issue 30): every blob
# still arrives whole, over ranges (17 MB) and resumed on one connection
# from a partial of 1 MiB (3 MB)
echo '{"cap": 1048576}' >"$T/hub/config.json"
"$J" stage hf://acme/big "$T/cap" >/dev/null 2>"$T/cap.err"
rc=$?
out=$(off "$T/cap" model acme/big weights.bin)
jp_expect capped_cdn_ranged_blob_whole sh -c '[ $1 -eq 0 ] && [ "$2" = "$3" ]' sh $rc "${out##* }" \
	"$(sha "$T/hub/models/acme/big/weights.bin")"
jp_show_if_failed cat "$T/cap.err"
s256=$(sha "$R/model.safetensors")
mkdir -p "$T/capk/hub/models--acme--tiny/blobs"
head -c 1048576 "$R/model.safetensors" >"$T/capk/hub/models--acme--tiny/blobs/.jobprep-tmp-$s256"
printf '"%s"\n' "$s256" >"$T/capk/hub/models--acme--tiny/blobs/.jobprep-tmp-$s256.validator"
"$J" stage hf://acme/tiny "$T/capk" >/dev/null 2>"$T/capk.err"
rc=$?
out=$(off "$T/capk" model acme/tiny model.safetensors)
jp_expect capped_cdn_resumed_blob_whole sh -c '[ $1 -eq 0 ] && [ "$2" = "$3" ]' sh $rc "${out##* }" "$s256"
jp_show_if_failed cat "$T/capk.err"
echo '{}' >"$T/hub/config.json"

# --- a Hub that takes the connection and never answers: the server is
# named, not DEST's storage (it answers)
SILENT=$(jp_free_port) || exit 99
python3 -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(16)
open(sys.argv[2], "w").write("up")
held = []
while True: held.append(s.accept()[0])' "$SILENT" "$T/silent.up" &
silent_pid=$!
_w=0
while [ ! -s "$T/silent.up" ] && [ $_w -lt 100 ]; do sleep 0.05; _w=$((_w + 1)); done
HF_ENDPOINT=http://127.0.0.1:$SILENT JOBPREP_PROBE_TIMEOUT_MS=500 "$J" stage --timeout 2 hf://acme/tiny "$T/sl" >/dev/null 2>"$T/sl.err"
rc=$?
kill $silent_pid 2>/dev/null
wait $silent_pid 2>/dev/null
jp_expect silent_hub_named_not_dest sh -c '[ $1 -eq 1 ] && grep -q "hf://acme/tiny: cannot reach .*: no answer, or less than 1 KiB/s, for 2 s (--timeout)" "$2" &&
	! grep -q "network mount" "$2"' sh $rc "$T/sl.err"
jp_show_if_failed cat "$T/sl.err"
"$J" stage 'hf://a/b/c' "$T/nx" >/dev/null 2>"$T/bad-name.err"
jp_expect bad_name_is_a_usage_error sh -c '[ $1 -eq 2 ] && grep -q "expected hf://ORG/NAME" "$2"' sh $? "$T/bad-name.err"
jp_done
