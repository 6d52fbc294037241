#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# dm-stats on real targets: regions placed directly on each device-mapper
# target users stack (linear, delay, crypt, thin, snapshot origin and
# snapshot, mirror, cache, multipath, error, flakey, zero), the same
# deterministic workload on each, and the counters upstream 6.12 reports for
# it. Run on the stock engine (the oracle), on our dm-mod.ko on the stock
# kernel and on the patched kernel: all three must print the same.
#
# Every I/O is a direct 4 KiB read or write from CPU 0 (coreutils dd), 8-sector
# aligned so that it crosses no chunk, block or region boundary of a target
# (a bio dm splits at such a boundary is accounted as two). Targets that
# account a bio only when they remap it (crypt, thin, cache, delay) do so on
# a worker's CPU, and merge detection is per CPU: the I/Os of the common
# workload never start where another ended, so no count depends on a CPU.
. ../lib.sh
. ./targets-lib.sh

SECT=16384 # each ramdisk: 8 MiB
modprobe brd rd_nr=5 rd_size=$((SECT / 2)) max_part=0 || bail "cannot load brd"

. ./targets-io.sh
. ./targets-time.sh

rmmod brd
tap_finish
