#!/usr/bin/env python3
"""A Hugging Face Hub on loopback, for the tests of `jobprep stage hf://`.

    hf_hub.py ROOT PORT CDN_PORT

serves the repositories under ROOT/models/ORG/NAME/ and
ROOT/datasets/ORG/NAME/ (their files, as they are) the way the Hub does
(huggingface_hub's file_download.py and hf_api.py are what it answers):

  GET  /api/models/ORG/NAME/revision/REV     (and /api/datasets/...)
       {"id", "sha": COMMIT, "siblings": [{"rfilename"}]}; REV "main" or
       the commit, else 404; with ?blobs=true each sibling has its "blobId"
       and "size", and an LFS file its "lfs": {"sha256", "size"}
  HEAD|GET /ORG/NAME/resolve/REV/FILE        (and /datasets/ORG/NAME/...)
       X-Repo-Commit: COMMIT; a small file is answered here, ETag its git
       blob id (SHA-1 of "blob SIZE\\0" and its bytes); a file of LFS_MIN
       bytes or more is an LFS file: 302 to the CDN (127.0.0.2:CDN_PORT),
       X-Linked-Etag its SHA-256, X-Linked-Size its size
  GET|HEAD on the CDN /blob/SHA256           the bytes, with Range and
       If-Range, ETag "SHA256", Accept-Ranges: bytes

COMMIT is a SHA-1 over the files' names and ids, so it changes when a file
does. ROOT/config.json, read at each request, changes what it does:
{"token": T} asks for "Authorization: Bearer T" on the Hub's own URLs
(401 without); {"noblobs": true} ignores ?blobs=true; {"renamed": {OLD: NEW}} answers OLD's URLs with a
relative redirect (307) to NEW's, as the Hub does for a renamed
repository; {"corrupt": [FILE]} serves other bytes for FILE than its
id says; {"extra": [NAME]} lists NAME among the siblings; {"kbps": N}
slows each answer's body to N KiB/s; {"cap": N} makes each 206 of the
CDN carry at most N bytes (a correct Content-Range). Each request is one line in
ROOT/requests.log: `HOST METHOD PATH STATUS range=R auth=yes|no`.
"""
import hashlib
import http.server
import json
import os
import re
import sys
import threading
import time
import urllib.parse

ROOT, PORT, CDN_PORT = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
LFS_MIN = 1 << 20
LOCK = threading.Lock()


def config():
    try:
        with open(os.path.join(ROOT, "config.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def git_id(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


IDS = {}  # path -> ((mtime, size), git id, sha256): a file is hashed once


def ids(path):
    st = os.stat(path)
    key = (st.st_mtime_ns, st.st_size)
    with LOCK:
        got = IDS.get(path)
    if got and got[0] == key:
        return got[1], got[2]
    g, s = hashlib.sha1(b"blob %d\0" % st.st_size), hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            g.update(chunk)
            s.update(chunk)
    with LOCK:
        IDS[path] = (key, g.hexdigest(), s.hexdigest())
    return g.hexdigest(), s.hexdigest()


def repo_files(kind, repo):
    base = os.path.join(ROOT, kind, repo)
    if not os.path.isdir(base) or repo.count("/") != 1:
        return None, None
    files = []
    for d, _, names in os.walk(base):
        for n in names:
            files.append(os.path.relpath(os.path.join(d, n), base))
    files.sort()
    h = hashlib.sha1()
    for n in files:
        h.update(n.encode() + b"\0" + ids(os.path.join(base, n))[0].encode())
    return base, (files, h.hexdigest())


def blob_by_sha256(sha):
    for kind in ("models", "datasets"):
        for d, _, names in os.walk(os.path.join(ROOT, kind)):
            for n in names:
                p = os.path.join(d, n)
                if os.path.getsize(p) >= LFS_MIN and ids(p)[1] == sha:
                    return p
    return None


class Hub(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def note(self, status):
        line = "%s %s %s %d range=%s auth=%s\n" % (
            self.headers.get("Host", "?"), self.command, self.path, status,
            self.headers.get("Range", "-"),
            "yes" if self.headers.get("Authorization") else "no")
        with LOCK, open(os.path.join(ROOT, "requests.log"), "a") as f:
            f.write(line)

    def answer(self, status, headers=(), body=b""):
        self.note(status)
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.body(body)

    def body(self, data):
        kbps = config().get("kbps", 0)
        if not kbps:
            self.wfile.write(data)
            return
        step = 16384
        for i in range(0, len(data), step):
            self.wfile.write(data[i:i + step])
            self.wfile.flush()
            time.sleep(step / 1024.0 / kbps)

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        try:
            if self.server.server_address[1] == CDN_PORT:
                return self.cdn()
            return self.hub()
        except (BrokenPipeError, ConnectionResetError):
            pass

    def authorized(self):
        tok = config().get("token")
        return not tok or self.headers.get("Authorization") == "Bearer " + tok

    def hub(self):
        path = urllib.parse.unquote(self.path.split("?")[0])
        if not self.authorized():
            return self.answer(401, [("Content-Type", "application/json")],
                               b'{"error": "Invalid credentials"}')
        for old, new in config().get("renamed", {}).items():
            for pre in ("/api/models/", "/api/datasets/", "/", "/datasets/"):
                if self.path.startswith(pre + old + "/"):
                    return self.answer(307, [("Location", pre + new + self.path[len(pre + old):])])
        url = urllib.parse.urlsplit(self.path)
        m = re.match(r"^/api/(models|datasets)/(.+)/revision/([^/]+)$", url.path)
        if m:
            blobs = urllib.parse.parse_qs(url.query).get("blobs") == ["true"]
            return self.revision(m.group(1), urllib.parse.unquote(m.group(2)),
                                 urllib.parse.unquote(m.group(3)),
                                 blobs and not config().get("noblobs"))
        m = re.match(r"^/(datasets/)?([^/]+/[^/]+)/resolve/([^/]+)/(.+)$", path)
        if m:
            return self.resolve("datasets" if m.group(1) else "models", m.group(2),
                                m.group(3), m.group(4))
        self.answer(404)

    def revision(self, kind, repo, rev, blobs):
        base, info = repo_files(kind, repo)
        if not base or rev not in ("main", info[1]):
            return self.answer(404, [("Content-Type", "application/json")],
                               b'{"error": "Repository not found"}')
        siblings = []
        for n in info[0]:
            sib = {"rfilename": n}
            if blobs:
                p = os.path.join(base, n)
                size = os.path.getsize(p)
                gid, sha = ids(p)
                sib.update({"blobId": gid, "size": size})
                if size >= LFS_MIN:
                    sib["lfs"] = {"sha256": sha, "size": size, "pointerSize": 134}
            siblings.append(sib)
        siblings += [{"rfilename": n} for n in config().get("extra", [])]
        body = json.dumps({"id": repo, "sha": info[1], "siblings": siblings}).encode()
        self.answer(200, [("Content-Type", "application/json")], body)

    def resolve(self, kind, repo, rev, name):
        base, info = repo_files(kind, repo)
        if not base or rev not in ("main", info[1]) or name not in info[0]:
            return self.answer(404, [("X-Error-Code", "EntryNotFound")])
        path = os.path.join(base, name)
        common = [("X-Repo-Commit", info[1])]
        size = os.path.getsize(path)
        if size >= LFS_MIN:
            gid, sha = ids(path)
            return self.answer(302, common + [
                ("X-Linked-Etag", '"%s"' % sha), ("X-Linked-Size", str(size)),
                ("ETag", '"%s"' % gid),
                ("Location", "http://127.0.0.2:%d/blob/%s" % (CDN_PORT, sha))])
        with open(path, "rb") as f:
            data = f.read()
        etag = '"%s"' % git_id(data)
        if name in config().get("corrupt", []):
            data = b"not " + data
        self.answer(200, common + [("ETag", etag)], data)

    def cdn(self):
        m = re.match(r"^/blob/([0-9a-f]{64})$", self.path)
        p = blob_by_sha256(m.group(1)) if m else None
        if p is None:
            return self.answer(404)
        size = os.path.getsize(p)
        corrupt = os.path.basename(p) in config().get("corrupt", [])
        etag = '"%s"' % m.group(1)
        head = [("ETag", etag), ("Accept-Ranges", "bytes")]
        rng = self.headers.get("Range")
        ifr = self.headers.get("If-Range")
        r = re.match(r"^bytes=(\d+)-(\d*)$", rng or "")
        a, b, status = 0, size - 1, 200
        if r and (not ifr or ifr == etag):
            a = int(r.group(1))
            b = min(int(r.group(2)) if r.group(2) else size - 1, size - 1)
            if a >= size:
                return self.answer(416, [("Content-Range", "bytes */%d" % size)])
            status = 206
            cap = config().get("cap", 0)
            if cap and b - a + 1 > cap:
                b = a + cap - 1
            head.append(("Content-Range", "bytes %d-%d/%d" % (a, b, size)))
        self.note(status)
        self.send_response(status)
        for k, v in head:
            self.send_header(k, v)
        self.send_header("Content-Length", str(b - a + 1))
        self.end_headers()
        if self.command == "HEAD":
            return
        with open(p, "rb") as f:
            f.seek(a)
            left = b - a + 1
            while left > 0:
                chunk = f.read(min(left, 1 << 20))
                if not chunk:
                    break
                if corrupt and a == 0 and left == b + 1:
                    chunk = bytes([chunk[0] ^ 1]) + chunk[1:]
                self.body(chunk)
                left -= len(chunk)


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # 8 workers connecting at once: no SYN dropped
    allow_reuse_address = True


hub = Server(("127.0.0.1", PORT), Hub)
cdn = Server(("127.0.0.2", CDN_PORT), Hub)
threading.Thread(target=cdn.serve_forever, daemon=True).start()
with open(os.path.join(ROOT, "hub.pid"), "w") as f:
    f.write("%d\n" % os.getpid())
hub.serve_forever()
