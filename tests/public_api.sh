#!/bin/sh
# tests/public_api.sh [SRCDIR]: the functions include/jobprep/*.h declares
# that no front end names (no file under ui/ has the name as a word: a call,
# or the function handed on as a callback). include/jobprep/ holds only what
# the front ends use (HACKING.md); a function the core alone needs is
# declared beside its code in src/ (NAME.h, NAME_internal.h). Prints one
# line "HEADER: FUNCTION" for each, then "N of M public functions are not
# used by ui/"; exits 1 when N is not 0.
set -u
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top" || exit 2
[ -d include/jobprep ] && [ -d ui ] || { echo "$top: no include/jobprep or ui" >&2; exit 2; }
# a declaration: a line that starts with its type at the left margin (not a
# comment, a #define or a member) and names jp_NAME before its "("
names=$(awk '
	/^[[:space:]]*\/?\*/ { next }
	/^[A-Za-z_]/ && !/^(#|typedef|struct [a-z_]+ \{|enum [a-z_]+ \{|union)/ {
		line = $0
		while (match(line, /jp_[a-z0-9_]+[[:space:]]*\(/)) {
			name = substr(line, RSTART, RLENGTH)
			sub(/[[:space:]]*\($/, "", name)
			# the first jp_NAME( on the line is the function; later
			# ones are parameters that are function pointers
			print FILENAME ": " name
			break
		}
	}' include/jobprep/*.h | sort -u)
total=0 unused=0
ui_files=$(find ui -name '*.[ch]' | sort)
for entry in $(printf '%s\n' "$names" | sed 's/: /:/'); do
	total=$((total + 1))
	name=${entry#*:}
	# shellcheck disable=SC2086
	if ! grep -qw -- "$name" $ui_files; then
		unused=$((unused + 1))
		echo "${entry%%:*}: $name"
	fi
done
echo "$unused of $total public functions are not used by ui/"
[ "$unused" = 0 ]
