#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# `iotally serve --listen ... --otlp URL` on this host, the real binary: its
# timer pushes every --interval (0.5 s) to a fake OTLP receiver on loopback whose
# first request hangs for 3 s; meanwhile GET /metrics still answers at once
# (the push never blocks a scrape), the requests pile up in the queue and
# are sent when the receiver answers again, the iotally_otlp_* families
# count them, and SIGTERM stops it with status 0.
# Exit 0 if all holds, 1 with the reasons, 77 (skipped) where serve cannot
# run here at all (device-mapper loaded but this user may not use it).
#
#   test_serve_otlp.py IOTALLY
import http.server
import re
import subprocess
import sys
import threading
import time

from serve_test_lib import check, failures, first_scrape, free_port, scrape, stop

iotally = sys.argv[1]


posts = []
lock = threading.Lock()


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with lock:
            first = not posts
            posts.append((self.path, self.headers.get("Content-Type"), body))
        if first:
            time.sleep(3)  # a receiver that hangs
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
threading.Thread(target=receiver.serve_forever, daemon=True).start()
otlp = f"http://127.0.0.1:{receiver.server_address[1]}/v1/metrics"


def sample(text, name):
    m = re.search(r"^" + re.escape(name) + r" (\S+)$", text, re.M)
    return float(m.group(1)) if m else None


port = free_port()
serve = subprocess.Popen([iotally, "serve", "--listen", f"127.0.0.1:{port}", "--otlp", otlp,
                          "--interval", "0.5"], stderr=subprocess.PIPE, text=True)
text = first_scrape(serve, port)
if text is None:
    err = serve.stderr.read() if serve.poll() is not None else ""
    if serve.poll() is None:
        serve.kill()
    if serve.returncode == 4:
        print(f"skip - device-mapper is loaded and needs root here: {err.strip()}")
        sys.exit(77)
    print(f"not ok - serve answers GET /metrics (exit {serve.returncode}: {err.strip()})")
    sys.exit(1)

# The first push hangs in the receiver for 3 s: scrapes answer meanwhile.
for _ in range(50):
    with lock:
        if posts:
            break
    time.sleep(0.05)
check(len(posts) >= 1, "the timer pushed at start")
time.sleep(1)
t0 = time.monotonic()
text = scrape(port)
took = time.monotonic() - t0
check(took < 1.5, f"GET /metrics answers while the push hangs ({took:.2f} s)")
queued = sample(text, "iotally_otlp_queue_length")
check(queued is not None and queued >= 2,
      f"the pushes of the hung time wait in the queue (iotally_otlp_queue_length {queued})")
check(sample(text, "iotally_otlp_requests_sent_total") == 0, "none sent yet")

# The receiver answers again: the queue drains, in order.
sent = 0
for _ in range(200):
    sent = sample(scrape(port), "iotally_otlp_requests_sent_total") or 0
    if sent >= 5:
        break
    time.sleep(0.1)
check(sent >= 5, f"the queued pushes are sent (iotally_otlp_requests_sent_total {sent})")
text = scrape(port)
check(sample(text, "iotally_otlp_requests_dropped_total") == 0, "nothing dropped (queue of 16)")
check(sample(text, "iotally_otlp_requests_failed_total") == 0,
      "a slow answer is not a failure (within the 10 s timeout)")
with lock:
    got = list(posts)
check(all(p == "/v1/metrics" and t == "application/x-protobuf" for p, t, _ in got),
      "POST /v1/metrics, Content-Type application/x-protobuf")
check(all(b"system.disk.io" in b and b"service.name" in b and b"iotally" in b
          for _, _, b in got), "each request has the disk conventions and the resource")

rc, err = stop(serve)
check(rc == 0, f"SIGTERM stops it with status 0 (got {rc}; stderr: {err.strip()!r})")
check("OTLP push" not in err, f"no OTLP failure said (stderr: {err.strip()!r})")
receiver.shutdown()
sys.exit(1 if failures else 0)
