#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The engine of `make patches` (scripts/make-patches.sh), data-driven by
# patches/mail-series: assigns every file of ours to one step, computes the
# kernel tree after each step and commits it on a base commit with git
# plumbing (no checkout of the 1.5 GB tree), then runs git format-patch.
#
#   mail-series.py check                      validate the assignment, print the plan
#   mail-series.py targets                    "KIND<TAB>KERNEL_PATH<TAB>SOURCE" per file
#   mail-series.py file-maps                  "SOURCE<TAB>KERNEL_PATH" per one-file map
#   mail-series.py build GIT_DIR BASE PRISTINE OUTDIR KERNEL_TREE
import fnmatch
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Our kernel folders, one a line in scripts/kernel-dirs (the list
# scripts/kernel-tree.sh copies over linux-source).
with open(os.path.join(TOP, "scripts", "kernel-dirs"), encoding="utf-8") as _f:
    OVERLAY_DIRS = [line.strip() for line in _f if line.strip() and not line.startswith("#")]
DATE = "2024-11-17 00:00:00 +0000"
TRAILER = re.compile(r"^(Fixes|Cc|Link|Reported-by|Reviewed-by|Acked-by|Tested-by|Suggested-by|Closes): \S")


class Error(Exception):
    pass


def rel(*parts):
    return os.path.join(TOP, *parts)


def walk(d, keep=lambda name: True):
    out = []
    for root, dirs, files in os.walk(rel(d)):
        dirs[:] = sorted(x for x in dirs if not x.startswith("."))
        for f in sorted(files):
            if not f.startswith(".") and keep(f):
                out.append(os.path.relpath(os.path.join(root, f), TOP))
    return out


def overlay_keep(name):
    # The same filter as scripts/kernel-tree.sh.
    return not (name.endswith((".o", ".ko", ".cmd")) or ".mod" in name)


def files_of_ours(maps):
    """Every file that must be assigned to a step or skipped."""
    files = []
    for d in OVERLAY_DIRS:
        files += walk(d, overlay_keep)
    files += walk("Documentation", lambda name: name.endswith(".rst"))
    files += walk("tests/selftests")
    files += walk("patches/mail/tree")
    files += [src for src, _ in file_maps(maps)]
    return files


def file_maps(maps):
    """The maps of one file each (FROM without a trailing slash), such as a
    header of libiotally the selftest helpers include: (FROM, TO) pairs."""
    return [(src, dst) for src, dst in maps if not src.endswith("/")]


def series_patches():
    out = []
    path = rel("patches", "series")
    if os.path.exists(path):
        for line in open(path):
            words = line.split()
            if words and not words[0].startswith("#"):
                out.append(words[0])
    return out


class Step:
    def __init__(self, subject, lineno):
        self.subject = subject
        self.lineno = lineno
        self.message = None
        self.takes = []
        self.patches = []
        self.symbols = []
        self.mailpatches = []
        self.cover = []
        self.files = []


def is_glob(p):
    return any(c in p for c in "*?[")


def parse():
    steps, skips, maps, author = [], [], [], None
    path = rel("patches", "mail-series")
    for n, raw in enumerate(open(path), 1):
        line = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        if not line:
            continue
        word, _, rest = line.partition(" ")
        rest = rest.strip()
        where = f"patches/mail-series:{n}"
        if word == "step":
            steps.append(Step(rest, n))
        elif word == "author":
            author = rest
        elif word == "map":
            parts = rest.split()
            if len(parts) not in (1, 2):
                raise Error(f"{where}: map FROM [TO]")
            one_file = not parts[0].endswith("/")
            if one_file and (len(parts) != 2 or not os.path.isfile(rel(parts[0]))):
                raise Error(f"{where}: map of one file: FROM must be a file and TO given")
            maps.append((parts[0], parts[1] if len(parts) == 2 else ""))
        elif word == "skip":
            pats, sep, why = rest.partition(" -- ")
            if not sep or not why.strip():
                raise Error(f"{where}: skip needs a reason after ' -- '")
            skips += [(p, where) for p in pats.split()]
        elif word in ("message", "take", "patch", "symbol", "mailpatch", "cover"):
            if not steps:
                raise Error(f"{where}: '{word}' before the first step")
            s = steps[-1]
            if word == "message":
                s.message = rest
            elif word == "cover":
                s.cover.append(rest)
            elif word == "take":
                s.takes += [(p, where) for p in rest.split()]
            elif word == "patch":
                s.patches += rest.split()
            elif word == "symbol":
                s.symbols += rest.split()
            else:
                s.mailpatches += rest.split()
        else:
            raise Error(f"{where}: unknown directive '{word}'")
    if author:
        raise Error("patches/mail-series: 'author' is gone: the series is signed by "
                    "git config user.name and user.email")
    return steps, skips, maps


def git_author():
    """'NAME <MAIL>' of whoever makes the series: git config user.name and
    user.email of this checkout, as git commit would sign."""
    ident = []
    for key in ("user.name", "user.email"):
        r = subprocess.run(["git", "-C", TOP, "config", key], capture_output=True, text=True)
        value = r.stdout.strip()
        if r.returncode or not value:
            raise Error(f"git config {key} is not set: the patches are signed off with it "
                        f"(git config --global {key} ...)")
        ident.append(value)
    name, mail = ident
    author = f"{name} <{mail}>"
    if not re.match(r"^[^<>]+ <[^<>@\s]+@[^<>\s]+>$", author):
        raise Error(f"git config user.name/user.email give a malformed identity: {author}")
    return author


def kernel_path(path, maps):
    if path.split("/")[0] in OVERLAY_DIRS:
        return path
    for src, dst in maps:
        if path.startswith(src):
            return dst + path[len(src):]
    if re.match(r"^Documentation/([^/]+/)*[^/]+\.rst$", path):
        return path
    raise Error(f"{path}: not in the overlay and no 'map' says where it goes")


def assign(steps, skips, maps):
    """Each file of ours to one step (index) or to 'skip'; fail on gaps."""
    errors = []
    owner = {}
    rules = [(p, where, i) for i, s in enumerate(steps) for p, where in s.takes]
    rules += [(p, where, "skip") for p, where in skips]
    used = set()
    for f in files_of_ours(maps):
        exact = [r for r in rules if not is_glob(r[0]) and r[0] == f]
        globs = [r for r in rules if is_glob(r[0]) and fnmatch.fnmatchcase(f, r[0])]
        hits = exact or globs
        if not hits:
            errors.append(f"{f}: not assigned to any step of patches/mail-series")
            continue
        if len(hits) > 1:
            errors.append(f"{f}: claimed by " + ", ".join(f"{r[1]} ({r[0]})" for r in hits))
            continue
        used.add((hits[0][0], hits[0][1]))
        owner[f] = hits[0][2]
    for p, where, _ in rules:
        if (p, where) not in used:
            print(f"mail-series: warning: {where}: '{p}' matches no file", file=sys.stderr)

    in_series = series_patches()
    patch_owner = {}
    for i, s in enumerate(steps):
        for p in s.patches:
            if p in patch_owner:
                errors.append(f"patches/{p}: in two steps")
            if p not in in_series:
                errors.append(f"patches/{p}: taken by a step but not in patches/series")
            patch_owner[p] = i
    for p in sorted(os.listdir(rel("patches"))):
        if p.endswith(".patch") and p not in patch_owner:
            errors.append(f"patches/{p}: not assigned to any step of patches/mail-series")
    for p in in_series:
        if p not in patch_owner and os.path.exists(rel("patches", p)):
            errors.append(f"patches/{p}: in patches/series but in no step")
    mail_owner = {}
    for i, s in enumerate(steps):
        for p in s.mailpatches:
            if not os.path.exists(rel("patches", "mail", p)):
                errors.append(f"patches/mail/{p}: missing")
            mail_owner[p] = i
    if os.path.isdir(rel("patches", "mail")):
        for p in sorted(os.listdir(rel("patches", "mail"))):
            if p.endswith(".patch") and p not in mail_owner:
                errors.append(f"patches/mail/{p}: not assigned to any step")
    sym_owner = {}
    for i, s in enumerate(steps):
        if not s.message or not os.path.exists(rel("patches", "mail", s.message)):
            errors.append(f"patches/mail-series:{s.lineno}: step without an existing message file")
        if not " ".join(s.cover).strip():
            errors.append(f"patches/mail-series:{s.lineno}: step without a 'cover' line: "
                          "the cover letter describes every patch")
        for sym in s.symbols:
            sym_owner[sym] = i
    if errors:
        raise Error("\n".join(errors))
    for i, s in enumerate(steps):
        s.files = sorted(f for f, o in owner.items() if o == i)
    return owner, patch_owner, mail_owner, sym_owner


# ---- patches: parse, split by symbol, filter ---------------------------------

def parse_patch(path, author=None):
    """[(old_name, new_name, [hunk]), ...]; hunk = [header, lines...]
    @AUTHOR@ in the text (a MAINTAINERS entry of patches/mail/) stands for
    whoever makes the series (git_author())."""
    text = open(path).read()
    if "@AUTHOR@" in text:
        if author is None:
            author = git_author()
        text = text.replace("@AUTHOR@", author)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    files, i = [], 0
    while i < len(lines):
        if lines[i].startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            old = lines[i][4:].split("\t")[0].strip()
            new = lines[i + 1][4:].split("\t")[0].strip()
            cur = (old, new, [])
            files.append(cur)
            i += 2
            while i < len(lines) and lines[i].startswith("@@ "):
                m = re.match(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$", lines[i])
                if not m:
                    raise Error(f"{path}: bad hunk header {lines[i]!r}")
                oc = int(m.group(2)) if m.group(2) is not None else 1
                nc = int(m.group(4)) if m.group(4) is not None else 1
                hunk = [lines[i]]
                i += 1
                while (oc > 0 or nc > 0) and i < len(lines):
                    t = lines[i][:1]
                    if t in (" ", ""):
                        oc, nc = oc - 1, nc - 1
                    elif t == "-":
                        oc -= 1
                    elif t == "+":
                        nc -= 1
                    elif t != "\\":
                        raise Error(f"{path}: unexpected line in hunk: {lines[i]!r}")
                    hunk.append(lines[i] if lines[i] else " ")
                    i += 1
                while i < len(lines) and lines[i].startswith("\\"):
                    hunk.append(lines[i])
                    i += 1
                cur[2].append(hunk)
            continue
        i += 1
    return files


KCONFIG_START = re.compile(r"^\+\s*(config|menuconfig)\s+(\w+)\s*$")
KCONFIG_BREAK = re.compile(r"^\+\s*(config|menuconfig|menu|endmenu|choice|endchoice|comment|if|endif|source)\b")


def claims(name, hunk, symbols):
    """Per line of the hunk (header excluded): the symbol claiming it, or None."""
    base = os.path.basename(name)
    out = [None] * (len(hunk) - 1)
    body = hunk[1:]
    if base.startswith("Kconfig"):
        cur = None
        for j, line in enumerate(body):
            if not line.startswith("+"):
                cur = None
                continue
            m = KCONFIG_START.match(line)
            if m:
                cur = m.group(2) if m.group(2) in symbols else None
            elif KCONFIG_BREAK.match(line):
                cur = None
            out[j] = cur
    elif base.startswith("Makefile") or base == "Kbuild":
        cont = None
        for j, line in enumerate(body):
            if not line.startswith("+"):
                cont = None
                continue
            sym = cont
            if sym is None:
                for s in symbols:
                    if re.search(r"\bCONFIG_" + re.escape(s) + r"\b", line):
                        sym = s
                        break
            out[j] = sym
            cont = sym if sym and line.rstrip().endswith("\\") else None
    return out


def filtered_patch(parsed, keep_symbol):
    """The patch text without the added lines whose symbol keep_symbol rejects."""
    out = []
    for old, new, hunks in parsed:
        kept_hunks, delta = [], 0
        for hunk in hunks:
            owners = claims(new, hunk, SYMBOLS)
            body = [line for line, o in zip(hunk[1:], owners) if o is None or keep_symbol(o)]
            if not any(line[:1] in "+-" for line in body):
                continue
            m = re.match(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$", hunk[0])
            os_, oc = int(m.group(1)), int(m.group(2)) if m.group(2) is not None else 1
            nc = sum(1 for line in body if line[:1] in (" ", "+"))
            ns = os_ + delta if oc else os_ + delta + 1
            if oc == 0 and os_ == 0:
                ns = 1 if nc else 0
            delta += nc - oc
            kept_hunks.append([f"@@ -{os_},{oc} +{ns},{nc} @@{m.group(5)}"] + body)
        if kept_hunks:
            out.append(f"--- {old}\n+++ {new}\n")
            for h in kept_hunks:
                out.append("\n".join(h) + "\n")
    return "".join(out)


def patch_files(parsed):
    names = set()
    for old, new, _ in parsed:
        for n in (old, new):
            if n != "/dev/null":
                names.add(n.split("/", 1)[1])
    return names


SYMBOLS = {}


def claimed_symbols(parsed):
    found = set()
    for _, new, hunks in parsed:
        for h in hunks:
            found.update(o for o in claims(new, h, SYMBOLS) if o)
    return found


# ---- the plan and the commits ---------------------------------------------------

class Plan:
    def __init__(self, author=None):
        self.steps, self.skips, self.maps = parse()
        self.owner, self.patch_owner, self.mail_owner, sym_owner = assign(
            self.steps, self.skips, self.maps)
        SYMBOLS.update(sym_owner)
        self.patches = []   # (owner step, name, parsed), in application order
        for name in series_patches():
            if name in self.patch_owner:
                self.patches.append((self.patch_owner[name], name,
                                     parse_patch(rel("patches", name))))
        for i, s in enumerate(self.steps):
            for name in s.mailpatches:
                self.patches.append((i, "mail/" + name,
                                     parse_patch(rel("patches", "mail", name), author)))
        found = set()
        for _, _, parsed in self.patches:
            found |= claimed_symbols(parsed)
        missing = sorted(set(SYMBOLS) - found)
        if missing:
            raise Error("patches/mail-series: symbol(s) added by no patch: " + " ".join(missing))
        self.patched = sorted(set().union(*[patch_files(p) for _, _, p in self.patches])
                              if self.patches else set())
        self.kpath = {f: kernel_path(f, self.maps) for f, o in self.owner.items() if o != "skip"}
        seen = {}
        for f, k in self.kpath.items():
            if k in seen:
                raise Error(f"{f} and {seen[k]} both go to {k}")
            seen[k] = f

    def state(self, k, pristine, tmp):
        """{kernel path: (bytes, mode)} of every file the series touches, after step k."""
        stage = os.path.join(tmp, f"stage{k}")
        os.makedirs(stage)
        for f in self.patched:
            src = os.path.join(pristine, f)
            if os.path.exists(src):
                os.makedirs(os.path.dirname(os.path.join(stage, f)), exist_ok=True)
                shutil.copy2(src, os.path.join(stage, f))
        for owner, name, parsed in self.patches:
            if owner > k:
                continue
            text = filtered_patch(parsed, lambda sym: SYMBOLS[sym] <= k)
            if not text:
                continue
            r = subprocess.run(["patch", "-p1", "-F0", "-N", "--batch", "--no-backup-if-mismatch",
                                "-r", "-", "-d", stage], input=text, text=True,
                               capture_output=True)
            if r.returncode:
                raise Error(f"patches/{name} (as of step {k + 1}) does not apply:\n{r.stdout}{r.stderr}")
        out = {}
        for f in self.patched:
            p = os.path.join(stage, f)
            if os.path.exists(p):
                out[f] = (open(p, "rb").read(), os.stat(p).st_mode)
        for f, o in self.owner.items():
            if o != "skip" and o <= k:
                out[self.kpath[f]] = (open(rel(f), "rb").read(), os.stat(rel(f)).st_mode)
        return out


def git(git_dir, *args, env=None, input=None):
    e = dict(os.environ, GIT_DIR=git_dir)
    if env:
        e.update(env)
    r = subprocess.run(["git", *args], env=e, input=input, capture_output=True)
    if r.returncode:
        raise Error(f"git {' '.join(args)}: {r.stderr.decode(errors='replace')}")
    return r.stdout.decode().strip()


def build(git_dir, base, pristine, outdir, kernel_tree):
    author = git_author()
    plan = Plan(author)
    name, mail = re.match(r"^(.*) <(.*)>$", author).groups()
    ident = {"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": mail, "GIT_AUTHOR_DATE": DATE,
             "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": mail, "GIT_COMMITTER_DATE": DATE}
    tmp = tempfile.mkdtemp(prefix="mail-series.", dir=os.path.dirname(git_dir))
    try:
        index = {"GIT_INDEX_FILE": os.path.join(tmp, "index")}
        git(git_dir, "read-tree", base, env=index)
        parent, prev = base, {}
        commits = []
        for k, s in enumerate(plan.steps):
            cur = plan.state(k, pristine, tmp)
            info = []
            for path in sorted(cur):
                if prev.get(path) == cur[path]:
                    continue
                sha = git(git_dir, "hash-object", "-w", "--stdin", input=cur[path][0])
                mode = "100755" if cur[path][1] & 0o111 else "100644"
                info.append(f"{mode} {sha}\t{path}")
            if not info:
                print(f"mail-series: step '{s.subject}' changes nothing: left out", file=sys.stderr)
                continue
            git(git_dir, "update-index", "--index-info", env=index,
                input=("\n".join(info) + "\n").encode())
            tree = git(git_dir, "write-tree", env=index)
            body = open(rel("patches", "mail", s.message)).read().strip()
            # A message that ends in trailers (Fixes:, Cc:) gets the
            # sign-off in the same block.
            sep = "\n" if TRAILER.match(body.split("\n")[-1]) else "\n\n"
            msg = f"{s.subject}\n\n{body}{sep}Signed-off-by: {author}\n"
            parent = git(git_dir, "commit-tree", tree, "-p", parent, "-F", "-",
                         env=ident, input=msg.encode())
            commits.append((parent, s))
            prev = cur
        git(git_dir, "update-ref", "refs/heads/series", parent)
    finally:
        shutil.rmtree(tmp)
    if os.path.isdir(outdir):
        for f in os.listdir(outdir):
            if f.endswith(".patch"):
                os.unlink(os.path.join(outdir, f))
    os.makedirs(outdir, exist_ok=True)
    git(git_dir, "format-patch", "--cover-letter", "--no-signature", "--zero-commit",
        "--base=" + base, "-o", outdir, f"{base}..refs/heads/series", env=ident)
    cover(plan, outdir, kernel_tree, [s for _, s in commits])


def bench_reports(paths):
    """{name: text} of every non-empty table in paths, a {name: path} dict."""
    reports = {}
    for name, path in sorted(paths.items()):
        text = open(path, errors="replace").read().rstrip()
        if text:
            reports[name] = text
    return reports


def bench_results():
    """The tables of `make bench`, one per benchmark: this checkout's
    build/bench/NAME/report.txt, or else the one recorded in
    tests/bench/results/NAME.txt (scripts/bench-record.sh), which says
    when it was measured."""
    recorded = {os.path.splitext(os.path.basename(p))[0]: p
                for p in glob.glob(rel("tests", "bench", "results", "*.txt"))}
    fresh = {os.path.basename(os.path.dirname(p)): p
             for p in glob.glob(rel("build", "bench", "*", "report.txt"))}
    tables = bench_reports(recorded)
    tables.update(bench_reports(fresh))
    if not tables:
        raise Error("no benchmark tables: run `make bench`, or keep tests/bench/results/*.txt")
    body = []
    for name in sorted(tables):
        table = "\n".join(("  " + line).rstrip() for line in tables[name].split("\n"))
        body.append(f"`make bench`, {name}:\n\n{table}")
    return "\n\n".join(body)


def patch_list(steps):
    """The cover letter's description of every patch: "[N/M] subject" and
    the step's cover text, wrapped."""
    import textwrap
    out = []
    width = len(str(len(steps)))
    for i, s in enumerate(steps, 1):
        head = f"[{i:0{width}d}/{len(steps)}] {s.subject}"
        body = textwrap.wrap(" ".join(" ".join(s.cover).split()), 70,
                             initial_indent="  ", subsequent_indent="  ",
                             break_on_hyphens=False)
        out.append(head + "\n" + "\n".join(body))
    return "\n\n".join(out)


def cover(plan, outdir, kernel_tree, steps):
    patches = sorted(f for f in os.listdir(outdir) if f.endswith(".patch") and not f.startswith("0000"))
    r = subprocess.run(["perl", "scripts/get_maintainer.pl", "--no-git", "--no-git-fallback"]
                       + [os.path.join(outdir, p) for p in patches],
                       cwd=kernel_tree, capture_output=True, text=True)
    if r.returncode:
        raise Error("get_maintainer.pl failed:\n" + r.stderr)
    maint = r.stdout.rstrip()
    tmpl = open(rel("patches", "mail", "cover-letter.txt")).read()
    subject, _, blurb = tmpl.partition("\n")
    if "@PATCHES@" not in blurb:
        raise Error("patches/mail/cover-letter.txt: no @PATCHES@ (where every patch is described)")
    blurb = blurb.strip("\n").replace("@RESULTS@", bench_results()).replace("@MAINTAINERS@", maint)
    blurb = blurb.replace("@PATCHES@", patch_list(steps))
    path = os.path.join(outdir, "0000-cover-letter.patch")
    text = open(path).read()
    if "*** SUBJECT HERE ***" not in text or "*** BLURB HERE ***" not in text:
        raise Error("git format-patch cover letter without its template markers")
    text = text.replace("*** SUBJECT HERE ***", subject.strip()).replace("*** BLURB HERE ***", blurb)
    open(path, "w").write(text)


def main(argv):
    try:
        if argv[:1] == ["check"]:
            plan = Plan()
            for i, s in enumerate(plan.steps, 1):
                print(f"{i}. {s.subject}")
                for f in s.files:
                    print(f"     {f}" + (f" -> {plan.kpath[f]}" if plan.kpath[f] != f else ""))
                for p in s.patches:
                    print(f"     patches/{p}")
                for p in s.mailpatches:
                    print(f"     patches/mail/{p}")
                for sym in s.symbols:
                    print(f"     CONFIG_{sym} (Kconfig and Makefile lines)")
            return 0
        if argv[:1] == ["targets"]:
            plan = Plan()
            for f in sorted(plan.kpath):
                print(f"file\t{plan.kpath[f]}\t{f}")
            for owner, name, parsed in plan.patches:
                for f in sorted(patch_files(parsed)):
                    print(f"patch\t{f}\tpatches/{name}")
            return 0
        if argv[:1] == ["file-maps"]:
            _, _, maps = parse()
            for src, dst in file_maps(maps):
                print(f"{src}\t{dst}")
            return 0
        if argv[:1] == ["build"] and len(argv) == 6:
            build(*argv[1:])
            return 0
    except Error as e:
        print(f"make-patches: {e}", file=sys.stderr)
        return 1
    print(__doc__ if __doc__ else "usage: see the header of this file", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
