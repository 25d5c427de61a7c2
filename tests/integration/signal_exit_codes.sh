#!/bin/sh
# Every command that works for a while ends with 128 + the signal, its
# clean-up done, whichever of SIGINT (130), SIGTERM (143) and SIGHUP (129)
# stops it (issue 11): `init` mid-clone, `init` moving an existing checkout
# (the update path) mid-fetch, `clone` mid-fetch, `stage` mid-copy, `scan`
# mid-tree and `check --deep` mid-scan. A case signals only once jobprep is
# at work (its temporary is there, the server is sending, its progress line
# is out, or it has run for a while and is still running), and checks that
# it said so itself (its message), so a default death by the signal (which
# gives 128 + signal too, with nothing cleaned) does not pass for one; but
# for check, which leaves nothing to clean: its probe files are made and
# removed by children that ignore the signal.
# Servers: git daemons on loopback whose packs trickle out (gitserv.sh).
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/initscratch.sh"
S=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-sigexit.XXXXXX") || exit 99
trap 'jp_gitd_stop "$S/gitd"; [ -n "${JP_KEEP:-}" ] || rm -rf "$S"' EXIT
jp_test_env "$S"
jp_init_scratch "$S" || exit 99
J=$JOBPREP
P=$S/shared/projects
mkdir -p "$S/gitd"
jp_git_big_repo "$S/repos/big.git" 4 || exit 99
jp_gitd_start "$S/gitd" "$S/repos" slow || exit 99
URL=git://127.0.0.1:$JP_GITD_PORT
# the checkouts the update path moves, at v1, cloned before train.git gets
# a big tag v-big (so that there is a pack to wait for)
for s in int term hup; do
	git clone -q "$URL/train.git" "$P/upd-$s" && git -C "$P/upd-$s" checkout -q --detach v1 ||
		exit 99
done
git clone -q "$S/repos/train.git" "$S/work" || exit 99
mkdir -p "$S/work/data"
head -c 4194304 /dev/urandom >"$S/work/data/blob"
git -C "$S/work" add -A
# shellcheck disable=SC2086
git $JP_GIT_ID -C "$S/work" commit -qm big && git -C "$S/work" tag v-big &&
	git -C "$S/work" push -q origin main v-big || exit 99
# a tree for scan and check --deep: 20,000 empty files, named 40 times
jp_empty_tree "$S/tree" || exit 99
# a tree for stage: 400 files, each flushed before its rename
python3 - "$S/stagesrc" <<'EOF' || exit 99
import os, sys
for i in range(400):
    d = "%s/d%d" % (sys.argv[1], i % 8)
    os.makedirs(d, exist_ok=True)
    with open("%s/f%d" % (d, i), "wb") as f:
        f.write(os.urandom(16384 + i))
EOF
# and 20,000 small sparse files (bench/mktree): the copy, without a flush per
# file, takes a second or more even on tmpfs, so a signal lands mid-copy
"${TOP_BUILDDIR:?}/bench/mktree" "$S/stagesrc/filler" 20000 500 50 >/dev/null || exit 99
data=$(i=0; while [ $i -lt 40 ]; do [ $i = 0 ] || printf ', '; printf '{"name": "t%d", "path": "%s", "kind": "team", "read_only": true}' $i "$S/tree"; i=$((i + 1)); done)
sed -e "s|@DATA@|$data|" -e "s|@T@|$S|g" >"$S/deep.json" <<'EOF'
{"schema_version": 1, "generator": {"name": "jobprep", "version": "0.1.0"},
 "created_at": "2024-05-01T12:00:00Z",
 "job": {"name": "deep", "workers": 1, "gpus_per_worker": 1, "launch_command": "python train.py", "env": {}},
 "code": {"source": "shared_storage", "path": "@T@/shared/projects/existing-job"},
 "data": [@DATA@],
 "outputs": {"output_dir": "@T@/shared/outputs/deep", "checkpoint_dir": "@T@/shared/outputs/deep/ckpt",
             "log_dir": "@T@/shared/outputs/deep/logs"},
 "checks": []}
EOF
mkdir -p "$S/shared/outputs/deep/ckpt" "$S/shared/outputs/deep/logs"

# start CASE ARG...: jobprep ARG... in the background (PID), its stdout and
# stderr in $S/CASE.out and .err (jp_bg: the EXIT trap is dropped before
# the exec). Each case its own (cold) mirror cache: a warm one would serve
# the clone and the update locally, done before a signal could land.
start() {
	C=$1
	shift
	jp_bg "$S/$C.out" "$S/$C.err" env XDG_CACHE_HOME="$S/cache-$C" "$J" "$@"
	PID=$JP_PID
}
status_of() {
	case $1 in INT) echo 130 ;; TERM) echo 143 ;; HUP) echo 129 ;; esac
}
# judge NAME SIG [MESSAGE]: signal PID with SIG (it is at work), wait for
# it; it exits 128 + SIG and its stderr has MESSAGE. PID is stopped while
# it is looked at and signalled, so that work which ends between the look
# and the kill cannot pass for work that was interrupted: the signal is
# pending when it runs on.
judge() {
	kill -STOP "$PID" 2>/dev/null
	if ! jp_is_jobprep "$PID"; then
		kill -CONT "$PID" 2>/dev/null
		jp_fail "$1" "jobprep was not at work when the signal was to be sent: $(tail -n 2 "$S/$C.err")"
		return 1
	fi
	kill -"$2" "$PID"
	kill -CONT "$PID"
	jp_wait_exit "$PID" 120
	jp_expect "${1}_exits_$(status_of "$2")" [ "$JP_RC" = "$(status_of "$2")" ]
	[ -z "$3" ] || jp_expect "${1}_says_so_itself" grep -q "$3" "$S/$C.err"
}

for sig in ${JP_SIGS:-INT TERM HUP}; do
	s=$(echo "$sig" | tr 'A-Z' 'a-z')

	# --- init, mid-clone
	cat >"$S/init-$s.json" <<EOF
{"job": {"name": "init-$s"}, "code": {"source": "shared_storage", "repo": {"url": "$URL/big.git"}}}
EOF
	start "init-$s" init --answers "$S/init-$s.json" --profile "$S/profile.json"
	jp_poll 600 jp_has_temporary "$P"
	if judge "init_sig$s" "$sig" "interrupted"; then
		jp_expect "init_sig${s}_leaves_no_project" [ ! -e "$P/init-$s" ]
		jp_expect "init_sig${s}_leaves_no_temporary" jp_no_temporaries "$P"
		jp_expect "init_sig${s}_makes_no_output_dir" [ ! -e "$S/shared/outputs/init-$s" ]
	fi

	# --- init moving an existing checkout to v-big, mid-fetch
	before=$(git -C "$P/upd-$s" rev-parse HEAD)
	cat >"$S/upd-$s.json" <<EOF
{"job": {"name": "upd-$s"}, "code": {"source": "shared_storage", "repo": {"url": "$URL/train.git", "ref": "v-big"}}}
EOF
	start "upd-$s" init --answers "$S/upd-$s.json" --profile "$S/profile.json"
	jp_poll 600 jp_pack_coming "$P/upd-$s" "$S/cache-$C"
	if judge "update_sig$s" "$sig" "interrupted"; then
		jp_expect "update_sig${s}_keeps_head" [ "$(git -C "$P/upd-$s" rev-parse HEAD)" = "$before" ]
		jp_expect "update_sig${s}_is_clean" [ -z "$(git -C "$P/upd-$s" status --porcelain)" ]
		jp_expect "update_sig${s}_writes_no_manifest" [ ! -e "$S/shared/outputs/upd-$s/run-001/job.json" ]
	fi

	# --- clone, mid-fetch
	mkdir -p "$S/clone-$s"
	start "clone-$s" clone --progress "$URL/big.git" "$S/clone-$s/t"
	jp_wait_text "$S/clone-$s.err" "receiving objects" 60
	if judge "clone_sig$s" "$sig" "canceled"; then
		jp_expect "clone_sig${s}_leaves_no_target" [ ! -e "$S/clone-$s/t" ]
		jp_expect "clone_sig${s}_leaves_no_temporary" jp_no_temporaries "$S/clone-$s"
	fi

	# --- stage, mid-copy (one writer, each file flushed)
	start "stage-$s" stage --progress --jobs 1 "$S/stagesrc" "$S/stage-$s"
	jp_wait_text "$S/stage-$s.err" "copying" 60
	if judge "stage_sig$s" "$sig" "canceled"; then
		# A new DEST is written whole into .jobprep-tmp-stage-NAME beside
		# it and renamed at the end; a canceled run keeps the complete
		# files there for the next run and removes the one in flight
		# (docs/reference.md, stage): no file half-made, no file's own
		# temporary, nothing under DEST's name.
		jp_expect "stage_sig${s}_leaves_no_half_made_file" sh -c 'cd "$1" &&
			find . -type f | while IFS= read -r f; do
				cmp -s "$f" "$2/$f" || { echo "# half-made: $f" >&2; exit 1; }
			done' sh "$S/.jobprep-tmp-stage-stage-$s" "$S/stagesrc"
		jp_expect "stage_sig${s}_leaves_no_temporary" \
			sh -c '[ -d "$1" ] && ! find "$1" -name ".jobprep-tmp-*" ! -name ".jobprep-tmp-stage-stage-$2" -path "*stage-$2*" | grep -q .' sh "$S" "$s"
		jp_expect "stage_sig${s}_makes_nothing_under_the_final_name" jp_path_missing "$S/stage-$s"
	fi

	# --- scan, mid-tree (the same tree named 200 times: 4,000,000 entries,
	# seconds of work on a fast machine), once it hears of the signal (sent
	# before, SIGHUP's default death, no message)
	jp_with_repeated 200 "$S/tree" start "scan-$s" scan
	jp_poll 300 jp_catches "$PID" $(($(status_of "$sig") - 128))
	judge "scan_sig$s" "$sig" "interrupted"

	# --- check --deep, mid-scan (40 data sets)
	start "check-$s" check --deep "$S/deep.json"
	# once it heeds the signal: a background job of this shell starts with
	# SIGINT ignored, and check, with nothing to clean (its probe files are
	# made and removed by helpers that ignore the signal), takes the
	# default action once it has set it back (the old check kept it
	# ignored, and ran to its end when started from a script)
	jp_poll 300 jp_heeds "$PID" $(($(status_of "$sig") - 128))
	judge "check_sig$s" "$sig" ""
	jp_expect "check_sig${s}_leaves_no_probe_file" \
		sh -c '[ -d "$1" ] && ! find "$1" -name ".jobprep-probe-*" | grep -q .' sh "$S/shared/outputs/deep"
done

jp_done
