#!/bin/sh
# Fault trials (issue 11): every operation that writes, or works a while,
# is hit by every fault, several times at random moments, and must end the
# way it promises.
#
#   operations  clone (smart http: lighttpd + git http-backend), update (init
#               moving an existing checkout to a new tag, over the same
#               server), stage_copy (a directory), stage_unpack (an
#               archive), scan (a big tree), manifest (init -o over an
#               existing manifest)
#   faults      SIGINT, SIGTERM, SIGHUP, SIGKILL; the server killed
#               mid-pack (clone, update); ENOSPC (a tiny tmpfs); a
#               read-only remount mid-write (`mount -o remount,ro`)
#
# A trial waits until jobprep is at work (its progress line is out, the
# pack is coming in, or it has its handler for SIGINT in place: a
# background job starts with SIGINT ignored, and one sent before then was
# lost, 12 of 18 tries in a sanitizer build), waits a
# random delay more (the seed is printed), checks that jobprep is still
# that process and still running, and only then injects the fault. The
# read-only remount is tried from the start, with jobprep and its children
# (stage works in one) stopped (SIGSTOP) for each try: the kernel refuses it while a file is open for
# writing, so it lands between two files, wherever a stop found a gap. A signal that finds the work already complete (exit 0) proves
# nothing: the trial is counted as "missed" and run again (at most 6
# times). Then it judges:
#   - the exit status: 128 + the signal (SIGKILL: 137), 1 for the server,
#     the full disk and the read-only remount;
#   - nothing half-made under a final name (no target, no destination that
#     is not the source's bytes, no new manifest), no temporary left (but
#     after SIGKILL, which nobody can clean up after, on a read-only disk,
#     which cannot be cleaned, and an archive's unpack folder on a full
#     disk, kept to go on from: there the next run must remove them);
#   - what was there is intact: the old manifest byte for byte, the old
#     checkout (HEAD, `git status` clean, every file's bytes and mode);
#   - the next run (the fault gone: more room, read-write again, the server
#     back) succeeds and leaves no temporary.
#
# JOBPREP_FAULT_TRIALS trials per cell (default 1: the whole suite in about
# two minutes on a loaded 2-core machine); JOBPREP_FAULT_SEED fixes the
# random delays; JOBPREP_FAULT_OPS and JOBPREP_FAULT_KINDS (space-separated
# names as above, the faults INT TERM HUP KILL server enospc readonly) run
# only some cells. ENOSPC and the read-only remount need root (a private
# mount namespace, unshare -m): without it those cells are skipped with
# the reason. At the end a table (fault x operation x trials x passed x
# missed) is printed as TAP comments and written to fault_trials.table
# beside the test's log ($JOBPREP_FAULT_TABLE overrides).
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
if [ "${1:-}" != inside ]; then
	. "$TOP_SRCDIR/tests/lib/proc.sh"
	JP_FAULT_TABLE_OUT=${JOBPREP_FAULT_TABLE:-${TOP_BUILDDIR:-.}/tests/integration/fault_trials.table}
	export JP_FAULT_TABLE_OUT
	if why=$(jp_mountns_unavailable); then
		JP_FAULT_NO_MOUNTS=$why
		export JP_FAULT_NO_MOUNTS
		exec sh "$0" inside
	fi
	exec unshare -m --propagation private sh "$0" inside
fi

# --- inside a private mount namespace (when root) ----------------------------
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/initscratch.sh"
S=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-faults.XXXXXX") || exit 99
# unmount_under PREFIX: every mount of ours whose path starts with PREFIX
unmount_under() {
	for m in $(awk '{print $5}' /proc/self/mountinfo | grep "^$1" | sort -r); do
		umount -l "$m" 2>/dev/null
	done
}
cleanup() {
	unmount_under "$S/"
	jp_httpd_stop "$S/httpd"
	[ -n "${JP_KEEP:-}" ] || rm -rf "$S"
}
trap cleanup EXIT
jp_test_env "$S"
jp_init_scratch "$S" || exit 99
J=$JOBPREP
TRIALS=${JOBPREP_FAULT_TRIALS:-1}
SEED=${JOBPREP_FAULT_SEED:-$(date +%s)}
NO_MOUNTS=${JP_FAULT_NO_MOUNTS:-}
FAULTS=${JOBPREP_FAULT_KINDS:-INT TERM HUP KILL server enospc readonly}
P=$S/shared/projects
TABLE=$S/table
: >"$TABLE"
echo "# seed $SEED, $TRIALS trial(s) per cell"

# --- the server: lighttpd + git http-backend, packs sent through a hook
# that sleeps $S/delay seconds per 32 KiB (0 for the runs after a fault)
mkdir -p "$S/httpd" "$S/srv"
cat >"$S/hook" <<EOF
#!/bin/sh
"\$@" | perl -e '\$|=1; my \$d = 0 + (\`cat '"'$S/delay'"' 2>/dev/null\` || 0);
while (read(STDIN, \$b, 32768)) { print \$b; select(undef, undef, undef, \$d) if \$d }'
EOF
chmod +x "$S/hook"
slow() { echo 0.05 >"$S/delay"; }
fast() { echo 0 >"$S/delay"; }
fast
jp_git_big_repo "$S/srv/big.git" 2 || exit 99
# train.git: a checkout template at v1, then a big tag v-big
cp -r "$S/repos/train.git" "$S/srv/train.git" || exit 99
git clone -q "$S/srv/train.git" "$S/checkout" && git -C "$S/checkout" checkout -q --detach v1 ||
	exit 99
git clone -q "$S/srv/train.git" "$S/work" || exit 99
mkdir -p "$S/work/data"
head -c 2097152 /dev/urandom >"$S/work/data/blob"
python3 - "$S/work/many" <<'EOF' || exit 99
import os, sys
for i in range(2000):
    d = "%s/d%d" % (sys.argv[1], i % 20)
    os.makedirs(d, exist_ok=True)
    open("%s/f%d.txt" % (d, i), "w").write("file %d\n" % i)
EOF
git -C "$S/work" add -A
# shellcheck disable=SC2086
git $JP_GIT_ID -C "$S/work" commit -qm big && git -C "$S/work" tag v-big &&
	git -C "$S/work" push -q origin refs/tags/v-big || exit 99
# (lighttpd sends the pack as it comes, not once the CGI is done with it)
JP_HTTPD_EXTRA='server.stream-response-body = 2' jp_httpd_start "$S/httpd" "$S/srv" || exit 99
jp_slow_hook_config "$S/hook" >"$S/httpd/httpd-home/.gitconfig"
URL=http://127.0.0.1:$JP_HTTPD_PORT/git
git -C "$S/checkout" remote set-url origin "$URL/train.git"

# --- the data: a tree to stage (each file flushed), an archive to unpack,
# a big tree to scan
python3 - "$S/stagesrc" <<'EOF' || exit 99
import os, sys
for i in range(2000):
    d = "%s/d%d" % (sys.argv[1], i % 20)
    os.makedirs(d, exist_ok=True)
    with open("%s/f%d" % (d, i), "wb") as f:
        f.write(os.urandom(4096 + i))
EOF
# (onto tmpfs, where a flush costs nothing, a copy needs more files to last)
python3 - "$S/stagemany" <<'EOF' || exit 99
import os, sys
for i in range(12000):
    d = "%s/d%d" % (sys.argv[1], i % 20)
    os.makedirs(d, exist_ok=True)
    with open("%s/f%d" % (d, i), "wb") as f:
        f.write(os.urandom(512 + i % 1000))
EOF
python3 - "$S/unpacksrc" <<'EOF' || exit 99
import os, sys
for i in range(12000):
    d = "%s/d%d" % (sys.argv[1], i % 60)
    os.makedirs(d, exist_ok=True)
    with open("%s/f%d" % (d, i), "wb") as f:
        f.write(os.urandom(512 + i % 1000))
EOF
tar -C "$S/unpacksrc" -cf "$S/data.tar" . || exit 99
# stage_ns WHAT: nanoseconds one "stage --jobs 1 WHAT" takes here, into a
# folder beside the trials' own
stage_ns() {
	rm -rf "$S/timing" && mkdir -p "$S/timing/d" || exit 99
	_t0=$(date +%s%N)
	"$J" stage --jobs 1 "$1" "$S/timing/d" >/dev/null 2>&1 || exit 99
	_t1=$(date +%s%N)
	rm -rf "$S/timing"
	echo $((_t1 - _t0))
}
# half_s NS CAP: half of NS nanoseconds in seconds, at most CAP
half_s() { awk -v n="$1" -v c="$2" 'BEGIN { d = n / 2e9; printf "%.3f", (d < c ? d : c) }'; }
# How long an unpack takes here (0.2 s on a tmpfs /tmp, seconds in a
# sanitizer build), and a copy: a signal's random delay after the first
# progress line stays within the first half of that, or it lands after
# the end (six times in a row for one CI run's normal user, for each).
# The unpack: the archive into a folder not there yet, as its trials do.
_t0=$(date +%s%N)
mkdir -p "$S/unpack-timing" && "$J" stage "$S/data.tar" "$S/unpack-timing/d" >/dev/null 2>&1 || exit 99
_t1=$(date +%s%N)
rm -rf "$S/unpack-timing"
UNPACK_DELAY=$(half_s $((_t1 - _t0)) 0.3)
# The copy: the small tree, or where its files are written in under a
# second (a tmpfs, a disk whose flushes cost nothing), the big one.
COPY_SRC=$S/stagesrc
_ns=$(stage_ns "$COPY_SRC")
if [ "$_ns" -lt 1000000000 ]; then
	COPY_SRC=$S/stagemany
	_ns=$(stage_ns "$COPY_SRC")
fi
COPY_DELAY=$(half_s "$_ns" 0.4)
echo "# signals land within ${UNPACK_DELAY}s of an unpack's start, ${COPY_DELAY}s of a copy's (of ${COPY_SRC##*/})"
jp_empty_tree "$S/tree" || exit 99

# --- helpers ---------------------------------------------------------------
# must WHAT COMMAND...: COMMAND succeeds, else WHAT is added to WHY
must() {
	_what=$1
	shift
	"$@" >>"$C/judge.err" 2>&1 || WHY="$WHY; $_what"
}
is_jobprep() { jp_is_jobprep "$PID"; }
# run_bg ARG...: jobprep ARG... in the background (PID), output in $C/out, $C/err
run_bg() {
	jp_bg "$C/out" "$C/err" "$J" "$@"
	PID=$JP_PID
}
# until_working TENTHS COMMAND...: COMMAND (a sign of work) holds within TENTHS
until_working() {
	_n=$1
	shift
	_i=0
	until is_jobprep && "$@"; do
		[ $_i -gt 20 ] && ! is_jobprep && return 1
		[ $_i -ge "$_n" ] && return 1
		sleep 0.1
		_i=$((_i + 1))
	done
}
temps_in() { find "$1" -name '*jobprep-tmp-*' -o -name '.*.tmp' -o -name 'index.jobprep-*' 2>/dev/null; }
no_temps() { [ -z "$(temps_in "$1")" ] || { temps_in "$1" >&2; return 1; }; }
# no_temps_but_record DIR: no temporary but the record of a stage that has
# not finished (.jobprep-tmp-staging-*, one file per run in it): a stage
# stopped with part of it in an existing DEST keeps it, so check and
# preflight.sh see the data set is not complete; the next run removes it
no_temps_but_record() {
	_tl=$(temps_in "$1" | grep -v '/\.jobprep-tmp-staging-[^/]*\(/[^/]*\.json\)\{0,1\}$')
	[ -z "$_tl" ] || { printf '%s\n' "$_tl" >&2; return 1; }
}
has_text() { grep -q "$2" "$1" 2>/dev/null; }
rnd=$SEED
# delay MAX: sleep a random time from 0 to MAX seconds
delay() {
	rnd=$(( (rnd * 1103515245 + 12345) % 2147483648 ))
	sleep "$(awk -v r="$rnd" -v m="$1" 'BEGIN { printf "%.3f", (r % 1000) / 1000 * m }')"
}
# tmpfs DIR SIZE: a tmpfs of its own on DIR
tmpfs() {
	mkdir -p "$1" && mount -t tmpfs -o "size=$2,mode=755" jp-fault "$1"
}
# stop_children PID: once PID is stopped (it forks no more), its children
# too (stage works in one)
stop_children() {
	_i=0
	while [ $_i -lt 100 ] && ! sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | grep -q '^[TtZ]'; do
		sleep 0.01
		_i=$((_i + 1))
	done
	for _c in $(ps -o pid= --ppid "$1" 2>/dev/null); do
		kill -STOP "$_c" 2>/dev/null
	done
	return 0
}
# remount_ro DIR: read-only while jobprep works. The kernel refuses while a
# file there is open for writing (EBUSY), and the gaps between two files
# are far shorter than a mount(8): jobprep (and its children) is stopped
# (SIGSTOP) for each try and continued after it, so a try lands in whatever gap it stopped in.
# (mount(2) from python: a try every few milliseconds, not one per exec)
# remount_ro DIR MAX: jobprep and its children (stopped by the caller, so
# that python's start costs them nothing) are continued, and after a random delay up to MAX
# seconds, the tries begin.
remount_ro() {
	rnd=$(( (rnd * 1103515245 + 12345) % 2147483648 ))
	python3 - "$PID" "$1" "$2" "$rnd" <<'PY'
import ctypes, os, random, signal, sys, time
pid, target = int(sys.argv[1]), sys.argv[2].encode()
random.seed(int(sys.argv[4]))
# jobprep and its children (stage works in a child process): all stopped
# for a try, as the kernel looks at every file open for writing
def tree():
    kids = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                if int(open("/proc/%s/stat" % d).read().rsplit(")", 1)[1].split()[1]) == pid:
                    kids.append(int(d))
            except (OSError, IndexError, ValueError):
                pass
    return [pid] + kids
def signal_all(pids, sig):
    for p in pids:
        try:
            os.kill(p, sig)
        except ProcessLookupError:
            pass
def stopped(p):
    try:
        return open("/proc/%d/stat" % p).read().rsplit(")", 1)[1].split()[0] in ("T", "t", "Z")
    except OSError:
        return True
signal_all(tree(), signal.SIGCONT)
time.sleep(random.uniform(0, float(sys.argv[3])))
libc = ctypes.CDLL(None, use_errno=True)
MS_RDONLY, MS_REMOUNT = 1, 32
def state():
    try:
        return open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"
while state() not in ("gone", "Z"):
    try:
        os.kill(pid, signal.SIGSTOP)
    except ProcessLookupError:
        break
    pids = tree()
    signal_all(pids, signal.SIGSTOP)
    for _ in range(200):
        if state() in ("gone", "Z") or all(stopped(p) for p in pids):
            break
        time.sleep(0.0005)
    ok = libc.mount(None, target, None, MS_REMOUNT | MS_RDONLY, None) == 0
    signal_all(pids, signal.SIGCONT)
    if ok:
        sys.exit(0)
    time.sleep(0.002)
sys.exit(1)
PY
}
# none_half_made SRC DEST: every file under its final name in DEST is SRC's
none_half_made() {
	[ -d "$2" ] || return 0
	(cd "$2" && find . -type f ! -name '.jobprep-tmp-*' -print) | while IFS= read -r f; do
		cmp -s "$1/$f" "$2/$f" || { echo "half-made: $f" >&2; exit 1; }
	done
}
kill_server_mid_pack() {
	for _c in $(ps -o pid= --ppid "$(cat "$S/httpd/lighttpd.pid")" 2>/dev/null); do
		jp_kill_tree "$_c" KILL
	done
}
want_status() {
	case $1 in
	INT) echo 130 ;; TERM) echo 143 ;; HUP) echo 129 ;; KILL) echo 137 ;; *) echo 1 ;;
	esac
}

# --- the operations: setup_OP (the state before), start_OP (jobprep at
# work in the background; MNT: the folder a mount fault acts on),
# working_OP (a sign of work), judge_OP FAULT (after the faulted run),
# next_OP (the next run, the fault gone). Each in its trial folder $C.

# clone: into $C/dst/t
setup_clone() {
	D=$C/dst
	mkdir -p "$D"
	case $FAULT in enospc) tmpfs "$D" 1m ;; readonly) tmpfs "$D" 64m ;; esac
	MNT=$D
}
start_clone() { run_bg clone --progress "$URL/big.git" "$D/t"; }
working_clone() { until_working 300 has_text "$C/err" "receiving objects"; }
judge_clone() {
	must "a target was left" [ ! -e "$D/t" ]
	[ "$1" = KILL ] || [ "$1" = readonly ] || must "temporaries were left" no_temps "$D"
}
next_clone() {
	"$J" clone "$URL/big.git" "$D/t" >"$C/next.out" 2>"$C/next.err" ||
		WHY="$WHY; the next run failed: $(tail -n 1 "$C/next.err")"
	must "the next run made no checkout" [ -x "$D/t/scripts/train.sh" ]
	must "the next run left temporaries" no_temps "$D"
}

# update: init moves $P/upd-N (at v1) to v-big
setup_update() {
	JOB=upd-$N
	D=$P/$JOB
	mkdir -p "$D"
	case $FAULT in enospc | readonly) tmpfs "$D" 64m ;; esac
	cp -a "$S/checkout/." "$D/" || return 1
	if [ "$FAULT" = enospc ]; then
		mount -o remount,size=$(($(df -k --output=used "$D" | tail -1) + 1024))k "$D" || return 1
	fi
	MNT=$D
	cat >"$C/answers.json" <<EOF
{"job": {"name": "$JOB"}, "code": {"source": "shared_storage", "repo": {"url": "$URL/train.git", "ref": "v-big"}}}
EOF
	jp_git_snapshot "$D" >"$C/before"
}
start_update() { run_bg init --answers "$C/answers.json" --profile "$S/profile.json"; }
working_update() { until_working 300 jp_pack_coming "$D" "${XDG_CACHE_HOME:-/nonexistent}"; }
judge_update() {
	jp_git_snapshot "$D" >"$C/after"
	if [ "$1" = KILL ]; then
		must "HEAD moved" [ "$(head -n 1 "$C/before")" = "$(head -n 1 "$C/after")" ]
	else
		must "the checkout changed" cmp -s "$C/before" "$C/after"
		[ "$1" = readonly ] || must "temporaries were left" no_temps "$D"
	fi
	must "a manifest was written" sh -c 'set -- "$1"/run-*/job.json; [ ! -e "$1" ]' sh \
		"$S/shared/outputs/$JOB"
}
next_update() {
	"$J" init --answers "$C/answers.json" --profile "$S/profile.json" >"$C/next.out" 2>"$C/next.err" ||
		WHY="$WHY; the next run failed: $(tail -n 3 "$C/next.err" | tr '\n' ' ')"
	must "the next run is not at v-big" [ "$(git -C "$D" rev-parse HEAD)" = \
		"$(git -C "$S/work" rev-parse 'v-big^{commit}')" ]
	must "the next run left changes" [ -z "$(git -C "$D" status --porcelain)" ]
	must "the next run left temporaries" no_temps "$D"
}

# stage_copy: $S/stagesrc into $C/dst/d (made first)
setup_stage_copy() {
	D=$C/dst
	SRC=$COPY_SRC
	mkdir -p "$D"
	case $FAULT in enospc) tmpfs "$D" 1m ;; readonly) tmpfs "$D" 64m ;; esac
	mkdir -p "$D/d"
	MNT=$D
	# on tmpfs (a /tmp that is one too) the small tree is copied before a
	# signal lands: the bigger one there
	case $(stat -f -c %T "$D" 2>/dev/null) in tmpfs | ramfs) SRC=$S/stagemany ;; esac
	if [ "$FAULT" = readonly ]; then
		# a copy on tmpfs keeps one file or another open for writing almost
		# all the time, and the kernel refuses remount,ro under an open
		# writer: one folder of the destination is a mount of its own,
		# remounted read-only while files elsewhere are being written
		tmpfs "$D/d/d19" 16m || return 1
		MNT=$D/d/d19
		SRC=$S/stagemany
	fi
}
start_stage_copy() { run_bg stage --progress --jobs 1 "$SRC" "$D/d"; }
working_stage_copy() { until_working 300 has_text "$C/err" "copying"; }
judge_stage_copy() {
	must "a file is half-made" none_half_made "$SRC" "$D/d"
	[ "$1" = KILL ] || [ "$1" = readonly ] || must "temporaries were left" no_temps_but_record "$D"
}
next_stage_copy() {
	"$J" stage "$SRC" "$D/d" >"$C/next.out" 2>"$C/next.err" ||
		WHY="$WHY; the next run failed: $(tail -n 1 "$C/next.err")"
	must "the next run is not identical" diff -r "$SRC" "$D/d"
	must "the next run left temporaries" no_temps "$D"
}

# stage_unpack: $S/data.tar into $C/dst/d (not there yet: it appears whole)
setup_stage_unpack() {
	D=$C/dst
	mkdir -p "$D"
	case $FAULT in enospc) tmpfs "$D" 1m ;; readonly) tmpfs "$D" 64m ;; esac
	MNT=$D
}
start_stage_unpack() { run_bg stage --progress "$S/data.tar" "$D/d"; }
working_stage_unpack() { until_working 300 has_text "$C/err" "unpacking"; }
# A signal that lands after the unpack put DEST in place (the rename done,
# the exit not yet) leaves it whole: only a DEST that differs from the
# source is half-made (CI's normal-user run saw the late landing once).
judge_stage_unpack() {
	must "the destination appeared half-made" \
		sh -c '[ ! -e "$1" ] || diff -r "$2" "$1" >/dev/null 2>&1' sh "$D/d" "$S/unpacksrc"
	# (a full disk keeps the unpack folder for the next run to go on from)
	case $1 in KILL | readonly | enospc) ;; *) must "temporaries were left" no_temps "$D" ;; esac
}
next_stage_unpack() {
	"$J" stage "$S/data.tar" "$D/d" >"$C/next.out" 2>"$C/next.err" ||
		WHY="$WHY; the next run failed: $(tail -n 1 "$C/next.err")"
	must "the next run is not identical" diff -r "$S/unpacksrc" "$D/d"
	must "the next run left temporaries" no_temps "$D"
}

# scan: the big tree, named 60 times
setup_scan() { MNT=; }
start_scan() { jp_with_repeated 60 "$S/tree" run_bg scan; }
working_scan() { until_working 300 jp_catches "$PID" 2; }
judge_scan() {
	case $1 in KILL) ;; *) must "it did not say it was interrupted" grep -q interrupted "$C/err" ;; esac
}
next_scan() {
	"$J" scan "$S/tree" >"$C/next.out" 2>"$C/next.err" || WHY="$WHY; the next run failed"
}

# manifest: init --deep (a while: 8 data sets of 20,000 files) writing
# -o $C/dst/job.json over the manifest there
setup_manifest() {
	JOB=man-$N
	D=$C/dst
	mkdir -p "$D"
	case $FAULT in enospc | readonly) tmpfs "$D" 1m ;; esac
	MNT=$D
	printf '{"old": "manifest %s"}\n' "$N" >"$D/job.json"
	cp "$D/job.json" "$C/old.json"
	if [ "$FAULT" = enospc ]; then
		head -c 2097152 /dev/zero >"$D/filler" 2>/dev/null
	fi
	data=$(i=0; while [ $i -lt 8 ]; do [ $i = 0 ] || printf ', '; printf '{"name": "t%d", "path": "%s"}' $i "$S/tree"; i=$((i + 1)); done)
	cat >"$C/answers.json" <<EOF
{"job": {"name": "$JOB"}, "code": {"source": "shared_storage", "path": "$P/existing-job"},
 "data": [$data]}
EOF
}
start_manifest() {
	run_bg init --deep --force --answers "$C/answers.json" --profile "$S/profile.json" -o "$D/job.json"
}
working_manifest() { until_working 300 jp_catches "$PID" 2; }
judge_manifest() {
	must "the old manifest changed" cmp -s "$C/old.json" "$D/job.json"
	[ "$1" = KILL ] || [ "$1" = readonly ] || must "temporaries were left" no_temps "$D"
}
next_manifest() {
	rm -f "$D/filler"
	"$J" init --deep --force --answers "$C/answers.json" --profile "$S/profile.json" -o "$D/job.json" \
		>"$C/next.out" 2>"$C/next.err" || WHY="$WHY; the next run failed: $(tail -n 1 "$C/next.err")"
	must "the next run wrote no manifest" grep -q '"schema_version"' "$D/job.json"
	must "the next run left temporaries" no_temps "$D"
}

# --- one trial: sets RESULT (pass, fail, missed) and WHY
N=0
trial() {
	OP=$1
	FAULT=$2
	N=$((N + 1))
	unmount_under "$S/t/"
	C=$S/t/$N-$OP-$FAULT
	WHY= D=
	mkdir -p "$C"
	# each trial its own mirror cache, cold: the fault lands in the fetch
	# from the server (a warm one serves clone and update locally, done
	# before a fault could land), and the next run goes through the cache
	XDG_CACHE_HOME=$C/cache
	export XDG_CACHE_HOME
	fast
	case $FAULT in server | INT | TERM | HUP | KILL) [ "$OP" = clone ] || [ "$OP" = update ] && slow ;; esac
	[ "$FAULT" = readonly ] && slow
	if ! "setup_$OP"; then
		RESULT=fail WHY="could not set up"
		return
	fi
	"start_$OP"
	if [ "$FAULT" = readonly ]; then
		# at once (the remount lands only while jobprep runs, which may be
		# quick), once the background job has become jobprep
		until_working 100 true && kill -STOP "$PID" && stop_children "$PID"
	elif ! "working_$OP"; then
		if [ "$FAULT" = enospc ]; then
			: # it may fail at once: that is the fault
		elif ! is_jobprep && { wait "$PID"; rc=$?; [ "$rc" = 0 ]; }; then
			# done before its sign of work was seen (an unpack on a
			# tmpfs /tmp takes 0.2 s): no fault could land, try again
			RESULT=missed
			return
		else
			kill -9 "$PID" 2>/dev/null
			wait "$PID" 2>/dev/null
			RESULT=fail WHY="no sign of work: $(tr '\r' '\n' <"$C/err" | tail -n 2 | tr '\n' ' ')"
			return
		fi
	fi
	case $FAULT in
	INT | TERM | HUP | KILL)
		delay "$MAXDELAY"
		if ! is_jobprep; then
			wait "$PID"
			rc=$?
			RESULT=missed
			return
		fi
		kill -"$FAULT" "$PID" ;;
	server)
		delay "$MAXDELAY"
		kill_server_mid_pack ;;
	readonly)
		if ! remount_ro "$MNT" "$MAXDELAY"; then
			wait "$PID"
			rc=$?
			RESULT=missed
			return
		fi ;;
	esac
	jp_wait_exit "$PID" 120
	rc=$JP_RC
	fast
	if [ "$rc" = 0 ] && [ "$FAULT" != enospc ]; then
		RESULT=missed
		return
	fi
	want=$(want_status "$FAULT")
	[ "$rc" = "$want" ] || WHY="$WHY; exit $rc, not $want: $(tr '\r' '\n' <"$C/err" | tail -n 2 | tr '\n' ' ')"
	"judge_$OP" "$FAULT"
	# the fault gone: room again, writable again, the server back
	case $FAULT in
	enospc) mount -o remount,size=256m "$MNT" ;;
	readonly) mount -o remount,rw "$MNT" ;;
	esac
	"next_$OP"
	if [ -z "$WHY" ]; then
		RESULT=pass
	else
		RESULT=fail
		WHY=${WHY#; }
	fi
}

# tidy_trial: a trial that passed (or missed, and is tried again) leaves
# nothing behind, its folder and the checkout it moved: TMPDIR may be a
# small tmpfs (CI's 1 GiB /tmp), where every trial's copies would add up; a
# failed one is kept to look at.
tidy_trial() {
	unmount_under "$C/"
	rm -rf "$C"
	case $D in
	"$P"/upd-*)
		unmount_under "$D"
		rm -rf "$D" ;;
	esac
}

# cell OP FAULT MAXDELAY: TRIALS trials, a TAP case and a table row
cell() {
	MAXDELAY=$3
	_pass=0 _missed=0 _fail=0 _why= _ebusy=0
	_t=0
	while [ $_t -lt "$TRIALS" ]; do
		_t=$((_t + 1))
		_a=0
		while :; do
			_a=$((_a + 1))
			rc=
			trial "$1" "$2"
			# (the last of the tries that missed is kept: it says why)
			if [ "$RESULT" = pass ] || { [ "$RESULT" = missed ] && [ $_a -lt 6 ]; }; then
				tidy_trial
			fi
			[ "$RESULT" = missed ] && [ $_a -lt 6 ] && { _missed=$((_missed + 1)); continue; }
			break
		done
		case $RESULT in
		pass) _pass=$((_pass + 1)) ;;
		missed)
			_missed=$((_missed + 1))
			# the kernel refuses remount,ro while a file is open for
			# writing (EBUSY): a writer that always has one open (the
			# parallel unpacker, under load) leaves no moment for it,
			# which says nothing of jobprep; any other fault always can land
			if [ "$2" = readonly ]; then
				_ebusy=$((${_ebusy:-0} + 1))
			else
				_fail=$((_fail + 1))
				_why="$_why [trial $_t: the fault never landed mid-work; the last try ($C) exited ${rc:-?}: $(tr '\r' '\n' <"$C/err" 2>/dev/null | tail -n 1)]"
			fi ;;
		*) _fail=$((_fail + 1)); _why="$_why [trial $_t ($C): $WHY]" ;;
		esac
	done
	printf '%-9s %-13s %6s %6s %6s\n' "$2" "$1" "$TRIALS" "$_pass" "$_missed" >>"$TABLE"
	if [ "${_ebusy:-0}" = "$TRIALS" ]; then
		_ebusy=0
		jp_skip "$1 x $2" "the remount never found a moment with no file open for writing (EBUSY), in 6 tries of each trial"
	elif [ "$_fail" = 0 ]; then
		jp_pass "$1 x $2: $_pass/$TRIALS passed"
	else
		jp_fail "$1 x $2: $_pass/$TRIALS passed" "$_why"
	fi
}
skip_cell() {
	printf '%-9s %-13s %6s %6s %6s  skipped: %s\n' "$2" "$1" 0 0 0 "$3" >>"$TABLE"
	jp_skip "$1 x $2" "$3"
}
# no_cell OP FAULT WHY: a pair that cannot happen anywhere: a row of the
# table, no case (a skip is a case that could run elsewhere)
no_cell() {
	printf '%-9s %-13s %6s %6s %6s  no trial: %s\n' "$2" "$1" 0 0 0 "$3" >>"$TABLE"
	echo "# $1 x $2: no trial: $3"
}

for op in ${JOBPREP_FAULT_OPS:-clone update stage_copy stage_unpack scan manifest}; do
	case $op in
	clone | update) d=1.5 ;;
	stage_copy) d=$COPY_DELAY ;;
	stage_unpack) d=$UNPACK_DELAY ;;
	*) d=0.3 ;;
	esac
	for f in $FAULTS; do
		case $op/$f in
		clone/server | update/server) ;;
		update/readonly)
			# (tried: not even a SIGSTOPped update lets it land)
			no_cell "$op" "$f" "cannot happen: jobprep holds .git/jobprep.lock open for writing from start to end, and the kernel refuses remount,ro under an open writer (EBUSY)"
			continue ;;
		*/server | scan/enospc | scan/readonly) continue ;;
		esac
		case $f in
		enospc | readonly) [ -z "$NO_MOUNTS" ] || { skip_cell "$op" "$f" "$NO_MOUNTS"; continue; } ;;
		esac
		cell "$op" "$f" "$d"
	done
done


{
	echo "fault trials, seed $SEED ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
	printf '%-9s %-13s %6s %6s %6s\n' fault operation trials passed missed
	cat "$TABLE"
} >"$S/table.out"
sed 's/^/# /' "$S/table.out"
cp "$S/table.out" "$JP_FAULT_TABLE_OUT" 2>/dev/null ||
	echo "# (could not write the table to $JP_FAULT_TABLE_OUT)"
jp_done
