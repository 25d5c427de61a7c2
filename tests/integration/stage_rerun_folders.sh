#!/bin/sh
# jobprep stage again onto its own copy: a folder nothing goes into and
# that already has the source's mode and times is left as it is (no chmod,
# no utimes: on network storage each is a round trip, two per folder on
# every re-run), which its ctime shows, unchanged; a folder something goes
# into gets the source's times back; one whose mode or times someone changed
# gets the source's again; a symlink put where a folder was is refused, not
# followed. On local disk, then (when it can run) on an sshfs mount with
# every cache off, where a folder is opened with one look-up and its mode
# and times come with it.
set -u
: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/ssh.sh"
cleanup() {
	if [ -n "${JP_SSHFS_PID:-}" ]; then
		jp_sshfs_umount "$T/mnt"
		wait "$JP_SSHFS_PID" 2>/dev/null
	fi
	[ -d "$T/sshd" ] && jp_sshd_stop "$T/sshd"
	chmod -R u+w "$T" 2>/dev/null
}
jp_scratch stage-rerun-folders cleanup

# the source: folders with old times, one read-only, a file in each
mkdir -p "$T/src/a/deep" "$T/src/b" "$T/src/ro" "$T/src/c" || exit 99
for d in a a/deep b ro c; do
	echo "$d" >"$T/src/$d/f"
done
# whole seconds: sshfs keeps no more
touch -d '2020-01-02 03:04:05' "$T"/src/*/f "$T/src/a/deep/f"
chmod 0555 "$T/src/ro"
touch -d '2020-01-02 03:04:05' "$T/src/a" "$T/src/a/deep" "$T/src/b" "$T/src/ro" "$T/src/c"

# ctimes DIR: every folder below DIR with its ctime
ctimes() { (cd "$1" && find . -mindepth 1 -type d -printf '%P %C@\n' | LC_ALL=C sort); }

# run LABEL SRV DEST: the checks of one destination (DEST as jobprep sees
# it, SRV the same folder on its own disk)
run() {
	_l=$1 _srv=$2 _dst=$3
	"$J" stage --json "$T/src" "$_dst" >"$T/$_l-first.json" 2>"$T/$_l-first.err"
	jp_expect "${_l}_first_exits_0" [ $? = 0 ]
	jp_show_if_failed "$T/$_l-first.err"
	ctimes "$_srv" >"$T/$_l-ct.before"
	jp_expect "${_l}_has_every_folder" [ "$(wc -l <"$T/$_l-ct.before")" = 5 ]
	# the ctimes would move within the same second otherwise unseen
	sleep 1.1

	"$J" stage --json "$T/src" "$_dst" >"$T/$_l-noop.json" 2>"$T/$_l-noop.err"
	jp_expect "${_l}_noop_exits_0" [ $? = 0 ]
	jp_expect "${_l}_noop_writes_nothing" [ "$(jp_json_get "$T/$_l-noop.json" written)" = 0 ]
	ctimes "$_srv" >"$T/$_l-ct.noop"
	jp_expect "${_l}_noop_leaves_every_folder_as_it_is" cmp -s "$T/$_l-ct.before" "$T/$_l-ct.noop"
	jp_show_if_failed "$T/$_l-ct.before" "$T/$_l-ct.noop"
	jp_tree_meta "$T/src" >"$T/meta.src"
	jp_tree_meta "$_srv" >"$T/$_l-meta.noop"
	jp_expect "${_l}_noop_copy_has_the_source_modes_and_times" cmp -s "$T/meta.src" "$T/$_l-meta.noop"

	# a new file in a/deep; b's mode and c's times changed at DEST
	echo new >"$T/src/a/deep/new"
	touch -d '2020-01-02 03:04:05' "$T/src/a/deep/new" "$T/src/a/deep"
	chmod 0700 "$_srv/b"
	touch -d '2001-01-01 00:00:00' "$_srv/c"
	"$J" stage --json "$T/src" "$_dst" >"$T/$_l-next.json" 2>"$T/$_l-next.err"
	jp_expect "${_l}_next_exits_0" [ $? = 0 ]
	jp_expect "${_l}_next_writes_the_new_file" [ "$(jp_json_get "$T/$_l-next.json" written)" = 1 ]
	jp_tree_meta "$T/src" >"$T/meta.src"
	jp_tree_meta "$_srv" >"$T/$_l-meta.next"
	jp_expect "${_l}_next_folders_get_the_source_modes_and_times" cmp -s "$T/meta.src" "$T/$_l-meta.next"
	jp_show_if_failed "$T/$_l-next.err" "$T/meta.src" "$T/$_l-meta.next"
	ctimes "$_srv" >"$T/$_l-ct.next"
	jp_expect "${_l}_next_leaves_the_folder_above_as_it_is" \
		[ "$(grep '^a ' "$T/$_l-ct.next")" = "$(grep '^a ' "$T/$_l-ct.before")" ]
	rm -f "$T/src/a/deep/new"
	touch -d '2020-01-02 03:04:05' "$T/src/a/deep"

	# a symlink where folder a was: refused, nothing written through it
	mkdir -p "$T/$_l-elsewhere"
	mv "$_srv/a" "$T/$_l-a.moved"
	ln -s "$T/$_l-elsewhere" "$_srv/a"
	"$J" stage "$T/src" "$_dst" >/dev/null 2>"$T/$_l-link.err"
	jp_expect "${_l}_symlinked_folder_exits_1" [ $? = 1 ]
	jp_expect "${_l}_symlinked_folder_named" grep -q 'a: Not a directory' "$T/$_l-link.err"
	jp_show_if_failed "$T/$_l-link.err"
	jp_expect "${_l}_nothing_through_the_symlink" [ -z "$(ls -A "$T/$_l-elsewhere")" ]
}

run local "$T/dst" "$T/dst"

if jp_ssh_available; then
	mkdir -p "$T/export" || exit 99
	jp_sshd_start "$T/sshd" || exit 99
	jp_sshfs_mount "$T/sshd" "$T/export" "$T/mnt" || exit 99
	# the source as it was
	rm -rf "$T/src/a/deep/new"
	run sshfs "$T/export/dst" "$T/mnt/dst"
fi
jp_done
