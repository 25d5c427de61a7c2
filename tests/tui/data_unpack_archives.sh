#!/bin/sh
# The Data step offers to unpack the archives a data set on shared storage
# holds (issue 14, "an archive in a dataset: unpack it there?"): Enter on
# the path of a folder holding train.tar and val.tar.gz (made by tar) asks,
# naming them and the folders they go to (train/, val/); taking it unpacks
# each beside it in the background (the row says staging..., then the
# scan's files and archives), identical to `tar x`, the archives kept, no
# temporary left; the note says they are unpacked before the job, and the
# "Unpack its archives" field shows it; the draft keeps it. Enter on it
# again, or on a folder with no archives, offers nothing.
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init data-unpack
D=$T/work/jobprep-demo
mkdir -p "$T/src/train/cls a" "$T/src/val" || exit 99
printf 'one\n' >"$T/src/train/cls a/img1.jpg"
printf 'two\n' >"$T/src/train/cls a/img2.jpg"
printf 'three\n' >"$T/src/val/img3.jpg"

tui_start 100 30 -- --demo
tui_must starts tui_step 1 Job
tui_keys Enter
tui_must code tui_step 2 Code
tui_keys Enter
tui_must data tui_step 3 Data
# the data set, on the demo's shared storage
DS="$D/shared/datasets/imagenet"
mkdir -p "$DS" "$D/shared/datasets/plain" || exit 99
tar cf "$DS/train.tar" -C "$T/src/train" . && tar czf "$DS/val.tar.gz" -C "$T/src/val" . || exit 99
printf 'labels\n' >"$DS/labels.txt"
printf 'just a file\n' >"$D/shared/datasets/plain/a.txt"

# --- a folder with no archives: Enter offers nothing, the step is taken
tui_keys a
tui_must a_adds_a_source tui_wait "Data sources  (3)"
tui_type "$D/shared/datasets/plain"
tui_keys Enter
tui_must no_archives_no_offer tui_step 4 Outputs
tui_keys Escape
tui_must back_on_data tui_step 3 Data
tui_must on_the_list tui_wait "add a data source (a)"

# --- a folder holding archives: unpack them there
tui_keys a
tui_must second_source tui_wait "Data sources  (4)"
tui_type "$DS"
tui_keys Enter
tui_must unpack_is_offered tui_wait "[ Unpack ]"
# (a quick look under load may say "at least 2 archives", ", ...")
tui_must offer_counts_them tui_wait_modal "2 archives"
tui_must offer_names_the_data_set tui_wait_modal "datasets/imagenet holds"
tui_must offer_names_them tui_wait_modal "train.tar, val.tar.gz"
tui_must offer_names_the_folders tui_wait_modal "Unpack each into the folder beside it (train/, val/"
tui_keys Enter
tui_must field_shows_it tui_wait "Unpack its archives"
tui_must unpacked_then_scanned tui_wait "6 files  2 archives"
tui_must note_says_unpacked tui_wait "unpacked before the job"
jp_expect train_unpacked_beside diff -r "$T/src/train" "$DS/train"
jp_expect val_unpacked_beside diff -r "$T/src/val" "$DS/val"
jp_expect archives_kept sh -c '[ -f "$1/train.tar" ] && [ -f "$1/val.tar.gz" ]' sh "$DS"
jp_expect no_temporary_left jp_no_temporaries "$DS"
tui_must path_kept tui_wait "datasets/imagenet "

# --- Enter on it again: unpacked already, nothing offered, the step is taken
tui_keys Enter
tui_must not_offered_again tui_step 4 Outputs
DRAFT=$T/home/.local/state/jobprep/demo-draft.json
draft_has_it() {
	python3 -c '
import json, sys
a = {e["key"]: e.get("value") for e in json.load(open(sys.argv[1]))["answers"]}
sys.exit(not any(v == sys.argv[2] and a.get(k[:-len(".path")] + ".unpack_archives") == "true"
                 for k, v in a.items() if k.endswith(".path")))' "$DRAFT" "$DS" 2>/dev/null
}
waited() {
	_w=0
	while [ $_w -lt 200 ]; do
		"$@" && return 0
		sleep 0.05
		_w=$((_w + 1))
	done
	return 1
}
tui_keys C-c
rc=$(tui_wait_exit)
jp_expect quit_exits_130 [ "$rc" = 130 ]
jp_expect draft_records_unpack_archives waited draft_has_it
tui_finish
