#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Memory of CONFIG_DM_STATISTIC while every statistic is stopped, guest part
# (run by tests/bench/statistic-memory/host.sh on the patched kernel booted
# with 64 possible CPUs, 2 online): 1,000 dm-linear devices created with the
# exploiter off and on, in alternating batches (statistic-limits/memory.sh),
# and the difference per device and per possible CPU. Checked here: the
# per-CPU memory the devices allocate, summed exactly from the percpu
# tracepoints, grows by under 200 bytes per device (Percpu in /proc/meminfo
# moves in steps of 256 KiB with 64 possible CPUs: it is printed, not
# checked), and nothing is charged to the layer.
# shellcheck source=../lib.sh
. ../lib.sh
# shellcheck source=../../selftests/statistic-limits/memory.sh
. ../../statistic-limits/memory.sh

N=${BENCH_DEVICES:-1000}
device_cost "$N" || bail "cannot create and remove $N devices"
check_eq "$N interfaces while the devices exist" "$N" "$_dirs"
check_eq "nothing charged to the layer while stopped" 0 "$cost_layer"
check_cmp "per-CPU memory allocated per device (tracepoints, on minus off): < 200 bytes" -lt \
	"$cost_percpu_alloc" 200
tap_finish
