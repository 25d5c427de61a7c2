#!/bin/sh
# Under umask 000, what jobprep makes is still not writable by others: the
# project's checkout, the run's folders and env.sh (which every Worker
# sources) come out 0755/0644 at most, never 0777/0666.
set -u
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-umask.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT
jp_test_env "$T"
cd "$T" || exit 99
(umask 000 && "$JOBPREP" init --demo </dev/null >"$T/out" 2>"$T/err")
jp_expect init_under_umask_000_succeeds [ $? = 0 ]
S=$T/jobprep-demo/shared
jp_expect project_made [ -d "$S/projects/demo/.git" ]
jp_expect run_made [ -f "$S/outputs/demo/run-001/env.sh" ]
find "$S/projects" "$S/outputs" -perm /022 >"$T/writable"
jp_expect nothing_made_is_writable_by_others [ ! -s "$T/writable" ]
head -n 5 "$T/writable"
jp_expect run_folder_is_0755 [ "$(stat -c %a "$S/outputs/demo/run-001")" = 755 ]
jp_expect env_sh_is_0644 [ "$(stat -c %a "$S/outputs/demo/run-001/env.sh")" = 644 ]
jp_done
