
# --- the job's runtime on this Worker (after the paths, before the summary) ---
# What the job needs of the Worker besides its paths: the Python modules
# and version the code needs, /dev/shm and open files for DataLoader
# workers, the network interfaces NCCL and gloo are told to use, rank 0
# reachable at MASTER_ADDR:MASTER_PORT, the GPUs, and a closed standard
# input. Every look is bounded (jp_bounded); python3 is asked once for the
# modules and once for the meeting. jp_area (the per-Worker table) may be
# missing from an older body: then it does nothing.
command -v jp_area >/dev/null 2>&1 || jp_area() { :; }

jp_rt_fail() { jp_area "$1" fail; shift; jp_say FAIL "$@"; jp_fails=$((jp_fails + 1)); }

# The code's modules, found by the Worker's own python3 without importing
# them; its version first. argv: the project folder, then the modules.
jp_py_probe='
import sys, importlib.util
if sys.argv[1]:
    sys.path.insert(0, sys.argv[1])
print("%d.%d" % sys.version_info[:2])
std = set(getattr(sys, "stdlib_module_names", ())) | set(sys.builtin_module_names)
miss = []
for name in sys.argv[2:]:
    if name in std:
        continue
    try:
        found = importlib.util.find_spec(name) is not None
    except Exception:
        found = False
    if not found:
        miss.append(name)
print(", ".join(miss))
'

# jp_py_version_ok HAVE NEED: "3.11" is at least "3.10"
jp_py_version_ok() {
	jp_hm=${1%%.*} jp_hn=${1#*.} jp_nm=${2%%.*} jp_nn=${2#*.}
	jp_num "$jp_hm" && jp_num "$jp_hn" && jp_num "$jp_nm" && jp_num "$jp_nn" || return 0
	[ "$jp_hm" -gt "$jp_nm" ] || { [ "$jp_hm" -eq "$jp_nm" ] && [ "$jp_hn" -ge "$jp_nn" ]; }
}

jp_rt_python() {
	[ "$jp_py_code" = 1 ] && { [ -n "$jp_py_modules" ] || [ -n "$jp_py_min" ]; } || return 0
	# shellcheck disable=SC2086 # module names are identifiers, one a word
	jp_py_out=$(jp_bounded_out "$jp_timeout" python3 -c "$jp_py_probe" "$jp_code_dir" $jp_py_modules 2>/dev/null)
	jp_st=$?
	if [ "$jp_st" -eq 137 ]; then
		jp_rt_fail python runtime.python "$jp_m_py_hung" "$jp_timeout" "$jp_who"
		return 0
	fi
	jp_py_ver=$(printf '%s\n' "$jp_py_out" | sed -n 1p)
	jp_py_miss=$(printf '%s\n' "$jp_py_out" | sed -n 2p)
	jp_area python pass
	if [ -n "$jp_py_min" ] && [ -n "$jp_py_ver" ] && ! jp_py_version_ok "$jp_py_ver" "$jp_py_min"; then
		jp_rt_fail python runtime.python_version "$jp_m_py_version" "$jp_py_min" "$jp_py_ver" "$jp_who"
	fi
	if [ -n "$jp_py_miss" ]; then
		jp_rt_fail python runtime.modules "$jp_m_py_modules" "$jp_py_miss" "$jp_who"
	fi
}

# /dev/shm and open files: DataLoader workers pass batches through shared
# memory, as file descriptors.
jp_rt_loader() {
	[ "$jp_loader_workers" = 1 ] || return 0
	jp_kb=$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $2 }')
	jp_num "$jp_kb" || jp_kb=0
	if [ "$jp_kb" -lt "$jp_shm_min_kb" ]; then
		jp_rt_fail shm runtime.shm "$jp_m_shm" "$((jp_kb / 1024))" "$jp_who" "$((jp_shm_min_kb / 1024))"
	else
		jp_area shm pass
	fi
	jp_nofile=$(ulimit -n 2>/dev/null)
	if jp_num "$jp_nofile" && [ "$jp_nofile" -lt "$jp_nofile_min" ]; then
		jp_rt_fail limits runtime.nofile "$jp_m_nofile" "$jp_nofile" "$jp_who" "$jp_nofile_min" "$jp_nofile_min"
	else
		jp_area limits pass
	fi
}

# jp_rt_names DIR: the entries of DIR, space-separated ("none" when empty)
jp_rt_names() {
	jp_names=
	for jp_e in "$1"/*; do
		[ -e "$jp_e" ] && jp_names="$jp_names${jp_names:+ }${jp_e##*/}"
	done
	printf '%s\n' "${jp_names:-none}"
}

# jp_rt_if_up NAME: the interface is up (IFF_UP, and its link not down)
jp_rt_if_up() {
	jp_fl=$(cat "/sys/class/net/$1/flags" 2>/dev/null) || return 1
	case $jp_fl in 0x* | 0X*) ;; *) return 1 ;; esac
	[ $((jp_fl & 1)) -eq 1 ] || return 1
	case $(cat "/sys/class/net/$1/operstate" 2>/dev/null) in down | lowerlayerdown | notpresent) return 1 ;; esac
	return 0
}

# jp_rt_ifaces VAR DIR MODE: each name of $VAR (a comma list; a leading ^
# excludes, so nothing is asked; a leading = means exact names) is in DIR,
# by prefix (MODE prefix, NCCL's way) or exactly (MODE exact, gloo's);
# under /sys/class/net also up. NAME:PORT is NAME (NCCL_IB_HCA).
jp_rt_ifaces() {
	eval "jp_val=\${$1-}"
	[ -n "$jp_val" ] || return 0
	jp_how=$3
	case $jp_val in
	^*) return 0 ;;
	=*) jp_val=${jp_val#=} jp_how=exact ;;
	esac
	jp_bad=0
	jp_rest=$jp_val,
	while [ -n "$jp_rest" ]; do
		jp_want=${jp_rest%%,*} jp_rest=${jp_rest#*,}
		jp_want=${jp_want%%:*}
		[ -n "$jp_want" ] || continue
		jp_seen= jp_up=
		for jp_e in "$2"/*; do
			[ -e "$jp_e" ] || continue
			jp_ifn=${jp_e##*/}
			if [ "$jp_how" = exact ]; then
				[ "$jp_ifn" = "$jp_want" ] || continue
			else
				case $jp_ifn in "$jp_want"*) ;; *) continue ;; esac
			fi
			jp_seen=$jp_ifn
			if [ "$2" != /sys/class/net ] || jp_rt_if_up "$jp_ifn"; then
				jp_up=$jp_ifn
				break
			fi
		done
		if [ -z "$jp_seen" ] && [ "$2" != /sys/class/net ]; then
			jp_rt_fail network "runtime.interfaces" "$jp_m_hca_missing" "$1" "$jp_want" "$jp_who" "$(jp_rt_names "$2")"
			jp_bad=1
		elif [ -z "$jp_seen" ]; then
			jp_rt_fail network "runtime.interfaces" "$jp_m_if_missing" "$1" "$jp_want" "$jp_who" "$(jp_rt_names "$2")"
			jp_bad=1
		elif [ -z "$jp_up" ]; then
			jp_rt_fail network "runtime.interfaces" "$jp_m_if_down" "$1" "$jp_seen" "$jp_who"
			jp_bad=1
		fi
	done
	[ "$jp_bad" = 1 ] || jp_area network pass
}

# The meeting on the network: rank 0 listens on MASTER_PORT (proving it
# free) until every other rank has said hello, then lets it go before the
# launch command; every other rank connects to MASTER_ADDR:MASTER_PORT.
# argv: addr port rank workers wait who. Exit 3: the address does not
# resolve within the wait; 4: the port is taken; 5: ranks missing (printed); 6: rank 0
# not reached.
jp_meet_py='
import errno, socket, sys, time
addr, port, rank, n, wait, who = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), sys.argv[6]
end = time.monotonic() + wait
# (a name may resolve only once rank 0 has started: a Kubernetes Service)
while True:
    try:
        infos = socket.getaddrinfo(addr, port, 0, socket.SOCK_STREAM)
        break
    except Exception:
        if time.monotonic() >= end:
            sys.exit(3)
        time.sleep(0.5)
def listener():
    for fam, host in ((socket.AF_INET6, "::"), (socket.AF_INET, "0.0.0.0")):
        try:
            s = socket.socket(fam, socket.SOCK_STREAM)
        except OSError:
            continue
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if fam == socket.AF_INET6:
            try:
                s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
            except OSError:
                pass
        try:
            s.bind((host, port))
            s.listen(64)
            return s
        except OSError as e:
            s.close()
            if e.errno == errno.EADDRINUSE:
                sys.exit(4)
    sys.exit(4)
if rank == 0:
    s = listener()
    want = set(range(1, n))
    while want and time.monotonic() < end:
        s.settimeout(max(0.05, end - time.monotonic()))
        try:
            c, _ = s.accept()
        except OSError:
            continue
        try:
            c.settimeout(2)
            line = c.recv(256).decode("utf-8", "replace").split(" ", 1)[0]
            c.sendall(b"ok\n")
            c.recv(16)
            want.discard(int(line))
        except Exception:
            pass
        c.close()
    s.close()
    if want:
        print(" ".join(str(r) for r in sorted(want)))
        sys.exit(5)
    sys.exit(0)
while time.monotonic() < end:
    for fam, typ, proto, _, sa in infos:
        try:
            c = socket.socket(fam, typ, proto)
            c.settimeout(max(0.05, min(2, end - time.monotonic())))
            c.connect(sa)
            c.sendall(("%d %s\n" % (rank, who)).encode())
            ok = c.recv(16)
            c.close()
            if ok.startswith(b"ok"):
                sys.exit(0)
        except OSError:
            pass
    time.sleep(0.2)
sys.exit(6)
'

jp_rt_rendezvous() {
	# as many ranks as the launcher will wait for: the platform's
	# WORLD_SIZE where it set one, else the manifest's Workers
	jp_rv_n=$jp_workers
	jp_num "${WORLD_SIZE-}" && jp_rv_n=$WORLD_SIZE
	[ "$jp_rv_n" -gt 1 ] && jp_num "$jp_rank" || return 0
	[ -n "${MASTER_ADDR-}" ] && jp_num "${MASTER_PORT-}" || return 0
	jp_rv=$(jp_bounded_out "$((jp_wait + jp_timeout))" python3 -c "$jp_meet_py" "$MASTER_ADDR" \
		"$MASTER_PORT" "$jp_rank" "$jp_rv_n" "$jp_wait" "$jp_who" 2>/dev/null)
	case $? in
	0) jp_area network pass ;;
	3) jp_rt_fail network runtime.master_addr "$jp_m_master_addr" "$MASTER_ADDR" "$jp_who" ;;
	4) jp_rt_fail network runtime.master_port "$jp_m_master_port" "$MASTER_PORT" "$jp_who" ;;
	5) jp_rt_fail network runtime.rendezvous "$jp_m_unheard" "$jp_who" "$jp_wait" "$MASTER_PORT" "$jp_rv" ;;
	*) jp_rt_fail network runtime.rendezvous "$jp_m_unreached" "$jp_who" "$MASTER_ADDR" "$MASTER_PORT" "$jp_wait" ;;
	esac
}

jp_rt_smi() { nvidia-smi -L 2>/dev/null | grep -c '^GPU '; }

# jp_rt_visible: how many GPUs CUDA_VISIBLE_DEVICES (set) lets the job see,
# of the jp_seen there are: its entries, up to the first that names none
# (CUDA stops there: -1, Slurm's NoDevFiles), at most jp_seen.
jp_rt_visible() {
	jp_vis=0
	jp_rest=$CUDA_VISIBLE_DEVICES,
	while [ -n "$jp_rest" ]; do
		jp_e=${jp_rest%%,*}
		jp_rest=${jp_rest#*,}
		case $jp_e in
		'' | -* | *[!0-9A-Za-z:/-]* | NoDevFiles) break ;;
		esac
		jp_vis=$((jp_vis + 1))
	done
	[ "$jp_vis" -gt "$jp_seen" ] && jp_vis=$jp_seen
	echo "$jp_vis"
}

# The NVIDIA GPUs this Worker lets the job see: nvidia-smi's list, else the
# driver's, narrowed by CUDA_VISIBLE_DEVICES when it is set (Slurm, a
# shared node: all of the node's GPUs are listed, the job's are named
# there); no tool and no driver say nothing.
jp_rt_gpus() {
	jp_seen=
	if command -v nvidia-smi >/dev/null 2>&1; then
		jp_seen=$(jp_bounded_out "$jp_timeout" jp_rt_smi)
		jp_num "$jp_seen" || jp_seen=
	fi
	if [ -z "$jp_seen" ] && [ -d /proc/driver/nvidia/gpus ]; then
		jp_seen=0
		for jp_e in /proc/driver/nvidia/gpus/*; do
			[ -e "$jp_e" ] && jp_seen=$((jp_seen + 1))
		done
	fi
	jp_num "$jp_seen" && [ "$jp_seen" -gt 0 ] && [ "$jp_gpus" -gt 0 ] || return 0
	if [ -n "${CUDA_VISIBLE_DEVICES+set}" ]; then
		jp_vis=$(jp_rt_visible)
		if [ "$jp_vis" -ne "$jp_gpus" ]; then
			jp_rt_fail gpus runtime.gpus "$jp_m_gpus_visible" "$jp_who" "$jp_vis" \
				"$CUDA_VISIBLE_DEVICES" "$jp_seen" "$jp_gpus"
		else
			jp_area gpus pass
		fi
	elif [ "$jp_seen" -ne "$jp_gpus" ]; then
		jp_rt_fail gpus runtime.gpus "$jp_m_gpus" "$jp_who" "$jp_seen" "$jp_gpus"
	else
		jp_area gpus pass
	fi
}

jp_runtime() {
	# a keyboard no one types on: a prompt in the job waits for ever
	if [ -t 0 ]; then
		jp_rt_fail limits runtime.stdin "$jp_m_stdin" "$jp_who"
	fi
	if { [ "$jp_py_code" = 1 ] || [ "$jp_workers" -gt 1 ]; } && ! command -v python3 >/dev/null 2>&1; then
		jp_area python warn
		jp_say warn runtime.python "$jp_m_no_python" "$jp_who"
	else
		jp_rt_python
		jp_rt_rendezvous
	fi
	jp_rt_loader
	jp_rt_ifaces NCCL_SOCKET_IFNAME /sys/class/net prefix
	jp_rt_ifaces GLOO_SOCKET_IFNAME /sys/class/net exact
	jp_rt_ifaces NCCL_IB_HCA /sys/class/infiniband prefix
	jp_rt_gpus
}
