# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Sourced after ../lib.sh, whose run() sets $out, $err and $rc: shellcheck
# cannot see that from this file.
# shellcheck disable=SC2154
#
# Every message, every accepted form, and the exact text they print.

delete_all_regions
check_eq "no regions: @stats_list prints nothing" "" "$(stats_list)"

# Ranges and steps -----------------------------------------------------------
msg @stats_create - /1
check_eq "create '- /1': first region id is 0" "0" "$out"
check_eq "create '- /1': whole device, one area" \
	"0: 0+$DEV_SECTORS $DEV_SECTORS - -" "$(stats_list)"

msg @stats_create 0+100 30
check_eq "create 'start+length step' returns the next id" "1" "$out"
check_eq "list shows start+length and area size" "1: 0+100 30 - -" "$(stats_list | sed -n 2p)"
msg @stats_print 1
check_eq "print: one line per area, the last area printed with the full step" \
	"0+30 0 0 0 0 0 0 0 0 0 0 0 0 0
30+30 0 0 0 0 0 0 0 0 0 0 0 0 0
60+30 0 0 0 0 0 0 0 0 0 0 0 0 0
90+30 0 0 0 0 0 0 0 0 0 0 0 0 0" "$out"

msg @stats_create - /100
check_eq "create '- /100' returns id 2" "2" "$out"
check_eq "'/100' rounds the area size up" "2: 0+$DEV_SECTORS 1311 - -" "$(stats_list | sed -n 3p)"
msg @stats_print 2
check_eq "'/100' makes 100 areas" "100" "$(echo "$out" | wc -l)"
check_eq "'/100': first area" "0+1311 0 0 0 0 0 0 0 0 0 0 0 0 0" "$(echo "$out" | sed -n 1p)"
check_eq "'/100': last area starts at 99*1311" "129789+1311 0 0 0 0 0 0 0 0 0 0 0 0 0" \
	"$(echo "$out" | sed -n 100p)"

msg @stats_create 1000+2000 500
check_eq "area size dividing the range evenly" "3: 1000+2000 500 - -" "$(stats_list | sed -n 4p)"
msg @stats_print 3
check_eq "range 1000+2000 step 500: areas start at 1000, 1500, 2000, 2500" \
	"1000+500 1500+500 2000+500 2500+500" \
	"$(echo "$out" | awk '{ print $1 }' | tr '\n' ' ' | sed 's/ $//')"

msg @stats_create 0+8 /16
check_eq "more areas than sectors: accepted" "4" "$out"
check_eq "more areas than sectors: one-sector areas" "4: 0+8 1 - -" "$(stats_list | sed -n 5p)"
msg @stats_print 4
check_eq "more areas than sectors: 8 areas, not 16" "8" "$(echo "$out" | wc -l)"

msg @stats_create $((DEV_SECTORS - 72))+1000 100
check_eq "a range past the device end is accepted" "5" "$out"
check_eq "a range past the device end is kept as given" \
	"5: $((DEV_SECTORS - 72))+1000 100 - -" "$(stats_list | sed -n 6p)"
msg @stats_print 5
check_eq "a range past the device end has all its areas" "10" "$(echo "$out" | wc -l)"

# Line ranges in print -------------------------------------------------------
msg @stats_print 2 10 3
check_eq "print START COUNT prints COUNT lines from START" \
	"13110+1311 14421+1311 15732+1311" \
	"$(echo "$out" | awk '{ print $1 }' | tr '\n' ' ' | sed 's/ $//')"
msg @stats_print 2 - 2
check_eq "print '- COUNT' starts at line 0" "0+1311 1311+1311" \
	"$(echo "$out" | awk '{ print $1 }' | tr '\n' ' ' | sed 's/ $//')"
msg @stats_print 2 98 -
check_eq "print 'START -' goes to the last line" "128478+1311 129789+1311" \
	"$(echo "$out" | awk '{ print $1 }' | tr '\n' ' ' | sed 's/ $//')"
msg @stats_print 2 97 1000
check_eq "print COUNT past the end is cut at the last line" "3" "$(echo "$out" | wc -l)"
msg @stats_print 2 100 5
check_eq "print START at the end prints nothing, successfully" "0:" "$rc:$out"
msg @stats_print 2 5000 1
check_eq "print START past the end prints nothing, successfully" "0:" "$rc:$out"
msg @stats_print 2 3 0
check_eq "print COUNT 0 prints nothing" "0:" "$rc:$out"
msg @stats_print_clear 2 0 1
check_eq "print_clear takes line ranges too" "0+1311 0 0 0 0 0 0 0 0 0 0 0 0 0" "$out"

# Region ids: the lowest free id is reused ------------------------------------
msg @stats_delete 1
check_eq "delete returns nothing" "0:" "$rc:$out"
check_eq "deleted region is gone from the list" "" "$(stats_list | grep '^1:')"
msg @stats_create - /1
check_eq "create reuses the lowest free id" "1" "$out"
msg @stats_create - /1
check_eq "then continues after the highest id" "6" "$out"
msg @stats_delete 0
msg @stats_delete 3
msg @stats_create - /1
check_eq "with several holes, the lowest is taken first" "0" "$out"
msg @stats_create - /1
check_eq "then the next hole" "3" "$out"
check_eq "list is ordered by region id" "0 1 2 3 4 5 6" \
	"$(stats_list | sed 's/:.*//' | tr '\n' ' ' | sed 's/ $//')"
delete_all_regions

# Optional arguments, program_id and aux_data -----------------------------------
msg @stats_create - /1 myprog
check_eq "program_id without an argument count" "0: 0+$DEV_SECTORS $DEV_SECTORS myprog -" \
	"$(stats_list)"
msg @stats_create - /1 myprog my_aux
check_eq "program_id and aux_data" "1: 0+$DEV_SECTORS $DEV_SECTORS myprog my_aux" \
	"$(stats_list | sed -n 2p)"
msg @stats_create - /1 0 otherprog
check_eq "an argument count of 0 then program_id" "2: 0+$DEV_SECTORS $DEV_SECTORS otherprog -" \
	"$(stats_list | sed -n 3p)"
msg @stats_create - /1 0 12345 aux
check_eq "an all-digit program_id after an explicit count" \
	"3: 0+$DEV_SECTORS $DEV_SECTORS 12345 aux" \
	"$(stats_list | sed -n 4p)"
msg @stats_create - /1 1 precise_timestamps
check_eq "precise_timestamps is listed" "4: 0+$DEV_SECTORS $DEV_SECTORS - - precise_timestamps" \
	"$(stats_list | sed -n 5p)"
msg @stats_create - /1 1 histogram:10,20,30 hprog haux
check_eq "histogram boundaries are listed" \
	"5: 0+$DEV_SECTORS $DEV_SECTORS hprog haux histogram:10,20,30" \
	"$(stats_list | sed -n 6p)"
msg @stats_create 0+1000 /2 2 histogram:1000,2000 precise_timestamps
check_eq "precise_timestamps is listed before the histogram, whatever the order given" \
	"6: 0+1000 500 - - precise_timestamps histogram:1000,2000" "$(stats_list | sed -n 7p)"
msg @stats_print 6
check_eq "print with a histogram adds one colon-separated column, n+1 buckets" \
	"0+500 0 0 0 0 0 0 0 0 0 0 0 0 0 0:0:0
500+500 0 0 0 0 0 0 0 0 0 0 0 0 0 0:0:0" "$out"
msg @stats_create - /1 2 PRECISE_TIMESTAMPS HISTOGRAM:5
check_eq "option names are case-insensitive" \
	"7: 0+$DEV_SECTORS $DEV_SECTORS - - precise_timestamps histogram:5" \
	"$(stats_list | sed -n 8p)"
msg @stats_create - /1 2 precise_timestamps precise_timestamps
check_eq "a repeated precise_timestamps is accepted" "0:8" "$rc:$out"
check_eq "and listed once" "8: 0+$DEV_SECTORS $DEV_SECTORS - - precise_timestamps" \
	"$(stats_list | sed -n 9p)"
msg @stats_create - /1 1 histogram:18446744073709551615
check_eq "the largest 64-bit boundary is accepted" \
	"9: 0+$DEV_SECTORS $DEV_SECTORS - - histogram:18446744073709551615" \
	"$(stats_list | sed -n 10p)"
msg @stats_create - /1 prog 'foo\ bar\ baz'
check_eq "escaped spaces in aux_data at create" "10: 0+$DEV_SECTORS $DEV_SECTORS prog foo bar baz" \
	"$(stats_list | sed -n 11p)"

# @stats_list filtering --------------------------------------------------------
msg @stats_list myprog
check_eq "list filtered by program_id" "0: 0+$DEV_SECTORS $DEV_SECTORS myprog -
1: 0+$DEV_SECTORS $DEV_SECTORS myprog my_aux" "$out"
msg @stats_list 12345
check_eq "list filtered by an all-digit program_id" \
	"3: 0+$DEV_SECTORS $DEV_SECTORS 12345 aux" "$out"
msg @stats_list nosuchprog
check_eq "list filtered by an unknown program_id prints nothing" "0:" "$rc:$out"
msg @stats_list -
check_eq "'-' filters the regions created with no program_id" "4 6 7 8 9" \
	"$(echo "$out" | sed 's/:.*//' | tr '\n' ' ' | sed 's/ $//')"
msg @STATS_LIST hprog
check_eq "message names are case-insensitive" \
	"5: 0+$DEV_SECTORS $DEV_SECTORS hprog haux histogram:10,20,30" "$out"

# @stats_set_aux ----------------------------------------------------------------
msg @stats_set_aux 0 new_aux
check_eq "set_aux returns nothing" "0:" "$rc:$out"
check_eq "set_aux replaces aux_data" "0: 0+$DEV_SECTORS $DEV_SECTORS myprog new_aux" \
	"$(stats_list | sed -n 1p)"
msg @stats_set_aux 0 'foo\ bar\ baz'
check_eq "set_aux with escaped spaces (the spec's example)" \
	"0: 0+$DEV_SECTORS $DEV_SECTORS myprog foo bar baz" \
	"$(stats_list | sed -n 1p)"
msg @stats_set_aux 0 -
check_eq "set_aux to '-'" "0: 0+$DEV_SECTORS $DEV_SECTORS myprog -" "$(stats_list | sed -n 1p)"

# @stats_clear -----------------------------------------------------------------
msg @stats_clear 0
check_eq "clear returns nothing" "0:" "$rc:$out"

# The memory used is visible and returns to zero --------------------------------
check_cmp "stats_current_allocated_bytes counts live regions" -gt \
	"$(cat /sys/module/dm_mod/parameters/stats_current_allocated_bytes)" 0
delete_all_regions
# Memory of a deleted region may be freed after an RCU grace period.
for _i in 1 2 3 4 5 6 7 8 9 10; do
	[ "$(cat /sys/module/dm_mod/parameters/stats_current_allocated_bytes)" = 0 ] && break
	sleep 0.2
done
check_eq "stats_current_allocated_bytes returns to 0 with no regions" "0" \
	"$(cat /sys/module/dm_mod/parameters/stats_current_allocated_bytes)"
