#!/bin/sh
# `jobprep export --to pytorchjob` read back by PyYAML: the PyTorchJob's
# structure (Master and Worker replicas, container "pytorch", image, GPU
# limits, hostPath volumes at the same paths, public data read-only), and
# the command string round-trips exactly, hostile values included (quotes,
# backslashes, newlines, tabs, CR, C0/C1 controls, U+2028/2029, BOM, CJK,
# YAML words like "yes" and "null"); run with /bin/sh it sets every value
# byte for byte. Then the command line: the image placeholder warning, -o
# (mode 0644, no symlinks), a manifest with a failed check refused unless
# --force, an invalid manifest (exit 3), usage errors (exit 2), Slurm
# refusing code in an image (exit 1).
set -u

: "${JOBPREP:?}"
. "$TOP_SRCDIR/tests/lib/report.sh"
if ! command -v python3 >/dev/null 2>&1 || ! python3 -c 'import yaml' 2>/dev/null; then
	jp_skip_all "python3 with PyYAML is needed (apt-get install python3-yaml, or run autotools/bootstrap.sh)"
fi

. "$TOP_SRCDIR/tests/lib/diskscratch.sh"
# On disk, not a tmpfs: the run's preflight.sh judges this folder's storage.
scratch=$(jp_disk_scratch jobprep-export-yaml) ||
	jp_skip_all "no disk folder to work in: \$TMPDIR, /tmp, /var/tmp and the build tree are all tmpfs"
scratch=$(cd -P "$scratch" && pwd)
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM
failed=0
fail() {
	jp_fail "$*"
	failed=$((failed + 1))
}
secret=ghp_jobprepExportSecret0123456789abcdef

# Manifests, written directly; the launch command prints every variable.
python3 - "$scratch" <<'EOF' || exit 1
import json, os, sys

s = sys.argv[1]
env = {
    "QUOTES": "it's \"double\" 'single' \\back\\slash \\n $(echo pwned) `id`",
    "BREAKS": "line1\nline2\r\n\tindented\n\n",
    "CONTROLS": "a\x01b\x1b[0m\x7fc\x85d\u2028e\u2029f\ufeffg",
    "CJK": "你好，世界 — ñ é 🚀",
    "YAMLISH": "yes",
    "NULLISH": "null",
    "COLON": "key: value # not a comment",
    "SPACES": "  lead and trail  ",
    "EMPTY": "",
}
names = ["PROJECT_DIR", "OUTPUT_DIR", "CHECKPOINT_DIR", "LOG_DIR", "DATA_DIR"] + list(env)
launch = "".join("printf '%%s=[%%s]\\n' %s \"$%s\"\n" % (n, n) for n in names)
launch += "[ -d \"$CHECKPOINT_DIR\" ] && echo 'checkpoint dir: made'\n"
launch += "echo 'it'\"'\"'s the end: $(not run) ~ {a: b} [c] & * ! | > %'"
out = s + "/shared/outputs/run 'one' #1 日志"
for d in ("shared/projects/p", "shared/data", "public/models", "elsewhere/data", ""):
    os.makedirs(s + "/" + d, exist_ok=True)
# each data set holds a file: an empty one fails every Worker's preflight
for d in ("shared/data", "public/models", "elsewhere/data"):
    with open(s + "/" + d + "/part-0", "w") as f:
        f.write("x\n")
os.makedirs(out + "/logs", exist_ok=True)
profile = {
    "sandbox": True, "shared_roots": [s + "/shared"], "public_roots": [s + "/public"],
    # (no /tmp, /var/tmp or /root: the run's preflight.sh judges this
    # scratch folder, which may be under any of them)
    "ephemeral_roots": ["/dev/shm", "/workspace"],
    "system_disk_bytes": 53687091200,
    "defaults": {"project_dir": "{shared}/projects/{job}",
                 "output_dir": "{shared}/outputs/{job}/run-NNN",
                 "checkpoint_dir": "{output}/checkpoints", "log_dir": "{output}/logs"},
}
base = {
    "schema_version": 1,
    "generator": {"name": "jobprep", "version": "0.1.0"},
    "created_at": "2024-05-01T12:00:00Z",
    "job": {"name": "yaml-job", "workers": 3, "gpus_per_worker": 8,
            "launch_command": launch, "env": env},
    "code": {"source": "image", "path": "/workspace/app",
             "image": "registry.example.com/team/train:v1"},
    "data": [{"name": "team", "path": s + "/shared/data", "kind": "team", "read_only": False},
             {"name": "models", "path": s + "/public/models", "kind": "public", "read_only": True},
             {"name": "other", "path": s + "/elsewhere/data", "kind": "team", "read_only": True}],
    "outputs": {"output_dir": out, "checkpoint_dir": out + "/checkpoints", "log_dir": out + "/logs"},
    "checks": [{"id": "outputs.output_dir.exists", "status": "pass", "message": "ok", "path": out}],
    "profile": profile,
}
with open(s + "/image.json", "w") as f:
    json.dump(base, f, ensure_ascii=False, indent=1)
shared = json.loads(json.dumps(base))
shared["job"].update(name="shared-job", workers=1, gpus_per_worker=0)
shared["code"] = {"source": "shared_storage", "path": s + "/shared/projects/p"}
with open(s + "/shared.json", "w") as f:
    json.dump(shared, f, ensure_ascii=False, indent=1)
shared["checks"].append({"id": "data[0].path.exists", "status": "fail",
                         "message": "does not exist", "path": s + "/shared/data"})
with open(s + "/failed.json", "w") as f:
    json.dump(shared, f, ensure_ascii=False, indent=1)
shared["job"]["workers"] = "two"
with open(s + "/invalid.json", "w") as f:
    json.dump(shared, f, ensure_ascii=False, indent=1)

values = {"PROJECT_DIR": "/workspace/app", "OUTPUT_DIR": out,
          "CHECKPOINT_DIR": out + "/checkpoints", "LOG_DIR": out + "/logs",
          "DATA_DIR": s + "/shared/data", **env}
expected = "".join("%s=[%s]\n" % (n, values[n]) for n in names)
expected += "checkpoint dir: made\n"
expected += "it's the end: $(not run) ~ {a: b} [c] & * ! | > %\n"
with open(s + "/expected.run", "wb") as f:
    f.write(expected.encode())
with open(s + "/launch", "wb") as f:
    f.write(launch.encode())
EOF

# The run's preflight.sh, which the command runs first (init writes it).
"$JOBPREP" preflight "$scratch/image.json" >"$scratch/shared/outputs/run 'one' #1 日志/preflight.sh" ||
	fail "jobprep preflight failed"

# The structure, and the command string exactly: env lines, mkdir,
# preflight, launch.
JOBPREP_GIT_TOKEN=$secret "$JOBPREP" export --to pytorchjob "$scratch/image.json" \
	>"$scratch/image.yaml" 2>"$scratch/image.err"
rc=$?
[ $rc -eq 0 ] || fail "export of image.json exited $rc: $(cat "$scratch/image.err")"
[ -s "$scratch/image.err" ] && fail "export of a manifest with an image warned: $(cat "$scratch/image.err")"
grep -q -e "$secret" -e JOBPREP_GIT_TOKEN "$scratch/image.yaml" && fail "the YAML carries the caller's secret"
"$JOBPREP" env "$scratch/image.json" >"$scratch/image.env" || fail "jobprep env failed"

python3 - "$scratch" <<'PY' || fail "the PyTorchJob for image.json is not as expected (above)"
import os, subprocess, sys, yaml

s = sys.argv[1]
problems = []
def check(cond, what):
    if not cond:
        problems.append(what)

doc = yaml.safe_load(open(s + "/image.yaml", encoding="utf-8"))
check(doc["apiVersion"] == "kubeflow.org/v1", "apiVersion")
check(doc["kind"] == "PyTorchJob", "kind")
check(doc["metadata"] == {"name": "yaml-job"}, "metadata: %r" % doc["metadata"])
specs = doc["spec"]["pytorchReplicaSpecs"]
check(sorted(specs) == ["Master", "Worker"], "replica types %r" % sorted(specs))
check(specs["Master"]["replicas"] == 1, "Master replicas")
check(specs["Worker"]["replicas"] == 2, "Worker replicas (3 Workers = Master + 2)")
for role in specs:
    check(specs[role]["restartPolicy"] == "OnFailure", role + " restartPolicy")
check(specs["Master"]["template"] == specs["Worker"]["template"], "Master and Worker Pods differ")

pod = specs["Master"]["template"]["spec"]
(c,) = pod["containers"]
check(c["name"] == "pytorch", "container name")
check(c["image"] == "registry.example.com/team/train:v1", "image %r" % c["image"])
check(c["workingDir"] == "/workspace/app", "workingDir %r" % c.get("workingDir"))
check(c["resources"] == {"limits": {"nvidia.com/gpu": 8}}, "resources %r" % c.get("resources"))
cmd = c["command"]
check(len(cmd) == 3 and cmd[:2] == ["/bin/sh", "-c"], "command shape %r" % cmd[:2])
want = open(s + "/image.env", encoding="utf-8", newline="").read()
want += 'mkdir -p "$CHECKPOINT_DIR" "$LOG_DIR" || exit 1\n'
want += ('[ -f "$OUTPUT_DIR/preflight.sh" ] || { echo "jobprep: $OUTPUT_DIR/preflight.sh is '
         'missing: make it with: jobprep preflight MANIFEST > $OUTPUT_DIR/preflight.sh" >&2; '
         'exit 1; }\n'
         'sh "$OUTPUT_DIR/preflight.sh" || exit 1\n')
want += open(s + "/launch", encoding="utf-8", newline="").read()
check(cmd[2] == want, "command string differs:\n got %r\nwant %r" % (cmd[2], want))

# Run as the Pods run it: exec of /bin/sh -c with the string as read, with
# what the training operator sets in each Pod; the three Pods at once, as
# every Worker's preflight meets the others at MASTER_ADDR:MASTER_PORT
# (the Master's Service name is this machine's loopback here)
def pod_env(rank):
    return {"PATH": "/usr/bin:/bin", "RANK": str(rank), "WORLD_SIZE": "3",
            "MASTER_ADDR": "localhost", "MASTER_PORT": str(20000 + os.getpid() % 20000)}
others = [subprocess.Popen(cmd, cwd=s, env=pod_env(r), stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL) for r in (1, 2)]
run = subprocess.run(cmd, cwd=s, capture_output=True, env=pod_env(0))
for o in others:
    try:
        check(o.wait(timeout=120) == 0, "a Worker's Pod exited %r" % o.returncode)
    except subprocess.TimeoutExpired:
        o.kill()
        check(False, "a Worker's Pod did not end")
check(run.returncode == 0, "the command exited %d: %r" % (run.returncode, run.stderr))
check(run.stderr == b"", "the command wrote errors: %r" % run.stderr)
expected = ("[pass] preflight: every check passed on Worker %s, rank 0\n"
            % os.uname().nodename).encode()
expected += open(s + "/expected.run", "rb").read()
# (the preflight's table of areas: tests/integration/preflight_storage.sh)
got = b"".join(l for l in run.stdout.splitlines(True) if not l.startswith(b"[area] "))
check(got == expected, "the command printed\n%r\nexpected\n%r" % (run.stdout, expected))

mounts = {m["name"]: m for m in c["volumeMounts"]}
vols = {v["name"]: v for v in pod["volumes"]}
check(sorted(mounts) == sorted(vols), "mounts %r vs volumes %r" % (sorted(mounts), sorted(vols)))
paths = {}
for name, v in vols.items():
    check(v["hostPath"]["type"] == "Directory", name + " type")
    check(mounts[name]["mountPath"] == v["hostPath"]["path"], name + " mounted elsewhere")
    paths[v["hostPath"]["path"]] = mounts[name].get("readOnly", False)
want_paths = {s + "/shared": False, s + "/public": True, s + "/elsewhere/data": True}
check(paths == want_paths, "volumes %r, expected %r" % (paths, want_paths))

for p in problems:
    print("  " + p)
sys.exit(1 if problems else 0)
PY

# No image: a placeholder, and a warning that names the manifest; one
# Worker is a Master alone; no GPU, no resources.
"$JOBPREP" export --to pytorchjob "$scratch/shared.json" >"$scratch/shared.yaml" 2>"$scratch/shared.err"
rc=$?
[ $rc -eq 0 ] || fail "export of shared.json exited $rc: $(cat "$scratch/shared.err")"
grep -qF "jobprep export: warning: $scratch/shared.json names no container image; replace FILL-IN-IMAGE" \
	"$scratch/shared.err" || fail "no placeholder warning: $(cat "$scratch/shared.err")"
python3 - "$scratch" <<'PY' || fail "the PyTorchJob for shared.json is not as expected"
import sys, yaml

s = sys.argv[1]
doc = yaml.safe_load(open(s + "/shared.yaml", encoding="utf-8"))
specs = doc["spec"]["pytorchReplicaSpecs"]
assert list(specs) == ["Master"], list(specs)
(c,) = specs["Master"]["template"]["spec"]["containers"]
assert c["image"] == "FILL-IN-IMAGE", c["image"]
assert c["workingDir"] == s + "/shared/projects/p", c["workingDir"]
assert "resources" not in c, c.get("resources")
PY

# -o: the same text, atomically, mode 0644; never through a symlink.
"$JOBPREP" export --to pytorchjob -o "$scratch/out.yaml" "$scratch/image.json" >"$scratch/o.out" 2>&1 ||
	fail "export -o exited $?: $(cat "$scratch/o.out")"
[ -s "$scratch/o.out" ] && fail "export -o printed: $(cat "$scratch/o.out")"
cmp -s "$scratch/out.yaml" "$scratch/image.yaml" || fail "-o wrote other text than stdout"
[ "$(stat -c %a "$scratch/out.yaml")" = 644 ] || fail "-o file mode $(stat -c %a "$scratch/out.yaml"), expected 644"
echo keep >"$scratch/target"
ln -s "$scratch/target" "$scratch/link.yaml"
"$JOBPREP" export --to pytorchjob -o "$scratch/link.yaml" "$scratch/image.json" >/dev/null 2>"$scratch/link.err"
rc=$?
[ $rc -eq 1 ] || fail "export -o onto a symlink exited $rc, expected 1"
[ "$(cat "$scratch/target")" = keep ] || fail "export wrote through a symlink"

# A manifest whose checks failed: refused, naming the check; --force exports.
for to in pytorchjob slurm; do
	"$JOBPREP" export --to $to "$scratch/failed.json" >"$scratch/failed.out" 2>"$scratch/failed.err"
	rc=$?
	[ $rc -eq 1 ] || fail "$to: export of a manifest with a failed check exited $rc, expected 1"
	[ -s "$scratch/failed.out" ] && fail "$to: a refused export printed a job file"
	grep -q "data\[0\]\.path\.exists: does not exist" "$scratch/failed.err" ||
		fail "$to: the refusal does not name the failed check: $(cat "$scratch/failed.err")"
	grep -q -e "--force" "$scratch/failed.err" || fail "$to: the refusal does not mention --force"
	"$JOBPREP" export --to $to --force "$scratch/failed.json" >"$scratch/failed.out" 2>/dev/null ||
		fail "$to: --force did not export"
	[ -s "$scratch/failed.out" ] || fail "$to: --force printed nothing"
done

# An invalid manifest: exit 3, the file and field named, nothing printed.
"$JOBPREP" export --to pytorchjob "$scratch/invalid.json" >"$scratch/inv.out" 2>"$scratch/inv.err"
rc=$?
[ $rc -eq 3 ] || fail "export of an invalid manifest exited $rc, expected 3"
grep -qxF "jobprep export: $scratch/invalid.json: job.workers: expected an integer >= 1, got \"two\"" "$scratch/inv.err" ||
	fail "unexpected error for an invalid manifest: $(cat "$scratch/inv.err")"
[ -s "$scratch/inv.out" ] && fail "export printed a job file for an invalid manifest"
"$JOBPREP" export --to pytorchjob "$scratch/missing.json" >/dev/null 2>&1
rc=$?
[ $rc -eq 3 ] || fail "export of a missing manifest exited $rc, expected 3"

# Slurm cannot start code that lives in an image.
"$JOBPREP" export --to slurm "$scratch/image.json" >"$scratch/slurm.out" 2>"$scratch/slurm.err"
rc=$?
[ $rc -eq 1 ] || fail "slurm export of an image manifest exited $rc, expected 1"
grep -qF "$scratch/image.json: code.source: expected code a Slurm node can reach" "$scratch/slurm.err" ||
	fail "unexpected slurm refusal: $(cat "$scratch/slurm.err")"
[ -s "$scratch/slurm.out" ] && fail "a refused slurm export printed a script"

# Usage errors: exit 2.
for args in "" "--to" "--to k8s $scratch/image.json" "$scratch/image.json" \
	"--to slurm" "--to slurm $scratch/image.json $scratch/shared.json" "--to slurm --bogus x"; do
	# shellcheck disable=SC2086
	"$JOBPREP" export $args >/dev/null 2>&1
	rc=$?
	[ $rc -eq 2 ] || fail "export $args exited $rc, expected 2"
done
"$JOBPREP" export --help | grep -q "^Usage: jobprep export --to slurm|pytorchjob" || fail "export --help"
"$JOBPREP" --help | grep -q "export --to slurm|pytorchjob" || fail "jobprep --help does not list export"

[ "$failed" -eq 0 ] && jp_pass "PyTorchJob read back by PyYAML, its command run by /bin/sh"
jp_done
