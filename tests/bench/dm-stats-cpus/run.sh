#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# dm-stats memory by possible CPUs, guest part (run by
# tests/bench/dm-stats-cpus/host.sh after the IOPS rows, in the same boot):
# what stats_current_allocated_bytes grows by, on each engine, for 50
# one-area regions (per region) and for one region of 1,000 areas. Both
# engines keep counters per possible CPU; the stock engine also gives every
# region an array of NR_CPUS pointers.
#
#   # MEM engine=E one_area_bytes=B areas1000_bytes=B
#
# and TAP checks that every region was created and that deleting ours gave
# all of it back (after RCU grace periods). The stock engine's charge is
# only waited for: the next measurement starts from what it is then.
# shellcheck source=../lib.sh
. ../lib.sh

PARAM=/sys/module/dm_mod/parameters/stats_current_allocated_bytes
DEV=benchmem

[ -f "$STOCK_KO" ] || bail "no stock dm-mod.ko at $STOCK_KO"
[ -f "$OURS_KO" ] || bail "no iotally dm-mod.ko at $OURS_KO"
command -v dm-stats-msg >/dev/null || bail "dm-stats-msg is not in the guest (scripts/test-helpers.sh)"
load_nullb inline 10

# settle TARGET: wait up to 10 s for the charge to come back to TARGET
# (both engines may free a deleted region after an RCU grace period).
settle() { wait_for 10 eval "[ \"\$(cat $PARAM)\" = $1 ]"; }

# steady: the charge once it has not moved for 0.3 s (at most 10 s): what
# the regions hold, without index snapshots still waiting for their grace
# period.
steady() {
	_n=0 _was=-1 _now=$(cat $PARAM)
	while [ "$_now" != "$_was" ] && [ $_n -lt 33 ]; do
		sleep 0.3
		_was=$_now _now=$(cat $PARAM) _n=$((_n + 1))
	done
	echo "$_now"
}

for e in stock ours; do
	load_engine $e
	nullb_linear "$DEV"

	base=$(cat $PARAM)
	awk 'BEGIN { for (i = 0; i < 50; i++) printf "@stats_create %d+8 8\n", i * 8 }' >/tmp/msgs
	dm-stats-msg -q "$DEV" </tmp/msgs
	check_eq "$e: 50 one-area regions created" 50 "$(dmsetup message "$DEV" 0 @stats_list | wc -l)"
	one=$((($(steady) - base) / 50))
	dmsetup message "$DEV" 0 @stats_list | sed -n 's/^\([0-9]*\): .*/@stats_delete \1/p' |
		dm-stats-msg -q "$DEV"
	settle "$base"
	[ $e = ours ] && check_eq "$e: deleting them gives all memory back" "$base" "$(cat $PARAM)"

	base=$(cat $PARAM)
	dmsetup message "$DEV" 0 @stats_create 0+8000 8 >/dev/null
	check_eq "$e: one region of 1,000 areas created" 1 "$(dmsetup message "$DEV" 0 @stats_list | wc -l)"
	big=$(($(steady) - base))
	dmsetup message "$DEV" 0 @stats_list | sed -n 's/^\([0-9]*\): .*/@stats_delete \1/p' |
		dm-stats-msg -q "$DEV"
	settle "$base"
	[ $e = ours ] && check_eq "$e: deleting it gives all memory back" "$base" "$(cat $PARAM)"

	echo "# MEM engine=$e one_area_bytes=$one areas1000_bytes=$big"
	dmsetup remove --noudevsync "$DEV" || bail "cannot remove the dm-linear device"
done
tap_finish
