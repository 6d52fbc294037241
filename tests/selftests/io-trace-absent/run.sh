#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# iotally snoop on a kernel without the io trace events (Debian's own):
# one line saying so, exit status 5 (unsupported), and no tracefs instance
# left behind.
. ../lib.sh

run iotally snoop --duration 1
check_eq "snoop without the events: exit status 5" 5 "$rc"
check_eq "snoop without the events: one line on stderr" \
	"iotally: the kernel has no io trace events (CONFIG_IO_TRACE_EVENTS)" "$err"
check_eq "snoop without the events: nothing on stdout" "" "$out"
# Trace instance names are ours (no blank, no newline): ls | grep is exact.
# shellcheck disable=SC2010
check_eq "snoop without the events: no instance left" "" \
	"$(ls /sys/kernel/tracing/instances 2>/dev/null | grep iotally)"
tap_finish
