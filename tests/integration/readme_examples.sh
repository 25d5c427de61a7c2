#!/bin/sh
# README's examples run as printed: the answers file under `init` (the one a
# reader copies first) writes a manifest. Its repository (nanoGPT's shape: a
# train.py, no scripts/train.sh) is a local one on the same branch, and its
# platform paths (/mnt/public, /infini-data) lie under this case's folder,
# public storage in its profile; nothing else of the example changes.
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
jp_scratch readme-examples
R=$TOP_SRCDIR/README.md

# the example: the indented JSON block after "writes one to"
sed -n '/writes one to `.\/jobprep-demo\/answers.json`/,/^  (`jobprep init --answers/p' "$R" |
	sed -n '/^      [{}]/,/^      }$/p' >"$T/example.json"
jp_expect readme_has_the_init_example grep -q '"job"' "$T/example.json"

url=$(sed -n 's/.*"url": *"\([^"]*\)".*/\1/p' "$T/example.json")
ref=$(sed -n 's/.*"ref": *"\([^"]*\)".*/\1/p' "$T/example.json")
git init -q -b "${ref:-main}" "$T/repo" &&
	printf 'print("training")\n' >"$T/repo/train.py" &&
	mkdir -p "$T/repo/config" && : >"$T/repo/config/train_shakespeare_char.py" &&
	git -C "$T/repo" add -A && git $JP_GIT_ID -C "$T/repo" commit -qm nanoGPT || exit 99
mkdir -p "$T/shared" "$T/mnt/public/datasets/shakespeare" "$T/infini-data/models/gpt2"
echo x >"$T/mnt/public/datasets/shakespeare/input.txt"
echo x >"$T/infini-data/models/gpt2/model.bin"
cat >"$T/profile.json" <<EOP
{ "shared_roots": ["$T/shared"], "public_roots": ["$T/mnt/public", "$T/infini-data"],
  "ephemeral_roots": ["/var/tmp", "/dev/shm"] }
EOP
sed -e "s#$url#file://$T/repo#" -e "s#\"/mnt/public#\"$T/mnt/public#" \
	-e "s#\"/infini-data#\"$T/infini-data#" "$T/example.json" >"$T/answers.json"
"$J" init --answers "$T/answers.json" --profile "$T/profile.json" -q </dev/null >"$T/out" 2>"$T/err"
rc=$?
jp_expect readme_init_example_writes_a_manifest [ "$rc" = 0 ]
[ "$rc" = 0 ] || sed 's/^/# /' "$T/err"
jp_expect readme_init_example_made_the_run [ -f "$T/shared/outputs/demo/run-001/job.json" ]
jp_done
