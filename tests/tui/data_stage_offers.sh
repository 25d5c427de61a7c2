#!/bin/sh
# The Data step offers to stage what the job could not use where it is, and
# runs it in the background as the clone runs: a folder on this machine's
# own disk ("copy it to {shared}/datasets/{name}?"), an archive ("unpack
# it?"), an http URL typed as the path ("download and unpack it?", from lighttpd on
# loopback, a token in the URL; the status line shows its bytes of the
# whole, rate and time to go). Each source's row shows its scan result
# (bytes, files, archives) once staged. Review waits for a download still
# running; the manifest records each origin, and the token reaches neither
# the screen once the offer is taken, the draft, nor the manifest.
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init data-stage
command -v lighttpd >/dev/null 2>&1 || jp_skip_all "lighttpd is not installed"
TOK=tok-41d7e2b9c3
D=$T/work/jobprep-demo
mkdir -p "$T/local/corpus/sub" "$T/local/pack" "$T/www"
printf 'one\n' >"$T/local/corpus/a.txt"
printf 'two\n' >"$T/local/corpus/sub/b.txt"
printf 'not an archive, named like one\n' >"$T/local/corpus/raw.tar.gz"
printf 'image\n' >"$T/local/pack/img0"
(cd "$T/local/pack" && tar czf "$T/local/images.tar.gz" .) || exit 99
head -c 1500000 /dev/urandom >"$T/www/blob.bin"
(cd "$T/www" && mkdir t && cp blob.bin t/ && tar cf "$T/www/text.tar" -C t . && rm -r t) || exit 99
touch -d '1 hour ago' "$T/www/text.tar"

PORT=$(jp_free_port) || exit 99
cat >"$T/httpd.conf" <<C
server.modules = ( "mod_accesslog" )
server.document-root = "$T/www"
server.bind = "127.0.0.1"
server.port = $PORT
server.pid-file = "$T/httpd.pid"
server.errorlog = "$T/httpd-error.log"
mimetype.assign = ( "" => "application/octet-stream" )
accesslog.filename = "$T/access.log"
accesslog.format = "\"%r\" %>s authorization=%{Authorization}i"
connection.kbytes-per-second = 150
C
lighttpd -f "$T/httpd.conf" || exit 99
tui_on_exit '[ -s "$T/httpd.pid" ] && kill "$(cat "$T/httpd.pid")" 2>/dev/null'
w=0
while [ $w -lt 50 ] && ! { [ -s "$T/httpd.pid" ] && jp_listening "$PORT"; }; do
	sleep 0.1
	w=$((w + 1))
done

tui_start 100 30 -- --demo
tui_walk_to 3

# --- a folder on this machine's own disk: copy it
tui_keys a
tui_must a_adds_a_source tui_wait "Data sources  (3)"
tui_type "$T/local/corpus"
tui_keys Enter
tui_must copy_is_offered tui_wait "[ Copy ]"
tui_must copy_goes_to_shared_datasets tui_wait_modal "shared/datasets/corpus now, in the background"
tui_keys Enter
# (tails: a long TMPDIR scrolls a field's start away)
tui_must path_becomes_the_copy tui_wait "jobprep-demo/shared/datasets/corpus "
tui_must from_is_shown tui_wait "local/corpus "
tui_must copied_then_scanned tui_wait "3 files  1 archive"
jp_expect copy_identical diff -r "$T/local/corpus" "$D/shared/datasets/corpus"

# --- an archive: unpack it
tui_keys BTab
tui_must back_on_the_list tui_wait "add a data source (a)"
tui_keys a
tui_must second_source tui_wait "Data sources  (4)"
tui_type "$T/local/images.tar.gz"
tui_keys Enter
tui_must unpack_is_offered tui_wait "[ Unpack ]"
tui_must unpack_goes_to_shared_datasets tui_wait_modal "shared/datasets/images now, in the background"
tui_keys Enter
tui_must unpacked_then_scanned tui_wait "1 file "
jp_expect unpacked_identical diff -r "$T/local/pack" "$D/shared/datasets/images"

# --- "not now": the path stays as typed, and Enter is not asked again
tui_keys BTab
tui_must back_on_the_list_again tui_wait "add a data source (a)"
tui_keys a
tui_must third_source tui_wait "Data sources  (5)"
tui_type "$T/local/pack"
tui_keys Enter
tui_must copy_offered_again tui_wait_modal "shared/datasets/pack now, in the background"
tui_keys n
tui_must declined_keeps_the_path tui_wait "local/pack "
# on this machine's own disk, or under /tmp (wiped): either way not for the job
judged() {
	_w=0
	while [ $_w -lt 200 ]; do
		tui_screen | grep -qE "own disk|wiped when it ends" && return 0
		sleep 0.05
		_w=$((_w + 1))
	done
	return 1
}
tui_must declined_is_judged judged
jp_expect declined_copies_nothing [ ! -e "$D/shared/datasets/pack" ]
tui_keys BTab
tui_must on_the_list tui_wait "add a data source (a)"
tui_keys d
tui_must declined_source_deleted tui_wait "Data sources  (4)"

# --- a URL typed as the path, with a token: download it, slowly
tui_keys a
tui_must url_source tui_wait "Data sources  (5)"
tui_type "http://me:$TOK@127.0.0.1:$PORT/text.tar"
tui_keys Enter
tui_must download_is_offered tui_wait "[ Download ]"
tui_must download_goes_to_shared_datasets tui_wait_modal "shared/datasets/text now, in the background"
# an archive's URL: unpacked there, and the offer says so (issue 30)
tui_must download_says_it_unpacks tui_wait_modal "Download it and unpack it into"
tui_keys Enter
tui_must download_runs tui_wait "staging..."
# the status line while it runs: bytes received of the whole, the rate,
# the time to go (issue 22; it showed "0%  downloading  ...  0/1,501,184")
received() {
	_w=0
	while [ $_w -lt 200 ]; do
		tui_screen | grep -qE "downloading +[1-9][0-9.]* (KiB|MiB)/1\.4 MiB +[0-9.]+ (KiB|MiB)/s +ETA [0-9]" &&
			return 0
		sleep 0.05
		_w=$((_w + 1))
	done
	return 1
}
tui_must download_shows_bytes_of_the_whole received
tui_screen | grep "downloading" | sed 's/^/# /'
tui_screen >"$T/staging.screen"
jp_expect token_gone_from_the_screen jp_no_text -F "$TOK" "$T/staging.screen"
tui_must from_shown_without_the_token tui_wait "  http://127.0.0.1:$PORT/text.tar"

# --- Review waits for it
tui_keys Tab Tab Tab Tab Tab Tab Tab Tab Tab Tab
tui_walk_on 3 6
tui_must review_waits_for_the_download tui_wait "Waiting for the background work"
tui_must review_shows_the_stage tui_wait "stage"
tui_must then_asks_to_create tui_wait "Create the run's directories" 120
tui_keys Enter
tui_must checks tui_wait "Checks:"
tui_must nothing_failed tui_wait " 0 failed" 60
DRAFT=$T/home/.local/state/jobprep/demo-draft.json
jp_expect draft_has_no_token sh -c '[ -s "$2" ] && ! grep -qF "$1" "$2"' sh "$TOK" "$DRAFT"
jp_expect draft_keeps_the_url_without_it grep -qF "\"http://127.0.0.1:$PORT/text.tar\"" "$DRAFT"
tui_keys Enter
tui_must written tui_wait "Manifest written:"
tui_keys Enter
rc=$(tui_wait_exit)
jp_expect exits_0 [ "$rc" = 0 ]
jp_expect downloaded_and_unpacked cmp -s "$T/www/blob.bin" "$D/shared/datasets/text/blob.bin"
# lighttpd writes its access log out when it stops
p=$(cat "$T/httpd.pid")
kill "$p"
jp_reap "$p" "$T/httpd.pid"
jp_expect token_was_used grep -q "authorization=Basic $(printf 'me:%s' "$TOK" | base64)" "$T/access.log"
m=$D/shared/outputs/demo/run-001/job.json
origins() {
	python3 -c '
import json, sys
for d in json.load(open(sys.argv[1]))["data"]:
    o = d.get("origin")
    if o:
        print(o["kind"], o["from"], d["path"], d["stats"]["files"])' "$1"
}
origins "$m" >"$T/origins"
sed 's/^/# /' "$T/origins"
jp_expect manifest_records_the_copy grep -qxF "dir $T/local/corpus $D/shared/datasets/corpus 3" "$T/origins"
jp_expect manifest_records_the_unpack grep -qxF "archive $T/local/images.tar.gz $D/shared/datasets/images 1" "$T/origins"
jp_expect manifest_records_the_download grep -qxF "url http://127.0.0.1:$PORT/text.tar $D/shared/datasets/text 1" "$T/origins"
jp_expect manifest_has_no_token jp_no_text -rF "$TOK" "$D/shared/outputs"
jp_expect stdout_has_no_token jp_no_text -F "$TOK" "$T/stdout" "$T/stderr"
tui_finish
