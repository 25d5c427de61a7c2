#!/usr/bin/env python3
"""An http server on loopback that misbehaves the ways a download must
survive (issue 30), for tests/integration/stage_http_exact.sh and the
stage bench:

    odd_server.py DIR PORT MODE

serves the files under DIR (GET and HEAD, one request a connection) with a
strong ETag, Last-Modified, Accept-Ranges: bytes, and honours Range and
If-Range (a stale If-Range gets the whole file, 200). MODE is what is odd:

  plain      nothing (the healthy twin)
  cap=N      a 206 carries at most N bytes (a correct Content-Range and
             Content-Length for what it carries), as some CDNs do
  cut=N      every answer's body ends after N bytes (the connection
             closed: a proxy dying), a 206 sent without a Content-Length
  nolength   HEAD and GET answer without a Content-Length (the body ends
             when the connection closes)
  trickle    the body comes at 2 bytes a second
  silent     connections are taken and never answered

Each request is one line in DIR/../requests.log: `METHOD PATH STATUS
range=R sent=BYTES`. Writes DIR/../server.up once it listens.
"""
import email.utils
import hashlib
import http.server
import os
import socket
import sys
import threading
import time

ROOT, PORT, MODE = sys.argv[1], int(sys.argv[2]), sys.argv[3]
LOG = os.path.join(os.path.dirname(os.path.abspath(ROOT)), "requests.log")
lock = threading.Lock()


def log(line):
    with lock:
        with open(LOG, "a") as f:
            f.write(line + "\n")


def arg(name):
    return int(MODE.split("=", 1)[1]) if MODE.startswith(name + "=") else 0


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def answer(self, body):
        path = os.path.join(ROOT, self.path.lstrip("/").split("?")[0])
        if not os.path.isfile(path):
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.send_header("Connection", "close")
            self.end_headers()
            log("%s %s 404 range=- sent=0" % (self.command, self.path))
            return
        st = os.stat(path)
        size = st.st_size
        etag = '"%s"' % hashlib.sha1(("%d-%d" % (st.st_mtime_ns, size)).encode()).hexdigest()[:16]
        first, last, status = 0, size - 1, 200
        rng = self.headers.get("Range")
        ifr = self.headers.get("If-Range")
        if rng and rng.startswith("bytes=") and (ifr is None or ifr == etag):
            a, _, b = rng[6:].partition("-")
            first = int(a)
            last = min(int(b), size - 1) if b else size - 1
            status = 206
            if arg("cap") and last - first + 1 > arg("cap"):
                last = first + arg("cap") - 1
        n = max(0, last - first + 1)
        self.send_response(status)
        self.send_header("ETag", etag)
        self.send_header("Last-Modified", email.utils.formatdate(st.st_mtime, usegmt=True))
        self.send_header("Accept-Ranges", "bytes")
        if status == 206:
            self.send_header("Content-Range", "bytes %d-%d/%d" % (first, last, size))
        if not ((MODE.startswith("cut=") and status == 206) or MODE == "nolength"):
            self.send_header("Content-Length", str(n))
        self.send_header("Connection", "close")
        self.end_headers()
        sent = 0
        if body:
            if arg("cut"):
                n = min(n, arg("cut"))
            with open(path, "rb") as f:
                f.seek(first)
                try:
                    while sent < n:
                        step = 2 if MODE == "trickle" else 1 << 16
                        chunk = f.read(min(step, n - sent))
                        self.wfile.write(chunk)
                        sent += len(chunk)
                        if MODE == "trickle":
                            self.wfile.flush()
                            time.sleep(1)
                except OSError:
                    pass
        log("%s %s %d range=%s sent=%d" % (self.command, self.path, status, rng or "-", sent))
        self.close_connection = True

    def do_GET(self):
        self.answer(True)

    def do_HEAD(self):
        self.answer(False)


if MODE == "silent":
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", PORT))
    s.listen(16)
    open(os.path.join(os.path.dirname(os.path.abspath(ROOT)), "server.up"), "w").write("up")
    held = []
    while True:
        held.append(s.accept()[0])
srv = http.server.ThreadingHTTPServer(("127.0.0.1", PORT), Handler)
srv.daemon_threads = True
open(os.path.join(os.path.dirname(os.path.abspath(ROOT)), "server.up"), "w").write("up")
srv.serve_forever()
