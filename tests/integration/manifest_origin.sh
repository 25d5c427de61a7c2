#!/bin/sh
# A data source's origin (where jobprep staged it from: a path or a URL
# without credentials, what kind of source, a digest, when) is an additive
# part of schema_version 1: `check` accepts a manifest that records it and
# one written before it existed alike, and `show` prints it. (schema.sh
# holds the schema and the reader together on the samples.)
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/report.sh"
S=$TOP_SRCDIR/tests/data/manifests
T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-origin.XXXXXX") || exit 99
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT

"$JOBPREP" check "$S/valid/data_origin.json" >"$T/check.out" 2>"$T/check.err"
rc=$?
jp_expect check_reads_a_manifest_with_origins sh -c '[ "$1" = 0 ] || [ "$1" = 1 ]' sh "$rc"
jp_expect check_says_nothing_about_the_origin_on_stderr [ ! -s "$T/check.err" ]

"$JOBPREP" check "$S/valid/full.json" >/dev/null 2>"$T/old.err"
rc=$?
jp_expect check_still_reads_a_manifest_from_before_origins sh -c '[ "$1" = 0 ] || [ "$1" = 1 ]' sh "$rc"

"$JOBPREP" show "$S/valid/data_origin.json" >"$T/show.out" 2>"$T/show.err"
jp_expect show_exits_0 [ $? = 0 ]
jp_expect show_gives_a_dir_origin \
	grep -qxF '    staged from /home/me/corpus (dir) at 2026-12-01T12:00:00Z' "$T/show.out"
jp_expect show_gives_an_archive_origin_and_its_digest sh -c '
	grep -qxF "    staged from /home/me/corpus.tar.zst (archive) at 2026-12-01T12:00:01Z" "$1" &&
	grep -qxF "    xxh3-64 0123456789abcdef" "$1"' sh "$T/show.out"
jp_expect show_gives_a_url_origin \
	grep -qF 'staged from https://data.example.com/sets/big%20file.tar.gz?v=2 (url) at 2026-12-01T12:00:02.5Z' "$T/show.out"

"$JOBPREP" show "$S/valid/full.json" >"$T/show-old.out" 2>&1
jp_expect show_of_an_old_manifest_has_no_origin jp_no_text "staged from" "$T/show-old.out"

"$JOBPREP" check "$S/invalid/origin_from_url_with_token.json" >/dev/null 2>"$T/tok.err"
jp_expect a_token_in_an_origin_is_refused [ $? = 3 ]
jp_expect the_refusal_does_not_repeat_the_token jp_no_text "tok-9f3a" "$T/tok.err"
jp_done
