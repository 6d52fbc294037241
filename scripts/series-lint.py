#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Helpers of scripts/check-patches.sh for the checks of the mail series
# that reach beyond checkpatch:
#
#   series-lint.py added-only SRC BASE     (warnings on stdin)
#       keep the "PATH:LINE:..." warnings of sparse or kernel-doc that are
#       on a line the series added (a file of ours: every line; a file of
#       the pristine tree: the lines git diff BASE HEAD adds), so that the
#       pristine tree's own warnings are not charged to the series
#   series-lint.py toctree SRC BASE
#       every .rst the series adds under Documentation/ is named by a
#       toctree of the tree after the series, and every Documentation/
#       page a file of the series names exists there
import os
import re
import subprocess
import sys


def git(src, *args):
    return subprocess.run(["git", "-C", src, *args], capture_output=True, text=True,
                          check=True).stdout


def norm(path, src):
    """A warning's path as a path of the kernel tree."""
    path = os.path.normpath(path)
    srcabs = os.path.realpath(src)
    if os.path.isabs(path):
        real = os.path.realpath(path)
        if real.startswith(srcabs + "/"):
            return real[len(srcabs) + 1:]
        return path
    m = re.search(r"(?:^|/)src/linux/(.*)$", path)
    return m.group(1) if m else path.lstrip("./")


def added_lines(src, base, path, cache):
    if path in cache:
        return cache[path]
    new = subprocess.run(["git", "-C", src, "cat-file", "-e", f"{base}:{path}"],
                         capture_output=True).returncode != 0
    if new:
        lines = None        # every line
    else:
        lines = set()
        diff = git(src, "diff", "-U0", base, "HEAD", "--", path)
        for m in re.finditer(r"^@@ -\S+ \+(\d+)(?:,(\d+))? @@", diff, re.M):
            start, count = int(m.group(1)), int(m.group(2) or 1)
            lines.update(range(start, start + count))
    cache[path] = lines
    return lines


def added_only(src, base):
    cache = {}
    bad = 0
    for raw in sys.stdin:
        m = re.match(r"^(\S+?):(\d+):(?:\d+:)?\s*(warning|error)\b(.*)$", raw.rstrip("\n"))
        if not m:
            continue
        path = norm(m.group(1), src)
        if not os.path.exists(os.path.join(src, path)):
            continue
        lines = added_lines(src, base, path, cache)
        if lines is None or int(m.group(2)) in lines:
            print(f"{path}:{m.group(2)}: {m.group(3)}{m.group(4)}")
            bad = 1
    return bad


TOCTREE = re.compile(r"^\.\. toctree::")


def toctree_entries(path):
    """Document names (without .rst) a page's toctrees list, resolved."""
    out = set()
    here = os.path.dirname(path)
    lines = open(path, errors="replace").read().split("\n")
    i = 0
    while i < len(lines):
        if TOCTREE.match(lines[i].strip()):
            i += 1
            while i < len(lines) and (not lines[i].strip() or lines[i][:1].isspace()):
                entry = lines[i].strip()
                i += 1
                if not entry or entry.startswith(":"):
                    continue
                m = re.match(r"^.*<(.+)>$", entry)
                if m:
                    entry = m.group(1)
                if entry.startswith("/"):
                    name = os.path.normpath("Documentation" + entry)
                else:
                    name = os.path.normpath(os.path.join(here, entry))
                out.add(re.sub(r"\.rst$", "", name))
            continue
        i += 1
    return out


def toctree(src, base):
    bad = 0
    added = [f for f in git(src, "diff", "--name-only", "--diff-filter=A", base, "HEAD",
                            "--", "Documentation/").split() if f.endswith(".rst")]
    named = set()
    os.chdir(src)
    for root, dirs, files in os.walk("Documentation"):
        for f in files:
            if f.endswith(".rst"):
                named |= toctree_entries(os.path.join(root, f))
    for f in added:
        if f[:-4] not in named:
            print(f"{f}: added by the series, in no toctree")
            bad = 1
        else:
            print(f"# {f}: in a toctree")
    # pages the lines the series adds name (Kconfig help, comments, pages)
    cur = None
    for line in git(src, "diff", "-U0", base, "HEAD").split("\n"):
        if line.startswith("+++ "):
            cur = line[6:] if line.startswith("+++ b/") else None
            continue
        if cur is None or not line.startswith("+"):
            continue
        for ref in sorted(set(re.findall(r"Documentation/[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.(?:rst|txt)\b", line))):
            if not os.path.exists(ref):
                print(f"{cur}: names {ref}, which the tree after the series lacks")
                bad = 1
    return bad


def main(argv):
    if len(argv) == 3 and argv[0] == "added-only":
        return added_only(argv[1], argv[2])
    if len(argv) == 3 and argv[0] == "toctree":
        return toctree(argv[1], argv[2])
    print("usage: series-lint.py added-only|toctree SRC BASE", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
