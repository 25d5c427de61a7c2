#!/bin/sh
# `jobprep env MANIFEST` sourced by sh, dash, bash and zsh (with `.` and with
# eval "$(...)") gives every variable back byte for byte: spaces, quotes,
# $(), backticks, newlines (trailing ones too), !, *, backslashes, tabs,
# CJK. And the variables are exported to child processes.
set -u

: "${JOBPREP:?}"
. "$TOP_SRCDIR/tests/lib/report.sh"
shells="sh dash bash zsh"
for s in $shells; do
	if ! command -v "$s" >/dev/null 2>&1; then
		jp_skip_all "$s is not installed (apt-get install $s, or run autotools/bootstrap.sh)"
	fi
done

scratch=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-env.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
failed=0
fail() {
	jp_fail "$*"
	failed=$((failed + 1))
}

# The expected bytes of each variable, written with printf's escapes.
exp="$scratch/expected"
mkdir "$exp"
printf '/p/项目/it'"'"'s "q" $(echo pwned) `id` !* \\ end' >"$exp/PROJECT_DIR"
printf '/p/out/run 001' >"$exp/OUTPUT_DIR"
printf '/p/out/run 001/new\nline' >"$exp/CHECKPOINT_DIR"
printf '/p/out/run 001/logs' >"$exp/LOG_DIR"
printf '/infini-data/数据集' >"$exp/DATA_DIR"
printf '  lead and trail  ' >"$exp/SPACES"
printf 'it'"'"'s "double" and '"'"'single'"'"' '"''"'' >"$exp/QUOTES"
printf '$(echo pwned) ${HOME} $HOME $$' >"$exp/DOLLAR"
printf '`echo pwned`' >"$exp/BACKTICK"
printf 'line1\nline2\n\n' >"$exp/NEWLINES"
printf '!! !$ !-1 history' >"$exp/BANG"
printf '* ? [a-z] ~ ~root' >"$exp/GLOB"
printf '你好，世界 — ñ é 🚀' >"$exp/CJK"
printf 'a\\b\\\\c \\n \\'"'"'' >"$exp/BACKSLASH"
printf 'a\tb' >"$exp/TAB"
printf '' >"$exp/EMPTY"
printf -- '-n -e --' >"$exp/DASHES"
printf '%%s %%d %%%%' >"$exp/PERCENT"
printf '; rm -rf /tmp/nothing # \\' >"$exp/SEMICOLON"
printf '/infini-data/数据集' >"$exp/DATA_DIR_D"
printf '/second/is/not/DATA_DIR' >"$exp/DATA_DIR_E"
names="PROJECT_DIR OUTPUT_DIR CHECKPOINT_DIR LOG_DIR DATA_DIR DATA_DIR_D DATA_DIR_E SPACES QUOTES DOLLAR BACKTICK NEWLINES BANG GLOB CJK BACKSLASH TAB EMPTY DASHES PERCENT SEMICOLON"

# The same values in the manifest, with JSON's escapes.
cat >"$scratch/job.json" <<'EOF'
{
  "schema_version": 1,
  "generator": {"name": "jobprep", "version": "0.1.0"},
  "created_at": "2024-05-01T12:00:00Z",
  "job": {"name": "env-test", "workers": 1, "gpus_per_worker": 0, "launch_command": "true",
    "env": {
      "SPACES": "  lead and trail  ",
      "QUOTES": "it's \"double\" and 'single' ''",
      "DOLLAR": "$(echo pwned) ${HOME} $HOME $$",
      "BACKTICK": "`echo pwned`",
      "NEWLINES": "line1\nline2\n\n",
      "BANG": "!! !$ !-1 history",
      "GLOB": "* ? [a-z] ~ ~root",
      "CJK": "你好，世界 — ñ é 🚀",
      "BACKSLASH": "a\\b\\\\c \\n \\'",
      "TAB": "a\tb",
      "EMPTY": "",
      "DASHES": "-n -e --",
      "PERCENT": "%s %d %%",
      "SEMICOLON": "; rm -rf /tmp/nothing # \\"
    }},
  "code": {"source": "shared_storage", "path": "/p/项目/it's \"q\" $(echo pwned) `id` !* \\ end"},
  "data": [{"name": "d", "path": "/infini-data/数据集", "kind": "public", "read_only": true},
           {"name": "e", "path": "/second/is/not/DATA_DIR", "kind": "team", "read_only": false}],
  "outputs": {"output_dir": "/p/out/run 001", "checkpoint_dir": "/p/out/run 001/new\nline",
              "log_dir": "/p/out/run 001/logs"},
  "checks": []
}
EOF

"$JOBPREP" env "$scratch/job.json" >"$scratch/env.sh" 2>"$scratch/err" ||
	fail "jobprep env exited $?: $(cat "$scratch/err")"

# One export per variable, in the documented order.
got_order=$(grep -o '^export [A-Za-z_][A-Za-z0-9_]*=' "$scratch/env.sh" | sed 's/^export //; s/=$//' | tr '\n' ' ')
[ "$got_order" = "$names " ] || fail "export order: got '$got_order', expected '$names '"

# Every shell, two ways of reading it, every variable compared as bytes.
for s in $shells; do
	for how in source eval; do
		out="$scratch/got.$s.$how"
		mkdir "$out"
		if [ $how = source ]; then
			load='. "$1"'
		else
			load='eval "$("$3" env "$4")"'
		fi
		# A literal list: zsh does not split unquoted parameters.
		"$s" -c "$load"' || exit 1
			for n in '"$names"'; do
				eval "printf %s \"\$$n\"" >"$2/$n" || exit 1
			done' "$s" "$scratch/env.sh" "$out" "$JOBPREP" "$scratch/job.json" ||
			fail "$s ($how) could not read the exports"
		for n in $names; do
			if ! cmp -s "$exp/$n" "$out/$n"; then
				fail "$s ($how): $n differs: expected $(od -c "$exp/$n" | head -3), got $(od -c "$out/$n" | head -3)"
			fi
		done
	done
	# Exported, not just set: a child process sees them.
	"$s" -c '. "$1"; exec dash -c "printf %s \"\$CJK\"; printf %s \"\$NEWLINES\""' "$s" \
		"$scratch/env.sh" >"$scratch/child.$s"
	cat "$exp/CJK" "$exp/NEWLINES" | cmp -s - "$scratch/child.$s" ||
		fail "$s: the variables were not exported to a child"
done

# Nothing was executed while reading: no "pwned" anywhere but in the values.
[ ! -e /tmp/nothing ] || fail "/tmp/nothing exists"

# A manifest that is not valid: exit 3, the field named; usage: exit 2.
sed 's/"workers": 1/"workers": "one"/' "$scratch/job.json" >"$scratch/bad.json"
"$JOBPREP" env "$scratch/bad.json" >"$scratch/out" 2>"$scratch/err"
rc=$?
[ $rc -eq 3 ] || fail "env on an invalid manifest exited $rc, expected 3"
grep -q "^jobprep env: $scratch/bad.json: job.workers: expected an integer >= 1, got \"one\"$" "$scratch/err" ||
	fail "unexpected error: $(cat "$scratch/err")"
[ -s "$scratch/out" ] && fail "env printed exports for an invalid manifest"
"$JOBPREP" env >/dev/null 2>&1
[ $? -eq 2 ] || fail "env without a manifest did not exit 2"
"$JOBPREP" env a.json b.json >/dev/null 2>&1
[ $? -eq 2 ] || fail "env with two manifests did not exit 2"

[ "$failed" -eq 0 ] && jp_pass "$(echo $names | wc -w) variables read back exactly by: $shells"
jp_done
