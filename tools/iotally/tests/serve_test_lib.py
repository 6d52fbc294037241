# SPDX-License-Identifier: GPL-2.0-or-later
"""What the host tests of iotally serve share: TAP-like checks and a port."""
import signal
import socket
import subprocess
import time
import urllib.request

failures = []


def check(ok, what):
    print(("ok - " if ok else "not ok - ") + what)
    if not ok:
        failures.append(what)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scrape(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as r:
        return r.read().decode()


def first_scrape(serve, port):
    """The first scrape of a serve just started, or None if it exited first
    or did not answer within 10 s."""
    for _ in range(100):
        if serve.poll() is not None:
            return None
        try:
            return scrape(port)
        except OSError:
            time.sleep(0.1)
    return None


def stop(serve):
    """SIGTERM to a serve, then its exit status (None if it had to be killed
    after 30 s) and what it said on stderr."""
    serve.send_signal(signal.SIGTERM)
    try:
        rc = serve.wait(timeout=30)
    except subprocess.TimeoutExpired:
        serve.kill()
        rc = None
    return rc, serve.stderr.read()
