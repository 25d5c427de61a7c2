#!/bin/sh
# The manifest's copy (`init -o`) is the person's: the Workers read the
# run's folder. Onto ephemeral storage (/tmp, outside the profile's shared
# root), or into a folder on shared storage that is a symlink into /tmp, it
# is written with a note saying so; it still never replaces another run's
# manifest without --force; a place on shared storage is fine. env.sh, which
# the launch line sources on every Worker, always goes into the run's
# folder, never beside the copy.
set -u
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-files-at.XXXXXX") || exit 99
# The ephemeral place is a folder of the case's own under /tmp itself (one
# of the profile's ephemeral roots), not under $TMPDIR, which may be anywhere.
E=$(mktemp -d /tmp/jobprep-files-eph.XXXXXX) || exit 99
trap 'rm -rf "$T" "$E"' EXIT
jp_test_env "$T"
cd "$T" || exit 99
"$JOBPREP" init --demo >/dev/null 2>&1 </dev/null
D=$T/jobprep-demo
M=$D/answers.json # each init takes the next free run-NNN
jp_expect demo_made [ -f "$M" ]
[ -f "$M" ] || exit 1
J() { "$JOBPREP" init --profile "$D/profile.json" --answers "$M" "$@" </dev/null >"$T/out" 2>"$T/err"; }

# (a) a folder under /tmp, the profile's ephemeral root: the copy is the
# person's (the Workers read the run's folder), so it is written, and the
# note says where the Workers read theirs
mkdir -p "$E/eph"
J -o "$E/eph/job.json"
rc=$?
jp_expect ephemeral_copy_init_succeeds [ "$rc" = 0 ]
jp_expect ephemeral_copy_is_written jp_path_is_file "$E/eph/job.json"
[ "$rc" = 0 ] || sed 's/^/# /' "$T/err"
jp_expect ephemeral_copy_gets_the_note \
	grep -qF "Wrote $E/eph/job.json (a copy for you: the job's Workers read the manifest in the run's folder, $D/shared/outputs/" "$T/out"
jp_expect ephemeral_copy_gets_no_env_sh [ ! -e "$E/eph/env.sh" ]
jp_expect no_message_names_a_wizard_field jp_no_text "review\." "$T/err"

# (b) a folder on shared storage that is a symlink into /tmp: the same
ln -s "$E/eph" "$D/shared/into-tmp"
J -o "$D/shared/into-tmp/other.json"
rc=$?
jp_expect symlinked_copy_init_succeeds [ "$rc" = 0 ]
jp_expect symlinked_copy_is_written jp_path_is_file "$E/eph/other.json"
jp_expect symlinked_copy_gets_no_env_sh [ ! -e "$E/eph/env.sh" ]

# (c) the copy never replaces another run's manifest unless told: the
# next run with the same -o is refused, naming the file, and --force
# replaces it
cp "$E/eph/job.json" "$T/before.json"
J -o "$E/eph/job.json"
rc=$?
jp_expect another_runs_manifest_is_refused [ "$rc" = 1 ]
jp_expect another_runs_manifest_is_kept cmp -s "$T/before.json" "$E/eph/job.json"
jp_expect the_refusal_names_the_copy grep -qF "jobprep init: $E/eph/job.json" "$T/err"
J --force -o "$E/eph/job.json"
jp_expect force_replaces_it sh -c '! cmp -s "$1" "$2"' sh "$T/before.json" "$E/eph/job.json"
jp_expect force_puts_no_env_sh_beside_the_copy [ ! -e "$E/eph/env.sh" ]

# (d) on shared storage: no finding
mkdir -p "$D/shared/elsewhere"
J -o "$D/shared/elsewhere/job.json"
rc=$?
jp_expect shared_target_is_fine [ "$rc" = 0 ]
jp_expect shared_target_is_written jp_path_is_file "$D/shared/elsewhere/job.json"
[ "$rc" = 0 ] || cat "$T/err"
jp_done
