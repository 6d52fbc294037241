#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Every query of the Grafana dashboard (argv[1]) and of the mixin's rules and
# alerts (argv[2], contrib/mixin/queries.txt: "KIND NAME<TAB>PROMQL" lines)
# names only metrics that iotally serve exports: the metric names in each
# PromQL expression (identifiers followed by '{' or '[' or standing alone,
# minus PromQL functions and keywords) must be samples of the families in
# the scrapes (argv[3:], OpenMetrics from the tests' fake devices and fake
# cgroups), or, for a native histogram, the family of such _bucket samples.
# "up" is Prometheus' own. Exit 0 if so, 1 with the offenders.
import json
import re
import sys

dashboard = json.load(open(sys.argv[1]))
scrape = "".join(open(f).read() for f in sys.argv[3:])
exported = set()
for line in scrape.splitlines():
    if line.startswith("#") or not line:
        continue
    name = re.match(r"[a-zA-Z_:][a-zA-Z0-9_:]*", line).group(0)
    exported.add(name)
    if name.endswith("_bucket"):
        exported.add(name[:-len("_bucket")])
exported.add("up")

words = {"sum", "rate", "histogram_quantile", "by", "without", "le", "label_values", "irate",
         "increase", "avg", "max", "min", "on", "ignoring", "group_left", "topk", "and", "or",
         "unless", "count", "histogram_count"}
exprs = []
for panel in dashboard["panels"]:
    for t in panel.get("targets", []):
        exprs.append(t["expr"])
for v in dashboard["templating"]["list"]:
    if isinstance(v.get("query"), dict):
        exprs.append(v["query"]["query"])
ndashboard = len(exprs)
for line in open(sys.argv[2]):
    if not line.startswith("#") and "\t" in line:
        exprs.append(line.rstrip("\n").split("\t", 1)[1])

bad = []
for e in exprs:
    # Drop label matchers, grouping clauses, strings and $variables first.
    stripped = re.sub(r"\{[^}]*\}", "", e)
    stripped = re.sub(r"\b(by|without)\s*\([^)]*\)", "", stripped)
    stripped = re.sub(r"\$\w+|\[[^\]]*\]|\"[^\"]*\"", "", stripped)
    stripped = re.sub(r"[<>=!]=?\s*[0-9.]+", "", stripped)
    names = [n for n in re.findall(r"[a-zA-Z_:][a-zA-Z0-9_:]*", stripped)
             if n not in words and not re.fullmatch(r"[0-9.e]+", n)]
    if not names:
        bad.append(f"names no metric: {e}")
    # label_values(metric, label): the label is not a metric.
    if e.startswith("label_values("):
        names = names[:1]
    for n in names:
        if n not in exported:
            bad.append(f"{n} is not exported (in: {e})")
if not exprs:
    bad.append("the dashboard has no query")
for b in bad:
    print(b, file=sys.stderr)
print(f"{ndashboard} dashboard queries, {len(exprs) - ndashboard} in queries.txt, "
      f"{len(exported)} exported metric names")
sys.exit(1 if bad else 0)
