# Shell helpers shared by the server libraries (tests/lib/gitserv.sh,
# tests/lib/ssh.sh), which source it.

# jp_mountns_unavailable: prints why this test cannot make a mount namespace
# of its own and mount in it (unshare -m needs root), and returns 0; returns
# 1 when it can.
jp_mountns_unavailable() {
	if [ "$(id -u)" != 0 ]; then
		echo "not root: cannot mount in a private namespace (unshare -m)"
	elif ! command -v unshare >/dev/null 2>&1; then
		echo "unshare (util-linux) is not installed"
	elif ! unshare -m --propagation private true 2>/dev/null; then
		echo "unshare -m is not permitted here"
	else
		return 1
	fi
	return 0
}

# jp_reap PID PIDFILE: wait up to 5 s for PID to end, then SIGKILL it and
# remove PIDFILE: how every jp_*_stop ends once it has signalled its server.
jp_reap() {
	_w=0
	while kill -0 "$1" 2>/dev/null && [ $_w -lt 50 ]; do
		sleep 0.1
		_w=$((_w + 1))
	done
	kill -9 "$1" 2>/dev/null
	rm -f "$2"
	return 0
}
