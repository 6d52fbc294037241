#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# Validates OpenMetrics text with the reference parser of prometheus_client
# (Debian: python3-prometheus-client). Exit 0 if valid, 1 with the reason.
import sys

from prometheus_client.openmetrics.parser import text_string_to_metric_families

text = open(sys.argv[1]).read()
try:
    families = list(text_string_to_metric_families(text))
except Exception as e:  # the parser raises ValueError and friends
    print(f"invalid OpenMetrics: {e}", file=sys.stderr)
    sys.exit(1)
print(f"{len(families)} families, {sum(len(f.samples) for f in families)} samples")
