#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# iotally benchmark, host part (run by scripts/bench.sh):
#   1. one boot of the patched kernel (its engine creates 10,000 regions in
#      seconds; the stock engine needs minutes): `iotally report` against
#      `dmstats report` on one device with 10,000 regions, interleaved
#      rounds (tests/bench/iotally/run.sh), medians and their ratio;
#   2. the host parse rate of @stats_print replies in lines per second
#      (Google Benchmark, build/tools/bench_parse).
#
# Environment: BENCH_ROUNDS (default 5), BENCH_REGIONS (10000),
# BENCH_RUNTIME (fio seconds before each report, 1), BENCH_KERNEL (patched
# or stock), BENCH_MEM (guest MB, 3072; use 6144 with BENCH_KERNEL=stock).
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
rounds=${BENCH_ROUNDS:-5}
kernel=${BENCH_KERNEL:-patched}
mem=${BENCH_MEM:-3072}
name=bench-iotally
stage=$top/build/bench/iotally
mkdir -p "$stage"

make -C "$top" --no-print-directory tools >/dev/null
"$top/scripts/test-helpers.sh"
[[ $kernel == patched ]] && make -C "$top" --no-print-directory kernel >/dev/null
printf 'BENCH_ROUNDS=%s\nBENCH_REGIONS=%s\nBENCH_RUNTIME=%s\n' "$rounds" \
	"${BENCH_REGIONS:-10000}" "${BENCH_RUNTIME:-1}" >"$stage/guest.conf"

status=0
"$top/tests/vm/run.sh" --kernel "$kernel" --name "$name" --mem "$mem" --timeout 2400 \
	--guest-config "$stage/guest.conf" --suite bench/iotally || status=$?

# Google Benchmark's CSV: name,iterations,real_time,cpu_time,time_unit,
# bytes_per_second,items_per_second,... (items are @stats_print lines).
"$top/build/tools/bench_parse" --benchmark_filter='BM_ParsePrint' --benchmark_repetitions=5 \
	--benchmark_report_aggregates_only=true --benchmark_format=csv \
	>"$stage/parse.csv" 2>/dev/null || status=1

{
	awk -v rounds="$rounds" -v kernel="$kernel" -f "$top/tests/bench/lib.awk" -f "$top/tests/bench/iotally/report.awk" \
		"$top/build/logs/$name/tap.log"
	echo
	echo "host parse rate of @stats_print replies (Google Benchmark, median of 5)"
	awk -F, '$1 ~ /_median"?$/ {
		gsub(/"/, "", $1); sub(/_median$/, "", $1)
		split($1, a, "/")
		printf "  %-32s %8d lines, histogram %s: %12.0f lines/s\n", $1, a[2], \
			(a[3] == 1 ? "yes" : "no "), $7
	}' "$stage/parse.csv"
} | tee "$stage/report.txt"
exit $status
