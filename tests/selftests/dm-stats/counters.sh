# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Sourced after ../lib.sh (run() sets $out) and ./common.sh (create_region()
# sets $region): shellcheck cannot see that from this file.
# shellcheck disable=SC2154
#
# Counter values for deterministic direct-I/O workloads on dm-linear over brd.
# Every I/O is issued from CPU 0 (merge detection is per CPU).
# counters() prints: reads, read merges, sectors read, writes, write merges,
# sectors written, in flight.

delete_all_regions
create_region 0+65536 /4
quarters=$region
create_region 16384+16384 /1
second=$region
create_region - /1
whole=$region
create_region 100+100 /1
small=$region

area() { dmsetup message "$VOL" 0 @stats_print "$1" "$2" 1; }

write_at 0 4096
check_eq "one 4 KiB write: 1 write, 8 sectors, not merged" "0 0 0 1 0 8 0" \
	"$(counters "$(area "$quarters" 0)")"

write_at 8 4096 3
check_eq "3 writes each starting where the last ended count as merged" "0 0 0 4 3 32 0" \
	"$(counters "$(area "$quarters" 0)")"

read_at 0 4096 2
check_eq "reads: the first is not merged (last I/O was a write elsewhere), the second is" \
	"2 1 16 4 3 32 0" "$(counters "$(area "$quarters" 0)")"

write_at 16380 8192
check_eq "a write straddling two areas counts in the first with its 4 sectors" \
	"2 1 16 5 3 36 0" "$(counters "$(area "$quarters" 0)")"
check_eq "and in the second with its other 12 sectors" \
	"0 0 0 1 0 12 0" "$(counters "$(area "$quarters" 1)")"
check_eq "a region starting inside the write counts its part" \
	"0 0 0 1 0 12 0" "$(counters "$(area "$second" 0)")"

write_at 70000 4096
check_eq "a write past the region changes nothing in it" "0 0 0 0 0 0 0" \
	"$(counters "$(area "$quarters" 3)")"

write_at 96 4096
check_eq "a write starting before a region counts only its sectors inside" \
	"0 0 0 1 0 4 0" "$(counters "$(area "$small" 0)")"

check_eq "an overlapping whole-device region counts every I/O" "2 1 16 7 3 64 0" \
	"$(counters "$(area "$whole" 0)")"
check_eq "print line: start+length, 11 diskstats counters, 2 totals" "14" \
	"$(area "$whole" 0 | awk '{ print NF }')"

# Reading is not clearing; print_clear and clear are.
check_eq "print does not clear" "2 1 16 7 3 64 0" "$(counters "$(area "$whole" 0)")"
msg @stats_print_clear "$whole"
check_eq "print_clear prints the counters" "2 1 16 7 3 64 0" "$(counters "$out")"
check_eq "print_clear then clears them" "0+$DEV_SECTORS 0 0 0 0 0 0 0 0 0 0 0 0 0" \
	"$(area "$whole" 0)"
msg @stats_print_clear "$quarters" 1 1
check_eq "print_clear of a line range clears those lines" "0 0 0 0 0 0 0" \
	"$(counters "$(area "$quarters" 1)")"
check_eq "and leaves the other lines alone" "2 1 16 6 3 44 0" "$(counters "$(area "$quarters" 0)")"
msg @stats_clear "$quarters"
check_eq "clear zeroes every area" "" \
	"$(dmsetup message "$VOL" 0 @stats_print "$quarters" |
		awk '$2 + $3 + $4 + $6 + $7 + $8 != 0')"

# Regions created after I/O see only later I/O.
read_at 40000 8192
create_region 40000+64 /1
late=$region
read_at 40000 8192
check_eq "a new region counts only I/O after it was created" "1 0 16 0 0 0 0" \
	"$(counters "$(area "$late" 0)")"
delete_all_regions
