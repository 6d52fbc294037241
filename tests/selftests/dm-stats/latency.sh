# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
#
# Time counters and histograms, with latencies made known by dm-delay, and
# the regions placed directly on the delay device.
#
# Upstream starts an I/O's latency clock (read and write time, histogram)
# when the bio reaches the mapped device, and its in-flight clocks (in flight,
# io_ticks, weighted time, total read and write time) in dm_start_io_acct(),
# which dm-delay calls only when it lets the bio go: a bio it holds 100 ms
# counts 100 ms of read time but is not in flight while held. dm-delay starts
# accounting on its worker's CPU, so merge counts are not deterministic: the
# reads here never start where another ended.

SLOW=slow
modprobe dm-delay 2>/dev/null
dmsetup create --noudevsync "$SLOW" --table "0 $DEV_SECTORS delay /dev/ram0 0 100" ||
	bail "cannot create a dm-delay device"

slow_msg() { dmsetup message "$SLOW" 0 "$@"; }

ms_region=$(slow_msg @stats_create - /1 1 histogram:50,1000)
ns_region=$(slow_msg @stats_create - /1 2 precise_timestamps histogram:20000000,1000000000)

# Three 100 ms reads at spaced sectors (no merges).
for s in 0 64 128; do read_at "$s" 4096 1 "$SLOW"; done

# check_three_reads NAME REGION UNIT PER_MS MIN: REGION counts the three
# 100 ms reads, each in the middle of its 3 histogram buckets, and their
# read time in UNIT (PER_MS of them a millisecond) is MIN ms or more and
# under 3 s; $line is its @stats_print line.
check_three_reads() {
	line=$(slow_msg @stats_print "$2")
	check_eq "$1: 3 delayed reads are counted" "3 0 24 0 0 0 0" "$(counters "$line")"
	check_eq "$1: each 100 ms read lands in the middle bucket" "0:3:0" "$(field "$line" 15)"
	check_cmp "$1: read time ($3) is at least $5 ms" -ge "$(field "$line" 5)" $(($5 * $4))
	check_cmp "$1: read time is in $3, less than 3 s" -lt "$(field "$line" 5)" $((3000 * $4))
}

# Boundaries 50 and 1000 ms: 3 x 100 ms of reading.
check_three_reads "ms" "$ms_region" ms 1 300
check_cmp "io_ticks (ms) leaves out the 3 x 100 ms dm-delay held the bios" \
	-lt "$(field "$line" 11)" 150
check_cmp "weighted time (ms) leaves it out" -lt "$(field "$line" 12)" 150
check_cmp "total read time (ms) leaves it out" -lt "$(field "$line" 13)" 150
check_eq "no write time" "0 0" "$(echo "$line" | awk '{ print $9, $14 }')"

# Boundaries in ns (20 ms, 1 s). dm-delay's timer counts whole jiffies; in
# a TCG guest on a loaded host jiffies lag during a stall and catch up
# several at once, so in nanoseconds a 100 ms delay may end early: the
# bound is half of it.
check_three_reads "precise_timestamps" "$ns_region" ns 1000000 150
check_cmp "precise_timestamps: io_ticks (ns) leaves out the time the bios were held" \
	-lt "$(field "$line" 11)" 150000000

# Histogram buckets: n boundaries make n+1 buckets, the last one open-ended.
b_region=$(slow_msg @stats_create - /1 1 histogram:1,2,3,5000,6000)
dd_direct if=/dev/zero of=/dev/mapper/$SLOW bs=4096 count=1 seek=$((1000 * 512)) \
	oflag=direct,seek_bytes
line=$(slow_msg @stats_print "$b_region")
check_eq "a delayed write is counted as a write" "0 0 0 1 0 8 0" "$(counters "$line")"
check_eq "a 100 ms write lands between boundaries 3 and 5000" "0:0:0:1:0:0" "$(field "$line" 15)"
check_cmp "write time (ms) is at least 100 ms" -ge "$(field "$line" 9)" 100
check_cmp "total write time (ms) leaves out the 100 ms the bio was held" \
	-lt "$(field "$line" 14)" 50
h_region=$(slow_msg @stats_create - /1 1 histogram:10,20)
dd_direct if=/dev/zero of=/dev/mapper/$SLOW bs=4096 count=1 seek=$((2000 * 512)) \
	oflag=direct,seek_bytes
check_eq "a latency above the last boundary lands in the open bucket" "0:0:1" \
	"$(field "$(slow_msg @stats_print "$h_region")" 15)"
for r in $ms_region $ns_region $b_region $h_region; do slow_msg @stats_delete "$r"; done

# A bio dm-delay holds is not in flight yet: it becomes so when the target
# lets it go, and completes at once on brd.
dmsetup suspend --noudevsync "$SLOW"
dmsetup load "$SLOW" --table "0 $DEV_SECTORS delay /dev/ram0 0 2000"
dmsetup resume --noudevsync "$SLOW"
f_region=$(slow_msg @stats_create - /1)
read_at 2048 4096 1 "$SLOW" &
reader=$!
sleep 1
check_eq "a bio held by dm-delay is neither in flight nor completed" "0 0 0 0 0 0 0" \
	"$(counters "$(slow_msg @stats_print "$f_region")")"
wait "$reader"
line=$(slow_msg @stats_print "$f_region")
check_eq "once let go, it is counted once, nothing is left in flight" "1 0 8 0 0 0 0" \
	"$(counters "$line")"
check_cmp "its read time covers the 2 s delay" -ge "$(field "$line" 5)" 1900
dmsetup remove --noudevsync "$SLOW"

# In-flight I/O, on dm-linear over a slow disk (null_blk completing each
# request after 10 s: four messages after the I/O is seen in flight take
# well over a second on a loaded host): counted while it runs, kept by
# clear, gone when it completes.
if modprobe null_blk nr_devices=1 gb=1 queue_mode=2 irqmode=2 completion_nsec=10000000000; then
	dmsetup create --noudevsync inflight --table "0 $DEV_SECTORS linear /dev/nullb0 0" ||
		bail "cannot create dm-linear over null_blk"
	f_region=$(dmsetup message inflight 0 @stats_create - /1)
	read_at 2048 4096 1 inflight &
	reader=$!
	# Wait (up to 5 s of the 10 s) for the reader to submit its I/O.
	_i=0
	while [ $_i -lt 50 ]; do
		_i=$((_i + 1))
		line=$(dmsetup message inflight 0 @stats_print "$f_region")
		[ "$(field "$line" 10)" = 1 ] && break
		sleep 0.1
	done
	check_eq "an I/O in progress is counted in flight, not completed" "0 0 0 0 0 0 1" \
		"$(counters "$line")"
	dmsetup message inflight 0 @stats_clear "$f_region"
	check_eq "clear keeps the in-flight count" "1" \
		"$(field "$(dmsetup message inflight 0 @stats_print "$f_region")" 10)"
	dmsetup message inflight 0 @stats_print_clear "$f_region" >/dev/null
	check_eq "print_clear keeps the in-flight count" "1" \
		"$(field "$(dmsetup message inflight 0 @stats_print "$f_region")" 10)"
	wait "$reader"
	line=$(dmsetup message inflight 0 @stats_print "$f_region")
	check_eq "the completed I/O is counted once, nothing is left in flight" "1 0 8 0 0 0 0" \
		"$(counters "$line")"
	check_cmp "its time covers the 10 s completion" -ge "$(field "$line" 5)" 9900
	dmsetup remove --noudevsync inflight
	rmmod null_blk
else
	fail "null_blk with timed completions" "modprobe null_blk failed"
fi
