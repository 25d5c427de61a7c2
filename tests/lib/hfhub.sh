# A Hugging Face Hub on loopback (tests/lib/hf_hub.py) for the tests of
# `jobprep stage hf://`. Source it after tests/lib/gitserv.sh:
#
#   jp_hfhub_start DIR
#       serves the repositories under DIR/models/ORG/NAME and
#       DIR/datasets/ORG/NAME on 127.0.0.1:$HUB_PORT (HUB_URL), its CDN on
#       127.0.0.2:$HUB_CDN_PORT; each request a line in DIR/requests.log;
#       DIR/config.json changes what it does (see hf_hub.py). Returns once
#       both listen (10 s at most), else 1.
#   jp_hfhub_stop DIR
#       stops it and waits for it
jp_hfhub_start() {
	HUB_PORT=$(jp_free_port) || return 1
	HUB_CDN_PORT=$(jp_free_port) || return 1
	HUB_URL=http://127.0.0.1:$HUB_PORT
	rm -f "$1/hub.pid"
	python3 "$TOP_SRCDIR/tests/lib/hf_hub.py" "$1" "$HUB_PORT" "$HUB_CDN_PORT" \
		>"$1/hub.out" 2>&1 &
	_hpid=$!
	# up to a minute: python's start on a loaded machine; not a moment
	# longer once it has died (a port another test took first)
	_hw=0
	while [ $_hw -lt 600 ]; do
		[ -s "$1/hub.pid" ] && jp_listening "$HUB_PORT" && return 0
		kill -0 "$_hpid" 2>/dev/null || break
		sleep 0.1
		_hw=$((_hw + 1))
	done
	echo "# the Hub on loopback did not start: $(tail -n 3 "$1/hub.out" 2>/dev/null)"
	return 1
}

jp_hfhub_stop() {
	[ -s "$1/hub.pid" ] || return 0
	_hp=$(cat "$1/hub.pid")
	kill "$_hp" 2>/dev/null
	jp_reap "$_hp" "$1/hub.pid"
}
