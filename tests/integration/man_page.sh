#!/bin/sh
# The man page covers every command and every option: the build makes
# ui/cli/jobprep.1 from ui/cli/jobprep.1.in with `jobprep --dump-man`, which
# writes the SYNOPSIS and one OPTIONS entry per option from the option
# tables the parser reads (`jobprep --dump-options` lists them). Here: the
# built page has a synopsis line and an OPTIONS subsection for each command,
# an entry for each of its options (and no other), the COMMANDS section
# describes each command, no marker is left, and groff formats it without a
# warning.
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}" "${TOP_BUILDDIR:?}"
. "$TOP_SRCDIR/tests/lib/report.sh"

MAN=$TOP_BUILDDIR/ui/cli/jobprep.1
T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-man.XXXXXX") || exit 99
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT

jp_expect man_page_is_built [ -s "$MAN" ]
jp_expect no_marker_is_left jp_no_text "^@[A-Z]*@$" "$MAN"
"$JOBPREP" --dump-options >"$T/dump" || exit 99

# The page's OPTIONS entries, as "COMMAND --long -s ARG" lines like the dump:
# ".SS "jobprep CMD"" starts a command's, each ".TP" line after it names one.
awk '
	/^\.SH / { on = ($2 == "OPTIONS") ; next }
	on && /^\.SS / { c = $0; sub(/^\.SS "jobprep ?/, "", c); sub(/".*/, "", c)
		if (c ~ /^\(/ || c == "") c = "-"; split(c, w, " "); c = w[1]; next }
	on && /^\.TP/ { tp = 1; next }
	on && tp { tp = 0; line = $0
		gsub(/\\f[BIR]/, "", line); gsub(/\\%/, "", line); gsub(/\\-/, "-", line)
		n = split(line, w, /[ ,]+/); s = "-"; l = ""; a = "-"
		for (i = 1; i <= n; i++) {
			if (w[i] ~ /^--/) l = w[i]
			else if (w[i] ~ /^-./) s = w[i]
			else if (w[i] != "") a = w[i]
		}
		print c "\t" l "\t" s "\t" a }' "$MAN" >"$T/page"
jp_expect every_option_has_its_entry_and_no_other diff "$T/dump" "$T/page"

missing=
for c in $(cut -f1 "$T/dump" | grep -v '^-$' | uniq); do
	grep -q "^\\\\fBjobprep\\\\fR \\\\%\\\\fB$c\\\\fR" "$MAN" || missing="$missing synopsis:$c"
	sed -n '/^\.SH COMMANDS/,/^\.SH /p' "$MAN" | grep -q "^\.BI\{0,1\} \"\{0,1\}$c\\b" ||
		missing="$missing commands:$c"
done
jp_expect every_command_has_a_synopsis_and_a_description [ -z "$missing" ]
[ -z "$missing" ] || echo "# missing:$missing"

if command -v groff >/dev/null 2>&1; then
	jp_expect groff_formats_it_without_warnings \
		sh -c '[ -z "$(LC_ALL=C groff -man -ww -z "$1" 2>&1)" ]' sh "$MAN"
	# Each option line as typed: at 70 and 100 columns no SYNOPSIS or OPTIONS
	# line ends in a hyphen ("[-" then "--json" on the next), none starts
	# inside a bracket's option, and no line is stretched with wide gaps.
	for w in 70 100; do
		LC_ALL=C.UTF-8 groff -man -Tutf8 -rLL=${w}n -P-cbou "$MAN" 2>/dev/null |
			awk '/^[A-Z]/ { on = ($1 == "SYNOPSIS" || $1 == "OPTIONS") ; next } on' >"$T/synopsis.$w"
	done
	jp_expect synopsis_has_lines [ -s "$T/synopsis.70" ]
	jp_expect option_lines_are_not_hyphenated \
		jp_no_text -E "\\[$(printf '\342\200\220')\$|\\[-\$|^ *--*[a-z]*\\]" "$T"/synopsis.*
	jp_expect synopsis_is_not_adjusted \
		sh -c '! sed -n "1,/^ *$/p" "$1" | grep -n "[^ ]   *[^ ]"' sh "$T/synopsis.70"
else
	jp_skip groff_formats_it_without_warnings "groff is not installed"
fi
jp_done
