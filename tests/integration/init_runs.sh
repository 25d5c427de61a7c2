#!/bin/sh
# Every run in its own folder: `jobprep init` of the same project twice makes
# run-001 then run-002, each holding its own manifest and env.sh, and the
# second leaves run-001's files byte for byte as they were. `-o FILE` outside
# the run folder is a copy of the run's manifest (the run folder still gets
# the real one and env.sh); it never replaces another run's manifest, nor any
# other file, without --force, and never writes through a symbolic link.
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/report.sh"
for tool in git sed cmp sha256sum; do
	command -v "$tool" >/dev/null 2>&1 || jp_skip_all "$tool is not installed"
done
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/initscratch.sh"

T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-init-runs.XXXXXX") || exit 99
T=$(cd -P "$T" && pwd)
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
XDG_STATE_HOME=$T/state
export XDG_STATE_HOME
jp_init_scratch "$T" || { echo "not ok - scratch platform: cannot lay it out"; exit 99; }
runs=$T/shared/outputs/existing-job
# -o copies go on the shared root: /tmp is refused as a place for them
C=$T/shared/copies
mkdir -p "$C" || exit 99
jp_answers shared-existing "$T" "$T/answers.json"

# init [ARG...]: headless init of the existing checkout's answers; stdout,
# stderr and the exit code in $T/last.{out,err,rc}
init() {
	"$JOBPREP" init --answers "$T/answers.json" --profile "$T/profile.json" "$@" \
		>"$T/last.out" 2>"$T/last.err"
	echo $? >"$T/last.rc"
}
rc() { cat "$T/last.rc"; }
# env_output ENV_SH: the OUTPUT_DIR it exports
env_output() { sh -c '. "$1" && printf "%s" "$OUTPUT_DIR"' sh "$1"; }
sums() { sha256sum "$@" 2>/dev/null; }

# --- the same project twice, no -o ---------------------------------------
init
jp_expect first_prep_succeeds [ "$(rc)" = 0 ]
jp_expect first_prep_is_run_001 [ -s "$runs/run-001/job.json" -a -s "$runs/run-001/env.sh" ]
before=$(sums "$runs/run-001/job.json" "$runs/run-001/env.sh")
init
jp_expect second_prep_succeeds [ "$(rc)" = 0 ]
jp_expect second_prep_is_run_002 [ -s "$runs/run-002/job.json" -a -s "$runs/run-002/env.sh" ]
jp_expect second_prep_leaves_run_001_byte_identical \
	[ -n "$before" -a "$before" = "$(sums "$runs/run-001/job.json" "$runs/run-001/env.sh")" ]
jp_expect each_env_sh_names_its_own_run \
	[ "$(env_output "$runs/run-001/env.sh")" = "$runs/run-001" -a \
	  "$(env_output "$runs/run-002/env.sh")" = "$runs/run-002" ]
jp_expect second_launch_command_sources_run_002_env_sh \
	grep -q "^  exec </dev/null && \\. '$runs/run-002/env.sh' && " "$T/last.out"

# --- -o FILE outside the run folder ----------------------------------------
rm -rf "$runs"
init -o "$C/job.json"
jp_expect init_o_succeeds [ "$(rc)" = 0 ]
jp_expect init_o_still_writes_the_run_folder \
	[ -s "$runs/run-001/job.json" -a -s "$runs/run-001/env.sh" ]
jp_expect init_o_file_is_a_copy_of_the_run_manifest cmp -s "$C/job.json" "$runs/run-001/job.json"
jp_expect init_o_puts_no_env_sh_beside_the_copy [ ! -e "$C/env.sh" ]
jp_expect init_o_launch_command_sources_the_run_env_sh \
	grep -q "^  exec </dev/null && \\. '$runs/run-001/env.sh' && " "$T/last.out"
jp_expect init_o_says_it_wrote_the_run_manifest_and_the_copy \
	grep -q "^Wrote $runs/run-001/job.json\$" "$T/last.out"
grep -q "$C/job.json" "$T/last.out" || jp_fail init_o_names_the_copy "$(cat "$T/last.out")"
copy1=$(sums "$C/job.json")
run1=$(sums "$runs/run-001/job.json" "$runs/run-001/env.sh")

# a second run with the same -o: refused, nothing touched, nothing made
init -o "$C/job.json"
jp_expect second_init_o_same_file_is_refused [ "$(rc)" = 1 ]
grep -q "$C/job.json" "$T/last.err" && grep -q -- "--force" "$T/last.err" &&
	grep -q "$runs/run-001" "$T/last.err" ||
	jp_fail refusal_names_the_file_the_other_run_and_force "$(cat "$T/last.err")"
jp_expect refused_copy_is_untouched [ "$copy1" = "$(sums "$C/job.json")" ]
jp_expect refused_second_run_made_nothing [ ! -e "$runs/run-002" ]
jp_expect refused_run_001_untouched \
	[ "$run1" = "$(sums "$runs/run-001/job.json" "$runs/run-001/env.sh")" ]

# with --force: the copy is now run-002's; run-001 keeps its own
init -o "$C/job.json" --force
jp_expect forced_second_init_o_succeeds [ "$(rc)" = 0 ]
jp_expect forced_copy_is_run_002s_manifest cmp -s "$C/job.json" "$runs/run-002/job.json"
jp_expect forced_run_001_untouched \
	[ "$run1" = "$(sums "$runs/run-001/job.json" "$runs/run-001/env.sh")" ]
jp_expect runs_do_not_share_an_env_sh \
	[ "$(env_output "$runs/run-001/env.sh")" = "$runs/run-001" -a \
	  "$(env_output "$runs/run-002/env.sh")" = "$runs/run-002" ]

# another file that is not a manifest of this run: refused, untouched
printf 'my notes\n' >"$C/notes.txt"
init -o "$C/notes.txt"
jp_expect o_onto_another_file_is_refused [ "$(rc)" = 1 ]
jp_expect refused_other_file_is_untouched [ "$(cat "$C/notes.txt")" = "my notes" ]
jp_expect refused_other_file_made_no_run [ ! -e "$runs/run-003" ]

# a symbolic link: refused even with --force, its target untouched
printf 'target\n' >"$C/target.json"
ln -s "$C/target.json" "$C/link.json"
init -o "$C/link.json" --force
jp_expect o_onto_a_symlink_is_refused [ "$(rc)" = 1 ]
jp_expect symlink_target_untouched [ "$(cat "$C/target.json")" = target -a -L "$C/link.json" ]

# -o inside the run folder is the run's manifest itself, env.sh beside it
rm -rf "$runs"
init -o "$runs/run-001/manifest.json"
jp_expect o_in_the_run_folder_succeeds [ "$(rc)" = 0 ]
jp_expect o_in_the_run_folder_is_the_manifest \
	[ -s "$runs/run-001/manifest.json" -a ! -e "$runs/run-001/job.json" -a -s "$runs/run-001/env.sh" ]

# --- a run's manifest as the answers (issue 22) ----------------------------
# Its outputs are the run template: the next free run folder is claimed, the
# checkpoints and logs go into it, the earlier run is left as it was.
rm -rf "$runs"
init
run1=$(sums "$runs/run-001/job.json" "$runs/run-001/env.sh")
"$JOBPREP" init --answers "$runs/run-001/job.json" --profile "$T/profile.json" \
	>"$T/last.out" 2>"$T/last.err"
jp_expect manifest_as_answers_succeeds [ $? = 0 ]
jp_expect manifest_as_answers_claims_the_next_run [ -s "$runs/run-002/job.json" -a -s "$runs/run-002/env.sh" ]
jp_expect manifest_as_answers_leaves_its_run_alone \
	[ "$run1" = "$(sums "$runs/run-001/job.json" "$runs/run-001/env.sh")" ]
jp_expect manifest_as_answers_moves_checkpoints_into_the_new_run \
	grep -q "\"checkpoint_dir\":[[:space:]]*\"$runs/run-002/checkpoints\"" "$runs/run-002/job.json"
# the manifest's own profile when none is named
"$JOBPREP" init --answers "$runs/run-002/job.json" >"$T/last.out" 2>"$T/last.err"
jp_expect manifest_as_answers_uses_its_profile [ $? = 0 -a -s "$runs/run-003/job.json" ]

# --- a run folder a stopped prep left without a manifest --------------------
# (made, empty but for empty folders): the next prep takes it again.
mkdir -p "$runs/run-004/checkpoints" "$runs/run-004/logs"
init
jp_expect empty_run_folder_is_taken_again [ "$(rc)" = 0 -a -s "$runs/run-004/job.json" ]
jp_expect no_number_skipped [ ! -e "$runs/run-005" ]
# one holding a file is somebody's: the next number
mkdir -p "$runs/run-005/logs" && echo x >"$runs/run-005/logs/train.log"
init
jp_expect run_folder_with_a_file_is_not_taken [ "$(rc)" = 0 -a -s "$runs/run-006/job.json" -a ! -e "$runs/run-005/job.json" ]

# one a prep is still working in (it holds the folder's lock: made it, has
# not written yet) is not taken from under it
if command -v flock >/dev/null 2>&1; then
	mkdir -p "$runs/run-007/logs"
	: >"$T/hold"
	flock -n "$runs/run-007" sh -c 'echo held >"$1"; while [ -e "$2" ]; do sleep 0.05; done' \
		sh "$T/held" "$T/hold" &
	holder=$!
	w=0
	while [ ! -s "$T/held" ] && [ $w -lt 200 ]; do sleep 0.05; w=$((w + 1)); done
	init
	jp_expect run_folder_held_by_a_prep_is_not_taken \
		[ "$(rc)" = 0 -a -s "$runs/run-008/job.json" -a ! -e "$runs/run-007/job.json" ]
	rm -f "$T/hold" # the holder lets go and ends
	wait "$holder" 2>/dev/null
else
	jp_skip run_folder_held_by_a_prep_is_not_taken "flock is not installed"
fi

jp_done
