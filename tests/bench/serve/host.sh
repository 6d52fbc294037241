#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# iotally serve benchmark, host part (run by scripts/bench.sh): on each
# kernel, one boot (tests/bench/serve/run.sh) that times one scrape of every
# region against `dmstats report` of the same regions, at 1,000 and 10,000
# one-area regions, in interleaved rounds; medians and ratios.
# Both guest kernels have TCP/IP (loopback), so it also times GET /metrics
# of a running server.
#
# Environment: BENCH_KERNELS ("patched stock"), BENCH_ROUNDS (5),
# BENCH_SIZES ("1000 10000"), BENCH_RUNTIME (1), BENCH_MEM (guest MB: 3072
# patched, 6144 stock, whose engine needs about 650 MB for 10,000 regions).
set -euo pipefail
# shellcheck source=../kernels.sh
. "$(dirname "$0")/../kernels.sh"

bench_kernels_setup serve "BENCH_SIZES=\"${BENCH_SIZES:-1000 10000}\"
BENCH_RUNTIME=${BENCH_RUNTIME:-1}"
bench_kernels_boot serve 4800
bench_kernels_report serve | tee "$stage/report.txt"
exit $status
