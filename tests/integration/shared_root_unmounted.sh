#!/bin/sh
# The built-in profile on a machine where /mnt/public is not mounted (a dev
# box, a container): /mnt/public is only a folder on the root disk, so what
# is cloned or written there never reaches the job's Workers. In a private
# mount namespace (tests/lib/platform.sh) whose /mnt/public bind mount is
# taken away again: `init` refuses by field before cloning anything, and
# `check` fails code.path.storage, naming the root and the way out; under a
# profile marked "sandbox": true the same layout is a warning only, as in
# the demo (whose profile is marked, also one an older jobprep made).
set -u

if [ "${1:-}" != inside ]; then
	. "$TOP_SRCDIR/tests/lib/report.sh"
	. "$TOP_SRCDIR/tests/lib/platform.sh"
	. "$TOP_SRCDIR/tests/lib/gitserv.sh"
	jp_platform_available || jp_skip_all "needs root, unshare, chroot and overlayfs"
	S=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-shared-unmounted.XXXXXX") || exit 1
	chmod 755 "$S"
	trap 'rm -rf "$S"' EXIT
	mkdir -p "$S/shared/datasets/sft" "$S/public"
	printf 'a\n' >"$S/shared/datasets/sft/part-0.jsonl"
	jp_git_repo "$S/repo.git" >/dev/null 2>&1 || { echo "FAIL: no repository"; exit 1; }
	export S
	self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
	jp_platform_run "$S" "$self" inside
	exit $?
fi

# --- inside the namespace, chrooted into the platform's root ----------------
. "$TOP_SRCDIR/tests/lib/report.sh"
unset JOBPREP_PROFILE
W=/root/work
mkdir -p $W

# a manifest made while /mnt/public is the platform's storage
cat >$W/sft.json <<EOF
{"job": {"name": "sft"},
 "code": {"source": "shared_storage", "repo": {"url": "file://$S/repo.git"}},
 "data": [{"path": "/mnt/public/datasets/sft"}]}
EOF
"$JOBPREP" init --answers $W/sft.json >$W/mounted.out 2>&1
jp_expect init_passes_while_mounted [ $? -eq 0 ]
cp /mnt/public/outputs/sft/run-001/job.json $W/job.json

# the storage taken away: /mnt/public is a folder on the container's root
# again, holding the same files (copied), as on a box that never mounted it
umount /mnt/public
mkdir -p /mnt/public
cp -a "$S/shared/." /mnt/public/
jp_expect mnt_public_is_no_mount_now sh -c '! grep -q " /mnt/public " /proc/self/mountinfo'

"$JOBPREP" check --json $W/job.json >$W/check.json 2>$W/check.err
rc=$?
jp_expect check_fails [ $rc -eq 1 ]
status_of() { # FILE ID
	python3 -c 'import json,sys
for c in json.load(open(sys.argv[1])):
    if c["id"] == sys.argv[2]: print(c["status"]); break' "$1" "$2"
}
message_of() {
	python3 -c 'import json,sys
for c in json.load(open(sys.argv[1])):
    if c["id"] == sys.argv[2]: print(c["message"]); break' "$1" "$2"
}
jp_expect code_storage_fails [ "$(status_of $W/check.json code.path.storage)" = fail ]
jp_expect data_storage_fails [ "$(status_of $W/check.json 'data[0].path.storage')" = fail ]
jp_expect outputs_storage_fails [ "$(status_of $W/check.json outputs.output_dir.storage)" = fail ]
msg=$(message_of $W/check.json code.path.storage)
jp_expect message_names_the_root_and_the_fix sh -c \
	'case "$1" in *"/mnt/public is declared shared storage, but here it is not a mount point"*"mount the platform"*"\"sandbox\": true"*) exit 0;; esac; exit 1' sh "$msg"

# the same layout under a profile marked a sandbox: warnings, as in the demo
printf '{"sandbox": true}\n' >$W/sandbox.json
"$JOBPREP" check --json --profile $W/sandbox.json $W/job.json >$W/sandbox-check.json 2>$W/sandbox-check.err
jp_expect sandbox_check_passes [ $? -eq 0 ]
jp_expect sandbox_storage_warns [ "$(status_of $W/sandbox-check.json code.path.storage)" = warn ]

# init: refused by field before anything is cloned or made
rm -rf /mnt/public/projects /mnt/public/outputs
cat >$W/new.json <<EOF
{"job": {"name": "newjob"},
 "code": {"source": "shared_storage", "repo": {"url": "file://$S/repo.git"}},
 "data": [{"path": "/mnt/public/datasets/sft"}]}
EOF
"$JOBPREP" init --answers $W/new.json >$W/new.out 2>$W/new.err
jp_expect init_refuses [ $? -eq 1 ]
jp_expect init_names_code_path grep -q "code.path: /mnt/public is declared shared storage, but here it is not a mount point" $W/new.err
jp_expect nothing_cloned [ ! -e /mnt/public/projects/newjob ]
jp_expect no_run_folder [ ! -e /mnt/public/outputs/newjob ]

# and init under the sandbox profile goes on
"$JOBPREP" init --profile $W/sandbox.json --answers $W/new.json >$W/sandbox.out 2>&1
jp_expect sandbox_init_passes [ $? -eq 0 ]

# a demo sandbox an older jobprep made (its profile not marked) is marked
mkdir -p $W/demo
(cd $W/demo && "$JOBPREP" init --demo >/dev/null 2>&1)
python3 - $W/demo/jobprep-demo/profile.json <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))
p.pop("sandbox", None)
json.dump(p, open(sys.argv[1], "w"))
EOF
(cd $W/demo && "$JOBPREP" init --demo >$W/demo.out 2>&1)
jp_expect old_demo_still_passes [ $? -eq 0 ]
jp_expect old_demo_profile_marked grep -q '"sandbox":[[:space:]]*true' $W/demo/jobprep-demo/profile.json
jp_done
