# Shell helpers for git tests and benchmarks: repositories, and git servers
# of the test's own on loopback. Source it:
#
#   . "$TOP_SRCDIR/tests/lib/gitserv.sh"
#   jp_git_repo DIR/repo.git [FILES]     # a bare repo: main, a tag, scripts/
#   jp_gitd_start DIR BASE               # git daemon; sets JP_GITD_PORT
#   jp_gitd_stop DIR
#   jp_httpd_start DIR REPOS             # lighttpd + git http-backend, Basic
#                                        # auth under /git/private/ (alice:s3cret);
#                                        # sets JP_HTTPD_PORT, JP_HTTPD_PORT2
#   jp_httpd_stop DIR
#   jp_kill_tree PID                     # a process and its descendants
#
# Every server listens on 127.0.0.1 only, on a free port, with its pid file
# and logs in DIR. Stop every server you start (trap).
#
# It also brings the reporter (jp_expect, jp_pass, jp_fail, jp_skip,
# jp_done...: tests/lib/report.sh), which the tests that source it use.

. "$TOP_SRCDIR/tests/lib/report.sh"
. "$TOP_SRCDIR/tests/lib/proc.sh"

JP_GIT_ID="-c user.name=jobprep-test -c user.email=test@jobprep.invalid"
# Any commit a test makes has an author without the machine's git identity.
GIT_AUTHOR_NAME=jobprep-test GIT_AUTHOR_EMAIL=test@jobprep.invalid
GIT_COMMITTER_NAME=jobprep-test GIT_COMMITTER_EMAIL=test@jobprep.invalid
export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL
export GIT_CONFIG_NOSYSTEM=1

# jp_listening PORT: 0 when something accepts connections on 127.0.0.1:PORT.
jp_listening() {
	python3 -c 'import socket,sys
s = socket.socket(); s.settimeout(1)
sys.exit(1 if s.connect_ex(("127.0.0.1", int(sys.argv[1]))) else 0)' "$1"
}

# jp_free_port: a port that can be bound on 127.0.0.1 right now, picked at
# random below the kernel's ephemeral range (no outgoing connection's local
# end holds it for minutes, as one can there), so suites run side by side
# (CI's two fresh roots share one loopback) seldom pick the same.
jp_free_port() {
	python3 -c 'import random, socket, sys
lo, hi = 10000, 32767
try:
    first = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
    hi = min(hi, first - 1) if first > lo + 1000 else hi
except (OSError, ValueError, IndexError):
    pass
rng = random.SystemRandom()
for _ in range(200):
    p = rng.randint(lo, hi)
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind(("127.0.0.1", p))
    except OSError:
        continue
    finally:
        s.close()
    print(p)
    sys.exit(0)
sys.exit(1)'
}

# jp_git_repo BARE [NFILES]: a bare repository with two commits on main, a
# branch "dev", an annotated tag v1 (first commit) and a lightweight tag
# light, scripts/train.sh (not executable in git) and NFILES extra files.
jp_git_repo() {
	_bare=$1
	_n=${2:-0}
	_w=$_bare.work
	rm -rf "$_w" "$_bare"
	git init -q -b main "$_w" || return 1
	mkdir -p "$_w/scripts" "$_w/src"
	printf '#!/bin/sh\necho training\n' >"$_w/scripts/train.sh"
	printf 'print("hi")\n' >"$_w/src/train.py"
	ln -s src/train.py "$_w/link.py"
	echo one >"$_w/README"
	_i=0
	while [ "$_i" -lt "$_n" ]; do
		echo "file $_i" >"$_w/src/f$_i.txt"
		_i=$((_i + 1))
	done
	# shellcheck disable=SC2086
	git -C "$_w" add -A && git $JP_GIT_ID -C "$_w" commit -qm first || return 1
	git $JP_GIT_ID -C "$_w" tag -a -m "version 1" v1 || return 1
	git -C "$_w" branch dev
	echo two >>"$_w/README"
	git $JP_GIT_ID -C "$_w" commit -qam second || return 1
	git -C "$_w" tag light
	git $JP_GIT_ID -C "$_w" checkout -q dev
	echo dev >"$_w/DEV"
	git -C "$_w" add DEV && git $JP_GIT_ID -C "$_w" commit -qm dev-only || return 1
	git -C "$_w" checkout -q main
	git clone -q --bare "$_w" "$_bare" || return 1
	rm -rf "$_w"
}

# jp_git_big_repo BARE MIB: one commit holding MIB MiB of incompressible
# data in 256 KiB files, and scripts/train.sh.
jp_git_big_repo() {
	_bare=$1
	_mib=$2
	_w=$_bare.work
	rm -rf "$_w" "$_bare"
	git init -q -b main "$_w" || return 1
	mkdir -p "$_w/scripts" "$_w/data"
	printf '#!/bin/sh\necho training\n' >"$_w/scripts/train.sh"
	_i=0
	while [ "$_i" -lt $((_mib * 4)) ]; do
		head -c 262144 /dev/urandom >"$_w/data/blob$_i"
		_i=$((_i + 1))
	done
	git -C "$_w" add -A && git $JP_GIT_ID -C "$_w" commit -qm big || return 1
	git clone -q --bare "$_w" "$_bare" || return 1
	rm -rf "$_w"
}

# jp_git_many_files BARE N: one commit with N small files in 100 folders.
jp_git_many_files() {
	_bare=$1
	_n=$2
	_w=$_bare.work
	rm -rf "$_w" "$_bare"
	git init -q -b main "$_w" || return 1
	# fast-import: no work tree to write first.
	{
		echo "commit refs/heads/main"
		echo "committer jobprep-test <test@jobprep.invalid> 1700000000 +0000"
		echo "data 5"
		echo "many"
		_i=0
		while [ "$_i" -lt "$_n" ]; do
			# "file %08d\n" is always 14 bytes
			printf 'M 100644 inline d%d/f%d.txt\ndata 14\nfile %08d\n' \
				$((_i % 100)) "$_i" "$_i"
			_i=$((_i + 1))
		done
	} | git -C "$_w" fast-import --quiet || return 1
	git clone -q --bare "$_w" "$_bare" || return 1
	rm -rf "$_w"
}

# jp_slow_hook FILE: a pack-objects hook sending at most ~640 KiB/s, so a
# test can act in the middle of a transfer. jp_slow_hook_config FILE: the
# git configuration that runs it (git runs the hook through sh: its path is
# quoted, so a $TMPDIR with a space in it works).
jp_slow_hook() {
	cat >"$1" <<'EOF'
#!/bin/sh
"$@" | perl -e '$|=1; while (read(STDIN, $b, 32768)) { print $b; select(undef, undef, undef, 0.05) }'
EOF
	chmod +x "$1"
}
jp_slow_hook_config() {
	printf "[uploadpack]\n\tpackObjectsHook = '%s'\n" "$1"
}

# jp_gitd_start DIR BASE [slow]: git daemon exporting BASE; its HOME is
# DIR/gitd-home ("slow": packs trickle out through jp_slow_hook).
jp_gitd_start() {
	_d=$1
	_base=$2
	mkdir -p "$_d/gitd-home"
	: >"$_d/gitd-home/.gitconfig"
	if [ "${3:-}" = slow ]; then
		jp_slow_hook "$_d/gitd-home/slow-hook"
		jp_slow_hook_config "$_d/gitd-home/slow-hook" >"$_d/gitd-home/.gitconfig"
	fi
	_try=0
	while [ $_try -lt 10 ]; do
		_try=$((_try + 1))
		_port=$(jp_free_port) || return 1
		rm -f "$_d/gitd.pid"
		HOME=$_d/gitd-home git daemon --reuseaddr --export-all --base-path="$_base" \
			--listen=127.0.0.1 --port="$_port" --verbose \
			--pid-file="$_d/gitd.pid" "$_base" >>"$_d/gitd.log" 2>&1 &
		_w=0
		while [ $_w -lt 50 ]; do
			if [ -s "$_d/gitd.pid" ] && jp_listening "$_port"; then
				JP_GITD_PORT=$_port
				export JP_GITD_PORT
				return 0
			fi
			sleep 0.1
			_w=$((_w + 1))
		done
		jp_gitd_stop "$_d"
	done
	echo "jp_gitd_start: git daemon did not start (see $_d/gitd.log)" >&2
	return 1
}

# jp_kill_tree PID [SIG]: PID's descendants, then PID.
jp_kill_tree() {
	_sig=${2:-TERM}
	for _c in $(ps -o pid= --ppid "$1" 2>/dev/null); do
		jp_kill_tree "$_c" "$_sig"
	done
	kill -"$_sig" "$1" 2>/dev/null
	return 0
}

# The daemon's children ignore SIGTERM (git upload-pack, its hook): KILL.
jp_gitd_stop() {
	[ -s "$1/gitd.pid" ] || return 0
	_pid=$(cat "$1/gitd.pid")
	jp_kill_tree "$_pid" KILL
	jp_reap "$_pid" "$1/gitd.pid"
}

# jp_httpd_start DIR REPOS: lighttpd serving REPOS through git http-backend
# at http://127.0.0.1:$JP_HTTPD_PORT/git/ (Basic auth alice:s3cret under
# /git/private/). /moved/X redirects to another host:
# http://127.0.0.2:$JP_HTTPD_PORT2/git/private/X, a second listener (on
# 127.0.0.1 and 127.0.0.2: all of 127/8 is loopback) whose access log
# records any Authorization header it receives. The same again over https
# at https://127.0.0.1:$JP_HTTPD_PORT3/ with a certificate for 127.0.0.1
# from a test CA ($DIR/ca.pem); JP_HTTPD_PORT3 is empty where lighttpd has
# no TLS. No name is looked up: "localhost" need not resolve (a minimal
# root has no /etc/hosts), nor to 127.0.0.1.
jp_httpd_start() {
	_d=$1
	_repos=$2
	mkdir -p "$_d/httpd-home" "$_d/www"
	: >"$_d/httpd-home/.gitconfig"
	printf 'alice:s3cret\n' >"$_d/users"
	# https only where lighttpd has TLS (package lighttpd-mod-openssl).
	_tls=
	[ -e /usr/lib/lighttpd/mod_openssl.so ] && command -v openssl >/dev/null 2>&1 && _tls=1
	if [ -n "$_tls" ] && [ ! -s "$_d/server.pem" ]; then
		openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=jobprep test CA" \
			-keyout "$_d/ca.key" -out "$_d/ca.pem" 2>/dev/null &&
		openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" \
			-keyout "$_d/server.key" -out "$_d/server.csr" 2>/dev/null &&
		printf 'subjectAltName=IP:127.0.0.1,DNS:127.0.0.1\n' >"$_d/san.ext" &&
		openssl x509 -req -in "$_d/server.csr" -CA "$_d/ca.pem" -CAkey "$_d/ca.key" \
			-CAcreateserial -days 2 -extfile "$_d/san.ext" -out "$_d/server.crt" 2>/dev/null &&
		cat "$_d/server.crt" "$_d/server.key" >"$_d/server.pem" || return 1
	fi
	_try=0
	while [ $_try -lt 10 ]; do
		_try=$((_try + 1))
		_port=$(jp_free_port) || return 1
		_port2=$(jp_free_port) || return 1
		_port3=$(jp_free_port) || return 1
		[ "$_port" != "$_port2" ] && [ "$_port" != "$_port3" ] && [ "$_port2" != "$_port3" ] ||
			continue
		cat >"$_d/lighttpd.conf" <<EOF
server.modules = ( "mod_access", "mod_alias", "mod_auth", "mod_authn_file",
                   "mod_cgi", "mod_setenv", "mod_redirect", "mod_accesslog" )
server.document-root = "$_d/www"
server.bind = "127.0.0.1"
server.port = $_port
server.pid-file = "$_d/lighttpd.pid"
server.errorlog = "$_d/httpd-error.log"
accesslog.filename = "$_d/access.log"
accesslog.format = "%h %V %u \"%r\" %>s"
alias.url = ( "/git" => "/usr/lib/git-core/git-http-backend" )
\$HTTP["url"] =~ "^/git" {
	cgi.assign = ( "" => "" )
	setenv.add-environment = ( "GIT_PROJECT_ROOT" => "$_repos",
				   "GIT_HTTP_EXPORT_ALL" => "",
				   "HOME" => "$_d/httpd-home" )
}
auth.backend = "plain"
auth.backend.plain.userfile = "$_d/users"
auth.require = ( "/git/private/" => ( "method" => "basic", "realm" => "git",
				      "require" => "valid-user" ) )
url.redirect = ( "^/moved/(.*)\$" => "http://127.0.0.2:$_port2/git/private/\$1" )
\$SERVER["socket"] == "127.0.0.1:$_port2" {
	accesslog.filename = "$_d/access2.log"
	accesslog.format = "%h %V \"%r\" %>s authorization=%{Authorization}i"
}
\$SERVER["socket"] == "127.0.0.2:$_port2" {
	accesslog.filename = "$_d/access2.log"
	accesslog.format = "%h %V \"%r\" %>s authorization=%{Authorization}i"
}
EOF
		# more configuration from the test (JP_HTTPD_EXTRA: lines, e.g.
		# server.stream-response-body = 2 to send a CGI's output as it comes)
		[ -n "${JP_HTTPD_EXTRA:-}" ] && printf '%s\n' "$JP_HTTPD_EXTRA" >>"$_d/lighttpd.conf"
		[ -n "$_tls" ] && cat >>"$_d/lighttpd.conf" <<EOF
server.modules += ( "mod_openssl" )
\$SERVER["socket"] == "127.0.0.1:$_port3" {
	ssl.engine = "enable"
	ssl.pemfile = "$_d/server.pem"
}
EOF
		rm -f "$_d/lighttpd.pid"
		lighttpd -f "$_d/lighttpd.conf" 2>>"$_d/httpd-error.log" || continue
		_w=0
		while [ $_w -lt 50 ]; do
			if [ -s "$_d/lighttpd.pid" ] && jp_listening "$_port" &&
				jp_listening "$_port2" && { [ -z "$_tls" ] || jp_listening "$_port3"; }; then
				JP_HTTPD_PORT=$_port
				JP_HTTPD_PORT2=$_port2
				JP_HTTPD_PORT3=${_tls:+$_port3}
				export JP_HTTPD_PORT JP_HTTPD_PORT2 JP_HTTPD_PORT3
				return 0
			fi
			sleep 0.1
			_w=$((_w + 1))
		done
		jp_httpd_stop "$_d"
	done
	echo "jp_httpd_start: lighttpd did not start (see $_d/httpd-error.log)" >&2
	return 1
}

jp_httpd_stop() {
	[ -s "$1/lighttpd.pid" ] || return 0
	_pid=$(cat "$1/lighttpd.pid")
	# CGI children (git http-backend) first; lighttpd itself gets TERM so
	# that it writes out its access logs.
	for _c in $(ps -o pid= --ppid "$_pid" 2>/dev/null); do
		jp_kill_tree "$_c" KILL
	done
	kill "$_pid" 2>/dev/null
	jp_reap "$_pid" "$1/lighttpd.pid"
}

# jp_json_get FILE KEY: a top-level string/number/bool of a JSON object.
jp_json_get() {
	python3 -c 'import json,sys; v=json.load(open(sys.argv[1])).get(sys.argv[2]); print("" if v is None else (str(v).lower() if isinstance(v,bool) else v))' "$1" "$2"
}

# jp_no_temporaries DIR: fail (1) when a jobprep temporary is left in DIR,
# or when DIR is not there (a folder that vanished proves nothing).
jp_no_temporaries() {
	if [ ! -d "$1" ]; then
		echo "jp_no_temporaries: $1 is not a folder" >&2
		return 1
	fi
	if ls -A "$1" | grep -q 'jobprep-tmp-\|^jobprep-clone-'; then
		echo "temporaries left in $1:" >&2
		ls -A "$1" >&2
		return 1
	fi
	return 0
}

# jp_has_temporary DIR: a jobprep temporary (jobprep-tmp-*) is in DIR now:
# a sign that jobprep is at work there.
jp_has_temporary() {
	ls -A "$1" 2>/dev/null | grep -q 'jobprep-tmp-'
}

# jp_pack_coming CHECKOUT CACHE: a pack is being received, into CHECKOUT's
# .git or into a mirror under CACHE (an $XDG_CACHE_HOME) that feeds it.
jp_pack_coming() {
	for _d in "$1/.git/objects/pack" "$2"/jobprep/git/*.git/objects/pack; do
		ls "$_d" 2>/dev/null | grep -qv '^pack-' && return 0
	done
	return 1
}

# jp_git_snapshot DIR: a checkout as "nothing touched" compares it: HEAD,
# the branch it is on, git status, and every path (but .git) with its mode
# and its bytes' hash.
jp_git_snapshot() {
	git -C "$1" rev-parse HEAD
	git -C "$1" symbolic-ref -q HEAD
	git -C "$1" status --porcelain
	(cd "$1" && find . -path ./.git -prune -o -print | LC_ALL=C sort | while read -r f; do
		if [ -f "$f" ] && [ ! -L "$f" ]; then
			echo "$f $(stat -c %a "$f") $(sha256sum <"$f")"
		else
			echo "$f $(stat -c %F "$f")"
		fi
	done)
}

# jp_test_env DIR: a private HOME (and so a private mirror cache), no agent,
# no tokens, no system git config.
jp_test_env() {
	HOME=$1/home
	mkdir -p "$HOME"
	XDG_CACHE_HOME=$HOME/.cache
	export HOME XDG_CACHE_HOME
	unset SSH_AUTH_SOCK JOBPREP_GIT_TOKEN JOBPREP_GIT_USER JOBPREP_SCRATCH GIT_ASKPASS SSH_ASKPASS
	LC_ALL=C
	export LC_ALL
}

# jp_scratch NAME [CLEANUP]: the opening of a test that works in a folder of
# its own: T, a new ${TMPDIR:-/tmp}/jobprep-NAME.XXXXXX (exit 99 when it
# cannot be made), removed at exit after CLEANUP (shell code, e.g. stopping
# the test's servers) has run, unless JP_KEEP is set; a private environment
# in it (jp_test_env); J, the program under test.
jp_scratch() {
	T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-$1.XXXXXX") || exit 99
	# shellcheck disable=SC2064 # CLEANUP is the test's code, fixed now
	trap "${2:-:}"'; [ -n "${JP_KEEP:-}" ] || rm -rf "$T"' EXIT
	jp_test_env "$T"
	J=$JOBPREP
}

# jp_push_tag WORK TAG [MESSAGE]: commit everything in the clone WORK (git
# add -A; the message MESSAGE, else TAG), tag the commit TAG (lightweight)
# and push main and TAG to WORK's origin.
jp_push_tag() {
	git -C "$1" add -A 2>/dev/null && git $JP_GIT_ID -C "$1" commit -qm "${3:-$2}" &&
		git -C "$1" tag "$2" && git -C "$1" push -q origin main "$2"
}

# jp_numbered_files DIR N TEXT: N small files DIR/f0.txt ... DIR/f<N-1>.txt,
# file i holding the line "TEXT i" (DIR made if need be).
jp_numbered_files() {
	mkdir -p "$1" || return 1
	_nf_i=0
	while [ $_nf_i -lt "$2" ]; do
		echo "$3 $_nf_i" >"$1/f$_nf_i.txt" || return 1
		_nf_i=$((_nf_i + 1))
	done
}

# jp_random_tree DIR N DIRS BASE STEP: N files of random bytes, file i
# "DIR/dK 目录/f i.bin" (K = i % DIRS, names with a space and CJK in them)
# of BASE + i * STEP bytes.
jp_random_tree() {
	_rt_i=0
	while [ $_rt_i -lt "$2" ]; do
		_rt_d="$1/d$((_rt_i % $3)) 目录"
		[ -d "$_rt_d" ] || mkdir -p "$_rt_d" || return 1
		head -c $(($4 + _rt_i * $5)) /dev/urandom >"$_rt_d/f $_rt_i.bin" || return 1
		_rt_i=$((_rt_i + 1))
	done
}

# jp_wait_text FILE TEXT [SECS]: wait until FILE contains TEXT (default 30 s).
jp_wait_text() {
	_w=0
	while [ $_w -lt $((${3:-30} * 20)) ]; do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
		_w=$((_w + 1))
	done
	return 1
}

# jp_wait_gone PATH [SECS]: wait until PATH no longer exists (default 10 s).
jp_wait_gone() {
	_w=0
	while [ -e "$1" ] || [ -L "$1" ]; do
		[ $_w -lt $((${2:-10} * 20)) ] || return 1
		sleep 0.05
		_w=$((_w + 1))
	done
	return 0
}

# jp_dir_empty DIR: 0 when DIR is a folder with nothing in it; a missing
# DIR fails (what was to be left empty may have been removed wholesale).
jp_dir_empty() {
	[ -d "$1" ] && [ -z "$(ls -A "$1")" ]
}

# jp_tree_meta DIR: one line per entry below DIR, sorted: path, type, mode,
# size, mtime (to the nanosecond), a link's target. A folder's size is left
# out: tmpfs counts its entries in it, ext4 its blocks.
jp_tree_meta() {
	(cd "$1" && find . -printf '%P|%y|%m|%s|%T@|%l\n' | grep -v '^|' |
		awk -F'|' 'BEGIN { OFS = "|" } $2 == "d" { $4 = "-" } { print }' |
		LC_ALL=C sort)
}

# jp_wait_exit PID [SECS]: wait for a background job and set JP_RC to its
# exit code, or to "hung" (killing it) when it runs longer than SECS
# (default 60). Not in $(...): a subshell cannot wait for our children.
jp_wait_exit() {
	_w=0
	while kill -0 "$1" 2>/dev/null && [ $_w -lt $((${2:-60} * 10)) ]; do
		sleep 0.1
		_w=$((_w + 1))
	done
	if kill -0 "$1" 2>/dev/null; then
		kill -9 "$1" 2>/dev/null
		wait "$1" 2>/dev/null
		JP_RC=hung
		return 0
	fi
	wait "$1"
	JP_RC=$?
}
