# sftp-server behind a proxy, for the tests that make a network mount
# misbehave on chosen requests (sshfs -o sftp_server=SCRIPT). The test
# copies this file beside its SCRIPT, which imports it and calls
# run(handle): each request the client sends (its packet: a 4-byte length,
# then the body, whose first byte is the request's type) goes to
# handle(packet, body, send), which passes it on to the real server with
# send(packet), at once, later (from another thread), or after holding
# this loop and so every request behind it. Replies go back as they come;
# on_start(send), if given, is called once before the first request.
import os
import struct
import subprocess
import threading
import time

SERVER = "/usr/lib/openssh/sftp-server"


def path_of(body):
    """The first string of a request (the path of OPEN, LSTAT, STAT...)."""
    n = struct.unpack(">I", body[5:9])[0]
    return body[9:9 + n].decode("utf-8", "replace")


def run(handle, on_start=None):
    srv = subprocess.Popen([SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           bufsize=0)
    lock = threading.Lock()

    def send(packet):
        with lock:
            srv.stdin.write(packet)

    def back():
        while True:
            b = os.read(srv.stdout.fileno(), 65536)
            if not b:
                os._exit(0)
            os.write(1, b)

    def read_n(n):
        b = b""
        while len(b) < n:
            c = os.read(0, n - len(b))
            if not c:
                srv.stdin.close()
                srv.wait()
                os._exit(0)
            b += c
        return b

    threading.Thread(target=back, daemon=True).start()
    if on_start:
        on_start(send)  # a thread of the script's own, given send
    while True:
        head = read_n(4)
        body = read_n(struct.unpack(">I", head)[0])
        handle(head + body, body, send)


def run_holding(hold, held_log):
    """run() with requests held back while the file HOLD exists: each
    request for which hold(body) is true is held ("held" to HELD_LOG) and
    sent on, in order, once HOLD is gone; every other goes through."""
    flag = os.path.join(os.path.dirname(held_log), "hold")
    lock = threading.Lock()
    held = []

    def handle(packet, body, send):
        if hold(body):
            with lock:
                if os.path.exists(flag):
                    with open(held_log, "a") as f:
                        f.write("held\n")
                    held.append(packet)
                    return
        send(packet)

    def release(send):
        while True:
            time.sleep(0.05)
            if not os.path.exists(flag):
                with lock:
                    while held:
                        send(held.pop(0))

    run(handle, on_start=lambda send: threading.Thread(
        target=release, args=(send,), daemon=True).start())
