# A real single-node Slurm cluster in a folder of the test's own: munged
# with its own key and socket, slurmctld and slurmd on free loopback ports,
# every spool, state, log and pid file inside the folder. Nothing of the
# machine's own munge or Slurm setup is used or touched.
# The daemons live in /usr/sbin: sourcing this adds it to PATH.
#
#   jp_slurm_have                    0 when slurm-wlm and munge are installed
#   jp_slurm_start DIR [gpu]         start the cluster in DIR (made if
#                                    missing); with "gpu" the node declares
#                                    one GPU, backed by /dev/null (Slurm only
#                                    counts it: task/none touches no device).
#                                    Exports SLURM_CONF. Returns 1, with the
#                                    logs on stderr, if it does not come up.
#   jp_slurm_wait JOBID SECONDS      wait until the job has left the queue;
#                                    prints its final state (COMPLETED...)
#   jp_slurm_stop DIR                cancel what is left, stop every daemon
#                                    by its pid and wait for it to exit

. "$TOP_SRCDIR/tests/lib/proc.sh"

case ":$PATH:" in
*:/usr/sbin:*) ;;
*) PATH=$PATH:/usr/sbin ;;
esac

jp_slurm_have() {
	for _c in munged mungekey slurmctld slurmd sbatch scontrol sinfo squeue scancel; do
		command -v "$_c" >/dev/null 2>&1 || return 1
	done
	return 0
}

# Two free TCP ports on 127.0.0.1 (bound to port 0, then released).
jp_slurm_ports() {
	python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s:
    x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))'
}

_jp_slurm_logs() {
	for _f in "$1"/log/*; do
		echo "--- $_f" >&2
		tail -n 30 "$_f" >&2
	done
}

# Poll `$2...` until it prints $1 exactly, for at most 30 s.
_jp_slurm_until() {
	_want=$1
	shift
	_i=0
	while [ $_i -lt 300 ]; do
		[ "$("$@" 2>/dev/null)" = "$_want" ] && return 0
		sleep 0.1
		_i=$((_i + 1))
	done
	return 1
}

# _jp_slurm_sockdir DIR: a new folder for munged's socket, which munged
# wants every folder above it to let everyone through (a $TMPDIR in a 0700
# home does not): under the first of $TMPDIR, /tmp, /var/tmp where that
# holds and no space is in the path (slurm.conf names it). Its path is kept
# in DIR/run/munge-sockdir for jp_slurm_stop.
_jp_slurm_sockdir() {
	for _b in "${TMPDIR:-/tmp}" /tmp /var/tmp; do
		case $_b in *[[:space:]]*) continue ;; esac
		_ok=1
		_p=$(cd "$_b" 2>/dev/null && pwd -P) || continue
		while [ "$_p" != / ]; do
			case $(stat -c %A "$_p") in
			?????????[xt]) ;;
			*) _ok= ;;
			esac
			_p=$(dirname "$_p")
		done
		[ -n "$_ok" ] || continue
		_s=$(mktemp -d "$_b/jobprep-munge.XXXXXX") || continue
		chmod 755 "$_s"
		echo "$_s" >"$1/run/munge-sockdir"
		echo "$_s"
		return 0
	done
	echo "_jp_slurm_sockdir: no folder everyone can reach for munged's socket" >&2
	return 1
}

jp_slurm_start() {
	_d=$1
	_gpu=${2:-}
	_host=$(hostname)
	mkdir -p "$_d/munge" "$_d/state" "$_d/spool" "$_d/log" "$_d/run" || return 1
	# slurm.conf splits its values at spaces: a path without any
	_d=$(cd "$_d" && pwd) && _d=$(jp_nospace_path "$_d") || return 1
	# munged wants its socket's folder reachable by everyone, key 0600
	chmod 755 "$_d" "$_d/munge" || return 1
	_sock=$(_jp_slurm_sockdir "$_d")/munge.sock || return 1
	mungekey --create --bits=1024 --keyfile="$_d/munge/munge.key" 2>>"$_d/log/mungekey" || return 1
	munged --socket="$_sock" --key-file="$_d/munge/munge.key" \
		--pid-file="$_d/run/munged.pid" --log-file="$_d/log/munged.log" \
		--seed-file="$_d/munge/munged.seed" 2>>"$_d/log/munged.err" || {
		_jp_slurm_logs "$_d"
		return 1
	}

	set -- $(jp_slurm_ports)
	[ $# -eq 2 ] || return 1
	_gres=
	if [ "$_gpu" = gpu ]; then
		_gres=Gres=gpu:1
		# slurmd drops a GPU without a device file, and wants a real device
		echo "NodeName=$_host Name=gpu File=/dev/null" >"$_d/gres.conf"
	fi
	cat >"$_d/slurm.conf" <<EOF
ClusterName=jobpreptest
SlurmctldHost=$_host(127.0.0.1)
SlurmctldPort=$1
SlurmdPort=$2
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$_sock
CredType=cred/munge
StateSaveLocation=$_d/state
SlurmdSpoolDir=$_d/spool
SlurmctldPidFile=$_d/run/slurmctld.pid
SlurmdPidFile=$_d/run/slurmd.pid
SlurmctldLogFile=$_d/log/slurmctld.log
SlurmdLogFile=$_d/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
${_gres:+GresTypes=gpu}
NodeName=$_host NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=100 $_gres State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
	SLURM_CONF=$_d/slurm.conf
	export SLURM_CONF

	slurmctld -D -f "$SLURM_CONF" >"$_d/log/slurmctld.out" 2>&1 &
	echo $! >"$_d/run/slurmctld.bgpid"
	if ! _jp_slurm_until "Slurmctld(primary) at $_host is UP" scontrol ping; then
		echo "slurmctld did not come up" >&2
		_jp_slurm_logs "$_d"
		return 1
	fi
	slurmd -D -N "$_host" -f "$SLURM_CONF" >"$_d/log/slurmd.out" 2>&1 &
	echo $! >"$_d/run/slurmd.bgpid"
	if ! _jp_slurm_until idle sinfo -h -n "$_host" -o %T; then
		echo "slurmd did not register: $(sinfo -h -N -o '%N %T %E' 2>&1)" >&2
		_jp_slurm_logs "$_d"
		return 1
	fi
	return 0
}

jp_slurm_wait() {
	_i=0
	_limit=$(($2 * 10))
	while [ $_i -lt "$_limit" ]; do
		if [ -z "$(squeue -h -j "$1" -o %i 2>/dev/null)" ]; then
			scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'
			return 0
		fi
		sleep 0.1
		_i=$((_i + 1))
	done
	echo TIMEOUT
	return 1
}

# Stop a pid and wait for it (10 s, then SIGKILL).
_jp_slurm_kill() {
	[ -n "$1" ] || return 0
	kill "$1" 2>/dev/null || return 0
	_i=0
	while kill -0 "$1" 2>/dev/null && [ $_i -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	kill -0 "$1" 2>/dev/null && kill -9 "$1" 2>/dev/null
	return 0
}

jp_slurm_stop() {
	_d=$1
	if [ -n "${SLURM_CONF:-}" ] && [ -f "$SLURM_CONF" ] && [ -f "$_d/run/slurmctld.bgpid" ]; then
		# Jobs first, so no slurmstepd outlives the daemons
		scancel --quiet --user="$(id -un)" 2>/dev/null
		_jp_slurm_until "" squeue -h -o %i
	fi
	for _p in slurmd slurmctld; do
		if [ -f "$_d/run/$_p.bgpid" ]; then
			_pid=$(cat "$_d/run/$_p.bgpid")
			_jp_slurm_kill "$_pid"
			wait "$_pid" 2>/dev/null
		fi
	done
	[ -f "$_d/run/munged.pid" ] && _jp_slurm_kill "$(cat "$_d/run/munged.pid")"
	[ -f "$_d/run/munge-sockdir" ] && rm -rf "$(cat "$_d/run/munge-sockdir")"
	jp_nospace_path_remove "$_d"
	return 0
}
