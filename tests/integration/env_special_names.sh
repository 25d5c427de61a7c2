#!/bin/sh
# job.env names the shells treat specially (the list is the schema's:
# `jobprep schema`, job.env's propertyNames) are refused with the reason.
# For each name this test first shows why: sourcing
#   export NAME='v1 x'; export JP_AFTER='ok'
# in dash, bash or zsh loses the value or stops before JP_AFTER (IFS keeps
# its value but splits the launch command's words differently). Then
# `jobprep check` (exit 3, names the field and the reason), `jobprep env` and
# `jobprep init` refuse a manifest or answers holding it.
set -u
. "$TOP_SRCDIR/tests/lib/gitserv.sh"
for s in dash bash zsh; do
	command -v "$s" >/dev/null 2>&1 || jp_skip_all "$s is not installed"
done
T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-envnames.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT
jp_test_env "$T"
cd "$T" || exit 99

"$JOBPREP" schema >"$T/schema.json"
python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
print(" ".join(d["properties"]["job"]["properties"]["env"]["propertyNames"]["not"]["enum"]))' \
	"$T/schema.json" >"$T/names" || exit 99
names=$(cat "$T/names")
jp_expect schema_lists_the_names [ -n "$names" ]

# lost NAME: some shell does not give 'v1 x' back, or stops reading.
lost() {
	printf "export %s='v1 x'\nexport JP_AFTER='ok'\n" "$1" >"$T/e.sh"
	for _sh in dash bash zsh; do
		# shellcheck disable=SC2016
		_got=$(env -u "$1" "$_sh" -c '. "$1"; eval "printf %s\|%s \"\${$2}\" \"\$JP_AFTER\""' \
			sh "$T/e.sh" "$1" 2>/dev/null)
		[ "$_got" = "v1 x|ok" ] || { echo "# $1 in $_sh: [$_got]"; return 0; }
	done
	return 1
}
# splits NAME: after sourcing, an unquoted expansion splits differently.
splits() {
	printf "export %s='x'\n" "$1" >"$T/e.sh"
	_n=$(dash -c '. "$1"; v="a b"; set -- $v; echo $#' sh "$T/e.sh")
	[ "$_n" != 2 ]
}

sed 's/"HF_HOME": "\/mnt\/public\/hf",//' \
	"$TOP_SRCDIR/tests/data/manifests/invalid/env_special_name_random.json" >"$T/base.json"
for n in $names; do
	if [ "$n" = IFS ]; then
		jp_expect "${n}_changes_word_splitting" splits "$n"
	else
		jp_expect "${n}_is_lost_by_a_shell" lost "$n"
	fi
	python3 -c 'import json,sys
d = json.load(open(sys.argv[1])); d["job"]["env"] = {"OK_NAME": "1", sys.argv[2]: "v1 x"}
json.dump(d, open(sys.argv[3], "w"))' "$T/base.json" "$n" "$T/m.json"
	"$JOBPREP" check "$T/m.json" >/dev/null 2>"$T/err"
	rc=$?
	jp_expect "${n}_refused_by_check" [ "$rc" = 3 ]
	jp_expect "${n}_check_names_the_field_and_why" \
		grep -q "job.env.$n: expected a variable name the shells do not treat specially, got \"$n\" (.*)" "$T/err"
	"$JOBPREP" env "$T/m.json" >"$T/out" 2>/dev/null
	rc=$?
	jp_expect "${n}_refused_by_env" [ "$rc" = 3 ]
	jp_expect "${n}_env_prints_nothing" jp_line_count = 0 "$T/out"
done
head -n 3 "$T/err"
# An ordinary name next to them is fine.
python3 -c 'import json,sys
d = json.load(open(sys.argv[1])); d["job"]["env"] = {"PATH": "/opt/bin:/usr/bin", "HF_HOME": "/x"}
json.dump(d, open(sys.argv[2], "w"))' "$T/base.json" "$T/ok.json"
"$JOBPREP" env "$T/ok.json" >"$T/out" 2>"$T/err"
jp_expect ordinary_names_and_PATH_are_kept grep -qF "export PATH='/opt/bin:/usr/bin'" "$T/out"
jp_done
