#!/bin/sh
# `jobprep schema` is a valid draft 2020-12 schema, and it and `jobprep check`
# accept and reject exactly the same manifests: every sample under
# tests/data/manifests/valid passes both (check may still fail a path: exit
# 0 or 1), every sample under invalid/ fails both (check exits 3 and names
# the file on stderr). Validated with a real validator: Debian's
# python3-jsonschema (Draft202012Validator).
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/report.sh"
PY=/usr/bin/python3
if ! "$PY" -c 'from jsonschema import Draft202012Validator' 2>/dev/null; then
	jp_skip_all "$PY with jsonschema >= 4 (Draft202012Validator) is needed: apt-get install python3-jsonschema"
fi

samples="$TOP_SRCDIR/tests/data/manifests"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-schema.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
failed=0
fail() {
	jp_fail "$*"
	failed=$((failed + 1))
}

"$JOBPREP" schema >"$scratch/schema.json" || fail "jobprep schema exited $?"

# "Valid" means what a strict reader of JSON (RFC 8259, UTF-8, unique keys,
# no lone surrogates, no NaN, no number that would read as 0 though it is
# not) and then the schema both accept.
cat >"$scratch/validate.py" <<'EOF'
import json, sys
from jsonschema import Draft202012Validator

schema = json.load(open(sys.argv[1], encoding="utf-8"))
Draft202012Validator.check_schema(schema)
validator = Draft202012Validator(schema)

def unique(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("duplicate key")
    return dict(pairs)

def no_constant(name):
    raise ValueError("not JSON: " + name)

def no_underflow(text):
    # 1e-400 is not 0: a number that would read as 0 is out of range
    v = float(text)
    if v == 0 and any(c in "123456789" for c in text.lower().split("e")[0]):
        raise ValueError("number out of range: " + text)
    return v

def encodable(o):
    if isinstance(o, str):
        o.encode("utf-8")
    elif isinstance(o, dict):
        for k, v in o.items():
            encodable(k)
            encodable(v)
    elif isinstance(o, list):
        for v in o:
            encodable(v)

for path in sys.argv[2:]:
    try:
        text = open(path, "rb").read().decode("utf-8")
        doc = json.loads(text, object_pairs_hook=unique, parse_constant=no_constant,
                         parse_float=no_underflow)
        encodable(doc)
    except (ValueError, UnicodeError) as e:
        print("invalid\t%s\t(not strict JSON: %s)" % (path, e))
        continue
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    if errors:
        e = errors[0]
        print("invalid\t%s\t(%s: %s)" % (path, "/".join(map(str, e.path)), e.message[:120]))
    else:
        print("valid\t%s\t" % path)
EOF

# The schema itself, and a verdict for every sample.
"$PY" "$scratch/validate.py" "$scratch/schema.json" "$samples"/valid/*.json \
	"$samples"/invalid/*.json >"$scratch/verdicts" || fail "the validator did not run"

n_valid=0
n_invalid=0
tab=$(printf '\t') # verdicts are tab-separated: paths may hold spaces
while IFS=$tab read -r verdict path reason; do
	name=${path#"$samples"/}
	case $name in
	valid/*) want=valid n_valid=$((n_valid + 1)) ;;
	*) want=invalid n_invalid=$((n_invalid + 1)) ;;
	esac
	[ "$verdict" = "$want" ] || fail "$name: the schema says $verdict $reason, expected $want"

	"$JOBPREP" check "$path" >"$scratch/out" 2>"$scratch/err"
	rc=$?
	if [ "$want" = valid ]; then
		if [ $rc -ne 0 ] && [ $rc -ne 1 ]; then
			fail "$name: the schema accepts it but check exited $rc: $(cat "$scratch/err")"
		fi
	else
		if [ $rc -ne 3 ]; then
			fail "$name: the schema rejects it $reason but check exited $rc"
		elif ! [ -s "$scratch/err" ] || grep -v -F "$path" "$scratch/err" >/dev/null; then
			fail "$name: check's errors do not all name the file: $(cat "$scratch/err")"
		fi
	fi
done <"$scratch/verdicts"

[ "$n_valid" -ge 5 ] || fail "only $n_valid valid samples were judged"
[ "$n_invalid" -ge 50 ] || fail "only $n_invalid invalid samples were judged"

# A manifest whose paths all exist, on what its profile declares shared
# storage, passes every check (exit 0) and the schema.
root="$scratch/root"
mkdir -p "$root/code" "$root/data" "$root/out/checkpoints" "$root/out/logs"
printf '#!/bin/sh\necho train\n' >"$root/code/train.sh" # the script the launch command runs
# (something to read: an empty data set fails since issue 31)
printf 'one\n' >"$root/data/part-0"
cat >"$scratch/profile.json" <<EOF
{"sandbox": true, "shared_roots": ["$root"], "public_roots": [], "ephemeral_roots": ["/var/tmp"]}
EOF
cat >"$scratch/here.json" <<EOF
{
  "schema_version": 1,
  "generator": {"name": "jobprep", "version": "0.1.0"},
  "created_at": "2024-05-01T12:00:00Z",
  "job": {"name": "here", "workers": 1, "gpus_per_worker": 1, "launch_command": "cd \$PROJECT_DIR && bash train.sh"},
  "code": {"source": "shared_storage", "path": "$root/code"},
  "data": [{"name": "d", "path": "$root/data", "kind": "team", "read_only": false}],
  "outputs": {"output_dir": "$root/out", "checkpoint_dir": "$root/out/checkpoints",
              "log_dir": "$root/out/logs"},
  "checks": []
}
EOF
unset JOBPREP_PROFILE
"$PY" "$scratch/validate.py" "$scratch/schema.json" "$scratch/here.json" | grep -q "^valid$(printf '\t')" ||
	fail "a manifest in $root is not schema-valid"
"$JOBPREP" check --profile "$scratch/profile.json" "$scratch/here.json" >"$scratch/out" 2>&1 ||
	fail "check on existing paths exited $?: $(cat "$scratch/out")"
grep -q '^[0-9]* passed, [0-9]* warnings, 0 failed$' "$scratch/out" ||
	fail "unexpected check output: $(cat "$scratch/out")"
"$JOBPREP" check --json --profile "$scratch/profile.json" "$scratch/here.json" \
	>"$scratch/out.json" || fail "check --json exited $?"
cat >"$scratch/judge.py" <<'EOF'
import json, sys
checks = json.load(open(sys.argv[1]))
ids = {c["id"] for c in checks}
for want in ("code.path.exists", "code.path.readable", "data[0].path.readable",
             "outputs.output_dir.writable", "outputs.checkpoint_dir.writable",
             "outputs.log_dir.writable"):
    assert want in ids, (want, sorted(ids))
assert all(set(c) <= {"id", "status", "message", "path"} for c in checks), checks
assert all(c["status"] in ("pass", "warn") for c in checks), checks
EOF
"$PY" "$scratch/judge.py" "$scratch/out.json" ||
	fail "check --json did not list the path checks, or one failed"

# The same manifest with its log directory missing: exit 1 (not 3), and
# the advice to create it.
rmdir "$root/out/logs"
"$JOBPREP" check --profile "$scratch/profile.json" "$scratch/here.json" >"$scratch/out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "check with a missing log dir exited $rc, expected 1"
grep -q "^\[FAIL\] outputs.log_dir.exists: .*mkdir -p '$root/out/logs'" "$scratch/out" ||
	fail "no mkdir advice for the missing log dir: $(cat "$scratch/out")"

# Usage errors exit 2, a missing file 3.
"$JOBPREP" check >/dev/null 2>&1
[ $? -eq 2 ] || fail "check without a manifest did not exit 2"
"$JOBPREP" check --bogus "$scratch/here.json" >/dev/null 2>&1
[ $? -eq 2 ] || fail "check --bogus did not exit 2"
"$JOBPREP" check "$scratch/missing.json" >/dev/null 2>"$scratch/err"
[ $? -eq 3 ] || fail "check on a missing file did not exit 3"
grep -q "^jobprep check: $scratch/missing.json: " "$scratch/err" || fail "the error does not name the missing file"
"$JOBPREP" schema extra >/dev/null 2>&1
[ $? -eq 2 ] || fail "schema with an argument did not exit 2"

[ "$failed" -eq 0 ] && jp_pass "$n_valid valid and $n_invalid invalid samples judged alike by the schema and check"
jp_done
