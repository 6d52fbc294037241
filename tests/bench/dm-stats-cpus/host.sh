#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# dm-stats benchmark with many possible CPUs (run by scripts/bench.sh): the
# guest part of the dm-stats benchmark (tests/bench/dm-stats/run.sh), its
# rows without a region, with one whole-device region, and with one
# precise_timestamps region with a 16-boundary histogram, in one boot of
# the stock kernel with our dm-mod.ko per number of possible CPUs
# (tests/vm/run.sh --maxcpus N: -smp N, 2 of them brought up; run.sh checks
# that the guest's /sys/devices/system/cpu/possible is 0-(N-1)), on QEMU's
# instruction clock. A loop over possible CPUs on the I/O path would show
# as IOPS falling with N; the goal is that our rows with a region stay
# within 5 % of their value at the first N. In the same boot,
# tests/bench/dm-stats-cpus/run.sh measures both engines' statistics
# memory per region.
#
# Environment: BENCH_MAXCPUS (default "2 64 255"; i440fx stops at 255,
# run.sh takes q35 above), BENCH_ENGINES (ours; "stock ours" adds Debian's
# engine, measured A-B-B-A against ours), BENCH_ROUNDS (2), BENCH_RUNTIME
# (fio seconds, 2), BENCH_ICOUNT (QEMU -icount options, "shift=3,sleep=on",
# which makes the numbers independent of the host's load; empty: the
# host's clock).
set -euo pipefail

# shellcheck source=../host-common.sh
. "$(dirname "$0")/../host-common.sh"
rounds=${BENCH_ROUNDS:-2}
runtime=${BENCH_RUNTIME:-2}
engines=${BENCH_ENGINES:-ours}
maxcpus_list=${BENCH_MAXCPUS:-2 64 255}
bench_icount
rows="none whole1 whole1-hist16-precise"

"$top/scripts/modules.sh"
"$top/scripts/test-helpers.sh"
stage=$top/build/bench/dm-stats-cpus
mkdir -p "$stage"
cp "$top/build/modules/dm-mod.ko" "$stage/dm-mod-iotally.ko"
printf 'BENCH_ROUNDS=%s\nBENCH_RUNTIME=%s\nBENCH_BIG_ROUNDS=0\nBENCH_ROWS="%s"\nBENCH_ENGINES="%s"\n' \
	"$rounds" "$runtime" "$rows" "$engines" >"$stage/guest.conf"

load_before=$(load)
status=0
logs=()
for n in $maxcpus_list; do
	name=bench-dm-stats-cpus$n
	"$top/tests/vm/run.sh" --kernel stock --name "$name" --maxcpus "$n" --timeout 3600 \
		"${icount[@]}" --extra-module "$stage/dm-mod-iotally.ko" \
		--guest-config "$stage/guest.conf" --suite bench/dm-stats --suite bench/dm-stats-cpus ||
		status=$?
	logs+=("$top/build/logs/$name/tap.log")
done

awk -v icount="$icount_opts" -v rounds="$rounds" -v rows="$rows" -v engines="$engines" \
	-v load="$load_before, $(load) on $(nproc) CPUs" -v cpus="$maxcpus_list" \
	-f "$top/tests/bench/lib.awk" -f "$top/tests/bench/dm-stats-cpus/report.awk" \
	"${logs[@]}" | tee "$stage/report.txt"
exit $status
