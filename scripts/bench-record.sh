#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Keep the tables of the last `make bench` in the tree: copy each
# build/bench/NAME/report.txt to tests/bench/results/NAME.txt under a line
# that says when, on which commit (build/bench/NAME/commit, written by
# scripts/bench.sh) and on what host it was measured. The
# cover letter of `make patches` quotes build/bench/ when this checkout has
# run `make bench`, and these recorded tables otherwise, so a series made
# on a fresh machine still carries measured numbers (and says from when).
#
# Usage: scripts/bench-record.sh [NAME...]   (default: every report there is)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/tests/bench/results
mkdir -p "$out"
if (($#)); then
	names=("$@")
else
	names=()
	for r in "$top"/build/bench/*/report.txt; do
		[[ -f $r ]] && names+=("$(basename "$(dirname "$r")")")
	done
fi
((${#names[@]})) || { echo "bench-record: no build/bench/*/report.txt (run make bench)" >&2; exit 1; }

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
for n in "${names[@]}"; do
	report=$top/build/bench/$n/report.txt
	[[ -s $report ]] || { echo "bench-record: no $report" >&2; exit 1; }
	# scripts/bench.sh notes the commit it measured; a host.sh run alone does not.
	commit="an unrecorded iotally commit"
	[[ -s $top/build/bench/$n/commit ]] && commit="iotally $(cat "$top/build/bench/$n/commit")"
	{
		printf 'Measured %s on %s, on a %d-CPU host (%s), guest on QEMU TCG.\n\n' \
			"$(date -u -r "$report" '+%F %H:%M UTC')" "$commit" "$(nproc)" "$cpu"
		cat "$report"
	} >"$out/$n.txt"
	echo "recorded tests/bench/results/$n.txt"
done
