#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What legacy taskstats exit listeners cost, on the patched kernel and on
# Debian's stock one (tests/bench/kernels.sh boots both, in turn, on QEMU's
# instruction clock): the guest part (run.sh) measures forkexit's rate with
# 0, 1 and 8 upstream `getdelays -l` listeners. The two kernels are built
# differently (ours from allnoconfig with lock debugging, Debian's generic
# one), so their rates are not compared as such: each kernel's rate with N
# listeners over its own rate with none, measured side by side in its
# boot, is printed, with what a listener adds to an exit. The goal (the
# patched kernel within 2 % of upstream when no listener asks for
# TASKSTATS_TYPE_IO) needs one configuration with and without the
# listener patch, which this benchmark does not build: verdict.awk says
# so.
#
# Settings: BENCH_ROUNDS (4), BENCH_FORK_SECONDS (2), BENCH_KERNELS
# ("patched stock").
set -euo pipefail

. "$(dirname "$0")/../host-common.sh"
# shellcheck source=../kernels.sh
. "$(dirname "$0")/../kernels.sh"
bench_kernels_setup taskstats-listeners "BENCH_FORK_SECONDS=${BENCH_FORK_SECONDS:-2}"
bench_kernels_boot taskstats-listeners 3600
bench_kernels_report taskstats-listeners | tee "$stage/report.txt"
# both kernels' ratios in one file for the verdict
awk -f "$top/tests/bench/lib.awk" -f "$top/tests/bench/taskstats-listeners/verdict.awk" \
	"$top/build/logs/bench-taskstats-listeners-patched/tap.log" \
	"$top/build/logs/bench-taskstats-listeners-stock/tap.log" | tee -a "$stage/report.txt"
exit $status
