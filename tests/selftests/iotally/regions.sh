# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Sourced after ../lib.sh, whose run() sets $out, $err and $rc: shellcheck
# cannot see that from this file.
# shellcheck disable=SC2154
#
# create, list, print, clear, set-aux, delete: each one checked against what
# the kernel reports through dmsetup.

delete_all_regions

check_ok "iotally help lists the commands" iotally help
for c in message create delete clear list print set-aux report histogram top export stat; do
	check_match "iotally help lists '$c'" "^  $c " "$out"
done

check_ok "create --areas 4 --program-id --aux" iotally create "$VOL" --areas 4 \
	--program-id iotst --aux "hello world"
check_eq "create prints the new region id" "0" "$out"
check_eq "the kernel has the region as asked" "0: 0+$DEV_SECTORS 32768 iotst hello world" "$(stats_list)"

# Sizes with units: 1m = 2048 sectors, 512k = 1024 sectors.
check_ok "create --start 1m --length 2m --area-size 512k --histogram 1ms,5ms,20ms" \
	iotally create "$VOL" --start 1m --length 2m --area-size 512k --histogram 1ms,5ms,20ms
check_eq "create with units prints id 1" "1" "$out"
check_eq "sizes with units reach the kernel in sectors; a histogram is precise (ns)" \
	"1: 2048+4096 1024 iotally - precise_timestamps histogram:1000000,5000000,20000000" \
	"$(stats_list | sed -n 2p)"

check_ok "create --precise --histogram 500us,2ms" iotally create "$VOL" --length 8 \
	--precise --histogram 500us,2ms
check_eq "precise regions get their bounds in ns" \
	"2: 0+8 8 iotally - precise_timestamps histogram:500000,2000000" "$(stats_list | sed -n 3p)"

check_ok "create a region from dmsetup, for list" dmsetup message "$VOL" 0 @stats_create 0+64 /2 other -
check_ok "iotally list --json $VOL" iotally list --json "$VOL"
check_eq "list shows four regions" "0 1 2 3" \
	"$(printf '%s\n' "$out" | grep -o '"region_id":[0-9]*' | cut -d: -f2 | tr '\n' ' ' | sed 's/ $//')"
check_match "list shows the aux_data" '"aux_data":"hello world"' "$out"
check_match "list shows a region made by dmsetup, 2 areas of 32" \
	'"area_sectors":32,"areas":2,"aux_data":"","group_id":null,"histogram_bounds_ns":\[\],"length_sectors":64,"precise_timestamps":false,"program_id":"other","region_id":3' "$out"
check_ok "iotally list (text)" iotally list "$VOL"
check_match "text list: region 1 with its histogram" \
	"^$VOL +1 +2048 +4096 +1024 +4 +iotally +- +yes +1ms,5ms,20ms +-\$" "$out"
check_ok "iotally list --program-id other" iotally list --program-id other "$VOL"
check_eq "list --program-id shows only that program's regions" 1 "$(printf '%s\n' "$out" | grep -c "^$VOL ")"

# Known I/O: 3 direct 4 KiB writes at sector 8 (merged 2: they follow each
# other on one CPU) and 2 reads of 8 KiB at sector 40000 (area 1).
write_at 8 4096 3
read_at 40000 8192 2
check_ok "iotally print $VOL 0" iotally print "$VOL" 0
ip=$out
kp=$(dmsetup message "$VOL" 0 @stats_print 0)
check_eq "print is the kernel's @stats_print text" "$kp" "$ip"
check_eq "area 0 counted the writes" "0 0 0 3 2 24 0" "$(counters "$(echo "$ip" | sed -n 1p)")"
check_eq "area 1 counted the reads" "2 1 32 0 0 0 0" "$(counters "$(echo "$ip" | sed -n 2p)")"
check_ok "iotally print --first 1 --count 2" iotally print "$VOL" 0 --first 1 --count 2
check_eq "print --first/--count is @stats_print ID 1 2" \
	"$(dmsetup message "$VOL" 0 @stats_print 0 1 2)" "$out"
check_ok "iotally print --json" iotally print --json "$VOL" 0
check_eq "print --json: writes of area 0" 3 "$(json_int writes "$out")"
check_eq "print --json: sectors written in area 0" 24 "$(json_int write_sectors "$out")"

check_ok "iotally set-aux" iotally set-aux "$VOL" 0 "new text"
check_eq "set-aux reaches the kernel" "0: 0+$DEV_SECTORS 32768 iotst new text" "$(stats_list | sed -n 1p)"
check_ok "iotally set-aux -" iotally set-aux "$VOL" 0 -
check_eq "set-aux - clears it" "0: 0+$DEV_SECTORS 32768 iotst -" "$(stats_list | sed -n 1p)"

check_ok "iotally clear $VOL 0" iotally clear "$VOL" 0
check_eq "clear zeroes the counters" "0 0 0 0 0 0 0" \
	"$(counters "$(dmsetup message "$VOL" 0 @stats_print 0 0 1)")"
check_eq "clear zeroes every area" "0" \
	"$(dmsetup message "$VOL" 0 @stats_print 0 | awk '{ s += $2 + $6 } END { print s + 0 }')"

write_at 8 4096 1
check_ok "iotally print --clear" iotally print --clear "$VOL" 0 --first 0 --count 1
check_eq "print --clear shows the counters first" "0 0 0 1 0 8 0" "$(counters "$out")"
check_eq "print --clear then clears them" "0 0 0 0 0 0 0" \
	"$(counters "$(dmsetup message "$VOL" 0 @stats_print 0 0 1)")"

check_ok "iotally delete $VOL 1 3" iotally delete "$VOL" 1 3
check_eq "delete removes exactly those regions" "0 2" \
	"$(stats_list | sed 's/:.*//' | tr '\n' ' ' | sed 's/ $//')"
check_ok "iotally delete --all --program-id iotst" iotally delete "$VOL" --all --program-id iotst
check_eq "delete --all --program-id leaves other programs' regions" "2" \
	"$(stats_list | sed 's/:.*//' | tr '\n' ' ' | sed 's/ $//')"
check_ok "iotally delete --all" iotally delete "$VOL" --all
check_eq "delete --all removes the rest" "" "$(stats_list)"

# lvm2 interop: a dmstats group is listed with its alias and members, and
# dmstats sees the regions iotally creates.
dmstats create "$VOL" --start 0 --length 1024 >/dev/null
dmstats create "$VOL" --start 1024 --length 1024 >/dev/null
check_ok "dmstats group" dmstats group "$VOL" --regions 0,1 --alias pair
check_ok "iotally list --json shows the dmstats group" iotally list --json "$VOL"
check_match "the group has its alias and both members" \
	'"groups":\[\{"alias":"pair","group_id":0,"members":\[0,1\]\}\]' "$out"
check_ok "iotally report --level group" iotally report --json --level group "$VOL"
check_match "report shows the group" '"group_alias":"pair","group_id":0' "$out"
check_ok "iotally create for dmstats" iotally create "$VOL" --length 2048
id=$out
check_ok "dmstats list --allprograms" dmstats list --allprograms "$VOL"
check_match "dmstats list shows the region iotally made" "^$VOL +- +$id +region .* iotally *$" "$out"
check_ok "iotally delete 0 (group leader)" iotally delete "$VOL" 0
check_match "deleting the leader leaves the member without a group tag" \
	"^1: [0-9]+\+[0-9]+ [0-9]+ dmstats -$" "$(stats_list)"
delete_all_regions
