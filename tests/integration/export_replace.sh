#!/bin/sh
# `jobprep export -o FILE` never silently overwrites a file a person wrote or
# edited. Every export carries a digest line; an existing FILE is replaced
# only while that line still matches the rest (an earlier export nobody
# touched), otherwise refused (exit 1, a message naming the file and
# --force, the file untouched); --force replaces it. What a PyTorchJob
# needs and the manifest does not hold (image, namespace, queue, priority
# class) is set with options, and a person's edits of those lines are no
# edit of jobprep's: the next export keeps them, --force too. The manifest
# comes from a real `jobprep init`.
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
	jp_no_text -- "--force" "$T/err" || jp_fail ${to}_unedited_export_no_refusal "$(cat "$T/err")"
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

# --- what the manifest does not hold: the person's, kept -----------------------
P=$T/fill.yaml
export_to pytorchjob "$P" --image registry.example/train:1 --namespace team-a \
	--queue gpu-queue --priority-class high
jp_expect options_fill_the_pytorchjob [ "$(rc)" = 0 ]
jp_expect image_option_is_the_image grep -q '^              image: "registry.example/train:1"$' "$P"
jp_expect image_option_means_no_placeholder jp_no_text "FILL-IN-IMAGE" "$P"
jp_expect image_option_means_no_placeholder_warning jp_no_text "names no container image" "$T/err"
jp_expect namespace_option_is_the_namespace grep -q '^  namespace: "team-a"$' "$P"
jp_expect queue_option_is_the_kueue_label grep -q '^    kueue.x-k8s.io/queue-name: "gpu-queue"$' "$P"
jp_expect priority_class_option_is_every_pods grep -q '^          priorityClassName: "high"$' "$P"
jp_expect the_file_says_which_lines_are_yours grep -q "^# Yours, kept when jobprep export -o replaces this file" "$P"

# the person changes their lines by hand: not an edit of jobprep's, and the
# next export keeps them
sed -i -e 's|image: "registry.example/train:1"|image: registry.example/train:2  # mine|' \
	-e 's|namespace: "team-a"|namespace: '"'"'team-b'"'"'|' "$P"
export_to pytorchjob "$P"
jp_expect your_lines_edited_is_not_refused [ "$(rc)" = 0 ]
[ "$(rc)" = 0 ] || sed 's/^/# /' "$T/err"
jp_expect your_image_is_kept grep -q '^              image: "registry.example/train:2"$' "$P"
jp_expect your_namespace_is_kept grep -q '^  namespace: "team-b"$' "$P"
jp_expect your_queue_and_priority_class_are_kept \
	sh -c 'grep -q "queue-name: \"gpu-queue\"" "$1" && grep -q "priorityClassName: \"high\"" "$1"' sh "$P"
# an option given again wins over the file's
export_to pytorchjob "$P" --image registry.example/train:3
jp_expect an_option_wins_over_the_file grep -q '^              image: "registry.example/train:3"$' "$P"

# the placeholder filled in by hand, its FILL IN comments dropped: kept too
F=$T/filled.yaml
export_to pytorchjob "$F"
sed -i -e 's|"FILL-IN-IMAGE"  # FILL IN: the image the job runs in|"mine/img:7"|' -e '/^# FILL IN/d' "$F"
export_to pytorchjob "$F"
jp_expect filled_placeholder_is_not_refused [ "$(rc)" = 0 ]
jp_expect filled_placeholder_is_kept grep -q '^              image: "mine/img:7"$' "$F"
jp_expect filled_placeholder_gets_no_warning jp_no_text "names no container image" "$T/err"

# a line of jobprep's edited: refused, saying exactly which lines are whose;
# --force replaces it and still keeps the person's
sed -i 's/^      restartPolicy: OnFailure$/      restartPolicy: Never/' "$P"
cp "$P" "$T/fill.edited"
export_to pytorchjob "$P"
jp_expect jobprep_line_edited_is_refused [ "$(rc)" = 1 ]
jp_expect jobprep_line_edited_is_untouched cmp -s "$P" "$T/fill.edited"
jp_expect the_refusal_says_which_lines_are_yours \
	grep -qF "Yours, and kept, are the values of image, namespace, priorityClassName and kueue.x-k8s.io/queue-name" "$T/err"
export_to pytorchjob "$P" --force
jp_expect force_replaces_jobprep_lines sh -c '[ "$(cat "$1")" = 0 ] && [ -f "$2" ] && ! grep -q "restartPolicy: Never" "$2"' sh "$T/rc" "$P"
jp_expect force_keeps_your_lines \
	sh -c 'grep -q "image: \"registry.example/train:3\"" "$1" && grep -q "namespace: \"team-b\"" "$1"' sh "$P"

# a Slurm script over an export of a PyTorchJob (--force): its image is no
# Slurm script's, and is not carried over
cp "$P" "$T/cross"
export_to slurm "$T/cross" --force
jp_expect an_export_of_the_other_engine_is_replaced_whole \
	sh -c '[ "$(cat "$1")" = 0 ] && head -n 1 "$2" | grep -q "^#!/bin/bash" && [ -f "$2" ] && ! grep -q "registry.example" "$2"' sh "$T/rc" "$T/cross"

# each engine its own: a Slurm script has no image, a PyTorchJob no partition
export_to slurm "$T/x.slurm" --image a
jp_expect image_with_slurm_is_a_usage_error [ "$(rc)" = 2 ]
export_to pytorchjob "$T/x.yaml" --partition a
jp_expect partition_with_pytorchjob_is_a_usage_error [ "$(rc)" = 2 ]

# a Slurm script's #SBATCH --partition, --account, --qos and --time are yours
Y=$T/y.slurm
export_to slurm "$Y" --partition gpu --account team --qos high --time 2:00:00
jp_expect slurm_options_fill_the_script [ "$(rc)" = 0 ]
jp_expect slurm_options_are_sbatch_lines sh -c 'grep -qx "#SBATCH --partition=gpu" "$1" &&
	grep -qx "#SBATCH --account=team" "$1" && grep -qx "#SBATCH --qos=high" "$1" &&
	grep -qx "#SBATCH --time=2:00:00" "$1"' sh "$Y"
sed -i 's/^#SBATCH --partition=gpu$/#SBATCH --partition=a100/' "$Y"
export_to slurm "$Y"
jp_expect slurm_partition_edited_is_not_refused [ "$(rc)" = 0 ]
jp_expect slurm_partition_edited_is_kept grep -qx "#SBATCH --partition=a100" "$Y"
jp_expect slurm_other_lines_are_kept grep -qx "#SBATCH --time=2:00:00" "$Y"
export_to slurm "$T/z.slurm" --time "2 days"
jp_expect slurm_value_with_a_space_is_refused [ "$(rc)" = 2 ]
jp_expect slurm_value_with_a_space_writes_nothing [ ! -e "$T/z.slurm" ]
printf '#SBATCH --mail-user=me\n' >>"$Y"
export_to slurm "$Y"
jp_expect slurm_edit_elsewhere_is_refused [ "$(rc)" = 1 ]
jp_expect slurm_refusal_says_which_lines_are_yours \
	grep -qF "Yours, and kept, are the values of the #SBATCH lines --partition, --time, --account and --qos" "$T/err"
jp_done
