#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# iotally benchmark, host part (run by scripts/bench.sh):
#   1. on each kernel, one boot: `iotally report` against `dmstats report` on
#      one device with 10,000 regions, interleaved rounds
#      (tests/bench/iotally/run.sh), medians and their ratio. The patched
#      kernel's engine creates the regions in seconds; the stock engine
#      needs minutes and about 650 MB for them, hence the larger guest;
#   2. the host parse rate of @stats_print replies in lines per second
#      (Google Benchmark, build/tools/bench_parse).
#
# Environment: BENCH_KERNELS ("patched stock"), BENCH_ROUNDS (default 5),
# BENCH_REGIONS (10000), BENCH_RUNTIME (fio seconds before each report, 1),
# BENCH_MEM (guest MB, 3072 on the patched kernel and 6144 on stock).
set -euo pipefail
# shellcheck source=../kernels.sh
. "$(dirname "$0")/../kernels.sh"

bench_kernels_setup iotally "BENCH_REGIONS=${BENCH_REGIONS:-10000}
BENCH_RUNTIME=${BENCH_RUNTIME:-1}"
bench_kernels_boot iotally 2400

# Google Benchmark's CSV: name,iterations,real_time,cpu_time,time_unit,
# bytes_per_second,items_per_second,... (items are @stats_print lines).
"$top/build/tools/bench_parse" --benchmark_filter='BM_ParsePrint' --benchmark_repetitions=5 \
	--benchmark_report_aggregates_only=true --benchmark_format=csv \
	>"$stage/parse.csv" 2>/dev/null || status=1

{
	bench_kernels_report iotally
	echo "host parse rate of @stats_print replies (Google Benchmark, median of 5)"
	awk -F, '$1 ~ /_median"?$/ {
		gsub(/"/, "", $1); sub(/_median$/, "", $1)
		split($1, a, "/")
		printf "  %-32s %8d lines, histogram %s: %12.0f lines/s\n", $1, a[2], \
			(a[3] == 1 ? "yes" : "no "), $7
	}' "$stage/parse.csv"
} | tee "$stage/report.txt"
exit $status
