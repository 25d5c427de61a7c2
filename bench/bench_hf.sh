#!/bin/sh
# Issue 21, item 5, side by side, in one run, on the same data:
#   1. `jobprep stage hf://bench/model DEST` from a Hub on loopback
#      (tests/lib/hf_hub.py: revision API, resolve, LFS files redirected to
#      a CDN on 127.0.0.2 that takes ranges) vs `curl -L -o` of the same
#      files from the same resolve URLs, one after the other (what a script
#      does), and 8 at once (xargs -P 8, as huggingface_hub's
#      snapshot_download does); each also with the files flushed (sync -f),
#      as jobprep leaves them; each twice in opposite orders, its best. The
#      repository: JP_BENCH_HF_SHARDS (default 4) weight files of
#      JP_BENCH_HF_MIB (default 64) MiB and 20 small files (config,
#      tokenizer); and a data set of JP_BENCH_HF_SMALL (default 300) files of
#      1-16 KiB, where each file's round trips count. A Python server: both
#      tools meet the same one.
#   2. the time launch.hub_download's look at the code adds to `jobprep
#      init`: a project of JP_BENCH_PY_FILES (default 300) Python modules
#      of ~150 lines in 10 packages, all imported from train.py, one of them
#      calling from_pretrained; init with `python train.py` vs `python
#      solo.py` (a script that imports nothing), the same otherwise; medians
#      of JP_BENCH_RUNS (default 5) alternating runs; on local disk, and
#   3. on an uncached sshfs mount of a loopback sshd (needs root, sshd, sshfs).
#   make bench BENCH=hf             # or: sh bench/bench_hf.sh
set -u

: "${JOBPREP:?run through make bench, or set JOBPREP}"
: "${TOP_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${TOP_BUILDDIR:=$TOP_SRCDIR}"
shards=${JP_BENCH_HF_SHARDS:-4}
mib=${JP_BENCH_HF_MIB:-64}
pyfiles=${JP_BENCH_PY_FILES:-300}
runs=${JP_BENCH_RUNS:-5}
dir=${JP_BENCH_DIR:-$TOP_BUILDDIR/bench/hf-data}
for t in /usr/bin/time curl python3; do
	command -v "$t" >/dev/null 2>&1 || { echo "bench_hf: needs $t" >&2; exit 1; }
done
. "$TOP_SRCDIR/tests/lib/gitserv.sh" # jp_free_port, jp_listening
. "$TOP_SRCDIR/tests/lib/proc.sh"    # jp_reap
. "$TOP_SRCDIR/tests/lib/hfhub.sh"
BENCH_NAME=bench_hf BENCH_DIR=$dir
. "$TOP_SRCDIR/bench/lib.sh"

rm -rf "$dir"
mkdir -p "$dir/hub/models/bench/model/tokenizer" "$dir/out"
dir=$(cd -P "$dir" && pwd)
BENCH_DIR=$dir
cleanup() {
	jp_hfhub_stop "$dir/hub"
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a < b) ? a : b }'; }

# --- 1. the repository, the Hub, the two tools
R=$dir/hub/models/bench/model
i=0
while [ $i -lt "$shards" ]; do
	head -c $((mib * 1048576)) /dev/urandom >"$R/model-0000$i-of-0000$shards.safetensors"
	i=$((i + 1))
done
i=0
while [ $i -lt 20 ]; do
	head -c $((2000 + i * 500)) /dev/urandom | base64 >"$R/tokenizer/part$i.json"
	i=$((i + 1))
done
printf '{"model_type": "llama"}\n' >"$R/config.json"
# many small files: a data set of JP_BENCH_HF_SMALL (default 300) files
# of 1-16 KiB, where each file's round trips are what counts
small=${JP_BENCH_HF_SMALL:-300}
S=$dir/hub/datasets/bench/small
mkdir -p "$S/data"
python3 - "$S/data" "$small" <<'EOF'
import os, random, sys
rnd = random.Random(21)
for i in range(int(sys.argv[2])):
    with open(os.path.join(sys.argv[1], "part-%05d.jsonl" % i), "wb") as f:
        f.write(os.urandom(rnd.randint(1024, 16384)))
EOF

# $dir/curl.sh seq|par OUT LIST URL [sync]: every file of LIST with curl -L -o
# from URL/FILE into OUT, one after the other or 8 at once; then sync -f
cat >"$dir/curl.sh" <<'EOF'
mode=$1 out=$2 list=$3 url=$4
while read -r f; do mkdir -p "$out/$(dirname "$f")"; done <"$list"
if [ "$mode" = seq ]; then
	while read -r f; do curl -s -f -L -o "$out/$f" "$url/$f" || exit 1; done <"$list"
else
	xargs -P 8 -I{} curl -s -f -L -o "$out/{}" "$url/{}" <"$list" || exit 1
fi
[ -z "${5:-}" ] || sync -f "$out"
EOF
run() { # LABEL VAR CMD...
	_label=$1 _var=$2
	shift 2
	rm -rf "$dir/out/"*
	sync
	bench_time "$_label" "$@"
	eval "_old=\${$_var:-$secs}"
	eval "$_var=$(min "$_old" "$secs")"
}
# compare NAME SOURCE ROOT URL KIND ID DESCRIPTION: jobprep stage SOURCE vs
# curl of every file under ROOT from URL/FILE, each twice in opposite
# orders; the RESULT line
compare() {
	_name=$1 _src=$2 _root=$3 _url=$4 _kind=$5 _id=$6
	(cd "$_root" && find . -type f | sed 's|^\./||' | sort) >"$dir/files" || exit 1
	_one=$(head -n 1 "$dir/files")
	# warm the server's hashes, so no tool pays for them
	while read -r f; do curl -s -f -I "$_url/$f" >/dev/null; done <"$dir/files"
	echo "$7 from loopback, to local disk (each twice, in opposite orders, its best; every run after a sync, into an empty folder):"
	t_seq= t_seqs= t_par= t_pars= t_jp=
	run "curl -L -o, one after the other" t_seq sh "$dir/curl.sh" seq "$dir/out/c" "$dir/files" "$_url"
	run "curl one after the other, sync -f" t_seqs sh "$dir/curl.sh" seq "$dir/out/c" "$dir/files" "$_url" sync
	run "curl -L -o, 8 at once" t_par sh "$dir/curl.sh" par "$dir/out/c" "$dir/files" "$_url"
	run "curl 8 at once, then sync -f" t_pars sh "$dir/curl.sh" par "$dir/out/c" "$dir/files" "$_url" sync
	run "jobprep stage" t_jp "$JOBPREP" stage --no-progress "$_src" "$dir/out/hf"
	m_jp=$kib
	run "jobprep stage" t_jp "$JOBPREP" stage --no-progress "$_src" "$dir/out/hf"
	python3 "$TOP_SRCDIR/tests/lib/hf_offline.py" "$dir/out/hf" "$_kind" "$_id" "$_one" >/dev/null ||
		{ echo "bench_hf: the staged copy does not load" >&2; exit 1; }
	run "curl 8 at once, then sync -f" t_pars sh "$dir/curl.sh" par "$dir/out/c" "$dir/files" "$_url" sync
	run "curl -L -o, 8 at once" t_par sh "$dir/curl.sh" par "$dir/out/c" "$dir/files" "$_url"
	run "curl one after the other, sync -f" t_seqs sh "$dir/curl.sh" seq "$dir/out/c" "$dir/files" "$_url" sync
	run "curl -L -o, one after the other" t_seq sh "$dir/curl.sh" seq "$dir/out/c" "$dir/files" "$_url"
	rm -rf "$dir/out/"*
	echo "RESULT stage hf://, $_name: $(bench_ratio "$t_jp" "$t_seqs")x the time of curl one file after the other with the files flushed, as jobprep leaves them ($t_jp s vs $t_seqs s), $(bench_ratio "$t_jp" "$t_pars")x curl 8 at once flushed ($t_pars s); unflushed: $(bench_ratio "$t_jp" "$t_seq")x ($t_seq s), $(bench_ratio "$t_jp" "$t_par")x ($t_par s); best of two each; peak $((m_jp / 1024)) MiB"
}
jp_hfhub_start "$dir/hub" || { echo "bench_hf: the Hub did not start" >&2; exit 1; }
export HF_ENDPOINT=$HUB_URL
unset HF_TOKEN
compare "a model" hf://bench/model "$R" "$HUB_URL/bench/model/resolve/main" model bench/model \
	"a model of $(du -sm "$R" | cut -f1) MiB ($shards x $mib MiB LFS files, 21 small ones)"
compare "many small files" hf://datasets/bench/small "$S" "$HUB_URL/datasets/bench/small/resolve/main" \
	dataset bench/small "a data set of $small files of 1-16 KiB ($(du -sm "$S" | cut -f1) MiB)"

# --- 2. the code scan's cost in init
# outside any git checkout (a build tree may be one), on local disk
pdir=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-bench-hf.XXXXXX") || exit 1
pdir=$(cd -P "$pdir" && pwd)
trap 'cleanup; rm -rf "$pdir"' EXIT
P=$pdir/shared/projects/big
mkdir -p "$P" "$pdir/shared/outputs"
python3 - "$P" "$pyfiles" <<'EOF'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
per = max(1, n // 10)
body = "".join(
    "def f%d(x, y=None):\n    \"\"\"Step %d: see 'docs' #%d.\"\"\"\n    z = [x * %d for _ in range(3)]  # comment (\n    return {'k': z, \"s\": f'v{x}'}\n\n" % (i, i, i, i)
    for i in range(30))
train = ["import os, sys"]
for p in range(10):
    pkg = os.path.join(root, "pkg%d" % p)
    os.makedirs(pkg, exist_ok=True)
    mods = ["m%d" % m for m in range(per)]
    with open(os.path.join(pkg, "__init__.py"), "w") as f:
        f.write("".join("from . import %s\n" % m for m in mods))
    for m in mods:
        with open(os.path.join(pkg, m + ".py"), "w") as f:
            f.write("import torch\nimport numpy as np\nfrom .%s import *\n" % mods[0] + body)
    train.append("import pkg%d" % p)
with open(os.path.join(root, "pkg0", "m0.py"), "a") as f:
    f.write("from transformers import AutoModel\nmodel = AutoModel.from_pretrained('acme/llama-7b')\n")
with open(os.path.join(root, "train.py"), "w") as f:
    f.write("\n".join(train) + "\n")
with open(os.path.join(root, "solo.py"), "w") as f:
    f.write("print('alone')\n")
EOF
n_py=$(find "$P" -name '*.py' | wc -l)
printf '{"sandbox": true, "shared_roots": ["%s/shared"], "ephemeral_roots": []}\n' "$pdir" >"$dir/profile.json"
# scan_cost WHERE PROJECT: init with train.py vs solo.py in PROJECT, medians
# of $runs alternating runs, and the RESULT line
scan_cost() {
	for s in train.py solo.py; do
		printf '{"job": {"name": "big", "launch_command": "cd \\"$PROJECT_DIR\\" && python %s --out \\"$OUTPUT_DIR\\""}, "code": {"source": "shared_storage", "path": "%s"}}\n' \
			"$s" "$2" >"$dir/$s.json"
	done
	: >"$dir/t.train" && : >"$dir/t.solo"
	i=0
	while [ $i -lt "$runs" ]; do
		bench_measure "$dir/t.train" "$JOBPREP" init --force --answers "$dir/train.py.json" --profile "$dir/profile.json" || exit 1
		bench_measure "$dir/t.solo" "$JOBPREP" init --force --answers "$dir/solo.py.json" --profile "$dir/profile.json" || exit 1
		i=$((i + 1))
	done
	"$JOBPREP" init --force --json --answers "$dir/train.py.json" --profile "$dir/profile.json" 2>/dev/null |
		grep -q 'pkg0/m0.py:' || { echo "bench_hf: the scan did not find the call" >&2; exit 1; }
	a=$(bench_median "$dir/t.train")
	b=$(bench_median "$dir/t.solo")
	echo "RESULT code scan in init, $1: $n_py Python files read: init $a s with them vs $b s without (medians of $runs), +$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", a - b }') s, $(bench_ratio "$a" "$b")x"
}
scan_cost "local disk" "$P"

# --- 3. the same project on an uncached sshfs mount (where projects live)
. "$TOP_SRCDIR/tests/lib/ssh.sh"
if jp_ssh_available; then
	mkdir -p "$pdir/remote" "$pdir/shared/net"
	cp -a "$P" "$pdir/remote/big"
	sshd_dir=$pdir/sshd mnt=$pdir/shared/net
	trap 'bench_sshfs_stop "$mnt" "$sshd_dir"; cleanup; rm -rf "$pdir"' EXIT
	jp_sshd_start "$sshd_dir" || exit 1
	jp_sshfs_mount "$sshd_dir" "$pdir/remote" "$mnt" || exit 1
	scan_cost "uncached sshfs" "$mnt/big"
else
	echo "RESULT code scan in init, uncached sshfs: skipped (needs root, sshd, sshfs, /dev/fuse)"
fi
