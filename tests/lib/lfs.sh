# Shell helpers for tests of repositories that store files with Git LFS,
# made by the real git-lfs client. Source it after tests/lib/gitserv.sh:
#
#   jp_lfs_repo WORK BARE [LFS_URL]  a work tree WORK with git-lfs set up in
#                                    it (its own config: the tests run with
#                                    GIT_CONFIG_NOSYSTEM), one commit on main
#                                    and a bare clone BARE (WORK's origin):
#                                      .gitattributes   *.safetensors, *.bin: lfs
#                                      model.safetensors  300,000 random bytes
#                                      weights/big.bin     5,000 random bytes
#                                      tiny.bin            "tiny\n" (smaller
#                                                          than its pointer)
#                                      legacy.pt           a pointer committed
#                                                          as a plain file (no
#                                                          attribute names it)
#                                      notes.md            starts with the spec
#                                                          line, but no pointer
#                                      train.py, scripts/train.sh
#                                    With LFS_URL, .lfsconfig names it (lfs.url)
#                                    and the push to BARE uploads the objects
#                                    there, by git-lfs's pre-push hook.
#   jp_no_lfs_path DIR               DIR/bin holding only git: a PATH on which
#                                    jobprep finds no git-lfs (echoes it)
#   jp_lfs_server_start DIR          the LFS server of tests/lib/lfs_server.py
#                                    (batch API, objects in DIR/objects, log in
#                                    DIR/access.log, DIR/rate, DIR/hang); sets
#                                    JP_LFS_PORT
#   jp_lfs_server_stop DIR

jp_lfs_repo() {
	_lw=$1 _lb=$2 _lu=${3:-}
	rm -rf "$_lw" "$_lb"
	git init -q -b main "$_lw" && git init -q --bare -b main "$_lb" || return 1
	git -C "$_lw" lfs install --local >/dev/null || return 1
	git -C "$_lw" remote add origin "$_lb" || return 1
	git -C "$_lw" lfs track '*.safetensors' '*.bin' >/dev/null || return 1
	mkdir -p "$_lw/weights" "$_lw/scripts"
	head -c 300000 /dev/urandom >"$_lw/model.safetensors"
	head -c 5000 /dev/urandom >"$_lw/weights/big.bin"
	printf 'tiny\n' >"$_lw/tiny.bin"
	# A pointer by content only: the object stored by git-lfs itself.
	head -c 2048 /dev/urandom >"$_lw/legacy.content"
	git -C "$_lw" lfs clean -- legacy.pt <"$_lw/legacy.content" >"$_lw/legacy.pt" || return 1
	rm -f "$_lw/legacy.content"
	printf 'version https://git-lfs.github.com/spec/v1\n%s\nsize 12\n' \
		'is the format of a pointer: an oid line, a size line; this file is none of them' \
		>"$_lw/notes.md"
	printf 'print("training")\n' >"$_lw/train.py"
	printf '#!/bin/sh\necho training\n' >"$_lw/scripts/train.sh"
	[ -z "$_lu" ] || git config -f "$_lw/.lfsconfig" lfs.url "$_lu" || return 1
	# shellcheck disable=SC2086
	git -C "$_lw" add -A && git $JP_GIT_ID -C "$_lw" commit -qm "models" || return 1
	git -C "$_lw" push -q origin main 2>"$_lw.push.err" || { cat "$_lw.push.err" >&2; return 1; }
}

jp_no_lfs_path() {
	mkdir -p "$1/bin" && ln -sf "$(command -v git)" "$1/bin/git" && echo "$1/bin"
}

jp_lfs_server_start() {
	mkdir -p "$1" && rm -f "$1/port"
	python3 "$TOP_SRCDIR/tests/lib/lfs_server.py" "$1" >>"$1/server.log" 2>&1 &
	echo $! >"$1/pid"
	_ls_i=0
	while [ ! -s "$1/port" ] && [ $_ls_i -lt 100 ]; do
		kill -0 "$(cat "$1/pid")" 2>/dev/null || break
		sleep 0.1
		_ls_i=$((_ls_i + 1))
	done
	[ -s "$1/port" ] || { echo "jp_lfs_server_start: no port (see $1/server.log)" >&2; return 1; }
	JP_LFS_PORT=$(cat "$1/port")
	export JP_LFS_PORT
}

jp_lfs_server_stop() {
	[ -s "$1/pid" ] || return 0
	kill "$(cat "$1/pid")" 2>/dev/null
	wait "$(cat "$1/pid")" 2>/dev/null
	rm -f "$1/pid"
}
