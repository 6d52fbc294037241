#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# dm-stats conformance suite: pins down the behaviour of the kernel's
# device-mapper statistics exactly as upstream 6.12 has it (messages, output
# text, error statuses, counters), through dmsetup and lvm2's dmstats.
# Every part runs against a dm-linear or dm-delay device over brd (and
# dm-linear over a slow null_blk for I/O in flight).
. ../lib.sh
. ./common.sh

setup_devices || bail "cannot set up brd and dm devices"

. ./messages.sh
. ./errors.sh
. ./counters.sh
. ./latency.sh
. ./arrival-clock.sh
. ./dmstats.sh

teardown_devices
tap_finish
