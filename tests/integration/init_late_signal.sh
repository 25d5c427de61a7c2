#!/bin/sh
# A signal that comes after `jobprep init` has written everything (the run's
# files and the -o copy, the last of its writes) interrupts nothing: init
# says what it wrote and exits 0, never "interrupted: nothing half-made was
# left behind" with a new manifest in place. strace holds jobprep for a
# second after each rename, so the signal lands, for certain, between the
# copy's rename and the exit (the race fault_trials.sh found once).
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/report.sh"
for tool in git strace; do
	command -v "$tool" >/dev/null 2>&1 || jp_skip_all "$tool is not installed"
done
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/initscratch.sh"
. "$TOP_SRCDIR/tests/lib/proc.sh"

T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-init-late.XXXXXX") || exit 99
T=$(cd -P "$T" && pwd)
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
jp_init_scratch "$T" || { echo "not ok - scratch platform: cannot lay it out"; exit 99; }
# strace may not trace here (a container without ptrace): then nothing to judge
jp_traced -f -o /dev/null true 2>/dev/null || jp_skip_all "strace cannot trace here"
C=$T/shared/copies
mkdir -p "$C" || exit 99
jp_answers shared-existing "$T" "$T/answers.json"

for sig in HUP INT TERM; do
	printf '{"old": "manifest"}\n' >"$C/$sig.json"
	# (strace itself is $!, jobprep its child: jp_traced would add a shell)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -o /dev/null -e trace=rename,renameat,renameat2 \
		-e inject=rename,renameat,renameat2:delay_exit=1000000 \
		"$JOBPREP" init --answers "$T/answers.json" --profile "$T/profile.json" --force \
		-o "$C/$sig.json" </dev/null >"$T/$sig.out" 2>"$T/$sig.err" &
	tracer=$!
	# the copy is in place: jobprep is held in that rename's exit
	w=0
	while grep -q '"old"' "$C/$sig.json" && [ $w -lt 1200 ]; do
		sleep 0.05
		w=$((w + 1))
	done
	pid=$(pgrep -P "$tracer" | head -n 1)
	landed=no
	if [ -n "$pid" ] && jp_is_jobprep "$pid" && ! grep -q '"old"' "$C/$sig.json"; then
		kill -"$sig" "$pid" && landed=yes
	fi
	wait "$tracer"
	rc=$?
	jp_expect "${sig}_landed_after_the_last_write" [ "$landed" = yes ]
	jp_expect "${sig}_after_the_writes_exits_0" [ "$rc" = 0 ]
	jp_expect "${sig}_after_the_writes_says_what_it_wrote" grep -q "(a copy for you: the job.s Workers read the manifest in the run.s folder, " "$T/$sig.out"
	jp_expect "${sig}_after_the_writes_does_not_say_interrupted" jp_no_text interrupted "$T/$sig.err"
	jp_expect "${sig}_the_copy_is_the_new_manifest" grep -q '"schema_version"' "$C/$sig.json"
done
jp_done
