#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# dm-stats benchmark, host part (run by scripts/bench.sh): one boot of the
# stock Debian kernel with both Debian's dm-mod.ko and ours in the guest;
# tests/bench/dm-stats/run.sh loads them in turn, interleaved, and this
# script prints medians and ratios side by side.
#
# Environment: BENCH_ROUNDS (default 5), BENCH_RUNTIME (fio seconds, 2),
# BENCH_BIG_ROUNDS (rounds that build the 10,000-region row, 1: the stock
# engine needs minutes for it), BENCH_MEM (guest MB, 6144: the stock engine
# needs ~66 KB per region).
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
rounds=${BENCH_ROUNDS:-5}
runtime=${BENCH_RUNTIME:-2}
mem=${BENCH_MEM:-6144}
name=bench-dm-stats

"$top/scripts/modules.sh"
"$top/scripts/test-helpers.sh"
stage=$top/build/bench/dm-stats
mkdir -p "$stage"
cp "$top/build/modules/dm-mod.ko" "$stage/dm-mod-iotally.ko"
printf 'BENCH_ROUNDS=%s\nBENCH_RUNTIME=%s\nBENCH_BIG_ROUNDS=%s\n' "$rounds" "$runtime" \
	"${BENCH_BIG_ROUNDS:-1}" >"$stage/guest.conf"

status=0
"$top/tests/vm/run.sh" --kernel stock --name "$name" --mem "$mem" --timeout 1800 \
	--extra-module "$stage/dm-mod-iotally.ko" --guest-config "$stage/guest.conf" \
	--suite bench/dm-stats || status=$?

awk -v rounds="$rounds" -f "$top/tests/bench/lib.awk" -f "$top/tests/bench/dm-stats/report.awk" \
	"$top/build/logs/$name/tap.log" | tee "$stage/report.txt"
exit $status
