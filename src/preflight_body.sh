# --- the checks (the same text in every run's preflight.sh) ------------------
# Plain POSIX sh: dash, busybox sh and bash run it; it needs only uname,
# awk, df, dd, mv, rm, sleep and kill. Every look at a path runs in a
# background subshell that a watchdog kills after the bound, so a hung mount
# is a failure line, never a hang.

jp_num() { case $1 in '' | *[!0-9]*) return 1 ;; esac; }
jp_timeout=${JOBPREP_PREFLIGHT_TIMEOUT:-10}
jp_num "$jp_timeout" && [ "$jp_timeout" -gt 0 ] || jp_timeout=10
jp_wait=${JOBPREP_PREFLIGHT_WAIT:-60}
jp_num "$jp_wait" && [ "$jp_wait" -gt 0 ] || jp_wait=60
jp_host=$(uname -n 2>/dev/null) || jp_host=
[ -n "$jp_host" ] || jp_host=${HOSTNAME:-?}
jp_fails=0
jp_count_max=${JOBPREP_PREFLIGHT_COUNT:-100000}
jp_num "$jp_count_max" && [ "$jp_count_max" -gt 0 ] || jp_count_max=100000

# --- what this Worker found, area by area (jp_finish prints the table) -------
# The areas: storage (where the paths live, the meeting), data (the data
# sets' contents), identity (rank, attempt, the platform's variables), and
# the runtime's: python, network, shm, limits, gpus. A check runs in a
# bounded subshell, so what it finds goes through a notes file; the main
# shell's variables hold the same when there is no file to write.
jp_areas='storage data identity python network shm limits gpus'
for jp_v in $jp_areas; do eval "jp_area_$jp_v=-"; done
jp_warn_ids= jp_fail_ids= jp_warns=0
jp_notes=$(mktemp "${TMPDIR:-/tmp}/jobprep-preflight.XXXXXX" 2>/dev/null) || jp_notes=
# What the script undoes when it ends, however it ends: sh text, run by
# eval; a check that leaves something to undo appends "; COMMAND".
jp_at_exit='[ -z "$jp_notes" ] || rm -f "$jp_notes" "$jp_notes".out.*'
trap 'eval "$jp_at_exit"' 0
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# jp_worse AREA STATUS: AREA's status becomes STATUS when that is worse.
jp_worse() {
	case $1 in storage | data | identity | python | network | shm | limits | gpus) ;; *) return 0 ;; esac
	eval "jp_w=\$jp_area_$1"
	case $2:$jp_w in
	fail:* | warn:- | warn:pass | pass:-) eval "jp_area_$1=\$2" ;;
	esac
	return 0
}
# jp_area AREA STATUS: a check of AREA (storage, data, identity, python,
# network, shm, limits, gpus) ended in STATUS (pass, warn or fail); the
# table shows each area's worst.
jp_area() {
	case $2 in pass | warn | fail) ;; *) return 0 ;; esac
	jp_worse "$1" "$2"
	[ -z "$jp_notes" ] || printf 'area %s %s\n' "$1" "$2" >>"$jp_notes" 2>/dev/null
	return 0
}

# jp_say STATUS ID FORMAT ARG...: one line, on stderr but for a pass.
jp_say() {
	jp_s=$1 jp_sid=$2 jp_fmt=$3
	shift 3
	# shellcheck disable=SC2059 # the format is the message
	jp_msg=$(printf -- "$jp_fmt" "$@")
	if [ "$jp_s" = pass ]; then
		printf '[%s] %s: %s\n' "$jp_s" "$jp_sid" "$jp_msg"
		return 0
	fi
	printf '[%s] %s: %s\n' "$jp_s" "$jp_sid" "$jp_msg" >&2
	# the ids the last line names
	if [ "$jp_s" = warn ]; then
		jp_warn_ids="$jp_warn_ids $jp_sid" jp_warns=$((jp_warns + 1))
	else
		jp_fail_ids="$jp_fail_ids $jp_sid"
	fi
	[ -z "$jp_notes" ] || printf 'id %s %s\n' "$jp_s" "$jp_sid" >>"$jp_notes" 2>/dev/null
}
# jp_fail ID FORMAT ARG...: a failure of the area in jp_a, in a probe.
jp_fail() { jp_say FAIL "$@"; jp_area "${jp_a:-storage}" fail; jp_n=$((jp_n + 1)); }
# jp_warn AREA ID FORMAT ARG...; jp_bad AREA ID FORMAT ARG... (a failure
# in the main shell)
jp_warn() { jp_w_a=$1; shift; jp_say warn "$@"; jp_area "$jp_w_a" warn; }
jp_bad() { jp_w_a=$1; shift; jp_say FAIL "$@"; jp_area "$jp_w_a" fail; jp_fails=$((jp_fails + 1)); }

# jp_under PATH ROOT: PATH is ROOT or below it.
jp_under() {
	[ "$2" = / ] && return 0
	case $1 in "$2" | "$2"/*) return 0 ;; esac
	return 1
}
# jp_in_roots PATH ROOTS (one a line): the root PATH is under, or nothing.
jp_in_roots() {
	jp_r_path=$1
	printf '%s\n' "$2" | while IFS= read -r jp_r; do
		[ -n "$jp_r" ] && jp_under "$jp_r_path" "$jp_r" && { printf '%s\n' "$jp_r"; break; }
	done
}

# jp_mount PATH: "FSTYPE MOUNTPOINT" of the mount PATH is on (the last of
# the longest mount points above it in /proc/self/mountinfo), or nothing.
jp_mount() {
	[ -r /proc/self/mountinfo ] || return 0
	JP_AWK_PATH=$1 awk '
	function unescape(s) {
		gsub(/\\040/, " ", s); gsub(/\\011/, "\t", s); gsub(/\\012/, "\n", s)
		gsub(/\\134/, "\\", s)
		return s
	}
	BEGIN { p = ENVIRON["JP_AWK_PATH"]; best = -1 }
	{
		for (i = 7; i <= NF && $i != "-"; i++) ;
		mp = unescape($5)
		if (mp == "/" || p == mp || index(p, mp "/") == 1) {
			if (length(mp) >= best) { best = length(mp); fs = $(i + 1); at = mp }
		}
	}
	END { if (best >= 0) print fs " " at }' /proc/self/mountinfo 2>/dev/null
}

jp_ephemeral_fs() { case $1 in tmpfs | ramfs | overlay | overlayfs | aufs) return 0 ;; esac; return 1; }

# jp_bounded SECONDS COMMAND...: run COMMAND in a background subshell and
# wait at most SECONDS for it. Returns its status, or 137 when time ran out:
# then it is killed and not waited for (a process inside a request to a hung
# FUSE or NFS mount cannot end until the mount answers).
jp_bounded() {
	sleep "$1" </dev/null >/dev/null 2>&1 &
	jp_timer=$!
	shift
	# The command runs in an inner subshell: on time out, the outer one
	# kills it and ends by itself, so no shell reports a killed job.
	(
		("$@") &
		jp_in=$!
		trap 'kill -9 "$jp_in" 2>/dev/null; exit 137' TERM
		wait "$jp_in"
		jp_st=$?
		kill "$jp_timer" 2>/dev/null
		exit "$jp_st"
	) </dev/null &
	jp_pid=$!
	{ wait "$jp_timer"; } 2>/dev/null
	if [ $? -le 128 ]; then
		kill "$jp_pid" 2>/dev/null
	fi
	wait "$jp_pid"
}

# jp_bounded_out SECS CMD...: jp_bounded, for a caller that reads CMD's
# output ($(...)): it goes into a file of its own, printed once CMD has
# ended or been given up, so a process CMD left behind (stuck in a hung
# mount or a wedged driver, where even kill -9 waits) holds no pipe the
# caller would wait on for ever. Without a notes file, through the pipe.
jp_bounded_out() {
	[ -n "$jp_notes" ] && jp_bo=$(mktemp "$jp_notes.out.XXXXXX" 2>/dev/null) || {
		jp_bounded "$@"
		return
	}
	jp_bounded "$@" >"$jp_bo"
	jp_bo_st=$?
	cat "$jp_bo"
	rm -f "$jp_bo"
	return "$jp_bo_st"
}

# jp_unfinished PATH: the record or temporary a `jobprep stage` of PATH, or
# of a folder above it, leaves beside it until it has finished (a stage
# still running, or killed half-way); nothing when there is none.
jp_unfinished() {
	jp_u=$1
	while [ -n "$jp_u" ] && [ "$jp_u" != / ]; do
		jp_ud=${jp_u%/*} jp_ub=${jp_u##*/}
		for jp_uk in staging- stage- unpack- ''; do
			jp_ut=$jp_ud/.jobprep-tmp-$jp_uk$jp_ub
			[ -e "$jp_ut" ] || continue
			if [ "$jp_uk" = staging- ]; then
				# a record of a run in it (a folder just emptied is none)
				for jp_ur in "$jp_ut"/*; do
					[ -e "$jp_ur" ] && { printf '%s\n' "$jp_ut"; return 0; }
				done
				continue
			fi
			printf '%s\n' "$jp_ut"
			return 0
		done
		jp_u=$jp_ud
	done
}

# jp_probe FIELD ROLE PATH FS MOUNTPOINT, in a subshell: ROLE is code (a
# directory to read), data (a directory or file to read), output (a
# directory to write) or env (a path-valued job.env: only where it lives,
# when it exists); FS and MOUNTPOINT what the manifest recorded of
# PATH's storage where the job was prepared (empty: nothing recorded).
# Prints a line per problem, exits with their number.
jp_probe() {
	jp_f=$1 jp_role=$2 jp_p=$3 jp_rec_fs=${4-} jp_rec_mp=${5-} jp_n=0 jp_a=storage
	[ "$jp_role" = data ] && jp_a=data
	# a data set still being staged (or whose stage was killed): also
	# where the stage has not put it in place yet
	if [ "$jp_role" = data ]; then
		jp_left=$(jp_unfinished "$jp_p")
		[ -z "$jp_left" ] || jp_fail "$jp_f.staging" "$jp_m_staging" "$jp_p" "$jp_who" "$jp_left"
	fi
	if [ ! -e "$jp_p" ]; then
		# (a job.env folder the job may make itself: the lint's business)
		[ "$jp_role" = env ] || jp_fail "$jp_f.exists" "$jp_m_missing" "$jp_p" "$jp_who"
		exit "$jp_n"
	fi
	if [ "$jp_role" != data ] && [ "$jp_role" != env ] && [ ! -d "$jp_p" ]; then
		jp_fail "$jp_f.exists" "$jp_m_notdir" "$jp_p" "$jp_who"
		exit "$jp_n"
	fi
	# storage: where it really is (symlinks followed), as this Worker mounts it
	if [ -d "$jp_p" ]; then
		jp_real=$(cd "$jp_p" 2>/dev/null && pwd -P) || jp_real=$jp_p
	else
		jp_d=${jp_p%/*}
		jp_real=$(cd "${jp_d:-/}" 2>/dev/null && pwd -P) || jp_real=$jp_d
		jp_real=${jp_real%/}/${jp_p##*/}
	fi
	jp_at=$(jp_mount "$jp_real")
	jp_fs=${jp_at%% *} jp_mp=${jp_at#* }
	jp_root=$(jp_in_roots "$jp_real" "$jp_public")
	jp_a=storage
	if [ -n "$jp_root" ]; then
		[ "$jp_role" = output ] && jp_fail "$jp_f.storage" "$jp_m_public" "$jp_p" "$jp_root"
	elif [ -n "$(jp_in_roots "$jp_real" "$jp_shared")" ]; then
		# under a declared shared root: the Worker's word is final. On
		# storage that is wiped, or other than where the job was
		# prepared, the job would read or write something else.
		if [ -n "$jp_at" ] && jp_ephemeral_fs "$jp_fs"; then
			jp_shared_bad "$jp_f.storage" "$jp_m_declared" "$jp_p" "$jp_fs" "$jp_mp" "$jp_who"
		elif [ -n "$jp_at" ] && [ -n "$jp_rec_fs" ] && jp_moved "$jp_real" "$jp_fs" "$jp_mp"; then
			jp_shared_bad "$jp_f.storage" "$jp_m_moved" "$jp_p" "$jp_fs" "$jp_mp" "$jp_who" \
				"$jp_rec_fs" "$jp_rec_mp"
		fi
	elif jp_root=$(jp_in_roots "$jp_real" "$jp_ephemeral") && [ -n "$jp_root" ]; then
		jp_fail "$jp_f.storage" "$jp_m_wiped" "$jp_p" "$jp_root"
	elif [ -n "$jp_at" ] && jp_ephemeral_fs "$jp_fs"; then
		jp_fail "$jp_f.storage" "$jp_m_wiped_fs" "$jp_p" "$jp_fs" "$jp_mp" "$jp_who"
	fi
	[ "$jp_role" = env ] && exit "$jp_n"
	if [ "$jp_role" != output ]; then
		[ "$jp_role" = data ] && jp_a=data
		if [ -d "$jp_p" ]; then
			{ [ -r "$jp_p" ] && [ -x "$jp_p" ] && (cd "$jp_p"); } 2>/dev/null ||
				jp_fail "$jp_f.readable" "$jp_m_unreadable" "$jp_p" "$jp_who"
		else
			dd if="$jp_p" of=/dev/null bs=1 count=1 2>/dev/null ||
				jp_fail "$jp_f.readable" "$jp_m_unreadable" "$jp_p" "$jp_who"
		fi
		exit "$jp_n"
	fi
	jp_t=$jp_p/.jobprep-preflight-$jp_host-$$
	if (: >"$jp_t") 2>/dev/null; then
		rm -f "$jp_t"
	else
		jp_fail "$jp_f.writable" "$jp_m_unwritable" "$jp_p" "$jp_who"
	fi
	jp_kb=$(df -Pk "$jp_p" 2>/dev/null | awk 'NR == 2 { print $4 }')
	if jp_num "$jp_kb" && [ "$jp_kb" -lt "$jp_min_free_kb" ]; then
		jp_fail "$jp_f.space" "$jp_m_full" "$jp_p" "$jp_kb" "$jp_who" "$jp_min_free_kb"
	fi
	exit "$jp_n"
}

# jp_fs_family FSTYPE: one name for the clients of one kind of storage
# (nfs and nfs4, the kernel's and FUSE's CephFS and GlusterFS).
jp_fs_family() {
	case $1 in
	nfs | nfs4) echo nfs ;;
	ceph | fuse.ceph | fuse.ceph-fuse) echo ceph ;;
	glusterfs | fuse.glusterfs) echo glusterfs ;;
	*) echo "$1" ;;
	esac
}
# jp_moved REALPATH FSTYPE MOUNTPOINT: this Worker's storage of a path under
# a shared root is not what the manifest recorded (jp_rec_fs, jp_rec_mp):
# another kind of filesystem, or a mount of its own below the shared root
# (a node-local folder at logs/). The same storage mounted at the shared
# root itself, or above it, is the platform's way: not a move.
jp_moved() {
	[ "$(jp_fs_family "$2")" != "$(jp_fs_family "$jp_rec_fs")" ] && return 0
	[ "$3" = "$jp_rec_mp" ] && return 1
	jp_sr=$(jp_in_roots "$1" "$jp_shared")
	[ "$3" != "$jp_sr" ] && jp_under "$3" "$jp_sr"
}

# jp_shared_bad ID FORMAT ARG...: a path under a declared shared root that
# is not on that storage here: a failure, a warning in a sandbox profile
# (the demo's, a test's: its shared root is a plain folder on this machine).
jp_shared_bad() {
	if [ "$jp_sandbox" = 1 ]; then
		jp_say warn "$@"
		jp_area "$jp_a" warn
	else
		jp_fail "$@"
	fi
}

# jp_count FIELD PATH FILES, in a subshell: the data set PATH, a
# directory, holds at least FILES files (what the manifest recorded; ?:
# no count recorded, it holds some; empty: the job fills it, not judged),
# and no temporary of a `jobprep stage` or of an unpack still running or
# stopped half-way (.jobprep-tmp-*). At most jp_count_max files are
# counted. Exits with the number of problems.
jp_count() {
	jp_f=$1 jp_p=$2 jp_rec=$3 jp_n=0 jp_a=data
	[ -d "$jp_p" ] || exit 0
	case $jp_rec in
	'') jp_want=0 ;;
	'?') jp_want=1 ;;
	*)
		jp_num "$jp_rec" || jp_rec=0
		jp_want=$jp_rec
		;;
	esac
	[ "$jp_want" -gt "$jp_count_max" ] && jp_want=$jp_count_max
	jp_seen=$(find "$jp_p" -name '.jobprep-tmp-*' -prune -print -o -type f -print 2>/dev/null |
		awk -v max="$jp_count_max" '
		{ n = split($0, part, "/") }
		part[n] ~ /^\.jobprep-tmp-/ { if (tmp == "") tmp = $0; next }
		{ if (++files >= max) exit }
		END { printf "%d %s\n", files, tmp }')
	jp_files=${jp_seen%% *} jp_tmp=${jp_seen#* }
	[ -n "$jp_tmp" ] && jp_fail "$jp_f.staging" "$jp_m_inner_tmp" "$jp_p" "$jp_who" "$jp_tmp"
	jp_num "$jp_files" && [ "$jp_want" -gt 0 ] || exit "$jp_n"
	if [ "$jp_files" -eq 0 ]; then
		jp_fail "$jp_f.count" "$jp_m_empty" "$jp_p" "$jp_who"
	elif [ "$jp_rec" != '?' ] && [ "$jp_files" -lt "$jp_want" ]; then
		jp_fail "$jp_f.count" "$jp_m_fewer" "$jp_p" "$jp_files" "$jp_who" "$jp_rec"
	fi
	exit "$jp_n"
}

# jp_lost AREA FIELD PROBLEMS: without a notes file what a subshell found
# is known only by its count: the area fails, the field is named.
jp_lost() {
	[ -z "$jp_notes" ] && [ "$3" -gt 0 ] || return 0
	jp_worse "$1" fail
	jp_fail_ids="$jp_fail_ids $2"
}

# jp_check FIELD ROLE PATH [FILES [FS MOUNTPOINT]]: the probe, bounded;
# then for a data set its count, bounded too. FILES, FS and MOUNTPOINT
# are what the manifest recorded (empty: nothing).
jp_check() {
	jp_bounded "$jp_timeout" jp_probe "$1" "$2" "$3" "${5-}" "${6-}"
	jp_st=$?
	if [ "$jp_st" -eq 137 ]; then
		jp_say FAIL "$1.storage" "$jp_m_hung" "$3" "$jp_timeout" "$jp_who"
		jp_area storage fail
		jp_st=1
	fi
	jp_fails=$((jp_fails + jp_st))
	jp_area storage pass
	if [ "$2" = data ]; then jp_lost data "$1" "$jp_st"; else jp_lost storage "$1" "$jp_st"; fi
	case $2 in
	output)
		# the folders the Workers meet in
		jp_no=$((jp_no + 1))
		eval "jp_o_f$jp_no=\$1 jp_o_p$jp_no=\$3"
		;;
	data)
		jp_area data pass
		[ "$jp_st" -eq 0 ] || return 0
		jp_bounded "$jp_timeout" jp_count "$1" "$3" "${4-}"
		jp_st=$?
		if [ "$jp_st" -eq 137 ]; then
			jp_say warn "$1.count" "$jp_m_uncounted" "$3" "$jp_timeout" "$jp_who"
			jp_area data warn
			jp_st=0
		fi
		jp_fails=$((jp_fails + jp_st))
		jp_lost data "$1" "$jp_st"
		;;
	esac
}
jp_no=0

# jp_check_env FIELD PATH [FS MOUNTPOINT]: a path-valued job.env under a
# declared shared root (FIELD job.env.NAME): where it lives, bounded.
jp_check_env() {
	jp_bounded "$jp_timeout" jp_probe "$1" env "$2" "${3-}" "${4-}"
	jp_st=$?
	if [ "$jp_st" -eq 137 ]; then
		jp_say FAIL "$1.storage" "$jp_m_hung" "$2" "$jp_timeout" "$jp_who"
		jp_area storage fail
		jp_st=1
	fi
	jp_fails=$((jp_fails + jp_st))
	jp_area storage pass
	jp_lost storage "$1" "$jp_st"
}

# --- the meeting: every Worker sees rank 0's mark in the output directory ---
jp_rank= jp_rank_from=
for jp_v in JOBPREP_RANK PET_NODE_RANK NODE_RANK GROUP_RANK SLURM_NODEID RANK SLURM_PROCID; do
	eval "jp_x=\${$jp_v-}"
	if [ -n "$jp_x" ]; then
		jp_rank=$jp_x jp_rank_from=$jp_v
		break
	fi
done
jp_who="$jp_host"
[ -n "$jp_rank" ] && jp_who="$jp_host, rank $jp_rank"

# The attempt: one value every Worker of this attempt shares, and a later
# attempt does not (see the header).
if [ -n "${JOBPREP_ATTEMPT-}" ]; then
	jp_attempt=$JOBPREP_ATTEMPT
elif [ -n "${SLURM_JOB_ID-}" ]; then
	jp_attempt="slurm:$SLURM_JOB_ID.${SLURM_RESTART_COUNT:-0}"
elif [ -n "${TORCHELASTIC_RUN_ID-}" ]; then
	jp_attempt="torchelastic:$TORCHELASTIC_RUN_ID"
elif [ -n "${MASTER_ADDR-}" ]; then
	jp_attempt="master:$MASTER_ADDR:${MASTER_PORT-}"
else
	jp_attempt=
fi
jp_token="run=$jp_run attempt=$jp_attempt"

# jp_put_mark MARK; jp_await_mark MARK (in subshells)
jp_put_mark() {
	printf '%s\n' "$jp_token" >"$1.$jp_host.$$" 2>/dev/null &&
		mv -f "$1.$jp_host.$$" "$1" 2>/dev/null && exit 0
	rm -f "$1.$jp_host.$$" 2>/dev/null
	exit 1
}
jp_await_mark() {
	while :; do
		if [ -f "$1" ] && [ "$(cat "$1" 2>/dev/null)" = "$jp_token" ]; then
			exit 0
		fi
		sleep 0.2 2>/dev/null || sleep 1
	done
}
# jp_meet_in FIELD DIR: rank 0 leaves its mark in DIR, every other rank
# waits for it there.
jp_meet_in() {
	jp_mk=$2/.jobprep-preflight-ready
	if [ "$jp_rank" -eq 0 ]; then
		jp_bounded "$jp_timeout" jp_put_mark "$jp_mk" ||
			jp_bad storage "$1.same_storage" "$jp_m_nomark" "$jp_who" "$jp_mk"
		return 0
	fi
	jp_bounded "$jp_wait" jp_await_mark "$jp_mk" && return 0
	if [ "$1" = "$jp_meet_id" ]; then
		jp_bad storage "$1.same_storage" "$jp_m_unmet" "$jp_who" "$jp_mk" "$jp_wait"
	else
		jp_bad storage "$1.same_storage" "$jp_m_unmet_dir" "$jp_who" "$jp_mk" "$jp_wait" "$2"
	fi
}
# jp_identity: the platform's variables the manifest's job.env names
# (env.sh leaves them to the platform: every Worker would get the same).
jp_identity() {
	if [ -n "$jp_env_identity" ]; then
		jp_bad identity job.env.identity "$jp_m_env_identity" "$jp_who" "$jp_env_identity"
	else
		jp_area identity pass
	fi
}
jp_meet() {
	jp_identity
	# the manifest's Workers, or more when the platform started more
	for jp_v in SLURM_JOB_NUM_NODES SLURM_NNODES PET_NNODES; do
		eval "jp_x=\${$jp_v-}"
		jp_num "$jp_x" && [ "$jp_x" -gt "$jp_workers" ] && jp_workers=$jp_x
	done
	[ "$jp_workers" -gt 1 ] || return 0
	if ! jp_num "$jp_rank"; then
		jp_bad identity "$jp_meet_id" "$jp_m_norank" "$jp_host" "$jp_workers"
		return 0
	fi
	if [ -z "$jp_attempt" ]; then
		jp_bad identity "$jp_meet_id" "$jp_m_noattempt" "$jp_who"
		return 0
	fi
	jp_area identity pass
	# every folder the job writes: a Worker with another mount at any
	# of them (a node-local folder at logs/) writes where no one reads
	jp_i=0
	while [ "$jp_i" -lt "$jp_no" ]; do
		jp_i=$((jp_i + 1))
		eval "jp_meet_in \"\$jp_o_f$jp_i\" \"\$jp_o_p$jp_i\""
	done
	jp_area storage pass
}

# jp_finish: this Worker's table, area by area, then the last line: every
# check passed; or the launch starts with warnings, counted and named; or
# it does not, the failures and warnings counted and named.
jp_finish() {
	if [ -n "$jp_notes" ] && [ -r "$jp_notes" ]; then
		jp_warn_ids= jp_fail_ids= jp_warns=0 jp_nf=0
		while read -r jp_k jp_x jp_y; do
			case $jp_k in
			area) jp_worse "$jp_x" "$jp_y" ;;
			id)
				if [ "$jp_x" = warn ]; then
					jp_warns=$((jp_warns + 1)) jp_warn_ids="$jp_warn_ids $jp_y"
				else
					jp_nf=$((jp_nf + 1)) jp_fail_ids="$jp_fail_ids $jp_y"
				fi
				;;
			esac
		done <"$jp_notes"
		[ "$jp_nf" -gt "$jp_fails" ] && jp_fails=$jp_nf
	fi
	jp_ids=$(printf '%s\n' $jp_fail_ids $jp_warn_ids | awk 'NF && !seen[$0]++' |
		tr '\n' ' ')
	jp_ids=${jp_ids% }
	if [ "$jp_fails" -gt 0 ]; then
		exec 3>&2
	elif [ "$jp_warns" -gt 0 ]; then
		exec 3>&2
	else
		exec 3>&1
	fi
	printf '[area] %-9s %s  (%s)\n' area status "$jp_who" >&3
	for jp_v in $jp_areas; do
		eval "jp_x=\$jp_area_$jp_v"
		printf '[area] %-9s %s\n' "$jp_v" "$jp_x" >&3
	done
	if [ "$jp_fails" -gt 0 ]; then
		# shellcheck disable=SC2059 # the format is the message
		printf "[FAIL] preflight: $jp_m_failed; $jp_m_counted\n" "$jp_who" "$jp_fails" "$jp_warns" \
			"$jp_ids" >&2
		exit 1
	fi
	if [ "$jp_warns" -gt 0 ]; then
		# shellcheck disable=SC2059
		printf "[warn] preflight: $jp_m_warned\n" "$jp_who" "$jp_warns" "$jp_ids" >&2
		exit 0
	fi
	# shellcheck disable=SC2059
	printf "[pass] preflight: $jp_m_passed\n" "$jp_who"
	exit 0
}

# jp_code_tree: the run's own copy of its code (jp_tree_dir) is the one its
# manifest records: the stamp jobprep wrote into it names jp_tree_commit and
# the included changes' digest jp_tree_changes ("-" for none). One small
# file read, bounded like every look.
jp_tree_probe() {
	jp_n=0 jp_tc= jp_td=-
	if [ -r "$jp_tree_dir/.jobprep-tree" ]; then
		while IFS= read -r jp_tl; do
			case $jp_tl in
			"commit "*) jp_tc=${jp_tl#commit } ;;
			"changes "*) jp_td=${jp_tl#changes } ;;
			esac
		done <"$jp_tree_dir/.jobprep-tree"
	fi
	if [ "$jp_tc" != "$jp_tree_commit" ] || [ "$jp_td" != "$jp_tree_changes" ]; then
		jp_th=${jp_tc:-?} jp_tw=$jp_tree_commit
		[ "$jp_td" = - ] || jp_th="$jp_th + $(printf '%.12s' "$jp_td")"
		[ "$jp_tree_changes" = - ] || jp_tw="$jp_tw + $(printf '%.12s' "$jp_tree_changes")"
		jp_fail code.path.tree "$jp_m_tree" "$jp_tree_dir" "$jp_th" "$jp_tw" "$jp_who"
	fi
	exit "$jp_n"
}
jp_code_tree() {
	jp_bounded "$jp_timeout" jp_tree_probe
	jp_st=$?
	if [ "$jp_st" -eq 137 ]; then
		jp_say FAIL code.path.tree "$jp_m_hung" "$jp_tree_dir" "$jp_timeout" "$jp_who"
		jp_st=1
	fi
	jp_fails=$((jp_fails + jp_st))
}
