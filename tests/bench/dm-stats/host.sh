#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# dm-stats benchmark, host part (run by scripts/bench.sh): one boot of the
# stock Debian kernel with both Debian's dm-mod.ko and ours in the guest;
# tests/bench/dm-stats/run.sh loads them in turn, interleaved, and this
# script prints medians and ratios side by side.
#
# Environment: BENCH_ROUNDS (default 4), BENCH_RUNTIME (fio seconds, 2),
# BENCH_BIG_ROUNDS (rounds that build the 10,000-region row, 1: the stock
# engine needs minutes for it), BENCH_MEM (guest MB, 6144: the stock engine
# needs ~66 KB per region), BENCH_ICOUNT (QEMU -icount options,
# "shift=3,sleep=on"; empty: the guest's clock is the host's), BENCH_ROWS
# (IOPS rows to measure, e.g. "none overlap100"; default all of them),
# BENCH_WALL (1: a second boot with the host's clock that times creating
# and deleting 10,000 regions as a user waits for them; 0: skip it).
#
# The guest runs on TCG and shares the host's CPUs with whatever else runs
# there; timed by the host's clock, the same configuration measured twice
# a minute apart differed by up to 2x. With QEMU's -icount the guest's
# clock advances by 2^shift ns per instruction the guest executes (its
# vCPUs take turns on one host thread), and with the host's clock only
# while every vCPU is idle (sleep=on: time spent waiting, e.g. for an RCU
# grace period, still counts). IOPS then count the instructions the kernel
# spends per I/O and repeat to within 0.3 % whatever the host's load. What
# that clock cannot see: cache misses, contention between real CPUs, a
# real device. The host's load average is printed with the table all the
# same.
set -euo pipefail

# shellcheck source=../host-common.sh
. "$(dirname "$0")/../host-common.sh"
rounds=${BENCH_ROUNDS:-4}
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
[[ -z ${BENCH_ROWS:-} ]] || printf 'BENCH_ROWS="%s"\n' "$BENCH_ROWS" >>"$stage/guest.conf"

load_before=$(load)
status=0
bench_icount
"$top/tests/vm/run.sh" --kernel stock --name "$name" --mem "$mem" --timeout 5400 "${icount[@]}" \
	--extra-module "$stage/dm-mod-iotally.ko" --guest-config "$stage/guest.conf" \
	--suite bench/dm-stats || status=$?

report() { # NAME ICOUNT SECTION: the table of one boot
	awk -v rounds="$rounds" -v icount="$2" -v section="$3" \
		-v load="$load_before, $(load) on $(nproc) CPUs" \
		-f "$top/tests/bench/lib.awk" -f "$top/tests/bench/dm-stats/report.awk" \
		"$top/build/logs/$1/tap.log"
}
report "$name" "$icount_opts" all | tee "$stage/report.txt"

# The instruction clock cannot see what a delete waits for (the stock
# engine's vfree() and the cross-CPU TLB flushes it sends): a second boot,
# timed by the host's clock, measures only the 10,000-region row.
if [[ ${BENCH_WALL:-1} = 1 && -n $icount_opts ]]; then
	printf 'BENCH_ROUNDS=1\nBENCH_RUNTIME=%s\nBENCH_BIG_ROUNDS=1\nBENCH_ROWS=""\n' "$runtime" \
		>"$stage/guest-wall.conf"
	load_before=$(load)
	"$top/tests/vm/run.sh" --kernel stock --name "$name-wall" --mem "$mem" --timeout 1800 \
		--extra-module "$stage/dm-mod-iotally.ko" --guest-config "$stage/guest-wall.conf" \
		--suite bench/dm-stats || status=$?
	echo | tee -a "$stage/report.txt"
	report "$name-wall" "" 10k | tee -a "$stage/report.txt"
fi
exit $status
