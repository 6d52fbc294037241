#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Per-task I/O benchmark, host part (run by scripts/bench.sh): one boot of
# the patched kernel; tests/bench/taskstats/run.sh switches the accounting
# on and off at run time and starts and stops an exit listener, interleaved,
# and this script prints medians and ratios side by side.
#
# Environment: BENCH_ROUNDS (default 4), BENCH_RUNTIME (fio seconds, 2),
# BENCH_FORK_SECONDS (seconds of fork+exit per measurement, 2),
# BENCH_AB_SLICE_MS (100) and BENCH_AB_PAIRS (100) for ioab, BENCH_ICOUNT
# (QEMU -icount options, "shift=3,sleep=on"; empty: the guest's clock is
# the host's).
#
# The guest runs on TCG and shares the host's CPUs: timed by the host's
# clock, IOPS swing by tens of percent with the host's load. With -icount
# the guest's clock advances by 2^shift ns per instruction it executes (the
# vCPUs take turns on one host thread), and by the host's clock only while
# every vCPU is idle; IOPS then count the instructions spent per I/O,
# whatever else the host runs. That clock cannot see cache misses or
# contention between real CPUs. The host's load average is printed with the
# table all the same.
set -euo pipefail

# shellcheck source=../host-common.sh
. "$(dirname "$0")/../host-common.sh"
rounds=${BENCH_ROUNDS:-4}
name=bench-taskstats

# The patched kernel, the iotally listener and the forkexit helper.
make -C "$top" --no-print-directory kernel tools >&2
"$top/scripts/test-helpers.sh"
stage=$top/build/bench/taskstats
mkdir -p "$stage"
printf 'BENCH_ROUNDS=%s\nBENCH_RUNTIME=%s\nBENCH_FORK_SECONDS=%s\nBENCH_AB_SLICE_MS=%s\nBENCH_AB_PAIRS=%s\n' \
	"$rounds" "${BENCH_RUNTIME:-2}" "${BENCH_FORK_SECONDS:-2}" "${BENCH_AB_SLICE_MS:-100}" \
	"${BENCH_AB_PAIRS:-100}" >"$stage/guest.conf"

load_before=$(load)
status=0
bench_icount
"$top/tests/vm/run.sh" --kernel patched --name "$name" --timeout 3600 "${icount[@]}" \
	--guest-config "$stage/guest.conf" --suite bench/taskstats || status=$?

awk -v rounds="$rounds" -v icount="$icount_opts" -v load="$load_before, $(load) on $(nproc) CPUs" -f "$top/tests/bench/lib.awk" -f "$top/tests/bench/taskstats/report.awk" \
	"$top/build/logs/$name/tap.log" | tee "$stage/report.txt"
exit $status
