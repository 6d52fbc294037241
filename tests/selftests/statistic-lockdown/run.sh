#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Booted with lockdown=integrity, as Secure Boot distributions boot: debugfs
# refuses to open writable files, so no statistic could ever be defined or
# started. The generic statistics layer then stays closed: one kernel log
# line at boot says why, mapped devices get no interface and cost nothing
# (even with dm_mod.statistic=1), and `iotally stat` says why too.
. ../lib.sh
. ../statistic-limits/memory.sh

STATS=/sys/kernel/debug/statistics

if ! grep -qE '(^| )lockdown=integrity( |$)' /proc/cmdline; then
	skip_all "boot with lockdown=integrity to run this suite"
fi
# as systemd mounts it
[ -e /sys/kernel/security/lockdown ] ||
	mount -t securityfs none /sys/kernel/security ||
	bail "cannot mount securityfs"
check_eq "the kernel is locked down (integrity)" "none [integrity] confidentiality" \
	"$(cat /sys/kernel/security/lockdown)"
# (scripts/check.sh boots this guest with kunit.enable=0: KUnit's output
# would fill the 128 KiB log buffer past the layer's line)
check_eq "one kernel log line says why the layer is closed" 1 \
	"$(dmesg | grep -c 'statistic: kernel lockdown: debugfs files cannot be written, so no statistics are created$')"
check_eq "... and not another reason" 0 "$(dmesg | grep -c 'statistic: no debugfs')"
check_eq "no statistics directory in debugfs" no \
	"$([ -e $STATS ] && echo yes || echo no)"

# 200 dm-linear devices in batches with dm_mod.statistic off and on
# (statistic-limits/memory.sh): on, they get no interface and no memory.
# The kernel's own lines, less the virtual machine's timing reports that a
# loaded host provokes at any time (clocksource watchdog, hrtimer).
lines() { dmesg | grep -cvE 'clocksource|hrtimer: interrupt took'; }
before=$(lines)
device_cost 200 || bail "cannot create and remove 200 dm-linear devices"
check_eq "dm_mod.statistic=1: 200 devices, no interface" 0 "$_dirs"
check_eq "... nothing charged to the layer" 0 "$cost_layer"
# 6,900 B of Slab per device with interfaces (bench/statistic-memory);
# without them the difference is noise of a few hundred bytes (1,085 B
# once under host load), so the bound sits well below one interface.
check_cmp "... no Slab per device, on minus off (< 2000 B)" -lt "$cost_slab" 2000
check_cmp "... no per-CPU memory per device (tracepoints, < 200 B)" -lt "$cost_percpu_alloc" 200
after=$(lines)
check_eq "... and no new kernel log line" "$before" "$after"
[ "$before" = "$after" ] || dmesg | tail -n $((after - before)) | sed 's/^/# /'

# The I/O path of a device made with the switch on: nothing is hooked.
echo 1 >"$DM_STATISTIC_PARAM"
dmsetup create --noudevsync lock-zero --table "0 8 zero" || bail "cannot create a dm-zero device"
/usr/bin/dd if=/dev/mapper/lock-zero of=/dev/null bs=4096 count=1 iflag=direct status=none
check_eq "I/O on it works" 0 "$?"
dmsetup remove --noudevsync lock-zero
echo 0 >"$DM_STATISTIC_PARAM"

if command -v iotally >/dev/null; then
	run iotally stat list
	check_eq "iotally stat list: exit 5 (unsupported)" 5 "$rc"
	check_match "... one line that says the kernel is locked down" \
		'^iotally: .*locked down \(integrity\).*$' "$err"
	check_eq "... one line" 1 "$(printf '%s\n' "$err" | wc -l)"
else
	skip "iotally stat says why" "iotally is not in the guest (make tools)"
fi
tap_finish
