#!/bin/sh
# The job's runtime in the run's preflight.sh (src/preflight_runtime.sh), as
# Workers run it, each fault beside its healthy twin:
# - `jobprep init` records what the code needs of python3 (code.python: a
#   third-party module, not the project's own nor the standard library's;
#   the version a `match` needs; DataLoader workers) and prints a launch
#   line whose input is closed;
# - python3 (a venv made --without-pip) without a module the code imports
#   fails naming it, the same venv with it passes; a version above the
#   Worker's fails; a Worker without python3 says so once and goes on;
# - a 64 MiB tmpfs at /dev/shm with DataLoader workers fails, 2 GiB passes;
#   `ulimit -n 256` fails, 4096 passes;
# - Workers as network namespaces joined by a veth pair on a private subnet:
#   NCCL_SOCKET_IFNAME/GLOO_SOCKET_IFNAME naming an interface the Worker has
#   not (or has down) fail, naming one it has (NCCL's prefix) passes;
#   NCCL_IB_HCA naming an adapter it has not fails; two Workers meet at
#   MASTER_ADDR:MASTER_PORT and pass, a Worker in a namespace with no route
#   fails naming itself and rank 0 names it, a real listener on rank 0's
#   port fails, a MASTER_ADDR under .invalid fails;
# - GPUs the driver lists (a tmpfs at /proc/driver) other than the job's
#   gpus_per_worker fail, as many pass;
# - a terminal at the Worker's standard input fails, /dev/null passes;
# - `jobprep check --json` warns of the modules, /dev/shm and interfaces as
#   this machine sees them, and not for the healthy twin.
# The single-Worker cases run under dash, bash and busybox sh.
set -u

if [ "${1:-}" != inside ]; then
	: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
	. "$TOP_SRCDIR/tests/lib/report.sh"
	if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null 2>&1; then
		jp_skip_all "needs root and unshare (tmpfs at /dev/shm, network namespaces)"
	fi
	for t in dash bash busybox python3 ip script git; do
		command -v $t >/dev/null 2>&1 ||
			jp_skip_all "$t is not installed (autotools/bootstrap.sh --tests installs it)"
	done
	python3 -c 'import ensurepip, venv' 2>/dev/null ||
		jp_skip_all "python3's venv is not installed (python3-venv)"
	S=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-pfrt.XXXXXX") || exit 1
	NS=jprt-$$
	trap 'for n in 0 1 2; do ip netns delete "$NS-$n" 2>/dev/null; done; rm -rf "$S"' EXIT
	trap 'exit 130' INT TERM
	export S NS
	self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
	jp_cases_in unshare -m --propagation private sh "$self" inside
	jp_done
fi

# --- inside a private mount namespace ----------------------------------------
. "$TOP_SRCDIR/tests/lib/report.sh"
. "$TOP_SRCDIR/tests/lib/proc.sh"
host=$(uname -n)
shells="dash bash busybox"
cmd() { if [ "$1" = busybox ]; then echo "busybox sh"; else echo "$1"; fi; }

# manifest NAME WORKERS GPUS PYTHON_JSON: $S/NAME.json (code.python as
# given, "null": none) and its preflight.sh in $S/out/NAME
manifest() {
	mkdir -p "$S/out/$1/checkpoints" "$S/out/$1/logs" "$S/code"
	python3 - "$S" "$@" <<'EOF'
import json, sys
s, name, workers, gpus, py = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), json.loads(sys.argv[5])
out = s + "/out/" + name
code = {"source": "shared_storage", "path": s + "/code"}
if py is not None:
    code["python"] = py
m = {
    "schema_version": 1,
    "generator": {"name": "jobprep", "version": "0.1.0"},
    "created_at": "2026-12-01T10:00:00Z",
    "job": {"name": name, "workers": workers, "gpus_per_worker": gpus,
            "launch_command": "python3 train.py", "env": {}},
    "code": code,
    "data": [],
    "outputs": {"output_dir": out, "checkpoint_dir": out + "/checkpoints",
                "log_dir": out + "/logs"},
    "checks": [],
    "profile": {"sandbox": True, "shared_roots": [s], "public_roots": [s + "/public"],
                "ephemeral_roots": [], "system_disk_bytes": 1024,
                "defaults": {"project_dir": "{shared}/projects/{job}",
                             "output_dir": "{shared}/outputs/{job}/run-NNN",
                             "checkpoint_dir": "{output}/checkpoints",
                             "log_dir": "{output}/logs"}},
}
with open(s + "/" + name + ".json", "w") as f:
    json.dump(m, f)
EOF
	"$JOBPREP" preflight "$S/$1.json" >"$S/out/$1/preflight.sh"
}

# run TAG NAME [PREFIX...]: PREFIX... SHELL preflight.sh of NAME (or the
# script at NAME when it starts with /), input
# /dev/null, its stderr and status in $S/TAG.err, $S/TAG.rc; at most 60 s
# (a hang is a failure, not a stuck test). $sh is the shell.
run() {
	_tag=$1 _script=$S/out/$2/preflight.sh
	case $2 in /*) _script=$2 ;; esac
	shift 2
	rm -f "$S/$_tag.rc"
	# shellcheck disable=SC2046 # "busybox sh" is two words
	("$@" $(cmd "$sh") "$_script" </dev/null >"$S/$_tag.out" 2>"$S/$_tag.err"
	echo $? >"$S/$_tag.rc") &
	_w=0
	while [ ! -s "$S/$_tag.rc" ] && [ $_w -lt 600 ]; do
		sleep 0.1
		_w=$((_w + 1))
	done
	[ -s "$S/$_tag.rc" ] || echo hung >"$S/$_tag.rc"
}
# fails TAG LINE: exit 1 and the line; passes TAG: exit 0, no FAIL line
fails() { [ "$(cat "$S/$1.rc")" = 1 ] && grep -qF -- "$2" "$S/$1.err"; }
passes() { [ "$(cat "$S/$1.rc")" = 0 ] && [ -e "$S/$1.err" ] && ! grep -q '^\[FAIL\]' "$S/$1.err"; }
show() { printf '%s' "exit $(cat "$S/$1.rc"): $(cat "$S/$1.err")"; }
case_of() { # NAME TAG LINE|pass
	if [ "$3" = pass ]; then passes "$2"; else fails "$2" "$3"; fi && jp_pass "$1" ||
		jp_fail "$1" "$(show "$2")"
}

# --- init records what the code needs; the printed line closes its input -----
P=$S/shared/projects/nano
mkdir -p "$P/pkg" "$S/shared/data"
echo x >"$S/shared/data/part-0"
cat >"$P/train.py" <<'EOF'
import os, json
import jp_absent_mod_one.sub as sub
from model import GPT
from pkg import thing
try:
    import jp_optional_mod
except ImportError:
    jp_optional_mod = None
from torch.utils.data import DataLoader


def step(batch):
    match batch:
        case None:
            return 0
    loader = DataLoader(batch, batch_size=4, num_workers=4)
    return loader
EOF
echo 'import numpy_jp_absent' >"$P/model.py"
: >"$P/pkg/__init__.py"
git -C "$P" init -q && git -C "$P" add -A &&
	git -C "$P" -c user.email=t@example.com -c user.name=t commit -qm code &&
	git -C "$P" remote add origin https://example.com/nano.git
printf '{"sandbox": true, "shared_roots": ["%s/shared"], "public_roots": ["%s/public"]}\n' \
	"$S" "$S" >"$S/profile.json"
cat >"$S/answers.json" <<EOF
{"job": {"name": "nano", "workers": 1, "gpus_per_worker": 0,
         "launch_command": "cd \"\$PROJECT_DIR\" && python3 train.py"},
 "code": {"source": "shared_storage", "path": "$P"},
 "data": [{"path": "$S/shared/data"}]}
EOF
"$JOBPREP" init --answers "$S/answers.json" --profile "$S/profile.json" >"$S/init.out" 2>"$S/init.err"
run_dir=$S/shared/outputs/nano/run-001
jp_expect "init records the third-party modules, not the project's or the standard library's" \
	python3 -c 'import json, sys
py = json.load(open(sys.argv[1]))["code"]["python"]
sys.exit(0 if py == {"modules": ["jp_absent_mod_one", "numpy_jp_absent", "torch"],
                     "min_version": "3.10", "dataloader_workers": True} else 1)' "$run_dir/job.json"
jp_expect "init's launch line closes its input first" \
	grep -q "^  exec </dev/null && \\. '$run_dir/env.sh' && sh '$run_dir/preflight.sh' && " "$S/init.out"
# code in an image cannot be read here: the answers may tell what it needs
cat >"$S/answers-image.json" <<EOF
{"job": {"name": "in-image", "workers": 1, "gpus_per_worker": 0,
         "launch_command": "cd /workspace/app && python3 train.py"},
 "code": {"source": "image", "image": "registry.example.com/t:v1", "path": "/workspace/app",
          "python": {"modules": ["tiktoken"], "dataloader_workers": true}},
 "data": [{"path": "$S/shared/data"}]}
EOF
"$JOBPREP" init --answers "$S/answers-image.json" --profile "$S/profile.json" >"$S/init-image.out" 2>&1
jp_expect "code in an image: the answers' code.python reaches the manifest" \
	python3 -c 'import json, sys
py = json.load(open(sys.argv[1]))["code"]["python"]
sys.exit(0 if py == {"modules": ["tiktoken"], "dataloader_workers": True} else 1)' \
	"$S/shared/outputs/in-image/run-001/job.json"
sh=dash
run init "$run_dir/preflight.sh"
jp_expect "the Worker's python3 is asked for the recorded modules, and those it lacks are named" \
	fails init "[FAIL] runtime.modules: python3 on this Worker cannot find the modules the code imports: jp_absent_mod_one, numpy_jp_absent, torch ($host)"

# --- python3: a venv without the module, and with it --------------------------
python3 -m venv --without-pip "$S/venv" || jp_fail "python3 -m venv --without-pip"
site=$("$S/venv/bin/python3" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
manifest mods 1 0 '{"modules": ["jp_rt_present", "jp_rt_absent_'$$'", "json"], "min_version": "3.8", "dataloader_workers": false}'
manifest modsok 1 0 '{"modules": ["jp_rt_present", "json"], "min_version": "3.8", "dataloader_workers": false}'
manifest newer 1 0 '{"modules": [], "min_version": "3.99", "dataloader_workers": false}'
mkdir -p "$site/jp_rt_present" && : >"$site/jp_rt_present/__init__.py"
# a PATH with the tools preflight.sh uses and no python3
mkdir -p "$S/nopy"
for t in dash bash busybox uname awk df dd mv rm sleep kill cat sed grep mkdir; do
	ln -sf "$(command -v $t)" "$S/nopy/$t"
done
for sh in $shells; do
	run m-$sh mods env PATH="$S/venv/bin:$PATH"
	case_of "$sh: a module the Worker's python3 lacks fails, naming it (not the one it has, not json)" m-$sh \
		"[FAIL] runtime.modules: python3 on this Worker cannot find the modules the code imports: jp_rt_absent_$$ ($host)"
	jp_no_text 'jp_rt_present\|json' "$S/m-$sh.err" || jp_fail "$sh: a module python3 has is named" "$(cat "$S/m-$sh.err" 2>&1)"
	run mok-$sh modsok env PATH="$S/venv/bin:$PATH"
	case_of "$sh: the same venv with every module passes" mok-$sh pass
	run new-$sh newer env PATH="$S/venv/bin:$PATH"
	case_of "$sh: code that needs a newer Python than the Worker's fails" new-$sh \
		"[FAIL] runtime.python_version: the code needs Python 3.99 or newer (its syntax), but python3 on this Worker is 3."
	run nopy-$sh mods env PATH="$S/nopy"
	if [ "$(cat "$S/nopy-$sh.rc")" = 0 ] &&
		[ "$(grep -c '^\[warn\] runtime.python: there is no python3 on this Worker' "$S/nopy-$sh.err")" = 1 ]; then
		jp_pass "$sh: no python3: said once, skipped, no hang"
	else
		jp_fail "$sh: no python3" "$(show nopy-$sh)"
	fi
done

# --- /dev/shm and open files for DataLoader workers ---------------------------
manifest loader 1 0 '{"modules": [], "dataloader_workers": true}'
manifest noloader 1 0 '{"modules": [], "dataloader_workers": false}'
mount -t tmpfs -o size=64m jobprep-rt-shm /dev/shm
for sh in $shells; do
	run shm-$sh loader sh -c 'ulimit -n 4096 && exec "$@"' sh
	case_of "$sh: a 64 MiB /dev/shm with DataLoader workers fails" shm-$sh \
		"[FAIL] runtime.shm: /dev/shm has 64 MiB on this Worker ($host), and the code starts DataLoader workers"
	run shm0-$sh noloader sh -c 'ulimit -n 4096 && exec "$@"' sh
	case_of "$sh: a 64 MiB /dev/shm without DataLoader workers passes" shm0-$sh pass
done
umount /dev/shm
mount -t tmpfs -o size=2g jobprep-rt-shm /dev/shm
for sh in $shells; do
	run shmok-$sh loader sh -c 'ulimit -n 4096 && exec "$@"' sh
	case_of "$sh: a 2 GiB /dev/shm and ulimit -n 4096 pass" shmok-$sh pass
	run nofile-$sh loader sh -c 'ulimit -n 256 && exec "$@"' sh
	case_of "$sh: ulimit -n 256 with DataLoader workers fails" nofile-$sh \
		"[FAIL] runtime.nofile: the open-files limit (ulimit -n) is 256 on this Worker ($host), and the code starts DataLoader workers"
done
umount /dev/shm

# --- `jobprep check` on this machine: the same, as warnings -------------------
# runtime NAME MODULES_JSON IFNAME: the runtime.* checks of `check --json`
# ("id status message" a line) into $S/NAME.checks
runtime() {
	python3 - "$S" "$@" <<'EOF'
import json, sys
s, name, mods, ifname = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4]
m = json.load(open(s + "/loader.json"))
m["code"]["python"] = {"modules": mods, "dataloader_workers": True}
m["job"]["env"] = {"NCCL_SOCKET_IFNAME": ifname}
json.dump(m, open(s + "/" + name + ".json", "w"))
EOF
	PATH="$S/venv/bin:$PATH" "$JOBPREP" check --json "$S/$1.json" >"$S/$1.json.out"
	python3 -c 'import json, sys
for c in json.load(open(sys.argv[1])):
    if c["id"].startswith("runtime."):
        print(c["id"], c["status"], c["message"])' "$S/$1.json.out" >"$S/$1.checks"
}
mount -t tmpfs -o size=64m jobprep-rt-shm /dev/shm
runtime devbad '["jp_rt_absent_'$$'", "jp_rt_present"]' ib9
umount /dev/shm
mount -t tmpfs -o size=2g jobprep-rt-shm /dev/shm
runtime devok '["jp_rt_present"]' lo
umount /dev/shm
jp_expect "check --json: a module this machine's python3 lacks is a warning naming it" \
	grep -q "^runtime.modules warn python3 here cannot find the modules the code imports: jp_rt_absent_$$: " "$S/devbad.checks"
jp_expect "check --json: a 64 MiB /dev/shm with DataLoader workers is a warning" \
	grep -q "^runtime.shm warn /dev/shm has 64 MiB here" "$S/devbad.checks"
jp_expect "check --json: job.env's NCCL_SOCKET_IFNAME naming an interface not here is a warning" \
	grep -q "^runtime.interfaces warn job.env's NCCL_SOCKET_IFNAME names ib9, which this machine does not have" "$S/devbad.checks"
jp_expect "check --json: the healthy twin has no runtime warning" \
	sh -c '[ -e "$1.json.out" ] && [ -e "$1.checks" ] && [ ! -s "$1.checks" ]' sh "$S/devok"

# --- GPUs the driver lists ----------------------------------------------------
manifest gpus2 1 2 null
manifest gpus8 1 8 null
sh=dash
run nogpu gpus8
case_of "no NVIDIA driver nor nvidia-smi: nothing said" nogpu pass
if [ -d /proc/driver ] && ! command -v nvidia-smi >/dev/null 2>&1 &&
	mount -t tmpfs jobprep-rt-driver /proc/driver; then
	mkdir -p /proc/driver/nvidia/gpus/0000:01:00.0 /proc/driver/nvidia/gpus/0000:02:00.0
	for sh in $shells; do
		run gpu8-$sh gpus8
		case_of "$sh: 2 GPUs on a Worker of a job that asks for 8 fails" gpu8-$sh \
			"[FAIL] runtime.gpus: this Worker ($host) sees 2 NVIDIA GPUs, and the job asks for 8 per Worker"
		run gpu2-$sh gpus2
		case_of "$sh: 2 GPUs for 2 passes" gpu2-$sh pass
	done
	# CUDA_VISIBLE_DEVICES narrows what the job sees
	sh=dash
	run cvd-one gpus2 env CUDA_VISIBLE_DEVICES=0
	case_of "CUDA_VISIBLE_DEVICES=0 of 2 GPUs, for 2, fails naming it" cvd-one \
		"[FAIL] runtime.gpus: this Worker ($host) lets the job see 1 NVIDIA GPUs (CUDA_VISIBLE_DEVICES=0, of the 2 here), and the job asks for 2 per Worker"
	run cvd-none gpus2 env CUDA_VISIBLE_DEVICES=NoDevFiles
	case_of "CUDA_VISIBLE_DEVICES=NoDevFiles (Slurm: none given), for 2, fails" cvd-none \
		"[FAIL] runtime.gpus: this Worker ($host) lets the job see 0 NVIDIA GPUs (CUDA_VISIBLE_DEVICES=NoDevFiles"
	run cvd-two gpus2 env CUDA_VISIBLE_DEVICES=GPU-8932f937-d72c-4106-c12f-20bd9faed9f6,1
	case_of "CUDA_VISIBLE_DEVICES naming 2 (a UUID, an index) of 2, for 2, passes" cvd-two pass
	# a shared node (Slurm without device cgroups): all 8 listed, the job's 2 named
	for n in 3 4 5 6 7 8; do mkdir -p "/proc/driver/nvidia/gpus/0000:0$n:00.0"; done
	run cvd-shared gpus2 env CUDA_VISIBLE_DEVICES=2,5
	case_of "8 GPUs on the node, CUDA_VISIBLE_DEVICES=2,5, for 2, passes" cvd-shared pass
	run cvd-shared-unset gpus2
	case_of "8 GPUs on the node and no CUDA_VISIBLE_DEVICES, for 2, fails" cvd-shared-unset \
		"[FAIL] runtime.gpus: this Worker ($host) sees 8 NVIDIA GPUs, and the job asks for 2 per Worker"
	umount /proc/driver
else
	jp_skip "GPUs the driver lists" "no /proc/driver to lay a tmpfs on, or a real nvidia-smi here"
fi

# --- GPUs nvidia-smi lists (no GPU here: a stand-in on PATH speaks its -L) ---
mkdir -p "$S/smi-ok" "$S/smi-hung"
cat >"$S/smi-ok/nvidia-smi" <<'EOF'
#!/bin/sh
[ "$1" = -L ] || exit 2
echo "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-11111111-2222-3333-4444-555555555555)"
echo "GPU 1: NVIDIA A100-SXM4-80GB (UUID: GPU-66666666-7777-8888-9999-000000000000)"
EOF
# a wedged driver: nvidia-smi never answers (it waits to open a FIFO no one
# writes to, let go once the case is judged: nothing outlives the test)
mkfifo "$S/smi-hung/never" || exit 99
printf '#!/bin/sh\necho $$ >"%s.pid"\nexec cat "%s"\n' "$S/smi-hung/never" "$S/smi-hung/never" \
	>"$S/smi-hung/nvidia-smi"
chmod 755 "$S/smi-ok/nvidia-smi" "$S/smi-hung/nvidia-smi"
sh=dash
if [ ! -d /proc/driver/nvidia ] && ! command -v nvidia-smi >/dev/null 2>&1; then
	run smi8 gpus8 env PATH="$S/smi-ok:$PATH"
	case_of "nvidia-smi -L lists 2 GPUs, the job asks for 8: fails" smi8 \
		"[FAIL] runtime.gpus: this Worker ($host) sees 2 NVIDIA GPUs, and the job asks for 8 per Worker"
	run smi2 gpus2 env PATH="$S/smi-ok:$PATH"
	case_of "nvidia-smi -L lists 2 GPUs for 2: passes" smi2 pass
	run smi-hung gpus8 env PATH="$S/smi-hung:$PATH" JOBPREP_PREFLIGHT_TIMEOUT=2
	case_of "an nvidia-smi that never answers: the preflight goes on, nothing said" smi-hung pass
	# let the stand-in go: a writer opens the FIFO and closes it (O_RDWR
	# never waits), the reader sees its end
	exec 7<>"$S/smi-hung/never"
	exec 7>&-
	smi_pid=$(cat "$S/smi-hung/never.pid" 2>/dev/null)
	# (gone, or a zombie its parent, killed, can no longer reap)
	jp_expect "the given-up nvidia-smi is let go" \
		jp_poll 100 sh -c '[ -n "$1" ] || exit 1
			st=$(ps -o stat= -p "$1" 2>/dev/null | tr -d " ")
			case $st in "" | Z*) exit 0 ;; esac
			exit 1' sh "$smi_pid"
else
	jp_skip "GPUs nvidia-smi lists" "a real NVIDIA driver or nvidia-smi here"
fi

# --- standard input: a terminal fails ----------------------------------------
sh=dash
TERM=dumb script -qec "dash '$S/out/gpus2/preflight.sh'" /dev/null >"$S/tty.out" 2>&1
echo $? >"$S/tty.rc"
tr -d '\r' <"$S/tty.out" >"$S/tty.err"
case_of "a terminal at the Worker's standard input fails" tty \
	"[FAIL] runtime.stdin: standard input is a terminal on this Worker ($host)"

# --- Workers as network namespaces -------------------------------------------
net=10.77.$(($$ % 250))
va=vj$$a vb=vj$$b vd=vj$$d ve=vj$$e
for n in 0 1 2; do ip netns add "$NS-$n" || jp_fail "ip netns add $NS-$n"; done
ip link add "$va" type veth peer name "$vb" &&
	ip link set "$va" netns "$NS-0" && ip link set "$vb" netns "$NS-1" &&
	ip -n "$NS-0" addr add "$net.1/24" dev "$va" && ip -n "$NS-1" addr add "$net.2/24" dev "$vb" &&
	ip -n "$NS-0" link set "$va" up && ip -n "$NS-1" link set "$vb" up &&
	ip -n "$NS-0" link set lo up && ip -n "$NS-1" link set lo up ||
	jp_fail "a veth pair between $NS-0 and $NS-1"
# an interface of Worker 0 that is down
ip link add "$vd" type veth peer name "$ve" && ip link set "$vd" netns "$NS-0" &&
	ip link set "$ve" netns "$NS-2" || jp_fail "a second veth pair"

manifest one 1 0 null
for sh in dash busybox; do
	run ifmiss-$sh one ip netns exec "$NS-0" env NCCL_SOCKET_IFNAME=ib0 GLOO_SOCKET_IFNAME=bond9
	case_of "$sh: NCCL_SOCKET_IFNAME=ib0 on a Worker without it fails, naming what it has" ifmiss-$sh \
		"[FAIL] runtime.interfaces: NCCL_SOCKET_IFNAME names the network interface ib0, which this Worker ($host) does not have (it has: "
	case_of "$sh: GLOO_SOCKET_IFNAME=bond9 on a Worker without it fails" ifmiss-$sh \
		"[FAIL] runtime.interfaces: GLOO_SOCKET_IFNAME names the network interface bond9, which this Worker ($host) does not have"
	run ifdown-$sh one ip netns exec "$NS-0" env NCCL_SOCKET_IFNAME="=$vd"
	case_of "$sh: an interface that is down fails" ifdown-$sh \
		"[FAIL] runtime.interfaces: NCCL_SOCKET_IFNAME names the network interface $vd, which is down on this Worker ($host)"
	run ifok-$sh one ip netns exec "$NS-0" env NCCL_SOCKET_IFNAME="vj$$a,lo" GLOO_SOCKET_IFNAME="$va" NCCL_IB_HCA="^mlx5"
	case_of "$sh: interfaces the Worker has and are up (NCCL's prefix, gloo's name, an exclusion) pass" ifok-$sh pass
	run hca-$sh one ip netns exec "$NS-0" env NCCL_IB_HCA=mlx5_0:1
	case_of "$sh: NCCL_IB_HCA naming an adapter the Worker has not fails" hca-$sh \
		"[FAIL] runtime.interfaces: NCCL_IB_HCA names the InfiniBand adapter mlx5_0, which this Worker ($host) does not have"
done

# two Workers meet at MASTER_ADDR:MASTER_PORT
manifest two 2 0 null
port=$((20000 + $$ % 20000))
# meet TAG0 TAG1 NS_OF_RANK1 ADDR [PREFIX_OF_RANK0...]: both ranks at once,
# each waiting $meet_wait s (a healthy meeting ends as soon as both are there:
# it waits longer, so a loaded machine cannot fail it)
meet_wait=4
meet() {
	_t0=$1 _t1=$2 _ns1=$3 _addr=$4
	shift 4
	rm -f "$S/out/two/.jobprep-preflight-ready"
	run "$_t0" two ip netns exec "$NS-0" env RANK=0 MASTER_ADDR="$_addr" MASTER_PORT=$port \
		JOBPREP_ATTEMPT="$_t0" JOBPREP_PREFLIGHT_WAIT=$meet_wait "$@" &
	_r0=$!
	run "$_t1" two ip netns exec "$_ns1" env RANK=1 MASTER_ADDR="$_addr" MASTER_PORT=$port \
		JOBPREP_ATTEMPT="$_t0" JOBPREP_PREFLIGHT_WAIT=$meet_wait
	wait "$_r0"
}
for sh in dash busybox; do
	meet_wait=60
	meet meet0-$sh meet1-$sh "$NS-1" "$net.1"
	meet_wait=4
	case_of "$sh: rank 0 and rank 1 meet over the veth pair: rank 0 passes" meet0-$sh pass
	case_of "$sh: ... and rank 1 passes" meet1-$sh pass
	# the port is free again for the launch command
	jp_expect "$sh: rank 0 let the port go before the launch command" \
		ip netns exec "$NS-0" python3 -c 'import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", int(sys.argv[1]))); s.listen(1)' "$port"
	meet far0-$sh far1-$sh "$NS-2" "$net.1"
	case_of "$sh: a Worker with no way to rank 0 fails, naming itself" far1-$sh \
		"[FAIL] runtime.rendezvous: Worker $host, rank 1 could not reach rank 0 at $net.1:$port within 4 s"
	case_of "$sh: ... and rank 0 names the rank it did not hear from" far0-$sh \
		"[FAIL] runtime.rendezvous: Worker $host, rank 0 did not hear within 4 s on port $port from the Workers of rank 1"
	meet bad0-$sh bad1-$sh "$NS-1" "rank0.jobprep-test.invalid"
	case_of "$sh: a MASTER_ADDR that does not resolve fails" bad1-$sh \
		"[FAIL] runtime.master_addr: MASTER_ADDR=rank0.jobprep-test.invalid does not resolve on this Worker ($host, rank 1)"
done
# a real listener on rank 0's port
ip netns exec "$NS-0" python3 -m http.server "$port" --bind "$net.1" >/dev/null 2>&1 &
srv=$!
w=0
until ip netns exec "$NS-0" python3 -c 'import socket, sys; socket.create_connection((sys.argv[1], int(sys.argv[2])), 1)' "$net.1" "$port" 2>/dev/null || [ $w -ge 100 ]; do
	sleep 0.1
	w=$((w + 1))
done
sh=dash
meet taken0 taken1 "$NS-1" "$net.1"
case_of "a program listening on MASTER_PORT at rank 0 fails there" taken0 \
	"[FAIL] runtime.master_port: MASTER_PORT $port cannot be listened on at rank 0 ($host, rank 0)"
kill "$srv"
wait "$srv" 2>/dev/null

jp_done
