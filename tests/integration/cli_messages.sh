#!/bin/sh
# The command line's messages: every error of every command starts with
# "jobprep CMD: " (each command run with a bad argument, a missing file, a
# file that is no JSON), counts take the right English plural ("1 file",
# "1 archive", "1 directory", "2 files"), an unknown command or field gets
# "did you mean" (an option too), an ftp:// URL is refused as a scheme, not read as a path,
# and the demo without a terminal points to `init --demo`.
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/report.sh"

T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-cli-messages.XXXXXX") || exit 99
T=$(cd -P "$T" && pwd)
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT

"$JOBPREP" scan "$T/missing" >/dev/null 2>"$T/scan.err"
jp_expect scan_error_exits_1 [ $? = 1 ]
jp_expect scan_error_has_the_prefix grep -q "^jobprep scan: $T/missing: " "$T/scan.err"

"$JOBPREP" clone "file://$T/no-such-repo" "$T/clone" >/dev/null 2>"$T/clone.err"
jp_expect clone_error_exits_1 [ $? = 1 ]
jp_expect clone_error_has_the_prefix grep -q "^jobprep clone: file://$T/no-such-repo: " "$T/clone.err"
jp_expect clone_error_leaves_nothing [ ! -e "$T/clone" ]

mkdir -p "$T/one/sub" "$T/two"
printf 'x\n' >"$T/one/sub/a.tar.gz"
printf 'a\n' >"$T/two/a"
printf 'b\n' >"$T/two/b"
ln -s nowhere "$T/one/dangling"
"$JOBPREP" scan "$T/one" >"$T/one.out" 2>&1
jp_expect scan_one_file_is_singular grep -q '^  1 file, 2 B (2 bytes), 2 directories, 1 symlink$' "$T/one.out"
jp_expect scan_one_archive_is_singular grep -q '^  1 archive (2 B) would have to be unpacked in the job: unpack it ' "$T/one.out"
jp_expect scan_one_dangling_link_is_singular grep -q '^  1 symlink points at nothing$' "$T/one.out"
"$JOBPREP" scan "$T/two" >"$T/two.out" 2>&1
jp_expect scan_two_files_is_plural grep -q '^  2 files, 4 B (4 bytes), 1 directory, 0 symlinks$' "$T/two.out"
# Every command, with a bad argument: each line on stderr starts with
# "jobprep CMD: " (but the usage hint).
printf '{"x' >"$T/cut.json"
bad=
while read -r c args; do
	# shellcheck disable=SC2086 # the arguments are words
	"$JOBPREP" "$c" $args </dev/null >/dev/null 2>"$T/err"
	[ -s "$T/err" ] || bad="$bad $c:silent"
	grep -v -e "^jobprep $c: " -e "^Try 'jobprep --help' for more information.\$" "$T/err" |
		grep -q . && bad="$bad $c($(head -n 1 "$T/err"))"
done <<EOF
init --answers $T/missing.json
init --answers $T/cut.json
init --answers $T/cut.json --profile $T/cut.json
check $T/cut.json
check $T/missing.json
clone file://$T/no-such-repo $T/clone2
stage $T/missing $T/dest
stage ftp://127.0.0.1/x.tar $T/dest
stage --shards 2 --emit slurm $T/missing $T/dest
stage --unpack-archives $T/missing
env $T/cut.json
preflight $T/missing.json
export --to slurm $T/cut.json
export --to pytorchjob $T/missing.json
scan $T/missing
repo $T/missing
repo --remote file://$T/no-such-repo
show $T/cut.json
runs --profile $T/cut.json job
cache --bogus
schema extra
EOF
jp_expect every_error_starts_with_its_command [ -z "$bad" ]
[ -z "$bad" ] || echo "# without the prefix:$bad"

# did you mean: a command, an answers field, a profile field
"$JOBPREP" chek x >/dev/null 2>"$T/err"
jp_expect unknown_command_exits_2 [ $? = 2 ]
jp_expect unknown_command_gets_did_you_mean grep -qF "unknown command 'chek'; did you mean 'check'?" "$T/err"
"$JOBPREP" xyzzy >/dev/null 2>"$T/err"
jp_expect far_command_gets_no_guess jp_no_text "did you mean" "$T/err"
"$JOBPREP" check --jsn x >/dev/null 2>"$T/err"
jp_expect unknown_option_gets_did_you_mean grep -qF "jobprep check: unknown option '--jsn'; did you mean '--json'?" "$T/err"
printf '{"job": {"gpus": 8}}\n' >"$T/gpus.json"
"$JOBPREP" init --answers "$T/gpus.json" </dev/null >/dev/null 2>"$T/err"
jp_expect unknown_answers_field_gets_did_you_mean \
	grep -qF "job.gpus: expected one of the fields name, workers, gpus_per_worker, launch_command, env, resume_from, got an unknown field (did you mean 'gpus_per_worker'?)" "$T/err"
printf '{"ephemral_roots": ["/tmp"]}\n' >"$T/profile.json"
printf '{}\n' >"$T/empty.json"
"$JOBPREP" init --answers "$T/empty.json" --profile "$T/profile.json" </dev/null >/dev/null 2>"$T/err"
jp_expect unknown_profile_field_gets_did_you_mean \
	grep -qF "profile.ephemral_roots: expected one of the profile's fields, got an unknown field (did you mean 'ephemeral_roots'?)" "$T/err"

printf '{"slurm": {"partiton": "gpu"}}\n' >"$T/slurm.json"
"$JOBPREP" init --answers "$T/empty.json" --profile "$T/slurm.json" </dev/null >/dev/null 2>"$T/err"
jp_expect unknown_slurm_field_gets_did_you_mean \
	grep -qF "profile.slurm.partiton: expected one of partition, time, account, qos, got an unknown field (did you mean 'partition'?)" "$T/err"

# ftp:// is a scheme jobprep does not download, not a local path
"$JOBPREP" stage "ftp://user:secret@127.0.0.1/data.tar" "$T/ftp-dest" </dev/null >/dev/null 2>"$T/err"
jp_expect ftp_url_exits_2 [ $? = 2 ]
jp_expect ftp_url_is_an_unsupported_scheme grep -qF "jobprep stage: ftp://127.0.0.1/data.tar: unsupported scheme 'ftp'" "$T/err"
jp_expect ftp_url_is_not_read_as_a_path jp_no_text "No such file" "$T/err"
jp_expect ftp_url_secret_is_not_shown jp_no_text secret "$T/err"
jp_expect ftp_url_makes_nothing [ ! -e "$T/ftp-dest" ]

# stage names the folder given, not the temporary it is made under
# (.jobprep-tmp-stage-NAME): onto a read-only bind mount of the case's own
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null 2>&1; then
	mkdir -p "$T/ro" "$T/src/sub" && echo x >"$T/src/sub/f"
	unshare -m sh -c 'mount --bind "$1/ro" "$1/ro" && mount -o remount,bind,ro "$1/ro" &&
		exec "$2" stage "$1/src" "$1/ro/d00"' sh "$T" "$JOBPREP" </dev/null >/dev/null 2>"$T/err"
	jp_expect stage_error_names_the_folder_given \
		sh -c 'grep -qF "jobprep stage: $2/ro/d00: cannot create: " "$1" ' sh "$T/err" "$T"
	jp_expect stage_error_names_no_temporary jp_no_text jobprep-tmp "$T/err"
else
	jp_skip stage_error_names_the_folder_given "needs root and unshare (a read-only bind mount)"
fi

# the demo without a terminal: init --demo runs it
(cd "$T" && TERM=xterm setsid "$JOBPREP" --demo </dev/null >/dev/null 2>"$T/err")
jp_expect demo_without_terminal_exits_2 [ $? = 2 ]
jp_expect demo_without_terminal_points_to_init_demo grep -qF "run 'jobprep init --demo'" "$T/err"
jp_done
