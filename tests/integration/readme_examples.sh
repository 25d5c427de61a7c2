#!/bin/sh
# The examples of README.md and docs/reference.md run as printed.
# 1. README's worked example ("## A first and a second prep"): each "$ "
#    command, run in a folder of its own with ./jobprep the program under
#    test, exits 0, and each line printed after it matches a line it printed
#    ("…" stands for anything, numbers may differ); the first prep makes
#    run-001, the second run-002, and `runs` lists both.
# 2. The reference's answers file under `init` (the one a reader copies
#    first; it was README's) writes a manifest. Its repository (nanoGPT's
#    shape: a train.py, no scripts/train.sh) is a local one on the same
#    branch, and its platform paths (/mnt/public, /infini-data) lie under
#    this case's folder, public storage in its profile; nothing else of the
#    example changes.
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
jp_scratch readme-examples

# --- 1. README's first and second prep ---------------------------------
# the section's indented lines: "$ CMD" a command, the others its output
sed -n '/^## A first and a second prep$/,/^## /p' "$TOP_SRCDIR/README.md" |
	sed -n 's/^    //p' >"$T/example.txt"
jp_expect readme_has_the_worked_example grep -q '^\$ \./jobprep init --demo$' "$T/example.txt"
jp_expect readme_example_has_a_second_prep grep -q '^\$ \./jobprep init --answers .*/run-001/job\.json$' "$T/example.txt"
mkdir -p "$T/w" "$T/state" || exit 99
XDG_STATE_HOME=$T/state
export XDG_STATE_HOME
unset JOBPREP_PROFILE # `runs demo` finds the demo's profile through the index of jobs
# an output line as an extended regular expression matching a whole line
to_ere() {
	printf '%s\n' "$1" | sed -e 's/[][\\.*^$+?(){}|]/\\&/g' -e 's/…/.*/g' -e 's/[0-9][0-9]*/[0-9]+/g'
}
n=0 bad=
while IFS= read -r line; do
	case $line in
	'$ '*)
		n=$((n + 1))
		cmd=${line#'$ '}
		(cd "$T/w" && J=$J sh -c "\"\$J\"${cmd#./jobprep}" </dev/null >"$T/out.$n" 2>&1)
		rc=$?
		[ "$rc" = 0 ] || bad="$bad [$cmd: exit $rc]"
		;;
	*)
		[ "$n" -gt 0 ] || continue
		grep -Eqx -- "$(to_ere "$line")" "$T/out.$n" || bad="$bad [$cmd: no line like: $line]"
		;;
	esac
done <"$T/example.txt"
jp_expect readme_example_runs_as_printed [ "$n" -ge 3 -a -z "$bad" ]
[ -z "$bad" ] || echo "# $bad"
runs=$T/w/jobprep-demo/shared/outputs/demo
jp_expect readme_example_first_prep_made_run_001 [ -f "$runs/run-001/job.json" ]
jp_expect readme_example_second_prep_made_run_002 [ -f "$runs/run-002/job.json" ]
jp_expect readme_example_runs_lists_both sh -c 'grep -qx "$1/run-001" "$2" && grep -qx "$1/run-002" "$2"' \
	sh "$runs" "$T/out.$n"

# --- 2. the reference's answers file ------------------------------------
R=$TOP_SRCDIR/docs/reference.md
# the example: the indented JSON block after "writes one to"
sed -n '/writes one to `.\/jobprep-demo\/answers.json`/,/^  (`jobprep init --answers/p' "$R" |
	sed -n '/^      [{}]/,/^      }$/p' >"$T/example.json"
jp_expect reference_has_the_init_example grep -q '"job"' "$T/example.json"

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
{ "sandbox": true, "shared_roots": ["$T/shared"], "public_roots": ["$T/mnt/public", "$T/infini-data"],
  "ephemeral_roots": ["/var/tmp", "/dev/shm"] }
EOP
sed -e "s#$url#file://$T/repo#" -e "s#\"/mnt/public#\"$T/mnt/public#" \
	-e "s#\"/infini-data#\"$T/infini-data#" "$T/example.json" >"$T/answers.json"
"$J" init --answers "$T/answers.json" --profile "$T/profile.json" -q </dev/null >"$T/out" 2>"$T/err"
rc=$?
jp_expect reference_init_example_writes_a_manifest [ "$rc" = 0 ]
[ "$rc" = 0 ] || sed 's/^/# /' "$T/err"
jp_expect reference_init_example_made_the_run [ -f "$T/shared/outputs/demo/run-001/job.json" ]
jp_done
