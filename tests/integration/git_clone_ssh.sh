#!/bin/sh
# jobprep clone over ssh (an sshd of the test's own on loopback): default
# keys, an encrypted key with its passphrase typed, ssh-agent; host keys
# checked against known_hosts (plain and hashed), unknown and changed keys
# refused; and a clone onto an sshfs mount (a network filesystem) built on
# local disk and copied in parallel.
set -u
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/ssh.sh"
jp_ssh_available || jp_skip_all "needs root, openssh-server, sshfs and /dev/fuse"
T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-git-ssh.XXXXXX") || exit 99
AGENT_PID=
trap '[ -n "$AGENT_PID" ] && kill $AGENT_PID 2>/dev/null; jp_gitd_stop "$T"; jp_sshd_stop "$T/sshd"; jp_nospace_path_remove "$T/srv"; rm -rf "$T"' EXIT
jp_test_env "$T"
J=$JOBPREP

jp_git_repo "$T/srv/r.git" 300 || exit 99
jp_sshd_start "$T/sshd" || exit 99
P=$JP_SSHD_PORT
# (a URL holds no space: the repository by a path without any)
SRV=$(jp_nospace_path "$T/srv") || exit 99
U="ssh://root@127.0.0.1:$P$SRV/r.git"
commit=$(git --git-dir="$T/srv/r.git" rev-parse main)
mkdir -p "$HOME/.ssh" "$T/out"
chmod 700 "$HOME/.ssh"
cp "$T/sshd/user_key" "$HOME/.ssh/id_ed25519"
cp "$T/sshd/user_key.pub" "$HOME/.ssh/id_ed25519.pub"
known() { printf '[127.0.0.1]:%s %s\n' "$P" "$(cut -d' ' -f1,2 "$1")" >"$HOME/.ssh/known_hosts"; }
known "$T/sshd/host_key.pub"

"$J" clone --json "$U" "$T/out/key" </dev/null >"$T/out.json" 2>"$T/err"
jp_expect ssh_clone_with_default_key_succeeds [ "$(jp_json_get "$T/out.json" commit)" = "$commit" ]
jp_expect ssh_clone_keeps_the_user_in_the_url \
	[ "$(git -C "$T/out/key" config remote.origin.url)" = "$U" ]

# A submodule over ssh too: its URL relative to the superproject's, as
# GitHub projects have them (cloned in the ssh helper, like the rest).
w=$T/super-work
git init -q -b main "$w" && git -C "$w" -c protocol.file.allow=always submodule add -q \
	"$T/srv/r.git" vendor/r && git -C "$w" config -f .gitmodules submodule.vendor/r.url ../r.git &&
	git -C "$w" add -A && git $JP_GIT_ID -C "$w" commit -qm super &&
	git clone -q --bare "$w" "$T/srv/super.git" || exit 99
"$J" clone --submodules "ssh://root@127.0.0.1:$P$SRV/super.git" "$T/out/super" </dev/null \
	>/dev/null 2>"$T/err"
jp_expect ssh_submodule_clone_succeeds [ $? = 0 ]
jp_expect ssh_submodule_is_checked_out [ -f "$T/out/super/vendor/r/README" ]
jp_expect ssh_submodule_at_the_recorded_commit \
	[ "$(git -C "$T/out/super/vendor/r" rev-parse HEAD)" = "$commit" ]

# Host keys.
ssh-keygen -H -f "$HOME/.ssh/known_hosts" >/dev/null 2>&1
"$J" clone "$U" "$T/out/hashed" </dev/null >/dev/null 2>"$T/err"
jp_expect hashed_known_hosts_entry_is_accepted [ -f "$T/out/hashed/README" ]
rm -f "$HOME/.ssh/known_hosts"*
"$J" clone "$U" "$T/out/unknown" </dev/null >/dev/null 2>"$T/err"
jp_expect unknown_host_key_is_refused [ $? = 1 ]
jp_expect unknown_host_key_message_gives_the_fingerprint \
	grep -q "$(ssh-keygen -l -E sha256 -f "$T/sshd/host_key.pub" | cut -d' ' -f2)" "$T/err"
jp_expect unknown_host_key_leaves_nothing [ ! -e "$T/out/unknown" ]
ssh-keygen -q -t ed25519 -N '' -f "$T/other_host_key"
known "$T/other_host_key.pub"
"$J" clone "$U" "$T/out/changed" </dev/null >/dev/null 2>"$T/err"
jp_expect changed_host_key_is_refused grep -q "CHANGED" "$T/err"
jp_expect changed_host_key_leaves_nothing [ ! -e "$T/out/changed" ]
known "$T/sshd/host_key.pub"

# An encrypted key: its passphrase is asked for (a line on stdin here).
ssh-keygen -q -p -P '' -N 'pass phrase' -f "$HOME/.ssh/id_ed25519" >/dev/null
printf 'pass phrase\n' | "$J" clone "$U" "$T/out/encrypted" >/dev/null 2>"$T/err"
jp_expect encrypted_key_with_passphrase_succeeds [ -f "$T/out/encrypted/README" ]
"$J" clone "$U" "$T/out/nopass" </dev/null >/dev/null 2>"$T/err"
jp_expect encrypted_key_without_passphrase_fails [ $? = 1 ]

# ssh-agent, and no key file at all.
rm -f "$HOME/.ssh/id_ed25519" "$HOME/.ssh/id_ed25519.pub"
# (its output is not eval'd: it would split a $TMPDIR with a space)
agent=$(ssh-agent -s -a "$T/agent.sock")
AGENT_PID=$(printf '%s\n' "$agent" | sed -n 's/^SSH_AGENT_PID=\([0-9]*\);.*/\1/p')
SSH_AUTH_SOCK=$T/agent.sock
export SSH_AUTH_SOCK
ssh-add -q "$T/sshd/user_key" 2>/dev/null
"$J" clone "$U" "$T/out/agent" </dev/null >/dev/null 2>"$T/err"
jp_expect ssh_agent_key_is_used [ -f "$T/out/agent/README" ]
kill "$AGENT_PID"
AGENT_PID=
unset SSH_AUTH_SOCK SSH_AGENT_PID
"$J" clone "$U" "$T/out/nokey" </dev/null >/dev/null 2>"$T/err"
jp_expect no_key_fails_with_a_clear_message grep -q "no ssh key was accepted" "$T/err"

# Onto an sshfs mount (fuse.sshfs: network storage), in a mount namespace of
# our own: built on local scratch disk, copied in parallel, renamed.
jp_gitd_start "$T" "$T/srv" || exit 99
mkdir -p "$T/export" "$T/mnt" "$T/scratch"
unshare -m --propagation private sh -c '
	. "$TOP_SRCDIR/tests/lib/ssh.sh"
	JP_SSHD_PORT=$1
	jp_sshfs_mount "$2/sshd" "$2/export" "$2/mnt" || exit 99
	JOBPREP_SCRATCH=$2/scratch "$3" clone --json "$4" "$2/mnt/proj" >"$2/sshfs.json" 2>"$2/sshfs.err"
	echo $? >"$2/sshfs.rc"
	git -C "$2/mnt/proj" diff-files --name-only >"$2/sshfs.stale" 2>&1
	git -C "$2/mnt/proj" status --porcelain >"$2/sshfs.status" 2>&1
	ls -A "$2/mnt" >"$2/sshfs.left"
	# Ctrl-C while copying onto the mount.
	JOBPREP_SCRATCH=$2/scratch "$3" clone --progress "$4" "$2/mnt/int" 2>"$2/int.err" &
	pid=$!
	n=0
	while ! grep -q "copying" "$2/int.err" 2>/dev/null && [ $n -lt 600 ]; do
		sleep 0.01
		n=$((n + 1))
	done
	# the signal reaches jobprep itself, in the middle of its copy
	grep -q "copying" "$2/int.err" && [ "/proc/$pid/exe" -ef "$3" ] && : >"$2/int.mid-copy"
	kill -INT $pid
	wait $pid
	echo $? >"$2/int.rc"
	ls -A "$2/mnt" >"$2/int.left"
	ls -A "$2/scratch" >"$2/int.scratch"
	# No room on the scratch disk: the clone is built in place.
	mkdir -p "$2/tiny"
	mount -t tmpfs -o size=1m jobprep-tiny "$2/tiny"
	JOBPREP_SCRATCH=$2/tiny "$3" clone --json "$4" "$2/mnt/inplace" >"$2/inplace.json" 2>&1
	umount "$2/tiny"
	jp_sshfs_umount "$2/mnt"
	kill $JP_SSHFS_PID 2>/dev/null
	wait' sh "$P" "$T" "$J" "git://127.0.0.1:$JP_GITD_PORT/r.git"
jp_expect sshfs_clone_succeeds [ "$(cat "$T/sshfs.rc" 2>/dev/null)" = 0 ]
jp_expect sshfs_clone_is_staged_on_local_disk [ "$(jp_json_get "$T/sshfs.json" staged)" = true ]
jp_expect sshfs_clone_has_the_right_commit [ "$(jp_json_get "$T/sshfs.json" commit)" = "$commit" ]
jp_expect sshfs_clone_lands_complete [ -f "$T/export/proj/src/f299.txt" ]
jp_expect sshfs_clone_keeps_the_exec_bit [ -x "$T/export/proj/scripts/train.sh" ]
jp_expect sshfs_clone_keeps_symlinks [ "$(readlink "$T/export/proj/link.py")" = src/train.py ]
jp_expect sshfs_clone_work_tree_matches_its_index [ "$(cat "$T/sshfs.status")" = " M scripts/train.sh" ]
# The index carries the copies' stat data: git need not re-read any file.
jp_expect sshfs_clone_index_stat_data_is_fresh [ "$(cat "$T/sshfs.stale")" = scripts/train.sh ]
jp_expect sshfs_clone_repository_is_sound git -C "$T/export/proj" fsck --no-progress --strict
jp_expect sshfs_clone_leaves_no_temporary [ "$(cat "$T/sshfs.left")" = proj ]
jp_expect sshfs_clone_leaves_no_scratch [ -z "$(ls -A "$T/scratch")" ]
jp_expect sigint_while_copying_to_sshfs_reaches_jobprep_mid_copy [ -e "$T/int.mid-copy" ]
jp_expect sigint_while_copying_to_sshfs_exits_130 [ "$(cat "$T/int.rc")" = 130 ]
canceled() { grep -q 'canceled$' "$1" || { echo "# its stderr ends: $(tr '\r' '\n' <"$1" | tail -n 1)"; false; }; }
jp_expect sigint_while_copying_to_sshfs_is_canceled_by_jobprep canceled "$T/int.err"
jp_expect sigint_while_copying_to_sshfs_leaves_nothing [ "$(cat "$T/int.left")" = proj ]
jp_expect sigint_while_copying_to_sshfs_leaves_no_scratch sh -c '[ -f "$1" ] && [ ! -s "$1" ]' sh "$T/int.scratch"
jp_expect no_room_on_scratch_clones_in_place [ "$(jp_json_get "$T/inplace.json" staged)" = false ]
jp_expect no_room_on_scratch_clone_is_complete [ -f "$T/export/inplace/src/f299.txt" ]

jp_done
