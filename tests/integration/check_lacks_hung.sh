#!/bin/sh
# code.repo.lfs and code.repo.submodules in bounded time on a mount that
# stops answering them (issue 21). Two checkouts made by jobprep on sshfs
# (over a loopback sshd, in a mount namespace of the test's own): one of a
# repository with files stored with Git LFS (cloned without git-lfs: the
# pointers), one with a submodule not cloned. Their sftp server sits behind
# a proxy that, while a flag file exists, holds back every open of
# model.safetensors and every look at vendor/lib/.git, which only these
# checks make: `jobprep check` still ends by itself well within a minute,
# with each check the warning "did not answer in time" (check again) and
# exit 0; once the flag goes, the same checks fail, naming the pointer and
# the submodule. Needs root and python3.
set -u
. "$TOP_SRCDIR/tests/lib/ssh.sh" # and the reporters (jp_expect...), jp_poll
command -v python3 >/dev/null 2>&1 && [ -x /usr/lib/openssh/sftp-server ] ||
	jp_skip_all "needs python3 and /usr/lib/openssh/sftp-server"
command -v git-lfs >/dev/null 2>&1 || jp_skip_all "git-lfs is not installed (Debian: git-lfs)"
jp_sshfs_test_open T lacks-hung "${1:-}"

# --- inside a private mount namespace -------------------------------------------
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/lfs.sh"
jp_hung_mount_env
J=$JOBPREP
trap '[ -z "${H:-}" ] || rm -f "$H/hold"; jp_nospace_path_remove "$T/hold dir"; jp_sshfs_close "$T/mnt"' EXIT
jp_test_env "$T"
export GIT_CONFIG_NOSYSTEM=1

mkdir -p "$T/hold dir" "$T/export" "$T/mnt" "$T/out/ckpt" "$T/out/logs" || exit 99
H=$(jp_nospace_path "$T/hold dir") || exit 99
cp "$TOP_SRCDIR/tests/lib/sftp_proxy.py" "$H/" || exit 99
cat >"$H/sftp-hold" <<'PY'
#!/usr/bin/python3
# sftp-server behind a proxy: while HOLD exists, each OPEN of a path ending
# in /model.safetensors and each LSTAT or STAT of one ending in
# /vendor/lib/.git is held back ("held" to LOG), and sent on once HOLD is
# gone; every other request goes through.
import os, sys, threading, time
here = os.path.dirname(os.path.abspath(sys.argv[0]))
sys.path.insert(0, here)
import sftp_proxy
HOLD, LOG = os.path.join(here, "hold"), os.path.join(here, "log")
lock = threading.Lock()
held = []
def log(line):
    with open(LOG, "a") as f:
        f.write(line + "\n")
def wanted(body):
    p = sftp_proxy.path_of(body)
    return ((body[0] == 3 and p.endswith("/model.safetensors")) or
            (body[0] in (7, 17) and p.endswith("/vendor/lib/.git")))
def handle(packet, body, send):
    if body[0] in (3, 7, 17) and wanted(body):
        with lock:
            if os.path.exists(HOLD):
                log("held " + sftp_proxy.path_of(body))
                held.append(packet)
                return
    send(packet)
def release(send):
    while True:
        time.sleep(0.05)
        if not os.path.exists(HOLD):
            with lock:
                while held:
                    send(held.pop(0))
sftp_proxy.run(handle, on_start=lambda send: threading.Thread(
    target=release, args=(send,), daemon=True).start())
PY
chmod 755 "$H/sftp-hold"

# the repositories: LFS files (made by the real git-lfs), a submodule
jp_lfs_repo "$T/work" "$T/models.git" >/dev/null 2>&1 || exit 99
git init -q -b main "$T/lib" && echo lib >"$T/lib/lib.txt" && git -C "$T/lib" add -A &&
	git $JP_GIT_ID -C "$T/lib" commit -qm lib || exit 99
git init -q -b main "$T/super" && echo top >"$T/super/top.txt" && echo "print(1)" >"$T/super/train.py" &&
	git -C "$T/super" -c protocol.file.allow=always submodule add -q "$T/lib" vendor/lib &&
	git -C "$T/super" add -A && git $JP_GIT_ID -C "$T/super" commit -qm super || exit 99
jp_sshfs_mount "$T/sshd" "$T/export" "$T/mnt" -o sftp_server="$H/sftp-hold" || exit 99
NOLFS=$(jp_no_lfs_path "$T/nolfs") || exit 99
env PATH="$NOLFS" "$J" clone "$T/models.git" "$T/mnt/models" >"$T/clone1.out" 2>&1 &&
	"$J" clone "$T/super" "$T/mnt/super" >"$T/clone2.out" 2>&1 ||
	{ cat "$T/clone1.out" "$T/clone2.out"; exit 99; }
printf '{"sandbox": true, "shared_roots":["%s", "%s"]}\n' "$T/mnt" "$T/out" >"$T/profile.json"
# manifest FILE CODE_PATH
manifest() {
	cat >"$1" <<EOF
{
  "schema_version": 1,
  "generator": {"name": "jobprep", "version": "0.1.0"},
  "created_at": "2024-05-01T12:00:00Z",
  "job": {"name": "lacks", "workers": 1, "gpus_per_worker": 1,
          "launch_command": "cd \\"\$PROJECT_DIR\\" && python train.py", "env": {}},
  "code": {"source": "shared_storage", "path": "$2"},
  "data": [],
  "outputs": {"output_dir": "$T/out", "checkpoint_dir": "$T/out/ckpt", "log_dir": "$T/out/logs"},
  "checks": []
}
EOF
}
manifest "$T/models.json" "$T/mnt/models"
manifest "$T/super.json" "$T/mnt/super"

# check NAME: jobprep check of $T/NAME.json in the background, judged once it
# ended (within 60 s) or not; its output in $T/NAME-check.out
check_held() {
	: >"$H/hold"
	JOBPREP_PROBE_TIMEOUT_MS=3000 "$J" check --profile "$T/profile.json" "$T/$1.json" \
		</dev/null >"$T/$1-check.out" 2>&1 &
	pid=$!
	jp_poll 600 jp_main_gone $pid
	jp_expect "${1}_check_ends_by_itself" jp_main_gone $pid
	rc=none
	if jp_main_gone $pid; then
		wait $pid
		rc=$?
	fi
	jp_expect "${1}_look_was_held" grep -q "^held " "$H/log"
	jp_expect "${1}_check_exits_0_with_warnings" [ "$rc" = 0 ]
	rm -f "$H/hold" "$H/log"
	jp_poll 300 jp_main_gone $pid
}

check_held models
jp_expect lfs_look_did_not_answer \
	grep -q '^\[warn\] code.repo.lfs: .*did not answer in time' "$T/models-check.out"
check_held super
jp_expect submodule_look_did_not_answer \
	grep -q '^\[warn\] code.repo.submodules: .*did not answer in time' "$T/super-check.out"
jp_show_if_failed "$T/models-check.out" "$T/super-check.out"

# --- answered: the same checks fail, naming what is missing
"$J" check --profile "$T/profile.json" "$T/models.json" >"$T/models-again.out" 2>&1
jp_expect answered_lfs_fails_naming_the_pointer \
	grep -q '^\[FAIL\] code.repo.lfs: .*model.safetensors (293.0 KiB)' "$T/models-again.out"
"$J" check --profile "$T/profile.json" "$T/super.json" >"$T/super-again.out" 2>&1
jp_expect answered_submodules_fail_naming_it \
	grep -q '^\[FAIL\] code.repo.submodules: .*(vendor/lib)' "$T/super-again.out"
jp_show_if_failed "$T/models-again.out" "$T/super-again.out"
jp_done
