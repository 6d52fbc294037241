#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# iotally snoop on a kernel without the io trace events (Debian's own):
# asked for the native backend, one line saying what is missing and exit
# status 5 (unsupported), with no tracefs instance left behind; without
# the capabilities BPF needs, one line and exit 5 too. (snoop on BPF
# itself: the snoop suite.)
. ../lib.sh

run iotally --backend native snoop --duration 1
check_eq "snoop --backend native without the events: exit status 5" 5 "$rc"
check_eq "snoop --backend native without the events: one line on stderr" \
	"iotally: snoop: the native backend needs the io trace events (CONFIG_IO_TRACE_EVENTS)" "$err"
check_eq "snoop --backend native without the events: nothing on stdout" "" "$out"
# Trace instance names are ours (no blank, no newline): ls | grep is exact.
# shellcheck disable=SC2010
check_eq "snoop without the events: no instance left" "" \
	"$(ls /sys/kernel/tracing/instances 2>/dev/null | grep iotally)"

# Without capabilities (nobody, none inherited): neither backend can run
NOCAPS="/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all"
# shellcheck disable=SC2086
run $NOCAPS iotally snoop --duration 1
check_eq "snoop without events or capabilities: one line, exit status 5" \
	"5:iotally: snoop: neither backend can run: the io trace events (CONFIG_IO_TRACE_EVENTS); no CAP_BPF and CAP_PERFMON (run as root, or grant both)" \
	"$rc:$err"
# shellcheck disable=SC2086
run $NOCAPS iotally --backend bpf snoop --duration 1
check_eq "snoop --backend bpf without capabilities: one line, exit status 5" \
	"5:iotally: snoop: the bpf backend cannot load: no CAP_BPF and CAP_PERFMON (run as root, or grant both)" \
	"$rc:$err"
check_eq "snoop --backend bpf without capabilities: nothing on stdout" "" "$out"
tap_finish
