#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The layers of tools/iotally, as Documentation/iotally-development.rst
draws them: a folder includes only headers of folders below it. A header
belongs to the folder whose source has its name (include/iotally/statistic/statfs.hpp
to src/statistic/statfs.cpp), or to the folder HEADER_OWNERS names for it.
The public headers in include/iotally/ are checked as their folder's
sources are: what one includes, its folder includes. One TAP line per
folder; a circle, an include that runs back up, or a public header of no
folder fails.

usage: check_source_layers.py TOOLS_IOTALLY_DIR
"""
import os
import re
import sys

# Bottom up; folders on one level must not include each other either.
LEVELS = [
    ["util"],
    ["dm-stats", "block", "statistic", "taskstats", "snoop"],
    ["metrics"],
    ["exporter"],
    ["cli"],
]
# Public headers with no source of their name: the folder that implements them.
HEADER_OWNERS = {
    "device": "dm-stats",  # DeviceLayer: src/dm-stats/device_dm.cpp
    "dmstats_counters": "dm-stats",  # the 13 counters' table
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"(?:iotally/)?([\w./-]+)\.hpp"')


def folder_files(top):
    """(folder, path) of every source and private header of ours."""
    for root, _, files in os.walk(os.path.join(top, "src")):
        rel = os.path.relpath(root, os.path.join(top, "src"))
        for f in files:
            if f.endswith((".cpp", ".hpp")):
                yield rel.split(os.sep)[0], os.path.join(root, f)
    for f in os.listdir(os.path.join(top, "cli")):
        if f.endswith((".cpp", ".hpp")):
            yield "cli", os.path.join(top, "cli", f)


def public_headers(top):
    """Every header under include/iotally/, at any depth."""
    for root, _, files in os.walk(os.path.join(top, "include", "iotally")):
        for f in files:
            if f.endswith(".hpp"):
                yield os.path.join(root, f)


def main():
    top = sys.argv[1]
    level = {f: i for i, names in enumerate(LEVELS) for f in names}
    files = list(folder_files(top))
    owner = dict(HEADER_OWNERS)
    for folder, path in files:
        owner.setdefault(os.path.splitext(os.path.basename(path))[0], folder)
    orphans = []
    for path in public_headers(top):
        folder = owner.get(os.path.splitext(os.path.basename(path))[0])
        if folder is None:
            orphans.append(os.path.relpath(path, top))
        else:
            files.append((folder, path))
    unknown = sorted({f for f, _ in files} - set(level))
    ups = {f: [] for f in level}
    for folder, path in files:
        if folder not in level:
            continue
        with open(path, encoding="utf-8", errors="replace") as src:
            for n, line in enumerate(src, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                to = owner.get(os.path.basename(m.group(1)))
                if to is None or to == folder:
                    continue
                if level.get(to, len(LEVELS)) >= level[folder]:
                    ups[folder].append(f"{os.path.relpath(path, top)}:{n}: {m.group(1)}.hpp is {to}'s")
    n = 0
    failed = 0
    for names in LEVELS:
        for folder in names:
            n += 1
            if ups[folder]:
                failed += 1
                print(f"not ok {n} - {folder} includes only folders below it")
                for u in ups[folder]:
                    print(f"#   {u}")
            else:
                print(f"ok {n} - {folder} includes only folders below it")
    n += 1
    if orphans:
        failed += 1
        print(f"not ok {n} - every public header belongs to a folder")
        print(f"#   no folder: {' '.join(sorted(orphans))}")
    else:
        print(f"ok {n} - every public header belongs to a folder")
    n += 1
    if unknown:
        failed += 1
        print(f"not ok {n} - every folder has a level")
        print(f"#   no level: {' '.join(unknown)}")
    else:
        print(f"ok {n} - every folder has a level")
    print(f"1..{n}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
