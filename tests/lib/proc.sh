# Shell helper shared by the server libraries (tests/lib/gitserv.sh,
# tests/lib/ssh.sh), which source it.

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
