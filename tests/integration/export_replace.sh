#!/bin/sh
# `jobprep export -o FILE` never silently overwrites a file a person wrote or
# edited. Every export carries a digest line; an existing FILE is replaced
# only while that line still matches the rest (an earlier export nobody
# touched), otherwise refused (exit 1, a message naming the file and
# --force, the file untouched); --force replaces it. The manifest comes
# from a real `jobprep init`.
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/report.sh"
for tool in git sed cmp; do
	command -v "$tool" >/dev/null 2>&1 || jp_skip_all "$tool is not installed"
done
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
. "$TOP_SRCDIR/tests/lib/initscratch.sh"

T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-export-replace.XXXXXX") || exit 99
T=$(cd -P "$T" && pwd)
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT
jp_init_scratch "$T" || { echo "not ok - scratch platform: cannot lay it out"; exit 99; }
jp_answers shared-existing "$T" "$T/answers.json"
"$JOBPREP" init --answers "$T/answers.json" --profile "$T/profile.json" >"$T/init.out" 2>&1 ||
	{ echo "not ok - init: $(tail -3 "$T/init.out")"; exit 1; }
M=$T/shared/outputs/existing-job/run-001/job.json

# export TARGET FILE [ARG...]: exit code in $T/rc, stderr in $T/err
export_to() {
	_to=$1 _file=$2
	shift 2
	"$JOBPREP" export --to "$_to" -o "$_file" "$@" "$M" >"$T/out" 2>"$T/err"
	echo $? >"$T/rc"
}
rc() { cat "$T/rc"; }

for to in slurm pytorchjob; do
	f=$T/job.$to
	export_to $to "$f"
	jp_expect ${to}_first_export_succeeds [ "$(rc)" = 0 -a -s "$f" ]
	jp_expect ${to}_export_carries_a_digest_line \
		grep -q '^# jobprep-export-digest: xxh3-64=[0-9a-f]\{16\} ' "$f"
	"$JOBPREP" export --to $to "$M" >"$T/stdout.$to" 2>/dev/null
	jp_expect ${to}_stdout_and_o_are_the_same_text cmp -s "$f" "$T/stdout.$to"
	cp "$f" "$T/first.$to"

	# again, unedited: replaced without a word
	export_to $to "$f"
	# (stderr may hold pytorchjob's image placeholder warning, never a refusal)
	jp_expect ${to}_unedited_export_is_replaced [ "$(rc)" = 0 ]
	! grep -q -- "--force" "$T/err" || jp_fail ${to}_unedited_export_no_refusal "$(cat "$T/err")"
	jp_expect ${to}_replaced_by_the_same_export cmp -s "$f" "$T/first.$to"

	# the person edits it: refused, untouched
	printf '# my own line\n' >>"$f"
	cp "$f" "$T/edited.$to"
	export_to $to "$f"
	jp_expect ${to}_edited_file_is_refused [ "$(rc)" = 1 ]
	grep -q "$f" "$T/err" && grep -q -- "--force" "$T/err" ||
		jp_fail ${to}_refusal_names_the_file_and_force "$(cat "$T/err")"
	jp_expect ${to}_edited_file_is_untouched cmp -s "$f" "$T/edited.$to"

	# an edit of the digest line itself is an edit too
	cp "$T/first.$to" "$f"
	d=$(sed -n 's/^# jobprep-export-digest: xxh3-64=\(.\).*/\1/p' "$f")
	[ "$d" = 0 ] && d=1 || d=0
	sed -i "s/^\(# jobprep-export-digest: xxh3-64=\)./\1$d/" "$f"
	export_to $to "$f"
	jp_expect ${to}_changed_digest_is_refused [ "$(rc)" = 1 ]

	# --force replaces it with the export
	cp "$T/edited.$to" "$f"
	export_to $to "$f" --force
	jp_expect ${to}_force_replaces_the_edited_file [ "$(rc)" = 0 ]
	jp_expect ${to}_forced_file_is_the_export cmp -s "$f" "$T/first.$to"
done

# a file jobprep never wrote
printf '#!/bin/bash\necho mine\n' >"$T/mine.sbatch"
cp "$T/mine.sbatch" "$T/mine.orig"
export_to slurm "$T/mine.sbatch"
jp_expect a_file_jobprep_never_wrote_is_refused [ "$(rc)" = 1 ]
jp_expect a_file_jobprep_never_wrote_is_untouched cmp -s "$T/mine.sbatch" "$T/mine.orig"

# the mode of a replaced script is still executable
export_to slurm "$T/job.slurm"
jp_expect replaced_script_is_executable [ "$(rc)" = 0 -a "$(stat -c %a "$T/job.slurm")" = 755 ]

jp_done
