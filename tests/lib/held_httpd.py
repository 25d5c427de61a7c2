#!/usr/bin/env python3
# held_httpd.py ROOT FLAG PORTFILE: a web server on loopback for the folder
# ROOT whose answers to GET send their headers, then hold the body while
# the file FLAG exists (work the wizard starts ends when the test lets go);
# its port is written to PORTFILE once it listens.
import functools, http.server, os, sys, time

root, flag, portfile = sys.argv[1], sys.argv[2], sys.argv[3]

class Held(http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
        f = self.send_head()
        if not f:
            return
        self.wfile.flush()
        while os.path.exists(flag):
            time.sleep(0.05)
        try:
            self.copyfile(f, self.wfile)
        finally:
            f.close()

    def log_message(self, *args):
        pass

srv = http.server.ThreadingHTTPServer(
    ("127.0.0.1", 0), functools.partial(Held, directory=root))
with open(portfile + ".tmp", "w") as p:
    p.write(str(srv.server_address[1]))
os.rename(portfile + ".tmp", portfile)
srv.serve_forever()
