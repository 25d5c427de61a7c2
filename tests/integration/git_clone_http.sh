#!/bin/sh
# jobprep clone over smart HTTP with Basic auth (lighttpd + git http-backend
# on loopback): a token in the URL, JOBPREP_GIT_TOKEN, a git credential
# helper, a prompt; three wrong passwords and it stops; a redirect to another
# host gets no credentials; the token is never written anywhere.
set -u
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-git-http.XXXXXX") || exit 99
trap 'jp_httpd_stop "$T"; rm -rf "$T"' EXIT
jp_test_env "$T"
J=$JOBPREP
TOKEN=tok-5e3c9a1f7d
mkdir -p "$T/repos/private" "$T/out"
jp_git_repo "$T/repos/public.git" || exit 99
for r in url env helper prompt wrong wrong2 redirect remote; do
	cp -r "$T/repos/public.git" "$T/repos/private/$r.git"
done
jp_httpd_start "$T" "$T/repos" || exit 99
printf 'alice:%s\n' "$TOKEN" >"$T/users"
B=http://127.0.0.1:$JP_HTTPD_PORT/git
commit=$(git --git-dir="$T/repos/public.git" rev-parse main)

# --- anonymous
"$J" clone --json "$B/public.git" "$T/out/public" </dev/null >"$T/out.json" 2>"$T/err"
jp_expect anonymous_http_clone_succeeds [ "$(jp_json_get "$T/out.json" commit)" = "$commit" ]

# --- a token in the URL: used, never stored
"$J" clone --json "http://alice:$TOKEN@127.0.0.1:$JP_HTTPD_PORT/git/private/url.git" "$T/out/url" \
	</dev/null >"$T/out.json" 2>"$T/err"
jp_expect url_token_clone_succeeds [ "$(jp_json_get "$T/out.json" commit)" = "$commit" ]
jp_expect url_token_is_not_in_git_config \
	[ "$(git -C "$T/out/url" config remote.origin.url)" = "$B/private/url.git" ]
jp_expect url_token_is_not_in_the_reported_url \
	[ "$(jp_json_get "$T/out.json" url)" = "$B/private/url.git" ]
"$J" repo --json "$T/out/url" >"$T/repo.json" 2>&1
jp_expect url_token_is_not_in_repo_output jp_no_text "$TOKEN" "$T/repo.json"

# --- the token is blanked out of the command line while the clone runs
jp_git_big_repo "$T/repos/private/ps.git" 6 || exit 99
jp_slow_hook "$T/httpd-home/slow-hook"
jp_slow_hook_config "$T/httpd-home/slow-hook" >"$T/httpd-home/.gitconfig"
"$J" clone --progress "http://alice:$TOKEN@127.0.0.1:$JP_HTTPD_PORT/git/private/ps.git" "$T/out/ps" \
	</dev/null >/dev/null 2>"$T/err" &
pid=$!
if jp_wait_text "$T/err" "receiving objects"; then
	# Sample the command line while the clone runs, from the jobprep
	# process itself: every sample shows the blanked URL, none the token,
	# and a check that read nothing (the clone had ended) fails.
	: >"$T/cmdline"
	n=0
	while [ $n -lt 20 ]; do
		case $(cat "/proc/$pid/comm" 2>/dev/null) in
		jobprep | lt-jobprep) ;;
		*) break ;;
		esac
		tr '\0' ' ' <"/proc/$pid/cmdline" >"$T/cmdline.1" 2>/dev/null && [ -s "$T/cmdline.1" ] ||
			break
		cat "$T/cmdline.1" >>"$T/cmdline"
		echo >>"$T/cmdline"
		n=$((n + 1))
		sleep 0.05
	done
	if [ $n = 0 ]; then
		jp_fail url_token_is_not_in_the_process_command_line \
			"no command line read: process $pid was no (longer a) jobprep"
	else
		jp_expect url_token_is_not_in_the_process_command_line \
			sh -c '[ "$(grep -c "alice:\*\*\*[*]*@" "$1")" = "$2" ] && [ -f "$1" ] && ! grep -q "$3" "$1"' \
			sh "$T/cmdline" "$n" "$TOKEN"
	fi
else
	jp_fail url_token_is_not_in_the_process_command_line "the transfer never started"
fi
jp_wait_exit $pid
: >"$T/httpd-home/.gitconfig"
jp_expect slow_url_token_clone_succeeds [ "$JP_RC" = 0 ]

# --- JOBPREP_GIT_TOKEN, for the host named only
JOBPREP_GIT_TOKEN=$TOKEN JOBPREP_GIT_USER=alice \
	"$J" clone "$B/private/env.git" "$T/out/env" </dev/null >/dev/null 2>"$T/err"
jp_expect env_token_clone_succeeds [ -f "$T/out/env/README" ]
JOBPREP_GIT_TOKEN=$TOKEN "$J" clone "http://alice@127.0.0.1:$JP_HTTPD_PORT/git/private/env.git" \
	"$T/out/env2" </dev/null >/dev/null 2>"$T/err"
jp_expect env_token_with_user_in_url_succeeds [ -f "$T/out/env2/README" ]
jp_expect user_name_is_not_stored_for_http \
	[ "$(git -C "$T/out/env2" config remote.origin.url)" = "$B/private/env.git" ]

# --- a git credential helper (run without a terminal)
git config --file "$HOME/.gitconfig" credential.helper \
	"!f() { echo username=alice; echo password=$TOKEN; }; f"
"$J" clone "$B/private/helper.git" "$T/out/helper" </dev/null >/dev/null 2>"$T/err"
jp_expect credential_helper_clone_succeeds [ -f "$T/out/helper/README" ]
rm -f "$HOME/.gitconfig"

# --- typed (stdin is not a terminal: one line per question)
printf 'alice\n%s\n' "$TOKEN" | "$J" clone "$B/private/prompt.git" "$T/out/prompt" >/dev/null 2>"$T/err"
jp_expect prompted_credentials_clone_succeeds [ -f "$T/out/prompt/README" ]

# --- wrong passwords: three tries, then it stops
printf 'bad1\nbad2\nbad3\nbad4\nbad5\n' |
	"$J" clone "http://alice@127.0.0.1:$JP_HTTPD_PORT/git/private/wrong.git" "$T/out/wrong" \
	>/dev/null 2>"$T/err"
jp_expect wrong_password_fails [ $? = 1 ]
jp_expect wrong_password_says_authentication grep -qi "refused 3 credentials" "$T/err"
jp_expect wrong_password_leaves_nothing [ ! -e "$T/out/wrong" ]
JOBPREP_GIT_TOKEN=bad-token "$J" clone "http://alice@127.0.0.1:$JP_HTTPD_PORT/git/private/wrong2.git" \
	"$T/out/wrong2" </dev/null >/dev/null 2>"$T/err"
jp_expect wrong_token_without_a_person_fails [ $? = 1 ]

# --- a redirect to another host: nothing goes there, credentials least of all
JOBPREP_GIT_TOKEN=$TOKEN "$J" clone "http://alice:$TOKEN@127.0.0.1:$JP_HTTPD_PORT/moved/redirect.git" \
	"$T/out/redirect" </dev/null >/dev/null 2>"$T/err"
jp_expect redirect_to_another_host_fails [ $? = 1 ]
jp_expect redirect_to_another_host_says_so grep -q "redirected to another host" "$T/err"
jp_expect redirect_error_does_not_show_the_token jp_no_text "$TOKEN" "$T/err"
jp_expect redirect_leaves_nothing [ ! -e "$T/out/redirect" ]

# --- https (TLS through jobprep's own socket stream): a CA it is told to
# trust (SSL_CERT_FILE), and one it is not
if [ -n "$JP_HTTPD_PORT3" ]; then
	SSL_CERT_FILE=$T/ca.pem "$J" clone --json "https://alice:$TOKEN@127.0.0.1:$JP_HTTPD_PORT3/git/private/url.git" \
		"$T/out/https" </dev/null >"$T/out.json" 2>"$T/err"
	jp_expect https_clone_with_a_trusted_ca_succeeds [ "$(jp_json_get "$T/out.json" commit)" = "$commit" ]
	"$J" clone "https://127.0.0.1:$JP_HTTPD_PORT3/git/public.git" "$T/out/untrusted" </dev/null \
		>/dev/null 2>"$T/err"
	jp_expect https_with_an_untrusted_certificate_fails [ $? = 1 ]
	jp_expect https_with_an_untrusted_certificate_says_so grep -qi "certificate" "$T/err"
	jp_expect https_with_an_untrusted_certificate_leaves_nothing [ ! -e "$T/out/untrusted" ]
else
	jp_fail https_clone "lighttpd has no TLS here (install lighttpd-mod-openssl)"
fi

# --- ls-remote pin with a token
JOBPREP_GIT_TOKEN=$TOKEN JOBPREP_GIT_USER=alice "$J" repo --json --remote "$B/private/remote.git" \
	--ref v1 </dev/null >"$T/remote.json" 2>"$T/err"
jp_expect remote_check_over_http_pins_the_tag \
	[ "$(jp_json_get "$T/remote.json" commit)" = "$(git --git-dir="$T/repos/public.git" rev-parse 'v1^{commit}')" ]

# The second host's log records Authorization headers (shown by git itself).
GIT_TERMINAL_PROMPT=0 git ls-remote "http://probe:probe@127.0.0.1:$JP_HTTPD_PORT2/git/private/url.git" \
	>/dev/null 2>&1
jp_httpd_stop "$T"
# The servers' own logs, once written out.
jp_expect second_host_log_shows_authorization_when_sent grep -q 'authorization=Basic' "$T/access2.log"
n401() { grep -c "/git/private/$1.git/info/refs.* 401" "$T/access.log"; }
jp_expect wrong_password_is_tried_three_times [ "$(n401 wrong)" = 4 ] # anonymous + 3
jp_expect redirect_target_gets_no_authorization \
	sh -c "[ -f '$T/access2.log' ] && ! grep 'redirect.git' '$T/access2.log' | grep -q 'authorization=[^-]'"
jp_expect redirect_was_answered_by_the_first_host grep -q '"GET /moved/redirect.git/info/refs' "$T/access.log"
jp_expect token_is_never_on_disk jp_no_text -r "$TOKEN" "$T/out" "$HOME"

jp_done
