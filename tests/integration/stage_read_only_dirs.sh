#!/bin/sh
# jobprep stage again onto a copy whose folders an earlier stage made
# read-only (they have the source's mode, 0555): the next prep's new and
# changed files go in all the same, and the folders are read-only again
# after, their times the source's. A re-stage failed there with "Permission
# denied" for anyone but root. A run that fails half-way puts the folders'
# modes back as they were. Run as nobody when the test is root (root
# writes into a read-only folder regardless).
set -u
: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/unpriv.sh"
jp_scratch stage-ro-dirs

if [ "$(id -u)" = 0 ]; then
	if why=$(jp_unpriv_unavailable); then
		jp_skip_all "$why"
	fi
	U=$(jp_unpriv_dir) || exit 99
	trap 'chmod -R u+w "$U" 2>/dev/null; rm -rf "$U"' EXIT
	jp_unpriv_jobprep "$U" || exit 99
	W=$U/work
	mkdir -p "$W" && chown nobody "$W" || exit 99
	as_user() { jp_unpriv_run "$U" "$@"; }
	J=$JP_UNPRIV_JOBPREP
else
	W=$T/work
	mkdir -p "$W" || exit 99
	as_user() { "$@"; }
	J=$JOBPREP
fi

# the source: a read-only folder with a read-only folder in it, and a
# read-only top
as_user sh -c '
	mkdir -p "$1/src/ro/inner" && echo one >"$1/src/ro/a" && echo two >"$1/src/ro/inner/b" &&
	chmod 0555 "$1/src/ro/inner" "$1/src/ro" && touch -d "2020-02-02 02:02:02" "$1/src/ro/inner" "$1/src/ro" &&
	echo top >"$1/src/t" && chmod 0555 "$1/src" && touch -d "2021-01-01 00:00:00" "$1/src"' sh "$W" || exit 99
S=$W/src
D=$W/dst

as_user "$J" stage "$S" "$D" >"$T/first.out" 2>"$T/first.err"
jp_expect first_stage_exits_0 [ $? = 0 ]
jp_expect first_stage_keeps_read_only_modes [ "$(stat -c %a "$D/ro" "$D/ro/inner" "$D")" = "555
555
555" ]

# the next prep: a new file in each read-only folder, a changed one
as_user sh -c '
	chmod u+w "$1" "$1/ro" "$1/ro/inner" && echo three >"$1/ro/new" && echo four >"$1/ro/inner/new" &&
	echo changed >"$1/ro/a" && echo top2 >"$1/new top" &&
	chmod 0555 "$1/ro/inner" "$1/ro" "$1" && touch -d "2020-03-03 03:03:03" "$1/ro/inner" "$1/ro" &&
	touch -d "2021-02-02 00:00:00" "$1"' sh "$S" || exit 99
as_user "$J" stage --json "$S" "$D" >"$T/second.json" 2>"$T/second.err"
rc=$?
jp_expect restage_into_read_only_folders_exits_0 [ "$rc" = 0 ]
jp_show_if_failed "$T/second.err"
jp_expect restage_writes_the_new_and_changed [ "$(jp_json_get "$T/second.json" written 2>/dev/null)" = 4 ]
jp_expect restage_copy_is_identical diff -r "$S" "$D"
jp_tree_meta "$S" >"$T/meta.src"
jp_tree_meta "$D" >"$T/meta.dst"
jp_expect restage_folders_read_only_again_with_their_times cmp -s "$T/meta.src" "$T/meta.dst"

# a run that fails half-way (a file it cannot read) leaves the folders as
# they were
as_user sh -c 'chmod u+w "$1" "$1/ro" && echo secret >"$1/ro/unreadable" && chmod 0 "$1/ro/unreadable" &&
	chmod 0555 "$1/ro" "$1"' sh "$S" || exit 99
as_user "$J" stage --jobs 1 "$S" "$D" >"$T/third.out" 2>"$T/third.err"
rc=$?
jp_expect failed_restage_exits_1 [ "$rc" = 1 ]
jp_expect failed_restage_names_the_file grep -q 'unreadable' "$T/third.err"
jp_expect failed_restage_puts_the_modes_back [ "$(stat -c %a "$D/ro" "$D/ro/inner" "$D")" = "555
555
555" ]
jp_done
