# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
#
# Bad input: one line on stderr naming the problem, the documented exit code
# (2 usage, 3 no such device, 6 no such region), and no state changed.

delete_all_regions
iotally create "$VOL" --length 1000 --program-id keeper --aux keep >/dev/null || bail "iotally create failed"
before=$(stats_list)

check_error "an unknown command" 2 "" iotally frobnicate
check_error "an unknown option" 2 "--bogus" iotally create "$VOL" --bogus
check_error "create on a device that does not exist" 3 "nosuchdev" iotally create nosuchdev
check_error "list of a device that does not exist" 3 "nosuchdev" iotally list nosuchdev
check_error "report of a device that does not exist" 3 "nosuchdev" iotally report nosuchdev
check_error "create --areas 0" 2 "--areas" iotally create "$VOL" --areas 0
check_error "create --areas and --area-size together" 2 "" iotally create "$VOL" --areas 2 --area-size 8
check_error "create --length with a bad unit" 2 "10q" iotally create "$VOL" --length 10q
check_error "create --histogram with decreasing bounds" 2 "" iotally create "$VOL" --histogram 5ms,1ms
check_error "create --histogram with a bad duration" 2 "fast" iotally create "$VOL" --histogram fast
check_error "create --start beyond the end of the device" 2 "beyond the end" \
	iotally create "$VOL" --start 200000
check_error "create a range the kernel refuses (past the end)" 2 "" \
	iotally create "$VOL" --start 131000 --length 1000000000000
check_error "create --aux with a newline" 2 "" iotally create "$VOL" --aux "a
b"
check_error "delete a region that does not exist" 6 "region 42 does not exist on $VOL" iotally delete "$VOL" 0 42
check_error "delete with a non-numeric id" 2 "abc" iotally delete "$VOL" abc
check_error "clear a region that does not exist" 6 "region 42 does not exist on $VOL" iotally clear "$VOL" 42
check_error "print a region that does not exist" 6 "region 42 does not exist on $VOL" iotally print "$VOL" 42
check_error "histogram of region -1" 2 "'-1'" iotally histogram "$VOL" -- -1
check_error "report --count -1" 2 "'-1'" iotally report -i 1 --count -1 "$VOL"
check_error "report with a count of 0" 2 "'0'" iotally report "$VOL" 1 0
check_error "report --select that matches nothing" 3 "nomatch" iotally report --select 'name=nomatch*'
check_error "an unknown option before the command" 2 "--bogus" iotally --bogus
check_error "create --no-precise with a boundary finer than the tick" 2 "clock tick" \
	iotally create "$VOL" --no-precise --histogram 1ms,20ms
check_error "set-aux of a region that does not exist" 6 "region 42 does not exist on $VOL" iotally set-aux "$VOL" 42 x
check_error "report --count without --interval" 2 "--interval" iotally report --count 2 "$VOL"
check_error "report -o with an unknown field" 2 "nosuchfield" iotally report -o nosuchfield "$VOL"
check_error "report --json and --csv together" 2 "" iotally report --json --csv "$VOL"
check_error "report --interval 0" 2 "" iotally report --interval 0 "$VOL"
check_error "report --select with a bad term" 2 "" iotally report --select 'colour=blue'
check_error "histogram with a bad interval" 2 "" iotally histogram "$VOL" 0 --interval soon
check_eq "every failed command left the regions as they were" "$before" "$(stats_list)"

# Nothing half-made: a delete of several ids where one is missing deletes none.
check_error "delete 0 and a missing id" 6 "region 9 does not exist on $VOL" iotally delete "$VOL" 0 9
check_eq "the existing region was not deleted either" "$before" "$(stats_list)"

# The statistics layer: no such interface, or no such statistic.
check_error "stat show of an interface that does not exist" 3 "nosuchiface" iotally stat show nosuchiface
delete_all_regions
