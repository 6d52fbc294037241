#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# `iotally serve` on this host as it is, with the real device layer: it
# starts whether or not device-mapper is loaded, answers GET /metrics with
# every block device of /sys/block, says whether device-mapper is there
# (iotally_source_up{source="dm"} is 1 when /proc/misc lists device-mapper,
# 0 when it does not), keeps serving, and stops with status 0 on SIGTERM.
# Exit 0 if all holds, 1 with the reasons, 77 (skipped) where serve cannot
# run here at all (device-mapper loaded but this user may not use it).
#
#   test_serve_host.py IOTALLY
import os
import re
import subprocess
import sys

from serve_test_lib import check, failures, first_scrape, free_port, scrape, stop

iotally = sys.argv[1]


def sample(text, name, labels):
    m = re.search(r"^" + re.escape(name + labels) + r" (\S+)$", text, re.M)
    return m.group(1) if m else None


with open("/proc/misc") as f:
    dm_loaded = any(line.split()[1:] == ["device-mapper"] for line in f if line.strip())
disks = sorted(d for d in os.listdir("/sys/block") if os.path.exists(f"/sys/block/{d}/stat"))

port = free_port()
serve = subprocess.Popen([iotally, "serve", "--listen", f"127.0.0.1:{port}"],
                         stderr=subprocess.PIPE, text=True)
text = first_scrape(serve, port)

if text is None:
    err = serve.stderr.read() if serve.poll() is not None else ""
    if serve.poll() is None:
        serve.kill()
    if dm_loaded and serve.returncode == 4:
        print(f"skip - device-mapper is loaded and needs root here: {err.strip()}")
        sys.exit(77)
    print(f"not ok - serve answers GET /metrics (dm loaded: {dm_loaded}; "
          f"exit {serve.returncode}: {err.strip()})")
    sys.exit(1)

check(True, f"serve starts and answers GET /metrics (device-mapper loaded: {dm_loaded})")
want = "1" if dm_loaded else "0"
got = sample(text, "iotally_source_up", '{source="dm"}')
check(got == want, f'iotally_source_up{{source="dm"}} is {want} (got {got})')
got = sample(text, "iotally_source_up", '{source="block"}')
check(got == "1", f'iotally_source_up{{source="block"}} is 1 (got {got})')
for d in disks:
    check(re.search(r'^iotally_device_reads_completed_total\{device="' + re.escape(d) + '"', text,
                    re.M) is not None, f"block device {d} of /sys/block is served")
check(sample(text, "iotally_scrape_errors_total", "") == "0", "no scrape error")

# Still there for a second scrape, and stops cleanly.
text = scrape(port)
check(sample(text, "iotally_scrapes_total", "") == "2", "a second scrape is answered")
rc, err = stop(serve)
check(rc == 0, f"SIGTERM stops it with status 0 (got {rc}; stderr: {err.strip()!r})")
if not dm_loaded:
    check(err.count("dm: device-mapper is not available") == 1,
          f"it says once that device-mapper is missing (stderr: {err.strip()!r})")
sys.exit(1 if failures else 0)
