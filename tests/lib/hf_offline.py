#!/usr/bin/env python3
"""What huggingface_hub does to load a file with HF_HUB_OFFLINE=1, for the
tests of `jobprep stage hf://` (python3-huggingface-hub is not in Debian
12, so the test cannot run the library itself):

    hf_offline.py HF_HOME KIND REPO_ID FILENAME [REVISION]

prints the path huggingface_hub would open and the SHA-256 of its bytes,
or fails (exit 1) saying why. It follows the documented cache layout
(https://huggingface.co/docs/huggingface_hub/guides/manage-cache, and
file_download.py's try_to_load_from_cache, repo_folder_name,
_create_symlink, _cache_commit_hash_for_specific_revision):

- the cache is $HF_HUB_CACHE, by default $HF_HOME/hub;
- a repository's folder is "{kind}s--" + REPO_ID with "/" as "--";
- refs/REVISION holds the commit, read as it is (no strip: a newline
  would make it another commit), which must match ^[0-9a-f]{40}$; a
  REVISION that is itself a commit needs no ref;
- snapshots/COMMIT/FILENAME must exist (followed);
- and, as huggingface_hub writes them, it is a relative symlink into
  blobs/, named after the ETag: an LFS file's SHA-256 (64 hex), else its
  git blob id (SHA-1 of "blob SIZE\\0" + bytes).
"""
import hashlib
import os
import re
import sys

home, kind, repo_id, filename = sys.argv[1:5]
revision = sys.argv[5] if len(sys.argv) > 5 else "main"
cache = os.environ.get("HF_HUB_CACHE") or os.path.join(home, "hub")
folder = os.path.join(cache, "%ss--%s" % (kind, repo_id.replace("/", "--")))


def fail(msg):
    print("hf_offline: " + msg, file=sys.stderr)
    sys.exit(1)


if re.fullmatch(r"[0-9a-f]{40}", revision):
    commit = revision
else:
    try:
        with open(os.path.join(folder, "refs", revision)) as f:
            commit = f.read()
    except OSError as e:
        fail("no ref %s: %s" % (revision, e))
    if not re.fullmatch(r"[0-9a-f]{40}", commit):
        fail("refs/%s holds %r, not a commit" % (revision, commit))
path = os.path.join(folder, "snapshots", commit, filename)
if not os.path.isfile(path):
    fail("%s is not there" % path)
target = os.readlink(path)
if os.path.isabs(target):
    fail("%s is an absolute link (%s)" % (path, target))
blob = os.path.normpath(os.path.join(os.path.dirname(path), target))
if os.path.dirname(blob) != os.path.join(folder, "blobs"):
    fail("%s leads to %s, not into blobs/" % (path, blob))
with open(path, "rb") as f:
    data = f.read()
sha256 = hashlib.sha256(data).hexdigest()
git = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
if os.path.basename(blob) not in (sha256, git):
    fail("blob %s is neither the SHA-256 nor the git id of its bytes" % blob)
print(path, sha256)
