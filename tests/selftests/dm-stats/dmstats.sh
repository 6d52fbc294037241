# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Sourced after ../lib.sh, whose run() sets $out, $err and $rc: shellcheck
# cannot see that from this file.
# shellcheck disable=SC2154
#
# lvm2's dmstats drives the engine through libdevmapper: create with --areas,
# --histogram and --precise, list, report, delete.

delete_all_regions

check_ok "dmstats create --areas 4" dmstats create "$VOL" --areas 4
check_eq "dmstats create reports the new region" \
	"$VOL: Created new region with 4 area(s) as region ID 0" "$out"
check_eq "dmstats regions carry program_id dmstats" "0: 0+$DEV_SECTORS 32768 dmstats -" \
	"$(stats_list)"

check_ok "dmstats create --bounds" dmstats create "$VOL" --start 0 --length 8192 --bounds 10ms,20ms
check_eq "dmstats --bounds reach the kernel in ms" \
	"1: 0+8192 8192 dmstats - histogram:10,20" "$(stats_list | sed -n 2p)"

check_ok "dmstats create --precise" dmstats create "$VOL" --start 8192 --length 8192 --precise \
	--bounds 1ms,1s
check_eq "dmstats --precise turns on precise_timestamps, histogram in ns" \
	"2: 8192+8192 8192 dmstats - precise_timestamps histogram:1000000,1000000000" \
	"$(stats_list | sed -n 3p)"

check_ok "dmstats list" dmstats list "$VOL"
check_eq "dmstats list shows every region" "3" "$(echo "$out" | grep -c "^$VOL ")"

write_at 0 4096 4
check_ok "dmstats report" \
	dmstats report "$VOL" -o region_id,area_id,read_count,write_count,hist_count_bounds \
	--noheadings --nosuffix --separator ,
check_eq "dmstats report shows the writes in area 0 of region 0" "0,0,0,4," \
	"$(echo "$out" | sed -n '1s/ *$//p')"
# 4 KiB writes to a ramdisk take well under 10 ms: all in the first bin.
check_eq "dmstats report shows the histogram the kernel counted" "1,0,0,4,0s:4:10ms:0:20ms:0" \
	"$(echo "$out" | grep '^1,' | sed 's/ *$//')"
check_ok "dmstats report again" \
	dmstats report "$VOL" --regionid 0 -o region_id,area_id,read_count,write_count \
	--noheadings --nosuffix --separator ,
check_eq "dmstats report reads with @stats_print_clear: the second report is empty" "0,0,0,0" \
	"$(echo "$out" | sed -n '1s/ *$//p')"

check_ok "dmstats delete --regionid" dmstats delete "$VOL" --regionid 1
check_eq "dmstats delete removes the region" "0 2" \
	"$(stats_list | sed 's/:.*//' | tr '\n' ' ' | sed 's/ $//')"
check_ok "dmstats delete --allregions" dmstats delete "$VOL" --allregions
check_eq "dmstats delete --allregions removes the rest" "" "$(stats_list)"
