#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Memory of CONFIG_DM_STATISTIC while every statistic is stopped, guest part
# (run by tests/bench/statistic-memory/host.sh on the patched kernel booted
# with 64 possible CPUs, 2 online): 1,000 dm-linear devices created with the
# exploiter off and on, in alternating batches (statistic-limits/memory.sh),
# and the difference per device and per possible CPU. Checked here: what
# grows with the possible CPUs (Percpu, and the layer's own per-CPU blocks)
# stays under 200 bytes per device, and nothing is charged to the layer.
. ../../lib.sh
. ../../statistic-limits/memory.sh

N=${BENCH_DEVICES:-1000}
device_cost "$N" || bail "cannot create and remove $N devices"
check_eq "$N interfaces while the devices exist" "$N" "$_dirs"
check_eq "nothing charged to the layer while stopped" 0 "$cost_layer"
check_cmp "per-CPU memory per device (Percpu, on minus off): < 200 bytes" -lt \
	"$cost_percpu" 200
tap_finish
