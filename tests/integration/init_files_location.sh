#!/bin/sh
# The manifest's copy is a path like any other: `init -o` onto ephemeral
# storage (/tmp, outside the profile's shared root), or into a folder on
# shared storage that is a symlink into /tmp, is refused with the reason
# (review.manifest_path) and writes nothing; --force writes it anyway; a
# place on shared storage is fine. env.sh, which the launch line sources on
# every Worker, always goes into the run's folder, never beside the copy.
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

# (a) a folder under /tmp, the profile's ephemeral root
mkdir -p "$E/eph"
J -o "$E/eph/job.json"
rc=$?
jp_expect ephemeral_target_is_refused [ "$rc" = 1 ]
jp_expect ephemeral_manifest_is_named grep -qF "review.manifest_path: $E/eph/job.json is under /tmp" "$T/err"
jp_expect ephemeral_target_gets_nothing [ ! -e "$E/eph/job.json" ] && [ ! -e "$E/eph/env.sh" ]

# (b) a folder on shared storage that is a symlink into /tmp
ln -s "$E/eph" "$D/shared/into-tmp"
J -o "$D/shared/into-tmp/job.json"
rc=$?
jp_expect symlink_into_tmp_is_refused [ "$rc" = 1 ]
jp_expect symlink_into_tmp_manifest_is_named grep -qF "review.manifest_path: $D/shared/into-tmp/job.json is under /tmp" "$T/err"
jp_expect symlink_into_tmp_gets_nothing [ ! -e "$E/eph/job.json" ] && [ ! -e "$E/eph/env.sh" ]

# (c) --force records the finding and writes
J --force -o "$E/eph/job.json"
jp_expect force_writes_it_anyway [ -f "$E/eph/job.json" ]
jp_expect force_puts_no_env_sh_beside_the_copy [ ! -e "$E/eph/env.sh" ]

# (d) on shared storage: no finding
mkdir -p "$D/shared/elsewhere"
J -o "$D/shared/elsewhere/job.json"
rc=$?
jp_expect shared_target_is_fine [ "$rc" = 0 ] && [ -f "$D/shared/elsewhere/job.json" ]
[ "$rc" = 0 ] || cat "$T/err"
jp_done
