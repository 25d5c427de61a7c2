#!/bin/sh
# Raw control characters from names never reach the terminal: they are
# escaped the way git's quote_path does (\n, \t, \033...), so a newline in a
# name cannot forge a "[pass]" line and an ESC cannot retitle or clear the
# terminal. Names from: a manifest's keys (in the error's field path), its
# path values (in `check` lines), file names (in `scan`, and in `check`'s
# data findings), and a git server's ERR line (a server of the test's own
# that answers every request with one).
set -u
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-ctl.XXXXXX") || exit 99
ERR_PID=
trap '[ -n "$ERR_PID" ] && kill "$ERR_PID" 2>/dev/null; rm -rf "$T"' EXIT
jp_test_env "$T"
ESC=$(printf '\033')

# clean FILE: no ESC, BEL or other C0 byte but newline, and no line that
# starts with the forged text.
clean() {
	[ -f "$1" ] && ! grep -q '^\[pass\] forged' "$1" && ! LC_ALL=C grep -q "$(printf '[\001-\011\013-\037\177]')" "$1"
}

python3 - "$TOP_SRCDIR/tests/data/manifests/valid/minimal.json" "$T" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); t = sys.argv[2]
forged = "\n[pass] forged: all good\x1b]0;pwned\x07\x1b[2J"
d["job"]["env"] = {"A" + forged: "1"}
json.dump(d, open(t + "/bad-key.json", "w"))
d["job"]["env"] = {}
d["outputs"]["output_dir"] = "/mnt/public/o" + forged
json.dump(d, open(t + "/bad-path.json", "w"))
PY

# --- a key, in the field path of the error
"$JOBPREP" check "$T/bad-key.json" >"$T/out" 2>"$T/err"
jp_expect bad_key_is_refused [ $? = 3 ]
jp_expect bad_key_error_is_escaped clean "$T/err"
jp_expect bad_key_error_shows_the_escapes grep -qF 'job.env."A\n[pass] forged: all good\033]0;pwned\007\033[2J"' "$T/err"

# --- a path value, in check's lines
"$JOBPREP" check "$T/bad-path.json" >"$T/out" 2>"$T/err"
jp_expect bad_path_check_lines_are_escaped clean "$T/out"
jp_expect bad_path_check_shows_the_escapes grep -qF '/mnt/public/o\n[pass] forged: all good\033]0;pwned\007' "$T/out"

# --- file names, in scan's text
mkdir -p "$T/data"
printf 'x' >"$T/data/$(printf 'a\n[pass] forged\033[2J.tar.gz')"
ln -s /nonexistent "$T/data/$(printf 'link\n[pass] forged')"
"$JOBPREP" scan "$T/data" >"$T/out" 2>"$T/err"
jp_expect scan_lines_are_escaped clean "$T/out"
jp_expect scan_shows_the_archive_escaped grep -qF '/a\n[pass] forged\033[2J.tar.gz"' "$T/out"

# --- a git server's ERR line
python3 - "$T/err-server.port" <<'PY' >"$T/err-server.log" 2>&1 &
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0)); s.listen(8)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
msg = b"ERR \x1b]0;pwned\x07\x1b[2Jno such repository\n[pass] forged"
while True:
    c, _ = s.accept()
    try:
        c.settimeout(5); c.recv(4096)
        c.sendall(b"%04x" % (len(msg) + 4) + msg)
    except OSError:
        pass
    c.close()
PY
ERR_PID=$!
jp_wait_text "$T/err-server.port" '[0-9]' 10 || { jp_fail err_server_started; exit 1; }
P=$(cat "$T/err-server.port")
timeout -s KILL 60 "$JOBPREP" clone --no-progress "git://127.0.0.1:$P/x.git" "$T/clone" </dev/null >"$T/out" 2>"$T/err"
rc=$?
echo "# clone: exit $rc: $(cat -A "$T/err" | head -c 300)"
jp_expect err_line_clone_fails [ "$rc" = 1 ]
jp_expect err_line_is_escaped clean "$T/err"
jp_expect err_line_shows_the_escapes grep -qF '\033]0;pwned\007\033[2Jno such repository' "$T/err"
timeout -s KILL 60 "$JOBPREP" repo --remote "git://127.0.0.1:$P/x.git" </dev/null >"$T/out" 2>"$T/err"
jp_expect err_line_repo_remote_is_escaped clean "$T/err"
kill "$ERR_PID" 2>/dev/null
ERR_PID=
jp_done
