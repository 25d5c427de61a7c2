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

# jp_say STATUS ID FORMAT ARG...: one line, on stderr but for a pass.
jp_say() {
	jp_s=$1 jp_i=$2 jp_fmt=$3
	shift 3
	# shellcheck disable=SC2059 # the format is the message
	jp_msg=$(printf -- "$jp_fmt" "$@")
	if [ "$jp_s" = pass ]; then
		printf '[%s] %s: %s\n' "$jp_s" "$jp_i" "$jp_msg"
	else
		printf '[%s] %s: %s\n' "$jp_s" "$jp_i" "$jp_msg" >&2
	fi
}
jp_fail() { jp_say FAIL "$@"; jp_n=$((jp_n + 1)); }

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

# jp_probe FIELD ROLE PATH, in a subshell: ROLE is code (a directory to
# read), data (a directory or file to read) or output (a directory to write). Prints a line per problem, exits with their number.
jp_probe() {
	jp_f=$1 jp_role=$2 jp_p=$3 jp_n=0
	# a data set still being staged (or whose stage was killed): also
	# where the stage has not put it in place yet
	if [ "$jp_role" = data ]; then
		jp_left=$(jp_unfinished "$jp_p")
		[ -z "$jp_left" ] || jp_fail "$jp_f.staging" "$jp_m_staging" "$jp_p" "$jp_who" "$jp_left"
	fi
	if [ ! -e "$jp_p" ]; then
		jp_fail "$jp_f.exists" "$jp_m_missing" "$jp_p" "$jp_who"
		exit "$jp_n"
	fi
	if [ "$jp_role" != data ] && [ ! -d "$jp_p" ]; then
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
	if [ -n "$jp_root" ]; then
		[ "$jp_role" = output ] && jp_fail "$jp_f.storage" "$jp_m_public" "$jp_p" "$jp_root"
	elif [ -n "$(jp_in_roots "$jp_real" "$jp_shared")" ]; then
		jp_ephemeral_fs "$jp_fs" &&
			jp_say warn "$jp_f.storage" "$jp_m_declared" "$jp_p" "$jp_fs" "$jp_mp" "$jp_who"
	elif jp_root=$(jp_in_roots "$jp_real" "$jp_ephemeral") && [ -n "$jp_root" ]; then
		jp_fail "$jp_f.storage" "$jp_m_wiped" "$jp_p" "$jp_root"
	elif [ -n "$jp_at" ] && jp_ephemeral_fs "$jp_fs"; then
		jp_fail "$jp_f.storage" "$jp_m_wiped_fs" "$jp_p" "$jp_fs" "$jp_mp" "$jp_who"
	fi
	if [ "$jp_role" != output ]; then
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

# jp_check FIELD ROLE PATH: the probe, bounded.
jp_check() {
	jp_bounded "$jp_timeout" jp_probe "$@"
	jp_st=$?
	if [ "$jp_st" -eq 137 ]; then
		jp_say FAIL "$1.storage" "$jp_m_hung" "$3" "$jp_timeout" "$jp_who"
		jp_st=1
	fi
	jp_fails=$((jp_fails + jp_st))
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
jp_mark=$jp_out/.jobprep-preflight-ready
jp_token="run=$jp_run attempt=$jp_attempt"

jp_put_mark() {
	printf '%s\n' "$jp_token" >"$jp_mark.$jp_host.$$" 2>/dev/null &&
		mv -f "$jp_mark.$jp_host.$$" "$jp_mark" 2>/dev/null && exit 0
	rm -f "$jp_mark.$jp_host.$$" 2>/dev/null
	exit 1
}
jp_await_mark() {
	while :; do
		if [ -f "$jp_mark" ] && [ "$(cat "$jp_mark" 2>/dev/null)" = "$jp_token" ]; then
			exit 0
		fi
		sleep 0.2 2>/dev/null || sleep 1
	done
}
jp_meet() {
	# the manifest's Workers, or more when the platform started more
	for jp_v in SLURM_JOB_NUM_NODES SLURM_NNODES PET_NNODES; do
		eval "jp_x=\${$jp_v-}"
		jp_num "$jp_x" && [ "$jp_x" -gt "$jp_workers" ] && jp_workers=$jp_x
	done
	[ "$jp_workers" -gt 1 ] || return 0
	if ! jp_num "$jp_rank"; then
		jp_say FAIL "$jp_meet_id" "$jp_m_norank" "$jp_host" "$jp_workers"
		jp_fails=$((jp_fails + 1))
		return 0
	fi
	if [ -z "$jp_attempt" ]; then
		jp_say FAIL "$jp_meet_id" "$jp_m_noattempt" "$jp_who"
		jp_fails=$((jp_fails + 1))
		return 0
	fi
	if [ "$jp_rank" -eq 0 ]; then
		jp_bounded "$jp_timeout" jp_put_mark || {
			jp_say FAIL "$jp_meet_id" "$jp_m_nomark" "$jp_who" "$jp_mark"
			jp_fails=$((jp_fails + 1))
		}
		return 0
	fi
	jp_bounded "$jp_wait" jp_await_mark && return 0
	jp_say FAIL "$jp_meet_id" "$jp_m_unmet" "$jp_who" "$jp_mark" "$jp_wait"
	jp_fails=$((jp_fails + 1))
}

jp_finish() {
	if [ "$jp_fails" -gt 0 ]; then
		jp_say FAIL preflight "$jp_m_failed" "$jp_who" "$jp_fails"
		exit 1
	fi
	jp_say pass preflight "$jp_m_passed" "$jp_who"
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
