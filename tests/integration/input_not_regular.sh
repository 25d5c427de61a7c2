#!/bin/sh
# A FIFO (or any file that is not a regular one) named as the manifest, the
# answers or the profile (--profile or JOBPREP_PROFILE) is refused at once:
# exit 3, "FILE: not a regular file". Before, open() on a FIFO with no writer
# blocked for ever. Every command runs under `timeout`, so a regression
# fails this test instead of hanging it.
set -u
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-input.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT
jp_test_env "$T"
F=$T/fifo
mkfifo "$F" || exit 99
mkdir -p "$T/dir"
J=$JOBPREP
# A valid manifest and profile to pair a FIFO with: the demo's.
cd "$T" || exit 99
"$J" init --demo >/dev/null 2>&1 </dev/null
M=$(ls "$T"/jobprep-demo/shared/outputs/demo/run-*/job.json 2>/dev/null | head -n 1)

# refused NAME FILE CMD...: CMD ends within 10 s, exit 3, names FILE.
refused() {
	_n=$1
	_f=$2
	shift 2
	timeout -s KILL 10 "$@" </dev/null >"$T/out" 2>"$T/err"
	_rc=$?
	echo "# $_n: exit $_rc: $(head -c 200 "$T/err")"
	jp_expect "${_n}_does_not_hang" [ "$_rc" != 137 ]
	jp_expect "${_n}_exits_3" [ "$_rc" = 3 ]
	jp_expect "${_n}_says_not_a_regular_file" grep -qF "$_f: not a regular file" "$T/err"
}

jp_expect demo_manifest_made [ -f "$M" ]
[ -f "$M" ] || exit 1
refused check_manifest_fifo "$F" "$J" check "$F"
refused env_manifest_fifo "$F" "$J" env "$F"
refused export_manifest_fifo "$F" "$J" export --to slurm "$F"
refused check_manifest_directory "$T/dir" "$J" check "$T/dir"
refused init_answers_fifo "$F" "$J" init --answers "$F" -o "$T/job.json"
refused check_profile_fifo "$F" "$J" check --profile "$F" "$M"
refused init_profile_fifo "$F" "$J" init --profile "$F" --answers "$M" -o "$T/job2.json"
refused scan_profile_fifo "$F" "$J" scan --profile "$F" "$T/dir"
refused clone_profile_fifo "$F" "$J" clone --profile "$F" "$T/nowhere.git" "$T/clone"
refused env_var_profile_fifo "$F" env JOBPREP_PROFILE="$F" "$J" scan "$T/dir"
refused profile_is_dev_null "/dev/null" "$J" scan --profile /dev/null "$T/dir"
# The wizard, in a terminal of its own (script(1) gives it a pty).
if command -v script >/dev/null 2>&1; then
	timeout -s KILL 10 script -qec "TERM=xterm '$J' --profile '$F'" /dev/null \
		</dev/null >"$T/err" 2>&1
	_rc=$?
	echo "# wizard: exit $_rc: $(head -c 200 "$T/err")"
	jp_expect wizard_profile_fifo_does_not_hang [ "$_rc" != 137 ]
	jp_expect wizard_profile_fifo_exits_3 [ "$_rc" = 3 ]
	jp_expect wizard_profile_fifo_says_so grep -qF "$F: not a regular file" "$T/err"
else
	jp_fail wizard_profile_fifo "script(1) is not installed (bsdutils)"
fi
jp_done
