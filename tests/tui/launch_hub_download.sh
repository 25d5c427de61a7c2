#!/bin/sh
# launch.hub_download in the wizard: with the demo project's train.py
# calling from_pretrained("acme/tiny") and the launch command running it,
# the Launch step lists the finding under the command (the file and line
# first), and the Review lists it among the warnings, under Launch.
set -u
. "$TOP_SRCDIR/tests/tui/lib.sh"
tui_init launch-hub

tui_start 120 40 -- --demo
tui_walk_to 5
# the demo's clone runs in the background while the steps go on: its
# train.py is there once the clone is renamed into place (over 60 s on a
# loaded machine with a sanitizer build: the bound is 180 s)
i=0
while :; do
	py=$(find "$T/work/jobprep-demo/shared/projects" -name train.py 2>/dev/null | head -n 1)
	[ -n "$py" ] || [ $i -ge 1800 ] && break
	sleep 0.1
	i=$((i + 1))
done
jp_expect demo_has_train_py [ -f "$py" ]
printf 'from transformers import AutoModel\nmodel = AutoModel.from_pretrained("acme/tiny")\n' >>"$py"
line=$(grep -n 'from_pretrained("acme/tiny")' "$py" | cut -d: -f1)
tui_must typed tui_set "Launch command" 'cd "$PROJECT_DIR" && python3 train.py --out "$OUTPUT_DIR"'
tui_must launch_step_lists_it tui_wait "train.py:$line: from_pretrained(\"acme/tiny\")" 30
tui_walk_on 5 6
tui_must asks_to_create tui_wait "Create the run's directories"
tui_keys Enter
tui_must review_lists_it tui_wait "! Launch   train.py:$line: from_pretrained(\"acme/tiny\") downloads acme/tiny" 30
tui_keys C-c
tui_wait_exit >/dev/null
tui_finish
