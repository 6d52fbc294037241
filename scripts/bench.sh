#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make bench: run every benchmark under tests/bench/. Each tests/bench/NAME/
# has a host.sh that boots the guests it needs and prints its own table
# (medians and ratios measured side by side in one run); the output is kept
# in build/bench/NAME.txt.
#
# Usage: scripts/bench.sh [NAME...]   (default: all of them)
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$top/build/bench"
if (($#)); then
	names=("$@")
else
	names=()
	for d in "$top"/tests/bench/*/; do
		[[ -x $d/host.sh ]] && names+=("$(basename "$d")")
	done
fi
((${#names[@]})) || { echo "bench: no benchmark under tests/bench" >&2; exit 1; }

failed=()
for n in "${names[@]}"; do
	host=$top/tests/bench/$n/host.sh
	[[ -x $host ]] || { echo "bench: no tests/bench/$n/host.sh" >&2; failed+=("$n"); continue; }
	echo "=== bench $n"
	mkdir -p "$top/build/bench/$n"
	git -C "$top" describe --always --dirty >"$top/build/bench/$n/commit" 2>/dev/null ||
		rm -f "$top/build/bench/$n/commit"
	if ! "$host" 2>&1 | tee "$top/build/bench/$n.txt"; then
		failed+=("$n")
	fi
done
if ((${#failed[@]})); then
	echo "bench: failed: ${failed[*]}" >&2
	exit 1
fi
