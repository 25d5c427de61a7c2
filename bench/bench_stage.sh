#!/bin/sh
# jobprep stage side by side with the tools a user would run instead, onto
# an sshfs mount of a loopback sshd with every cache off (testing.md), in
# one run, on the same data (issue 14's benchmarks):
#   1. a tree of small files (1 KiB to 1 MiB, log-uniform; JP_BENCH_MAX_KIB
#      for another top), into a new folder: vs `rsync -a`, `cp -a` and `rclone copy --transfers 32`
#      (when installed) (targets: <= 0.3x rsync, <= 0.5x the fastest);
#   2. the same again with nothing changed: vs a no-op `rsync -a`
#      (target <= 0.2x);
#   3. a .tar.gz of that tree unpacked onto the mount: vs `tar xzf -C`
#      (target <= 0.3x);
#   4. a few large files (JP_BENCH_LARGE_MIB each, default 64; the issue's
#      512 by hand): throughput vs the fastest of rsync, cp, rclone
#      (target >= 0.9x);
#   5. kill -9 half-way through the large files, then the resumed run: the
#      bytes it wrote vs what was left (target: at most the rest plus one
#      chunk per file in flight);
#   6. a download of JP_BENCH_DL_MIB (default 256; the issue's 1024 by
#      hand) from loopback lighttpd to local disk: vs `curl -o` (target
#      >= 0.9x curl's throughput; needs lighttpd and curl);
#   7. with JP_BENCH_RSS_FILES="20000 100000": jobprep's peak memory
#      copying trees of that many files on local disk, and rsync's (target:
#      the same whatever the tree size).
#   with jobprep's peak memory for each. Needs root (sshd, sshfs), rsync,
#   /usr/bin/time.
#   make bench BENCH=stage             # or: sh bench/bench_stage.sh
#   JP_BENCH_FILES=20000 ...           # the issue's size (default 2000: the
#                                      # machine is shared)
set -u

: "${JOBPREP:?run through make bench, or set JOBPREP}"
: "${TOP_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${TOP_BUILDDIR:=$TOP_SRCDIR}"
files=${JP_BENCH_FILES:-2000}
large_mib=${JP_BENCH_LARGE_MIB:-64}
dl_mib=${JP_BENCH_DL_MIB:-256}
dir=${JP_BENCH_DIR:-$TOP_BUILDDIR/bench/stage-data}
for t in /usr/bin/time rsync sshfs; do
	command -v "$t" >/dev/null 2>&1 || { echo "bench_stage: needs $t" >&2; exit 1; }
done
. "$TOP_SRCDIR/tests/lib/ssh.sh"
. "$TOP_SRCDIR/tests/lib/gitserv.sh" # jp_free_port, jp_listening
BENCH_NAME=bench_stage BENCH_DIR=$dir
. "$TOP_SRCDIR/bench/lib.sh"
jp_ssh_available || { echo "RESULT stage: skipped (needs root, sshd, sshfs, /dev/fuse)"; exit 0; }

rm -rf "$dir"
mkdir -p "$dir/remote"
cleanup() {
	bench_sshfs_stop "${mnt:-}" "${sshd_dir:-}"
	if [ -s "$dir/httpd.pid" ]; then
		_p=$(cat "$dir/httpd.pid")
		kill "$_p" 2>/dev/null
		jp_reap "$_p" "$dir/httpd.pid"
	fi
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# bytes_in DIR: of every file below DIR (0 when it is not there)
bytes_in() { find "$1" -type f -printf '%s\n' 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a < b ? a : b) }'; }
have_rclone=
command -v rclone >/dev/null 2>&1 && have_rclone=1

src=$dir/src
# the issue's small files: 1 KiB to 1 MiB (log-uniform: as many of 1-32 KiB
# as of 32 KiB-1 MiB, about 150 KiB on average), random bytes, 100 to a
# folder, 10 folders to a top one; the same tree in every run
python3 - "$src" "$files" "${JP_BENCH_MAX_KIB:-1024}" >"$dir/tree.done" <<'EOF' || exit 1
import os, random, sys
top, n, max_kib = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rnd = random.Random(14)
total = 0
for i in range(n):
    d = os.path.join(top, "t%02d" % (i // 1000), "d%04d" % (i // 100))
    if i % 100 == 0:
        os.makedirs(d)
    size = int(1024 * max_kib ** rnd.random())
    with open(os.path.join(d, "f%06d.bin" % i), "wb") as f:
        f.write(rnd.randbytes(size))
    total += size
print(n, total)
EOF
(cd "$src" && tar czf "$dir/tree.tar.gz" .) || exit 1
read -r n_files n_bytes <"$dir/tree.done"
sshd_dir=$dir/sshd
jp_sshd_start "$sshd_dir" || exit 1
mnt=$dir/mnt
jp_sshfs_mount "$sshd_dir" "$dir/remote" "$mnt" || exit 1
# Each run starts with nothing dirty in the page cache: else a tool pays
# for writing back the copies of the tools before it (the kernel holds a
# writer back while that much is dirty), and the later ones look slower.
settled_time() { sync; bench_time "$@"; }
echo "sshfs of a loopback sshd, $n_files files, $((n_bytes / 1048576)) MiB, every cache off:"

settled_time "rsync -a" rsync -a "$src/" "$mnt/rsync/"
t_rsync=$secs
settled_time "cp -a" cp -a "$src" "$mnt/cp"
t_cp=$secs
best=$(min "$t_rsync" "$t_cp")
t_rc=
if [ -n "$have_rclone" ]; then
	settled_time "rclone copy --transfers 32" rclone copy --links --transfers 32 "$src" "$mnt/rclone"
	t_rc=$secs
	best=$(min "$best" "$t_rc")
fi
settled_time "jobprep stage" "$JOBPREP" stage --no-progress "$src" "$mnt/jp"
t_jp=$secs m_jp=$kib
diff -r "$src" "$dir/remote/jp" >/dev/null || { echo "bench_stage: the staged copy differs" >&2; exit 1; }
echo "RESULT small files: $(bench_ratio "$t_jp" "$t_rsync")x rsync -a, $(bench_ratio "$t_jp" "$t_cp")x cp -a${t_rc:+, $(bench_ratio "$t_jp" "$t_rc")x rclone}, $(bench_ratio "$t_jp" "$best")x the fastest ($t_jp s vs $t_rsync s, $t_cp s${t_rc:+, $t_rc s}; targets <= 0.3x rsync, <= 0.5x the fastest), peak $((m_jp / 1024)) MiB"

settled_time "rsync -a (nothing changed)" rsync -a "$src/" "$mnt/rsync/"
t_rsync=$secs
settled_time "jobprep stage (nothing changed)" "$JOBPREP" stage --no-progress "$src" "$mnt/jp"
t_jp=$secs
echo "RESULT no-op re-run: $(bench_ratio "$t_jp" "$t_rsync")x rsync -a ($t_jp s vs $t_rsync s; target <= 0.2x)"

mkdir "$mnt/tar"
settled_time "tar xzf -C" tar xzf "$dir/tree.tar.gz" -C "$mnt/tar"
t_tar=$secs
settled_time "jobprep stage tree.tar.gz" "$JOBPREP" stage --no-progress "$dir/tree.tar.gz" "$mnt/jpx"
t_jp=$secs m_jp=$kib
diff -r "$src" "$dir/remote/jpx" >/dev/null || { echo "bench_stage: the unpacked tree differs" >&2; exit 1; }
echo "RESULT unpack: $(bench_ratio "$t_jp" "$t_tar")x tar xzf ($t_jp s vs $t_tar s; target <= 0.3x), peak $((m_jp / 1024)) MiB"

# --- a few large files: bandwidth
big=$dir/big
mkdir -p "$big"
for i in 1 2 3; do
	head -c $((large_mib * 1048576 + i)) /dev/urandom >"$big/large $i.bin"
done
lbytes=$(find "$big" -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')
echo "large files: 3 x $large_mib MiB (each tool twice, in one order then the other, its best):"
# Each run starts on a clean slate, the earlier copies removed on the
# server's side and flushed: else a later tool pays for writing back the
# earlier ones' gigabytes on the server (the kernel holds a writer back
# while that much is dirty), and whichever runs last looks slowest.
clean_slate() { rm -rf "$dir/remote"/big-*; sync; }
large_run() { # LABEL VAR DEST CMD...: the best time so far of LABEL into VAR
	_lr_label=$1 _lr_var=$2
	shift 2
	clean_slate
	bench_time "$_lr_label" "$@"
	eval "_lr_old=\${$_lr_var:-}"
	if [ -z "$_lr_old" ]; then eval "$_lr_var=$secs"; else eval "$_lr_var=$(min "$_lr_old" "$secs")"; fi
}
peers="rsync cp"
[ -n "$have_rclone" ] && peers="$peers rclone"
large_one() {
	case $1 in
	rsync) large_run "rsync -a" t_rsync rsync -a "$big/" "$mnt/big-rsync/" ;;
	cp) large_run "cp -a" t_cp cp -a "$big" "$mnt/big-cp" ;;
	rclone) large_run "rclone copy --transfers 32" t_rclone rclone copy --transfers 32 "$big" "$mnt/big-rclone" ;;
	jobprep)
		large_run "jobprep stage" t_jp "$JOBPREP" stage --no-progress "$big" "$mnt/big-jp"
		diff -r "$big" "$dir/remote/big-jp" >/dev/null ||
			{ echo "bench_stage: the large files differ" >&2; exit 1; } ;;
	esac
}
t_rsync= t_cp= t_rclone= t_jp=
for tool in $peers jobprep; do large_one "$tool"; done
for tool in jobprep $(echo "$peers" | awk '{ for (i = NF; i > 0; i--) printf "%s ", $i }'); do large_one "$tool"; done
clean_slate
best=$t_rsync
best=$(min "$best" "$t_cp")
[ -n "$t_rclone" ] && best=$(min "$best" "$t_rclone")
echo "RESULT large files: $(bench_ratio "$best" "$t_jp")x the fastest peer's throughput ($(bench_ratio $((lbytes / 1048576)) "$t_jp") MiB/s vs $(bench_ratio $((lbytes / 1048576)) "$best") MiB/s; best of two: jobprep $t_jp s, rsync $t_rsync s, cp $t_cp s${t_rclone:+, rclone $t_rclone s}; target >= 0.9x)"

# --- kill -9 half-way through the large files, then the rest
"$JOBPREP" stage --progress "$big" "$mnt/big-kill" 2>/dev/null &
pid=$!
part="$dir/remote/.jobprep-tmp-stage-big-kill"
w=0
while [ $w -lt 1200 ] && [ "$(bytes_in "$part")" -lt $((lbytes / 2)) ]; do
	sleep 0.05
	w=$((w + 1))
done
kill -9 $pid
wait $pid 2>/dev/null
there=$(bytes_in "$part")
"$JOBPREP" stage --json --no-progress "$big" "$mnt/big-kill" >"$dir/resume.json" 2>"$dir/err.out" ||
	{ echo "bench_stage: the resumed run failed:" >&2; cat "$dir/err.out" >&2; exit 1; }
wrote=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["bytes_written"])' "$dir/resume.json")
diff -r "$big" "$dir/remote/big-kill" >/dev/null || { echo "bench_stage: the resumed copy differs" >&2; exit 1; }
echo "RESULT resume after kill -9: wrote $wrote bytes, $((lbytes - there)) were left ($there of $lbytes there at the kill): $((wrote - (lbytes - there))) bytes more than the rest (target: at most one 512 KiB chunk per file in flight: 3 files here)"

# --- a download from loopback lighttpd, to local disk
if command -v lighttpd >/dev/null 2>&1 && command -v curl >/dev/null 2>&1; then
	mkdir -p "$dir/www" "$dir/dl"
	head -c $((dl_mib * 1048576)) /dev/urandom >"$dir/www/dl.bin"
	touch -d '1 hour ago' "$dir/www/dl.bin" # else lighttpd sends no validator
	port=$(jp_free_port)
	cat >"$dir/httpd.conf" <<C
server.document-root = "$dir/www"
server.bind = "127.0.0.1"
server.port = $port
server.pid-file = "$dir/httpd.pid"
server.errorlog = "$dir/httpd-error.log"
mimetype.assign = ( "" => "application/octet-stream" )
C
	lighttpd -f "$dir/httpd.conf" || exit 1
	w=0
	while [ $w -lt 50 ] && ! jp_listening "$port"; do
		sleep 0.1
		w=$((w + 1))
	done
	echo "download of $dl_mib MiB from loopback lighttpd to local disk (each twice, in opposite orders, its best; every run after a sync, with nothing of the other's left):"
	t_curl= t_curls= t_jp=
	dl_run() { # LABEL VAR CMD...
		_dl_label=$1 _dl_var=$2
		shift 2
		rm -f "$dir/dl/"*.bin
		sync
		bench_time "$_dl_label" "$@"
		eval "_dl_old=\${$_dl_var:-$secs}"
		eval "$_dl_var=$(min "$_dl_old" "$secs")"
	}
	url="http://127.0.0.1:$port/dl.bin"
	dl_curl() { dl_run "curl -o" t_curl curl -s -f -o "$dir/dl/curl.bin" "$url"; }
	# the same end as jobprep's: the bytes on disk, not only in the page cache
	dl_curls() { dl_run "curl -o, then sync -f" t_curls sh -c 'curl -s -f -o "$1" "$2" && sync -f "$1"' sh "$dir/dl/curl.bin" "$url"; }
	dl_jp() {
		dl_run "jobprep stage" t_jp "$JOBPREP" stage --no-progress "$url" "$dir/dl/jp.bin"
		m_jp=$kib
		cmp -s "$dir/www/dl.bin" "$dir/dl/jp.bin" || { echo "bench_stage: the download differs" >&2; exit 1; }
	}
	dl_curl
	dl_curls
	dl_jp
	dl_jp
	dl_curls
	dl_curl
	rm -f "$dir/dl/"*.bin
	echo "RESULT download: $(bench_ratio "$t_curls" "$t_jp")x the throughput of curl with the file flushed, as jobprep leaves it ($t_jp s vs $t_curls s), $(bench_ratio "$t_curl" "$t_jp")x plain curl's, which leaves it in the page cache ($t_curl s); best of two each; target >= 0.9x; peak $((m_jp / 1024)) MiB"
else
	echo "RESULT download: skipped (needs lighttpd and curl)"
fi

# --- peak memory by tree size, on local disk: the largest resident set
# (with the shared libraries' pages: about 11 MiB of jobprep's are
# libgit2, curl, gnutls, ICU and libc, there before anything is done), and
# the private memory of the whole run (rsync -a runs three processes)
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
for n in ${JP_BENCH_RSS_FILES:-}; do
	# sizes spread over 0-64 KiB from the first files on (mktree's i % 65521
	# grows with i: a 20,000-file tree would have no file over 20 KB, and
	# each writer's buffer is touched as far as the largest file it copies)
	python3 - "$dir/rss-$n" "$n" <<'EOF' || exit 1
import os, sys
top, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(top, "d%04d" % (i // 500))
    if i % 500 == 0:
        os.makedirs(d)
    with open(os.path.join(d, "f%06d" % i), "wb") as f:
        f.truncate(i * 2654435761 % 65521)
EOF
	settled_time "jobprep stage ($n files, local)" "$JOBPREP" stage --no-progress "$dir/rss-$n" "$dir/rss-$n-copy"
	m_jp=$kib
	rm -rf "$dir/rss-$n-copy"
	sync
	bench_private "jobprep stage ($n files, local)" "$JOBPREP" stage --no-progress "$dir/rss-$n" "$dir/rss-$n-copy"
	p_jp=$priv
	settled_time "rsync -a ($n files, local)" rsync -a "$dir/rss-$n/" "$dir/rss-$n-rsync/"
	m_rs=$kib
	rm -rf "$dir/rss-$n-rsync"
	sync
	bench_private "rsync -a ($n files, local)" rsync -a "$dir/rss-$n/" "$dir/rss-$n-rsync/"
	echo "RESULT peak memory, $n files: jobprep $(mib "$m_jp") MiB resident, $(mib "$p_jp") MiB private; rsync -a $(mib "$m_rs") MiB resident, $(mib "$priv") MiB private (jobprep holds at most 8,192 entries at once; target: the same whatever the tree size)"
	rm -rf "$dir/rss-$n" "$dir/rss-$n-copy" "$dir/rss-$n-rsync"
done
