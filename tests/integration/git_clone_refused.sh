#!/bin/sh
# What jobprep clone refuses, before any network use: a non-empty target, a
# file, a symlink into ephemeral storage, URLs, paths and refs beginning with
# '-', a target another live clone is building. The git daemon's log shows
# whether a connection was made. Stale temporaries of dead runs are removed.
set -u
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-git-refused.XXXXXX") || exit 99
SLEEPER=
trap '[ -n "$SLEEPER" ] && kill $SLEEPER 2>/dev/null; jp_gitd_stop "$T"; rm -rf "$T"' EXIT
jp_test_env "$T"
J=$JOBPREP

jp_git_repo "$T/srv/r.git" || exit 99
jp_gitd_start "$T" "$T/srv" || exit 99
U=git://127.0.0.1:$JP_GITD_PORT/r.git
mkdir -p "$T/shared" "$T/eph"
printf '{"sandbox":true,"shared_roots":["%s"],"ephemeral_roots":["%s"]}\n' "$T/shared" "$T/eph" >"$T/profile.json"
JOBPREP_PROFILE=$T/profile.json
export JOBPREP_PROFILE

connections() { grep -c "Connection from" "$T/gitd.log"; }
# jp_gitd_start's readiness look is a connection too, which the daemon logs
# when it gets to it (seen late in a sanitizer build): counted first, so
# that the first case does not take it for its own
_w=0
while [ "$(connections)" -lt 1 ] && [ $_w -lt 300 ]; do
	sleep 0.1
	_w=$((_w + 1))
done
# refused NAME EXPECTED_WORDS ARGS...: exit 1 (or 2), message, no connection.
refused() {
	_name=$1
	_words=$2
	shift 2
	_before=$(connections)
	"$J" clone "$@" >/dev/null 2>"$T/err"
	_rc=$?
	sleep 0.2
	if [ $_rc != 1 ] && [ $_rc != 2 ]; then
		jp_fail "$_name" "exit $_rc"
	elif ! grep -qi -- "$_words" "$T/err"; then
		jp_fail "$_name" "message: $(cat "$T/err")"
	elif [ "$(connections)" != "$_before" ]; then
		jp_fail "$_name" "the server saw a connection"
	else
		jp_pass "$_name"
	fi
}

mkdir "$T/shared/full" && echo keep >"$T/shared/full/precious"
refused nonempty_target_is_refused_without_network_use "not empty" "$U" "$T/shared/full"
jp_expect nonempty_target_is_left_untouched [ "$(ls -A "$T/shared/full")" = precious ]
echo x >"$T/shared/afile"
refused file_target_is_refused_without_network_use "not a directory" "$U" "$T/shared/afile"
ln -s "$T/eph/proj" "$T/shared/proj"
refused symlink_into_ephemeral_storage_is_refused "ephemeral" "$U" "$T/shared/proj"
jp_expect symlink_into_ephemeral_storage_creates_nothing [ ! -e "$T/eph/proj" ]
refused url_beginning_with_dash_is_refused "beginning with '-'" -- "--upload-pack=touch $T/pwned" "$T/shared/x"
jp_expect dash_url_ran_nothing [ ! -e "$T/pwned" ]
(cd "$T/shared" && "$J" clone -- "$U" -dir >/dev/null 2>"$T/err")
jp_expect target_beginning_with_dash_is_refused grep -q "beginning with '-'" "$T/err"
refused ref_beginning_with_dash_is_refused "beginning with '-'" --ref=--foo "$U" "$T/shared/y"
refused ssh_host_beginning_with_dash_is_refused "beginning with '-'" "ssh://-oProxyCommand=x/r" "$T/shared/z"
refused unsupported_scheme_is_refused "unsupported URL scheme" "ftp://127.0.0.1/r.git" "$T/shared/z"
jp_expect refusals_leave_no_temporaries jp_no_temporaries "$T/shared"

# A symlink into shared storage is followed: the clone lands where it points.
mkdir -p "$T/shared/real"
ln -s "$T/shared/real/p2" "$T/shared/p2"
"$J" clone "$U" "$T/shared/p2" >/dev/null 2>"$T/err"
jp_expect symlink_to_shared_storage_clones_where_it_points [ -f "$T/shared/real/p2/README" ]
jp_expect symlink_to_shared_storage_stays_a_symlink [ -L "$T/shared/p2" ]

# A relative target is judged like its absolute path, also when typed in /:
# a link inside ephemeral storage to ephemeral storage is no escape from
# shared storage, so the clone goes ahead from / as it does from $T.
mkdir -p "$T/eph/real"
ln -s "$T/eph/real" "$T/eph/link"
(cd / && "$J" clone "$U" "${T#/}/eph/link/p3" >/dev/null 2>"$T/err")
jp_expect relative_target_typed_in_root_is_judged_like_its_absolute_path \
	[ -f "$T/eph/real/p3/README" ]
(cd "$T" && "$J" clone "$U" eph/link/p4 >/dev/null 2>"$T/err")
jp_expect relative_target_typed_elsewhere_is_judged_the_same [ -f "$T/eph/real/p4/README" ]
sleep 0.2
# The "no connection" checks above mean something only if this one shows.
jp_expect the_daemon_log_shows_connections [ "$(connections)" -gt 0 ]

# A temporary whose owner is alive: another clone is running there.
sleep 60 &
SLEEPER=$!
start=$(sed 's/.*) //' "/proc/$SLEEPER/stat" | cut -d' ' -f20)
mkdir -p "$T/shared/.busy.jobprep-tmp-$SLEEPER-0000abcd"
printf 'jobprep clone temporary\nhost %s\npid %s\nstart %s\n' "$(hostname)" "$SLEEPER" "$start" \
	>"$T/shared/.busy.jobprep-tmp-$SLEEPER-0000abcd/owner"
refused live_temporary_means_another_clone_is_running "another jobprep" "$U" "$T/shared/busy"
jp_expect live_temporary_is_left_alone [ -d "$T/shared/.busy.jobprep-tmp-$SLEEPER-0000abcd" ]
kill "$SLEEPER"
wait "$SLEEPER" 2>/dev/null
SLEEPER=
# Its owner died: the next clone removes it and goes ahead.
"$J" clone "$U" "$T/shared/busy" >/dev/null 2>"$T/err"
jp_expect dead_owners_temporary_is_removed [ ! -e "$T/shared/.busy.jobprep-tmp-"* ]
jp_expect clone_after_stale_temporary_succeeds [ -f "$T/shared/busy/README" ]
# A temporary from another host is never touched.
mkdir -p "$T/shared/.other.jobprep-tmp-1-0000abcd"
printf 'jobprep clone temporary\nhost not-%s\npid 1\nstart 1\n' "$(hostname)" \
	>"$T/shared/.other.jobprep-tmp-1-0000abcd/owner"
"$J" clone "$U" "$T/shared/other" >/dev/null 2>"$T/err"
jp_expect another_hosts_temporary_is_left_alone [ -d "$T/shared/.other.jobprep-tmp-1-0000abcd" ]
jp_expect another_hosts_temporary_is_named_with_its_host grep -q "pid 1 on not-$(hostname)" "$T/err"

jp_done
