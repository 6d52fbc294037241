#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# dm-stats removal suite: a device whose one region holds 1 GiB of
# counters (one-sector areas on a dm-error device, which needs no backing
# memory) is removed; the statistics memory must come back, and the console
# must show no soft lockup or RCU stall (checked by tests/vm/run.sh). The
# statistics may use 1/4 of RAM: the guest needs about 4.5 GiB of MemTotal
# (scripts/check.sh boots the debug guest with enough).
. ../lib.sh

PARAM=/sys/module/dm_mod/parameters/stats_current_allocated_bytes
GIB=1073741824
DEV=bigstats
# An area costs a 64-byte cache line shared by all CPUs and 96 bytes of
# counters per possible CPU
# (Documentation/admin-guide/device-mapper/statistics-engine.rst, Memory),
# so 1 GiB is 4,194,305 areas with 2 possible CPUs and 43,748
# with 255: removal reads
# every area's shared words and frees every CPU's block, so the work to
# prove unbroken by yields is the 1 GiB, whatever its shape.
NCPUS=$(possible_cpus)
AREAS=$((GIB / (64 + 96 * NCPUS) + 1))

mem_kb=$(awk '/MemTotal/ { print $2 }' /proc/meminfo)
[ $((mem_kb * 1024 / 4)) -gt $((GIB + GIB / 8)) ] ||
	bail "MemTotal ${mem_kb} kB: 1/4 of it cannot hold 1 GiB of counters (boot with --mem 5632)"

dmsetup create --noudevsync "$DEV" --table "0 $AREAS error" ||
	bail "cannot create a dm-error device"
base=$(cat $PARAM)
start=$(date +%s)
echo "# $NCPUS possible CPUs: $AREAS areas"
id=$(dmsetup message "$DEV" 0 @stats_create - /$AREAS)
check_eq "a region of $AREAS areas is created" "0" "$id"
bytes=$(($(cat $PARAM) - base))
check_cmp "it holds at least 1 GiB of statistics memory ($bytes bytes)" -ge "$bytes" "$GIB"
line=$(dmsetup message "$DEV" 0 @stats_print 0 $((AREAS - 1)) 1)
check_eq "its last area prints" "$((AREAS - 1))+1 0 0 0 0 0 0 0 0 0 0 0 0 0" "$line"
echo "# created and printed in $(($(date +%s) - start)) s"

start=$(date +%s)
dmsetup remove --noudevsync "$DEV"
check_eq "the device is removed" "0" "$?"
echo "# removed in $(($(date +%s) - start)) s"
wait_for 10 eval '[ "$(cat $PARAM)" = "$base" ]'
check_eq "all statistics memory comes back" "$base" "$(cat $PARAM)"
tap_finish
