#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Every query of the Grafana dashboard names only metrics that iotally serve
# exports: the metric names in each PromQL expression (identifiers followed by
# '{' or '[' or standing alone, minus PromQL functions and keywords) must be
# samples of the families in the scrapes (argv[2:], OpenMetrics from the
# tests' fake devices and fake cgroups). Exit 0 if so, 1 with the offenders.
import json
import re
import sys

dashboard = json.load(open(sys.argv[1]))
scrape = "".join(open(f).read() for f in sys.argv[2:])
exported = set()
for line in scrape.splitlines():
    if line.startswith("#") or not line:
        continue
    exported.add(re.match(r"[a-zA-Z_:][a-zA-Z0-9_:]*", line).group(0))

words = {"sum", "rate", "histogram_quantile", "by", "without", "le", "label_values", "irate",
         "increase", "avg", "max", "min", "on", "ignoring", "group_left", "topk", "and", "or",
         "unless", "count"}
exprs = []
for panel in dashboard["panels"]:
    for t in panel.get("targets", []):
        exprs.append(t["expr"])
for v in dashboard["templating"]["list"]:
    if isinstance(v.get("query"), dict):
        exprs.append(v["query"]["query"])

bad = []
for e in exprs:
    # Drop label matchers, grouping clauses, strings and $variables first.
    stripped = re.sub(r"\{[^}]*\}", "", e)
    stripped = re.sub(r"\b(by|without)\s*\([^)]*\)", "", stripped)
    stripped = re.sub(r"\$\w+|\[[^\]]*\]|\"[^\"]*\"", "", stripped)
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
print(f"{len(exprs)} queries, {len(exported)} exported metric names")
sys.exit(1 if bad else 0)
