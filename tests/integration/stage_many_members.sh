#!/bin/sh
# jobprep stage ARCHIVE DEST with a hostile-by-size archive (issue 14): a
# .tar.gz of 100,000 tiny members in 100 folders (written by a few lines of
# python3 here, in about a second). It unpacks to the same tree as `tar xzf`
# (counts and `diff -r`), DEST appears whole with no temporary left in it or
# beside it, the peak memory stays under a stated bound that does not grow
# with the number of members (MAX_RSS_KIB; the writers hold at most 64 MiB
# of members, tiny ones far less), and a re-run writes nothing. As root it
# runs on a tmpfs of its own (a private mount namespace), so that what it
# times is the unpacker, not a shared disk busy with 200,000 creations;
# elsewhere in a disk folder (tests/lib/diskscratch.sh), slower on a loaded disk.
set -u
: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
command -v python3 >/dev/null 2>&1 || jp_skip_all "python3 is not installed"
if [ "${1:-}" != --in-tmpfs ] && ! jp_mountns_unavailable >/dev/null; then
	exec unshare -m --propagation private sh "$0" --in-tmpfs
fi
. "$TOP_SRCDIR/tests/lib/diskscratch.sh"
if [ "${1:-}" = --in-tmpfs ]; then
	T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-stage-many.XXXXXX") || exit 99
else
	# 200,000 tiny files (the unpack and tar's) take ~800 MiB of a tmpfs,
	# a page each: a /tmp that is one (CI's user run: 1 GiB, shared with
	# the tests beside) would be full; a disk folder, where there is one
	T=$(jp_disk_scratch jobprep-stage-many) ||
		T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-stage-many.XXXXXX") || exit 99
fi
if [ "${1:-}" = --in-tmpfs ]; then
	mount -t tmpfs -o size=4g,mode=700 jp-stage-many "$T" || exit 99
	trap 'umount "$T"; rm -rf "$T"' EXIT
else
	trap 'rm -rf "$T"' EXIT
fi
jp_test_env "$T"
J=$JOBPREP
DIRS=100
PER=1000
N=$((DIRS * PER))
MAX_RSS_KIB=131072 # 128 MiB

# gen OUT DIRS PER: a ustar .tar.gz, headers written by hand (tarfile
# takes several seconds for 100,000 members)
cat >"$T/gen.py" <<'PY'
import sys, zlib
def hdr(name, size, typ):
    h = bytearray(512)
    n = name.encode()
    h[0:len(n)] = n
    h[100:108] = b"%07o\0" % (0o755 if typ == b"5" else 0o644)
    h[108:116] = b"0000000\0"
    h[116:124] = b"0000000\0"
    h[124:136] = b"%011o\0" % size
    h[136:148] = b"%011o\0" % 1600000000
    h[148:156] = b" " * 8
    h[156:157] = typ
    h[257:265] = b"ustar\x0000"
    h[148:156] = b"%06o\0 " % sum(h)
    return bytes(h)
out = []
nd, nf = int(sys.argv[2]), int(sys.argv[3])
for d in range(nd):
    out.append(hdr("d %03d 数据/" % d, 0, b"5"))
    for i in range(nf):
        data = b"%d-%d\n" % (d, i)
        out.append(hdr("d %03d 数据/f%04d" % (d, i), len(data), b"0"))
        out.append(data + b"\0" * (512 - len(data)))
out.append(b"\0" * 1024)
c = zlib.compressobj(1, zlib.DEFLATED, 31)
with open(sys.argv[1], "wb") as f:
    f.write(c.compress(b"".join(out)))
    f.write(c.flush())
PY
# peak RUN...: run it, its peak RSS (KiB, getrusage of the child) into $T/rss
cat >"$T/peak.py" <<'PY'
import resource, subprocess, sys
rc = subprocess.call(sys.argv[2:])
open(sys.argv[1], "w").write("%d\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(rc)
PY
python3 "$T/gen.py" "$T/tiny.tar.gz" $DIRS $PER || exit 99
mkdir "$T/ref" "$T/out"
tar xzf "$T/tiny.tar.gz" -C "$T/ref" || exit 99
[ "$(find "$T/ref" -type f | wc -l)" = $N ] || exit 99

D="$T/out/目标 dir"
python3 "$T/peak.py" "$T/rss" "$J" stage --json --no-progress "$T/tiny.tar.gz" "$D" >"$T/run.json" 2>"$T/run.err"
rc=$?
cat "$T/run.err"
rss=$(cat "$T/rss")
echo "# 100,000 members: peak RSS ${rss} KiB (bound ${MAX_RSS_KIB} KiB)"
jp_expect many_members_exits_0 [ "$rc" = 0 ]
jp_expect many_members_counted [ "$(jp_json_get "$T/run.json" files)" = $N ]
jp_expect many_members_all_written [ "$(jp_json_get "$T/run.json" written)" = $N ]
jp_expect many_members_every_file_there [ "$(find "$D" -type f | wc -l)" = $N ]
jp_expect many_members_every_folder_there [ "$(find "$D" -mindepth 1 -type d | wc -l)" = $DIRS ]
jp_expect many_members_same_as_tar_x diff -r "$T/ref" "$D"
jp_expect many_members_mtimes_kept [ "$(stat -c %Y "$D/d 042 数据/f0420")" = 1600000000 ]
jp_expect many_members_no_temporary_beside jp_no_temporaries "$T/out"
jp_expect many_members_no_temporary_inside sh -c '[ -z "$(find "$1" -name ".jobprep-tmp*" | head -1)" ]' sh "$D"
# AddressSanitizer's allocator keeps what is freed (its quarantine) and adds
# shadow memory: a bound stated for jobprep's own allocations means nothing
# there (a sanitizer build ran at 127.7 and 128.0 MiB against 128)
if ldd "$J" 2>/dev/null | grep -q libasan; then
	ASAN_BUILD=1
	jp_skip many_members_memory_bounded "AddressSanitizer's allocator keeps what is freed (its quarantine)"
else
	ASAN_BUILD=0
	jp_expect many_members_memory_bounded [ "$rss" -lt $MAX_RSS_KIB ]
fi

# a re-run: every member already complete, nothing written
python3 "$T/peak.py" "$T/rss2" "$J" stage --json --no-progress "$T/tiny.tar.gz" "$D" >"$T/again.json" 2>/dev/null
rc=$?
echo "# the re-run: peak RSS $(cat "$T/rss2") KiB"
jp_expect rerun_exits_0 [ "$rc" = 0 ]
jp_expect rerun_writes_nothing [ "$(jp_json_get "$T/again.json" written)" = 0 ]
jp_expect rerun_skips_every_member [ "$(jp_json_get "$T/again.json" skipped)" = $N ]
if [ $ASAN_BUILD = 1 ]; then
	jp_skip rerun_memory_bounded "AddressSanitizer's allocator keeps what is freed (its quarantine)"
else
	jp_expect rerun_memory_bounded [ "$(cat "$T/rss2")" -lt $MAX_RSS_KIB ]
fi
jp_expect rerun_leaves_no_temporary jp_no_temporaries "$T/out"
jp_done
