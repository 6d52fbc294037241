#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# iotally end to end: the real binary against device-mapper in the guest, on
# the stock and the patched kernel. Every check compares what iotally says or
# does with what the kernel says through dmsetup, or with a workload whose
# counts are known in advance.
. ../lib.sh
. ../dm-stats/common.sh
. ./common.sh

require_cmd iotally
setup_devices || bail "cannot set up brd and dm devices"

. ./regions.sh
. ./message.sh
. ./report.sh
. ./histogram.sh
. ./latency.sh
. ./export.sh
. ./errors.sh
. ./file.sh
. ./nonroot.sh
. ./stat.sh
. ./top.sh
. ./iostat.sh
. ./tasks.sh
. ./selection.sh

delete_all_regions
teardown_devices
tap_finish
