#!/bin/sh
# jobprep stage ARCHIVE DEST unpacks exactly (issue 30), compared with GNU
# tar on the same archives, made here (tar, gzip, zip; python3's tarfile
# and zipfile for the hostile and the odd ones):
# - folders: those the archive does not list get a person's mkdir's mode
#   (the umask's; a set-gid folder's bit), those it lists their own; an
#   existing DEST (chmod 2775, as a team's folder) keeps its mode and owner
#   and gives what is unpacked into it its group,
#   from a local archive, from a URL's into DEST/ (lighttpd on loopback) and
#   with --unpack-archives; never 0700.
# - a hard link through a symlink already in DEST (a first archive's
#   `d -> ../victim`, then one whose hard link x points at d/secret.txt)
#   refuses the archive and links nothing outside; its twin, a hard link
#   that stays inside, unpacks.
# - duplicate names (`tar -r`, a zip holding a name twice, a file then a
#   folder, a folder then a file, a file then a symlink): the last member
#   wins, the same on the first run as on the second, as GNU tar.
# - a truncated archive exits 1 (not 3, which is for a manifest, answers or
#   profile); an archive downloaded and unpacked reports its data's bytes
#   and its download's apart.
set -u
: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/filesrv.sh"
command -v python3 >/dev/null 2>&1 || jp_skip_all "python3 is not installed"
tar --version 2>/dev/null | grep -q 'GNU tar' || jp_skip_all "GNU tar is not installed"
stop() { [ -n "${PORT:-}" ] && jp_filesrv_stop "$T"; }
jp_scratch stage-exact stop
unset JOBPREP_HTTP_TOKEN
umask 022

# modes DIR: each folder under DIR (DIR itself too) with its mode, sorted
modes() {
	(cd "$1" && find . -type d -printf '%p %m\n' | LC_ALL=C sort)
}

# --- modes, against GNU tar
mkdir -p "$T/src/small/sub" "$T/src/top"
printf 'hi\n' >"$T/src/small/sub/f"
printf 'a\n' >"$T/src/small/a"
printf 'x\n' >"$T/src/top/f"
chmod 0750 "$T/src/top"
(cd "$T/src" && tar czf "$T/small.tar.gz" small &&
	tar cf "$T/nodirs.tar" small/sub/f small/a &&
	tar cf "$T/top.tar" -C top .) || exit 99

# into an existing DEST a team made (2775): DEST as it was, the rest as tar
for a in small.tar.gz nodirs.tar; do
	mkdir -p "$T/m-$a/gnu" "$T/m-$a/jp"
	chmod 2775 "$T/m-$a/gnu" "$T/m-$a/jp"
	# as a user runs it (root's default, --same-permissions, clears a
	# set-gid bit the folders got from DEST)
	tar --no-same-permissions -xf "$T/$a" -C "$T/m-$a/gnu" || exit 99
	"$J" stage "$T/$a" "$T/m-$a/jp" >/dev/null 2>"$T/m-$a.err"
	jp_expect "existing_dest_${a}_exits_0" [ $? = 0 ]
	jp_expect "existing_dest_${a}_keeps_2775" [ "$(stat -c %a "$T/m-$a/jp")" = 2775 ]
	modes "$T/m-$a/gnu" >"$T/m-$a.gnu"
	modes "$T/m-$a/jp" >"$T/m-$a.jp"
	echo "# $a into a 2775 folder, GNU tar: $(tr '\n' ' ' <"$T/m-$a.gnu")"
	echo "# $a into a 2775 folder, jobprep: $(tr '\n' ' ' <"$T/m-$a.jp")"
	jp_expect "existing_dest_${a}_modes_as_gnu_tar" cmp -s "$T/m-$a.gnu" "$T/m-$a.jp"
done

# into a DEST without the set-gid bit in a folder with it (the unpack
# folder is made in the latter): no set-gid bit, as GNU tar
mkdir -p "$T/sgp/gnu" "$T/sgp/jp"
chmod 2775 "$T/sgp"
chmod g-s "$T/sgp/gnu" "$T/sgp/jp"
tar --no-same-permissions -xzf "$T/small.tar.gz" -C "$T/sgp/gnu" || exit 99
"$J" stage "$T/small.tar.gz" "$T/sgp/jp" >/dev/null 2>&1
jp_expect plain_dest_in_setgid_folder_exits_0 [ $? = 0 ]
modes "$T/sgp/gnu" >"$T/sgp.gnu"
modes "$T/sgp/jp" >"$T/sgp.jp"
echo "# small.tar.gz into a 0755 folder in a 2775 one, GNU tar: $(tr '\n' ' ' <"$T/sgp.gnu"), jobprep: $(tr '\n' ' ' <"$T/sgp.jp")"
jp_expect plain_dest_in_setgid_folder_as_gnu_tar cmp -s "$T/sgp.gnu" "$T/sgp.jp"

# into a set-gid DEST of another group (root gives it one): what is made
# there has its group, as a file a person makes there has
if [ "$(id -u)" = 0 ]; then
	mkdir -p "$T/grp/team"
	chgrp 4242 "$T/grp/team" && chmod 2775 "$T/grp/team" || exit 99
	: >"$T/grp/team/made-here"
	"$J" stage "$T/small.tar.gz" "$T/grp/team" >/dev/null 2>"$T/grp.err"
	jp_expect setgid_dest_exits_0 [ $? = 0 ]
	jp_expect setgid_dest_group_everywhere sh -c '[ -z "$(find "$1" ! -group 4242)" ]' sh "$T/grp/team"
	jp_show_if_failed "$T/grp.err"
else
	jp_skip setgid_dest_group "needs root, to give a folder another group"
fi

# into a new DEST: unlisted folders (DEST too) as mkdir makes them
mkdir -p "$T/n/gnu" "$T/n/jp"
tar xf "$T/nodirs.tar" -C "$T/n/gnu" || exit 99
"$J" stage "$T/nodirs.tar" "$T/n/jp/d" >/dev/null 2>"$T/n.err"
jp_expect new_dest_exits_0 [ $? = 0 ]
mkdir "$T/n/mkdir-made"
jp_expect new_dest_mode_as_mkdir [ "$(stat -c %a "$T/n/jp/d")" = "$(stat -c %a "$T/n/mkdir-made")" ]
modes "$T/n/gnu/small" >"$T/n.gnu"
modes "$T/n/jp/d/small" >"$T/n.jp"
echo "# nodirs.tar, unlisted folders, GNU tar: $(tr '\n' ' ' <"$T/n.gnu"), jobprep: $(tr '\n' ' ' <"$T/n.jp")"
jp_expect unlisted_folders_as_gnu_tar cmp -s "$T/n.gnu" "$T/n.jp"
# the twin: a "./" the archive lists gives a new DEST its mode (0750)
"$J" stage "$T/top.tar" "$T/n/jp/top" >/dev/null 2>&1
jp_expect listed_top_gives_new_dest_its_mode [ "$(stat -c %a "$T/n/jp/top")" = 750 ]

# --unpack-archives: the data set's folder as it was, the new one as mkdir's
mkdir -p "$T/within"
chmod 2775 "$T/within"
cp "$T/nodirs.tar" "$T/within/nodirs.tar"
"$J" stage --unpack-archives "$T/within" >/dev/null 2>"$T/within.err"
jp_expect unpack_archives_exits_0 [ $? = 0 ]
jp_expect unpack_archives_keeps_the_folder [ "$(stat -c %a "$T/within")" = 2775 ]
jp_expect unpack_archives_new_folder_as_mkdir [ "$(stat -c %a "$T/within/nodirs")" = 2755 ]

# --- a hard link through a symlink already in DEST
cat >"$T/mk.py" <<'PY'
import io, sys, tarfile, zipfile
def add(t, name, data=None, **kw):
    i = tarfile.TarInfo(name)
    for k, v in kw.items():
        setattr(i, k, v)
    if data is not None:
        i.size = len(data)
        t.addfile(i, io.BytesIO(data))
    else:
        t.addfile(i)
D, L, H = tarfile.DIRTYPE, tarfile.SYMTYPE, tarfile.LNKTYPE
tars = {
    "first": [("d", None, {"type": L, "linkname": "../victim"}),
              ("real/secret.txt", b"inside\n", {}),
              ("e", None, {"type": L, "linkname": "real"})],
    "outside": [("x", None, {"type": H, "linkname": "d/secret.txt"})],
    "inner": [("z", None, {"type": H, "linkname": "e/secret.txt"})],
    "twin": [("y", None, {"type": H, "linkname": "real/secret.txt"})],
    "filedir": [("x", b"one\n", {}), ("x", None, {"type": D, "mode": 0o755}),
                ("x/in", b"in\n", {})],
    "dirfile": [("x", None, {"type": D, "mode": 0o755}), ("x", b"two\n", {})],
    "filelink": [("x", b"one\n", {}), ("x", None, {"type": L, "linkname": "y"})],
    "linkfile": [("x", None, {"type": L, "linkname": "y"}), ("x", b"two\n", {})],
    "distinct": [("x", b"one\n", {}), ("y", None, {"type": D, "mode": 0o755}),
                 ("y/in", b"in\n", {}), ("z", None, {"type": L, "linkname": "x"})],
}
out = sys.argv[1]
for name, members in tars.items():
    with tarfile.open("%s/%s.tar.gz" % (out, name), "w:gz") as t:
        for n, data, kw in members:
            add(t, n, data, **kw)
# a zip holding one name twice (zipfile warns, and writes both)
import warnings
warnings.simplefilter("ignore")
with zipfile.ZipFile(out + "/twice.zip", "w") as z:
    z.writestr("f.txt", b"first\n")
    z.writestr("f.txt", b"second, the last\n")
with zipfile.ZipFile(out + "/once.zip", "w") as z:
    z.writestr("f.txt", b"first\n")
    z.writestr("g.txt", b"second, the last\n")
PY
python3 "$T/mk.py" "$T" || exit 99
mkdir -p "$T/hl/victim"
printf 'secret\n' >"$T/hl/victim/secret.txt"
"$J" stage "$T/first.tar.gz" "$T/hl/D" >/dev/null 2>&1
jp_expect first_with_symlinks_exits_0 [ $? = 0 ]
"$J" stage "$T/outside.tar.gz" "$T/hl/D" >/dev/null 2>"$T/outside.err"
rc=$?
echo "# hard link through d -> ../victim: exit $rc: $(cat "$T/outside.err")"
jp_expect hard_link_through_symlink_refused [ "$rc" = 1 ]
jp_expect hard_link_through_symlink_says_so grep -q 'member "x" is a hard link to "d/secret.txt", which is reached through a symlink' "$T/outside.err"
jp_expect hard_link_links_nothing_outside [ "$(stat -c %h "$T/hl/victim/secret.txt")" = 1 ]
jp_expect hard_link_not_made sh -c '[ ! -e "$1/x" ] && [ ! -L "$1/x" ]' sh "$T/hl/D"
jp_expect hard_link_refusal_leaves_no_unpack_folder [ ! -e "$T/hl/.jobprep-tmp-unpack-D" ]
# DEST is as it was: no record says a stage of it is unfinished
jp_expect hard_link_refusal_leaves_no_staging_record jp_no_temporaries "$T/hl"
# a symlink that stays inside DEST is no way for a hard link either
"$J" stage "$T/inner.tar.gz" "$T/hl/D" >/dev/null 2>"$T/inner.err"
jp_expect hard_link_through_inner_symlink_refused [ $? = 1 ]
jp_expect hard_link_through_inner_symlink_not_made [ ! -e "$T/hl/D/z" ]
# the twin: a hard link that stays inside DEST is made
"$J" stage "$T/twin.tar.gz" "$T/hl/D" >/dev/null 2>"$T/twin.err"
jp_expect hard_link_inside_exits_0 [ $? = 0 ]
jp_expect hard_link_inside_shares_the_inode [ "$(stat -c %i "$T/hl/D/y")" = "$(stat -c %i "$T/hl/D/real/secret.txt")" ]
jp_expect hard_link_inside_leaves_no_staging_record jp_no_temporaries "$T/hl"

# --- duplicate names: the last member wins, the first run as the second
mkdir -p "$T/r"
printf 'one\n' >"$T/r/f"
(cd "$T/r" && tar cf "$T/appended.tar" f) || exit 99
printf 'two, appended\n' >"$T/r/f"
(cd "$T/r" && tar rf "$T/appended.tar" f) || exit 99
for a in appended.tar filedir.tar.gz dirfile.tar.gz filelink.tar.gz linkfile.tar.gz distinct.tar.gz; do
	mkdir -p "$T/dup-$a/gnu" "$T/dup-$a/jp"
	tar xf "$T/$a" -C "$T/dup-$a/gnu" || exit 99
	for run in first second; do
		"$J" stage "$T/$a" "$T/dup-$a/jp/d" >/dev/null 2>"$T/dup-$a.$run.err"
		jp_expect "dup_${a}_${run}_run_exits_0" [ $? = 0 ]
		jp_expect "dup_${a}_${run}_run_as_gnu_tar" diff -r --no-dereference "$T/dup-$a/gnu" "$T/dup-$a/jp/d"
		jp_show_if_failed "$T/dup-$a.$run.err"
	done
done
for a in twice once; do
	for run in first second; do
		"$J" stage "$T/$a.zip" "$T/zip-$a" >/dev/null 2>"$T/zip-$a.$run.err"
		jp_expect "zip_${a}_${run}_run_exits_0" [ $? = 0 ]
	done
done
jp_expect zip_twice_the_last_wins grep -qx 'second, the last' "$T/zip-twice/f.txt"
jp_expect zip_once_both_there sh -c 'grep -qx first "$1/f.txt" && grep -qx "second, the last" "$1/g.txt"' sh "$T/zip-once"

# --- a truncated archive: exit 1, nothing left; its whole twin unpacks
head -c 4096 /dev/urandom >"$T/r/blob"
(cd "$T/r" && tar czf "$T/whole.tar.gz" blob f) || exit 99
head -c 1500 "$T/whole.tar.gz" >"$T/cut.tar.gz"
mkdir -p "$T/cut"
"$J" stage "$T/cut.tar.gz" "$T/cut/d" >/dev/null 2>"$T/cut.err"
rc=$?
echo "# truncated archive: exit $rc: $(cat "$T/cut.err")"
jp_expect truncated_exits_1 [ "$rc" = 1 ]
jp_expect truncated_says_unreadable grep -q 'not a readable archive' "$T/cut.err"
jp_expect truncated_leaves_nothing jp_dir_empty "$T/cut"
"$J" stage "$T/whole.tar.gz" "$T/cut/d" >/dev/null 2>&1
jp_expect whole_twin_exits_0 [ $? = 0 ]

# --- an archive's URL into DEST/ (a team's 2775 folder): DEST keeps its
# mode; the data's bytes and the download's apart
if command -v lighttpd >/dev/null 2>&1; then
	mkdir -p "$T/www" "$T/pub/team"
	chmod 2775 "$T/pub/team"
	head -c 300000 /dev/urandom >"$T/r/big"
	(cd "$T/r" && tar czf "$T/www/data.tar.gz" big f) || exit 99
	PORT=$(jp_free_port) || exit 99
	jp_filesrv_start "$T" "$PORT" || exit 99
	"$J" stage --json "http://127.0.0.1:$PORT/data.tar.gz" "$T/pub/team/" >"$T/url.json" 2>"$T/url.err"
	jp_expect url_archive_exits_0 [ $? = 0 ]
	jp_show_if_failed "$T/url.err"
	jp_expect url_archive_keeps_dest_2775 [ "$(stat -c %a "$T/pub/team")" = 2775 ]
	jp_expect url_archive_data_bytes [ "$(jp_json_get "$T/url.json" bytes_written)" = $((300000 + 14)) ]
	jp_expect url_archive_download_bytes [ "$(jp_json_get "$T/url.json" bytes_downloaded)" = "$(stat -c %s "$T/www/data.tar.gz")" ]
	"$J" stage "http://127.0.0.1:$PORT/data.tar.gz" "$T/pub/again" >"$T/url.out" 2>&1
	jp_expect url_archive_says_written_apart sh -c 'grep -q "2 written (293.0 KiB)" "$1" && grep -q "the archive: .* downloaded" "$1"' sh "$T/url.out"
	jp_show_if_failed "$T/url.out"
else
	jp_skip url_archive "lighttpd is not installed"
fi
jp_done
