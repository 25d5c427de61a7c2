#!/bin/sh
# `jobprep export --to pytorchjob` validated against the Kubeflow training
# operator's PyTorchJob CRD (tests/data/kubeflow/pytorchjobs.crd.yaml, its
# openAPIV3Schema as published, trimmed to the fields jobprep writes): for
# 1 and 4 Workers, with and without public data. The schema is read as the
# API server reads it (int32/int64 ranges, int-or-string quantities) and as
# kubectl's strict field validation does (a field the schema does not list
# is refused); then what the schema leaves to Kubernetes itself: the
# replica types, names that are DNS labels, every volumeMount naming a
# volume, a hostPath type Kubernetes knows. A broken copy of each export
# (a string for replicas, a misspelt field, a mount without its volume)
# must fail, so the validator is seen to bite. The jobs run the run's
# preflight.sh first.
set -u

: "${JOBPREP:?}" "${TOP_SRCDIR:?}"
. "$TOP_SRCDIR/tests/lib/report.sh"
PY=/usr/bin/python3
"$PY" -c 'import yaml; from jsonschema import Draft202012Validator' 2>/dev/null ||
	jp_skip_all "python3 with PyYAML and jsonschema is needed (apt-get install python3-yaml python3-jsonschema)"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-export-crd.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM

"$PY" - "$scratch" <<'PY' || exit 1
import json, os, sys
s = sys.argv[1]
for d in ("shared/projects/p", "shared/data/text", "public/models/llama"):
    os.makedirs(s + "/" + d, exist_ok=True)
profile = {"sandbox": True, "shared_roots": [s + "/shared"], "public_roots": [s + "/public"]}
for workers in (1, 4):
    for public in (False, True):
        name = "crd-%d%s" % (workers, "-public" if public else "")
        out = s + "/shared/outputs/" + name + "/run-001"
        data = [{"name": "text", "path": s + "/shared/data/text", "kind": "team", "read_only": False}]
        if public:
            data.append({"name": "llama", "path": s + "/public/models/llama", "kind": "public",
                         "read_only": True})
        m = {"schema_version": 1, "generator": {"name": "jobprep", "version": "0.1.0"},
             "created_at": "2026-12-01T10:00:00Z",
             "job": {"name": name, "workers": workers, "gpus_per_worker": 8,
                     "launch_command": "cd \"$PROJECT_DIR\" && torchrun --nnodes=\"$WORLD_SIZE\" "
                                       "--node_rank=\"$RANK\" train.py --out \"$CHECKPOINT_DIR\"",
                     "env": {"NCCL_DEBUG": "WARN"}},
             "code": {"source": "image", "path": "/workspace/app",
                      "image": "registry.example.com/team/train:v1"},
             "data": data,
             "outputs": {"output_dir": out, "checkpoint_dir": out + "/checkpoints",
                         "log_dir": out + "/logs"},
             "checks": [], "profile": profile}
        with open(s + "/" + name + ".json", "w") as f:
            json.dump(m, f)
PY

for job in crd-1 crd-1-public crd-4 crd-4-public crd-4-filled; do
	fill=
	[ "$job" = crd-4-filled ] && fill="--namespace team-a --queue gpu-queue --priority-class high"
	# shellcheck disable=SC2086 # the options are words
	"$JOBPREP" export --to pytorchjob -o "$scratch/$job.yaml" $fill "$scratch/${job%-filled}.json" \
		>"$scratch/$job.err" 2>&1
	rc=$?
	jp_expect "$job: exported" [ "$rc" = 0 ]
	[ "$rc" = 0 ] || echo "# $job: export exited $rc: $(cat "$scratch/$job.err")"
done

# An image the manifest names is the manifest's: edited by hand, the next
# export -o puts the manifest's back (only --image overrides it).
cp "$scratch/crd-1.yaml" "$scratch/own-image.yaml"
sed -i 's|image: "registry.example.com/team/train:v1"|image: "mine:2"|' "$scratch/own-image.yaml"
if "$JOBPREP" export --to pytorchjob -o "$scratch/own-image.yaml" "$scratch/crd-1.json" 2>"$scratch/own.err" &&
	grep -q 'image: "registry.example.com/team/train:v1"$' "$scratch/own-image.yaml"; then
	jp_pass "the manifest's image is the manifest's"
else
	jp_fail "the manifest's image is the manifest's" "not put back: $(cat "$scratch/own.err")"
fi

# the validator says "pass CASE" or "fail CASE: WHY", a line a case
"$PY" - "$scratch" "$TOP_SRCDIR/tests/data/kubeflow/pytorchjobs.crd.yaml" >"$scratch/cases" 2>"$scratch/py.err" <<'PY'
import copy, re, sys, yaml
from jsonschema import Draft202012Validator

s, crd_path = sys.argv[1], sys.argv[2]
crd = yaml.safe_load(open(crd_path))
(version,) = [v for v in crd["spec"]["versions"] if v["name"] == "v1"]
openapi = version["schema"]["openAPIV3Schema"]

RANGES = {"int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1)}

def to_json_schema(node):
    """openAPIV3Schema as the API server and kubectl --validate=strict read it."""
    if isinstance(node, list):
        return [to_json_schema(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: to_json_schema(v) for k, v in node.items() if not k.startswith("x-kubernetes-")}
    fmt = out.pop("format", None)
    if fmt in RANGES and out.get("type") == "integer":
        out["minimum"], out["maximum"] = RANGES[fmt]
    if "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return out

schema = to_json_schema(openapi)
Draft202012Validator.check_schema(schema)
validator = Draft202012Validator(schema)

DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
DNS_SUBDOMAIN = re.compile(r"^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
HOSTPATH_TYPES = {"", "DirectoryOrCreate", "Directory", "FileOrCreate", "File", "Socket",
                  "CharDevice", "BlockDevice"}

def problems(doc):
    """Every way doc is not a PyTorchJob the cluster would run."""
    found = ["schema: %s at %s" % (e.message, "/".join(map(str, e.absolute_path)))
             for e in validator.iter_errors(doc)]
    if found:
        return found
    if doc.get("apiVersion") != "kubeflow.org/v1" or doc.get("kind") != "PyTorchJob":
        found.append("apiVersion/kind %r/%r" % (doc.get("apiVersion"), doc.get("kind")))
    if not DNS_SUBDOMAIN.match(doc.get("metadata", {}).get("name", "")):
        found.append("metadata.name is not a DNS subdomain")
    specs = doc["spec"]["pytorchReplicaSpecs"]
    if not set(specs) <= {"Master", "Worker"} or "Master" not in specs:
        found.append("replica types %r" % sorted(specs))
    if specs.get("Master", {}).get("replicas") != 1:
        found.append("Master replicas must be 1")
    for role, r in specs.items():
        if r.get("replicas", 1) < 1:
            found.append(role + " replicas < 1")
        if r.get("restartPolicy") not in (None, "Always", "OnFailure", "ExitCode", "Never"):
            found.append(role + " restartPolicy")
        pod = r["template"]["spec"]
        names = [v["name"] for v in pod.get("volumes", [])]
        if len(names) != len(set(names)):
            found.append(role + ": volume names repeat")
        for v in pod.get("volumes", []):
            if not DNS_LABEL.match(v["name"]):
                found.append("volume name %r" % v["name"])
            if "hostPath" in v and v["hostPath"].get("type", "") not in HOSTPATH_TYPES:
                found.append("hostPath type %r" % v["hostPath"].get("type"))
        for c in pod["containers"]:
            if not DNS_LABEL.match(c["name"]):
                found.append("container name %r" % c["name"])
            for vm in c.get("volumeMounts", []):
                if vm["name"] not in names:
                    found.append("volumeMount %r names no volume" % vm["name"])
    return found

for job, workers, public in (("crd-1", 1, False), ("crd-1-public", 1, True),
                             ("crd-4", 4, False), ("crd-4-public", 4, True),
                             ("crd-4-filled", 4, False)):
    doc = yaml.safe_load(open("%s/%s.yaml" % (s, job)))
    p = problems(doc)
    specs = doc["spec"]["pytorchReplicaSpecs"]
    if workers == 1 and "Worker" in specs:
        p.append("one Worker, but a Worker replica spec")
    if workers == 4 and specs.get("Worker", {}).get("replicas") != 3:
        p.append("4 Workers: expected Master 1 + Worker 3")
    mounts = specs["Master"]["template"]["spec"]["containers"][0]["volumeMounts"]
    ro = [m["mountPath"] for m in mounts if m.get("readOnly")]
    if public and ro != [s + "/public"]:
        p.append("the public data root is not mounted read-only: %r" % ro)
    if job.endswith("-filled"):
        meta = doc["metadata"]
        if meta.get("namespace") != "team-a" or meta.get("labels") != {"kueue.x-k8s.io/queue-name": "gpu-queue"}:
            p.append("--namespace/--queue are not the job's metadata: %r" % meta)
        if any(r["template"]["spec"].get("priorityClassName") != "high" for r in specs.values()):
            p.append("--priority-class is not every Pod's priorityClassName")
    cmd = specs["Master"]["template"]["spec"]["containers"][0]["command"][2]
    if 'sh "$OUTPUT_DIR/preflight.sh" || exit 1\n' not in cmd:
        p.append("the command does not run the preflight first")
    if p:
        print("fail %s: a valid PyTorchJob: %s" % (job, "; ".join(p)))
    else:
        print("pass %s: a valid PyTorchJob" % job)

    # the validator bites: each broken copy must fail
    breakers = {
        "replicas as a string": lambda d: d["spec"]["pytorchReplicaSpecs"]["Master"].__setitem__("replicas", "1"),
        "a misspelt field": lambda d: d["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0].__setitem__("volumeMount", []),
        "a mount without its volume": lambda d: d["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"].__setitem__("volumes", []),
        "a container without a name": lambda d: d["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0].pop("name"),
        "replicas beyond int32": lambda d: d["spec"]["pytorchReplicaSpecs"]["Master"].__setitem__("replicas", 2**31),
    }
    for what, brk in breakers.items():
        bad = copy.deepcopy(doc)
        brk(bad)
        if problems(bad):
            print("pass %s: %s is refused" % (job, what))
        else:
            print("fail %s: %s is refused: it passed the validation" % (job, what))
PY
rc=$?
while IFS= read -r line; do
	case $line in
	"pass "*) jp_pass "${line#pass }" ;;
	"fail "*) jp_fail "${line#fail }" ;;
	*) echo "# $line" ;;
	esac
done <"$scratch/cases"
jp_expect the_validator_ran_to_its_end [ "$rc" = 0 ]
jp_show_if_failed "$scratch/py.err"
jp_done
