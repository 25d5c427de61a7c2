# A static file server for the download tests: lighttpd on loopback,
# serving DIR/www, with an access log that shows what each request asked.
# Source it after tests/lib/gitserv.sh (jp_listening, jp_reap):
#
#   jp_filesrv_start DIR PORT [KBPS [EXTRA]]
#       lighttpd on 127.0.0.1:PORT serving DIR/www, at most KBPS kB/s a
#       connection when KBPS > 0; EXTRA: more configuration lines (another
#       socket, a redirect: add "mod_redirect" to JP_FILESRV_MODULES). Its
#       access log DIR/access.log has one line a request:
#         "GET /f HTTP/1.1" 206 range=bytes=10- if-range=... authorization=...
#         if-modified-since=... if-none-match=... sent=BYTES (the bytes it
#         sent, headers too)
#       Returns once it listens (5 s at most), else 1.
#       With JP_FILESRV_NO_VALIDATORS=1 it sends neither ETag nor
#       Last-Modified, as a minimal lighttpd.conf does on Debian 12 (no
#       mimetype table); Debian 13's lighttpd sends both even then, so
#       they are turned off by name.
#   jp_filesrv_stop DIR
#       stops it and waits for it: lighttpd writes its log out then
jp_filesrv_start() {
	_fd=$1 _fport=$2 _fthrottle= _fnovalid= _fmods=${JP_FILESRV_MODULES:-}
	[ "${3:-0}" -gt 0 ] && _fthrottle="connection.kbytes-per-second = $3"
	if [ -n "${JP_FILESRV_NO_VALIDATORS:-}" ]; then
		_fmods="$_fmods \"mod_setenv\","
		_fnovalid='static-file.etags = "disable"
setenv.set-response-header = ( "Last-Modified" => "" )'
	fi
	cat >"$_fd/httpd.conf" <<C
server.modules = ( $_fmods "mod_accesslog" )
server.document-root = "$_fd/www"
server.bind = "127.0.0.1"
server.port = $_fport
server.pid-file = "$_fd/httpd.pid"
server.errorlog = "$_fd/httpd-error.log"
# without a mimetype table lighttpd sends neither ETag nor Last-Modified
# (JP_FILESRV_NO_VALIDATORS=1: such a server)
${JP_FILESRV_NO_VALIDATORS:+#}mimetype.assign = ( "" => "application/octet-stream" )
$_fnovalid
accesslog.filename = "$_fd/access.log"
accesslog.format = "\"%r\" %>s range=%{Range}i if-range=%{If-Range}i authorization=%{Authorization}i if-modified-since=%{If-Modified-Since}i if-none-match=%{If-None-Match}i sent=%O"
$_fthrottle
${4:-}
C
	rm -f "$_fd/httpd.pid"
	# PORT may be held for a moment as the local end of another test's
	# connection (the ephemeral range overlaps jp_free_port's): lighttpd
	# then cannot bind ("Address already in use"); try again for up to 10 s
	_w=0
	until lighttpd -f "$_fd/httpd.conf" 2>>"$_fd/httpd-start.log"; do
		_w=$((_w + 1))
		[ $_w -lt 30 ] || { cat "$_fd/httpd-start.log" >&2; return 1; }
		sleep 0.3
	done
	_w=0
	while [ $_w -lt 50 ]; do
		[ -s "$_fd/httpd.pid" ] && jp_listening "$_fport" && return 0
		sleep 0.1
		_w=$((_w + 1))
	done
	return 1
}

jp_filesrv_stop() {
	[ -s "$1/httpd.pid" ] || return 0
	_fp=$(cat "$1/httpd.pid")
	kill "$_fp" 2>/dev/null
	jp_reap "$_fp" "$1/httpd.pid"
}
