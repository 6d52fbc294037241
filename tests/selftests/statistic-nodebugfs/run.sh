#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Booted with debugfs=off: the generic statistics layer is closed, and
# says so once at boot. Creating and removing 100 mapped devices with
# dm_mod.statistic=1 (each asks the layer for an interface and gets none)
# adds no kernel log line.
. ../lib.sh

if ! grep -qE '(^| )debugfs=off( |$)' /proc/cmdline; then
	skip_all "boot with debugfs=off to run this suite"
fi
check_eq "debugfs cannot be mounted" "" \
	"$(grep -w debugfs /proc/filesystems)"

# Devices get statistics only with dm_mod.statistic=1: ask for them, so
# that each creation reaches the closed layer.
echo 1 >/sys/module/dm_mod/parameters/statistic || bail "cannot switch dm_mod.statistic on"
lines() { dmesg | wc -l; }
before=$(lines)
i=0 t=
while [ $i -lt 100 ]; do
	t="${t}nodebugfs-$i,,,rw,0 8 zero;"
	i=$((i + 1))
done
dmsetup create --noudevsync --concise "${t%;}"
check_eq "100 devices created" 100 "$(dmsetup ls | grep -c '^nodebugfs-')"
/usr/bin/dd if=/dev/mapper/nodebugfs-0 of=/dev/null bs=4096 count=4 iflag=direct status=none
check_eq "I/O on them works" 0 "$?"
i=0 n=
while [ $i -lt 100 ]; do
	n="$n nodebugfs-$i"
	i=$((i + 1))
done
# shellcheck disable=SC2086
dmsetup remove --noudevsync $n
check_eq "100 devices removed" 0 "$(dmsetup ls | grep -c '^nodebugfs-')"
after=$(lines)
echo 0 >/sys/module/dm_mod/parameters/statistic
check_eq "no new kernel log line" "$before" "$after"
[ "$before" = "$after" ] || dmesg | tail -n $((after - before)) | sed 's/^/# /'
tap_finish
