#!/usr/bin/env python3
"""A Git LFS server for the tests, on loopback: the batch API
(docs/api/batch.md of git-lfs, "basic" transfers), the objects over plain
HTTP, and the lock verification git-lfs asks for before a push.

    lfs_server.py DIR

Serves http://127.0.0.1:PORT/<repo>/info/lfs for any <repo>; PORT is written
to DIR/port once it listens (DIR/port.tmp, then a rename). Objects live in
DIR/objects/<oid>; an upload is checked against its oid and size. Every
request is a line in DIR/access.log ("METHOD PATH STATUS"); a download
writes "GET PATH begun" when its first bytes have gone, so a test can wait
for a download to be under way. What the test may change while it runs:

    DIR/auth   "USER:PASSWORD": the batch API and the lock verification
               need them (HTTP Basic; 401 with LFS-Authenticate otherwise);
               the objects' hrefs it hands out need none ("authenticated",
               as a signed URL)
    DIR/rate   bytes per second for downloads (a slow server)
    DIR/hang   while it exists, a download sends its first 64 KiB, then
               nothing more (a server that stopped answering)
"""
import base64
import hashlib
import json
import os
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DIR = sys.argv[1]
OBJECTS = os.path.join(DIR, "objects")
LOG_LOCK = threading.Lock()
LFS_JSON = "application/vnd.git-lfs+json"
OID = re.compile(r"^[0-9a-f]{64}$")


def log(line):
    with LOG_LOCK, open(os.path.join(DIR, "access.log"), "a") as f:
        f.write(line + "\n")


def rate():
    try:
        with open(os.path.join(DIR, "rate")) as f:
            return int(f.read().strip() or 0)
    except (OSError, ValueError):
        return 0


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def reply(self, status, body=b"", ctype=LFS_JSON):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        log("%s %s %d" % (self.command, self.path, status))

    def reply_json(self, status, obj):
        self.reply(status, json.dumps(obj).encode())

    def authorized(self):
        """True when no DIR/auth is set, or the request carries it; else a 401
        has been sent (and the body read)."""
        try:
            with open(os.path.join(DIR, "auth")) as f:
                want = "Basic " + base64.b64encode(f.read().strip().encode()).decode()
        except OSError:
            return True
        if self.headers.get("Authorization") == want:
            return True
        self.body()
        self.send_response(401)
        self.send_header("LFS-Authenticate", 'Basic realm="lfs"')
        self.send_header("WWW-Authenticate", 'Basic realm="lfs"')
        body = json.dumps({"message": "Credentials needed"}).encode()
        self.send_header("Content-Type", LFS_JSON)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        log("%s %s 401" % (self.command, self.path))
        return False

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def base(self):
        """http://host:port/<repo>/info/lfs of this request, or None."""
        m = re.match(r"^(/.+?/info/lfs)/", self.path)
        if not m:
            return None
        return "http://%s%s" % (self.headers.get("Host"), m.group(1))

    def do_POST(self):
        if not self.authorized():
            return
        base = self.base()
        if base and self.path.endswith("/objects/batch"):
            return self.batch(base, json.loads(self.body() or b"{}"))
        if base and self.path.endswith("/locks/verify"):
            self.body()
            return self.reply_json(200, {"ours": [], "theirs": []})
        self.body()
        self.reply_json(404, {"message": "not found"})

    def batch(self, base, req):
        up = req.get("operation") == "upload"
        out = []
        for o in req.get("objects", []):
            oid, size = o.get("oid", ""), o.get("size", 0)
            item = {"oid": oid, "size": size, "authenticated": True}
            there = OID.match(oid) and os.path.exists(os.path.join(OBJECTS, oid))
            href = {"href": "%s/objects/%s" % (base, oid), "expires_in": 3600}
            if up and not there:
                item["actions"] = {"upload": href}
            elif not up and there:
                item["actions"] = {"download": href}
            elif not up:
                item["error"] = {"code": 404, "message": "Object does not exist"}
            out.append(item)
        self.reply_json(200, {"transfer": "basic", "objects": out, "hash_algo": "sha256"})

    def oid(self):
        oid = self.path.rsplit("/", 1)[-1]
        return oid if OID.match(oid) and "/info/lfs/objects/" in self.path else None

    def do_PUT(self):
        oid, data = self.oid(), self.body()
        if not oid or hashlib.sha256(data).hexdigest() != oid:
            return self.reply_json(422, {"message": "oid does not match the content"})
        tmp = os.path.join(OBJECTS, ".%s.%d" % (oid, threading.get_ident()))
        with open(tmp, "wb") as f:
            f.write(data)
        os.rename(tmp, os.path.join(OBJECTS, oid))
        self.reply(200, b"", "text/plain")

    def do_GET(self):
        oid = self.oid()
        path = os.path.join(OBJECTS, oid) if oid else None
        if not path or not os.path.exists(path):
            return self.reply_json(404, {"message": "Object does not exist"})
        with open(path, "rb") as f:
            data = f.read()
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        log("%s %s %d" % (self.command, self.path, 200))
        self.send_body(data)

    def send_body(self, data):
        sent, chunk, begun = 0, 16384, False
        while sent < len(data):
            if sent >= 65536 and os.path.exists(os.path.join(DIR, "hang")):
                time.sleep(0.05)  # the server's own pace, not a test's wait
                continue
            piece = data[sent:sent + chunk]
            try:
                self.wfile.write(piece)
                self.wfile.flush()
            except OSError:
                return
            sent += len(piece)
            if not begun:
                begun = True
                log("GET %s begun" % self.path)
            r = rate()
            if r:
                time.sleep(len(piece) / r)


def main():
    os.makedirs(OBJECTS, exist_ok=True)
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    with open(os.path.join(DIR, "port.tmp"), "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(os.path.join(DIR, "port.tmp"), os.path.join(DIR, "port"))
    srv.serve_forever()


if __name__ == "__main__":
    main()
