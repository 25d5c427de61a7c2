#!/bin/sh
# Each command's --help lists exactly the options its parser takes, and its
# synopsis (in `jobprep CMD --help` and in `jobprep --help`) names every one
# of them: one option table per command (ui/cli/options.h) drives getopt and
# the help, so they cannot drift. `jobprep --dump-options` lists the tables
# ("COMMAND --long -s ARG", "-" for the wizard or for none); every option
# there must be in the help and accepted, every option the help shows must
# be in the tables and accepted, and a made-up option is refused.
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/report.sh"

T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-cli-options.XXXXXX") || exit 99
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT

"$JOBPREP" --dump-options >"$T/dump" 2>"$T/dump.err"
jp_expect dump_options_lists_the_tables [ $? = 0 -a -s "$T/dump" ]

# No command names an option (long or short) twice: getopt would take the
# first and the second would be dead.
jp_expect no_option_named_twice sh -c '
	{ cut -f1,2 "$1"; cut -f1,3 "$1" | grep -v "	-\$"; } | sort | uniq -d | grep -q . && exit 1
	exit 0' sh "$T/dump"

# One letter, one meaning: in every command -j is --json, and every --json
# has it (stage's --jobs once took it).
jp_expect short_j_is_json_everywhere sh -c '
	awk -F "\t" "\$3 == \"-j\" && \$2 != \"--json\" { print; bad = 1 }
		\$2 == \"--json\" && \$3 != \"-j\" { print; bad = 1 } END { exit bad }" "$1"' sh "$T/dump"

# The reference's list of commands (docs/reference.md, "## Commands", moved
# there from the README) is the synopses the tables make, as printed
# (`jobprep --dump-synopsis`: each form on one line), none missing.
"$JOBPREP" --dump-synopsis >"$T/synopsis" 2>&1
sed -n '/^## Commands$/,/^[^ ]/p' "$TOP_SRCDIR/docs/reference.md" | sed -n 's/^    \(jobprep .*\)$/\1/p' |
	grep -v -e '^jobprep --help | --version$' >"$T/reference.synopsis"
jp_expect reference_synopses_are_the_generated_ones diff "$T/synopsis" "$T/reference.synopsis"

# The commands `jobprep --help` lists are the ones with a table.
"$JOBPREP" --help >"$T/top" 2>&1
sed -n '/^Commands:/,/^$/p' "$T/top" | sed -n 's/^  \([a-z][a-z]*\)\( .*\)\{0,1\}$/\1/p' | uniq >"$T/listed"
cut -f1 "$T/dump" | grep -v '^-$' | uniq >"$T/tabled"
jp_expect help_lists_every_command_with_a_table cmp -s "$T/listed" "$T/tabled"
jp_expect there_are_commands [ "$(wc -l <"$T/tabled")" -ge 12 ]

# README's table of commands names every command with a table (each in a
# "| `NAME` |" or "| `NAME`, `OTHER` |" row), and no other.
sed -n '/^## Commands$/,/^## /p' "$TOP_SRCDIR/README.md" | sed -n 's/^| \(`[a-z][a-z, `]*`\) |.*/\1/p' |
	tr -d '`' | tr ',' '\n' | tr -d ' ' | sort >"$T/readme.commands"
sort "$T/tabled" >"$T/tabled.sorted"
jp_expect readme_names_every_command diff "$T/tabled.sorted" "$T/readme.commands"

# run CMD ARGS...: jobprep CMD ARGS... ("-": the program itself), stdin empty.
run() {
	c=$1
	shift
	if [ "$c" = - ]; then
		"$JOBPREP" "$@" </dev/null
	else
		"$JOBPREP" "$c" "$@" </dev/null
	fi
}

# accepted CMD OPTION ARG: the option (with ARG when not "-") followed by
# --help is not refused as unknown: --help prints, or the argument is judged.
accepted() {
	if [ "$3" = - ]; then
		run "$1" "$2" --help >"$T/out" 2>"$T/err"
	else
		run "$1" "$2" 1 --help >"$T/out" 2>"$T/err"
	fi
	rc=$?
	[ -f "$T/err" ] && ! grep -q "unknown option" "$T/err" && { [ "$rc" = 0 ] || [ "$rc" = 2 ]; }
}

# block CMD: the lines of `jobprep --help` about CMD (each synopsis form,
# wrapped, and the summary).
block() {
	awk -v c="$1" '/^  [a-z]/ { on = ($1 == c) } /^$/ { on = 0 } on' "$T/top"
}

bad=
for c in - $(cat "$T/tabled"); do
	run "$c" --help >"$T/help.$c" 2>&1 || bad="$bad $c:--help-fails"
	# the option column of --help: "  -o, --output MANIFEST  ..." or "  --json  ..."
	sed -n 's/^  \(-[A-Za-z0-9], \)\{0,1\}\(--[a-z][a-z0-9-]*\).*/\1\2/p' "$T/help.$c" |
		sed 's/, / /' >"$T/shown.$c"
	awk -F '\t' -v c="$c" '$1 == c' "$T/dump" >"$T/table.$c"
	# every option of the table: in --help (long and short together), accepted
	while IFS="$(printf '\t')" read -r _ long short arg; do
		if [ "$short" = - ]; then want=$long; else want="$short $long"; fi
		grep -qx -- "$want" "$T/shown.$c" || bad="$bad $c:$want:not-in-help"
		accepted "$c" "$long" "$arg" || bad="$bad $c:$long:refused"
		[ "$short" = - ] || accepted "$c" "$short" "$arg" || bad="$bad $c:$short:refused"
		# and in the synopsis (by its short name when it has one), unless
		# it is --help or --version
		case $long in --help | --version) continue ;; esac
		pat="$long\\b"
		[ "$short" = - ] || pat="$pat\\|$short "
		sed -n '1,/^[^ U]/p' "$T/help.$c" | grep -q -- "$pat" || bad="$bad $c:$long:not-in-usage"
		if [ "$c" != - ]; then
			block "$c" | grep -q -- "$pat" || bad="$bad $c:$long:not-in-jobprep-help"
		fi
	done <"$T/table.$c"
	# every option --help shows: in the table, accepted
	while read -r first second; do
		long=${second:-$first}
		grep -q "	$long	" "$T/table.$c" || bad="$bad $c:$long:help-only"
		arg=$(awk -F '\t' -v o="$long" '$2 == o { print $4 }' "$T/table.$c")
		accepted "$c" "$long" "${arg:--}" || bad="$bad $c:$long:shown-but-refused"
	done <"$T/shown.$c"
	# nothing else is taken
	run "$c" --no-such-option >/dev/null 2>"$T/err"
	grep -q "unknown option '--no-such-option'" "$T/err" || bad="$bad $c:made-up-option-taken"
done
jp_expect every_option_is_in_the_help_and_accepted [ -z "$bad" ]
[ -z "$bad" ] || echo "# drift:$bad"

# The two that drifted before the tables: scan's and clone's options in
# `jobprep --help`; and clone --help says where it looks for scratch space
# in the order it does (--scratch, $JOBPREP_SCRATCH, /dev/shm, $TMPDIR,
# /var/tmp, /tmp).
jp_expect jobprep_help_names_scan_threads_and_profile \
	sh -c 'grep -q -- "--threads N.*--profile FILE"' sh <<EOF
$(block scan)
EOF
jp_expect jobprep_help_names_clone_scratch_and_progress \
	sh -c 'tr "\n" " " | grep -q -- "--scratch DIR.*--progress | --no-progress"' sh <<EOF
$(block clone)
EOF
jp_expect clone_help_gives_the_scratch_order_the_code_follows \
	sh -c 'tr "\n" " " <"$1" | tr -s " " | grep -q "JOBPREP_SCRATCH.*/dev/shm.*TMPDIR, /var/tmp and /tmp"' sh "$T/help.clone"
jp_done
