#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# statistic_add() microbenchmark, host part (run by scripts/bench.sh): one
# boot of the stock Debian kernel with our out-of-tree statistic.ko and
# statistic_bench.ko; tests/bench/statistic/run.sh runs the benchmark in
# the guest and this script prints its table.
#
# Environment: BENCH_OPS (calls per timed batch, a multiple of 1024;
# default 1024), BENCH_BATCHES (batches per case and CPU, 101).
set -euo pipefail

# shellcheck source=../host-common.sh
. "$(dirname "$0")/../host-common.sh"
name=bench-statistic
stage=$top/build/bench/statistic

"$top/scripts/statistic-module.sh" >/dev/null
mkdir -p "$stage"
printf 'BENCH_OPS=%s\nBENCH_BATCHES=%s\n' "${BENCH_OPS:-1024}" "${BENCH_BATCHES:-101}" \
	>"$stage/guest.conf"

load_before=$(load)
status=0
"$top/tests/vm/run.sh" --kernel stock --name "$name" --timeout 1800 \
	--extra-module "$top/build/modules/statistic.ko" \
	--extra-module "$top/build/modules/statistic_bench.ko" \
	--guest-config "$stage/guest.conf" --suite bench/statistic || status=$?

table=$(sed -n 's/^# BENCH //p' "$top/build/logs/$name/tap.log")
[[ -n $table ]] || { echo "bench statistic: no table in build/logs/$name/tap.log" >&2; exit 1; }
{
	echo "statistic_add() microbenchmark: stock Debian kernel with statistic.ko and"
	echo "statistic_bench.ko, one boot, QEMU TCG with 2 vCPUs"
	echo "host load average (1 min) before and after the boot: $load_before, $(load) on $(nproc) CPUs"
	echo
	echo "$table"
} | tee "$stage/report.txt"
exit $status
