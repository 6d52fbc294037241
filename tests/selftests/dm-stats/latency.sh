# SPDX-License-Identifier: GPL-2.0-only
#
# Time counters and histograms, with latencies made known by dm-delay.
#
# dm-delay itself starts accounting an I/O only when it lets it go, on its
# worker's CPU, so its own in-flight and merge counts are not deterministic.
# The regions therefore sit on "top", a dm-linear device over the delayed
# device "slow": top accounts each I/O as it is submitted, and every I/O
# takes at least the delay of "slow" to complete.

SLOW=slow
TOP=top
modprobe dm-delay 2>/dev/null
dmsetup create --noudevsync "$SLOW" --table "0 $DEV_SECTORS delay /dev/ram0 0 100" ||
	bail "cannot create a dm-delay device"
dmsetup create --noudevsync "$TOP" --table "0 $DEV_SECTORS linear /dev/mapper/$SLOW 0" ||
	bail "cannot create a dm-linear device over dm-delay"

top_msg() { dmsetup message "$TOP" 0 "$@"; }

ms_region=$(top_msg @stats_create - /1 1 histogram:50,1000)
ns_region=$(top_msg @stats_create - /1 2 precise_timestamps histogram:50000000,1000000000)

# Three 100 ms reads at spaced sectors (no merges).
for s in 0 64 128; do read_at "$s" 4096 1 "$TOP"; done

line=$(top_msg @stats_print "$ms_region")
check_eq "3 delayed reads are counted" "3 0 24 0 0 0 0" "$(counters "$line")"
check_eq "each 100 ms read lands in the 50-1000 ms bucket" "0:3:0" "$(field "$line" 15)"
t=$(field "$line" 5)
check_cmp "read time (ms) is at least 3 x 100 ms" -ge "$t" 300
check_cmp "read time is in milliseconds, less than 3 s" -lt "$t" 3000
check_cmp "io_ticks (ms) covers the three reads" -ge "$(field "$line" 11)" 300
check_cmp "weighted time (ms) covers the three reads" -ge "$(field "$line" 12)" 300
check_cmp "total read time (ms) covers the three reads" -ge "$(field "$line" 13)" 300
check_eq "no write time" "0 0" "$(echo "$line" | awk '{ print $9, $14 }')"

line=$(top_msg @stats_print "$ns_region")
check_eq "precise_timestamps: same counts" "3 0 24 0 0 0 0" "$(counters "$line")"
check_eq "precise_timestamps: histogram boundaries in ns" "0:3:0" "$(field "$line" 15)"
# dm-delay's timer counts whole jiffies (4 ms at HZ=250) from a jiffy already
# partly gone: in nanoseconds a 100 ms delay may last only 96 ms.
t=$(field "$line" 5)
check_cmp "precise_timestamps: read time (ns) is at least 3 x 96 ms" -ge "$t" 288000000
check_cmp "precise_timestamps: read time is in ns, less than 3 s" -lt "$t" 3000000000
check_cmp "precise_timestamps: io_ticks (ns) covers the three reads" -ge "$(field "$line" 11)" 288000000

# Histogram buckets: n boundaries make n+1 buckets, the last one open-ended.
b_region=$(top_msg @stats_create - /1 1 histogram:1,2,3,5000,6000)
dd_direct if=/dev/zero of=/dev/mapper/$TOP bs=4096 count=1 seek=$((1000 * 512)) oflag=direct,seek_bytes
line=$(top_msg @stats_print "$b_region")
check_eq "a delayed write is counted as a write" "0 0 0 1 0 8 0" "$(counters "$line")"
check_eq "a 100 ms write lands between boundaries 3 and 5000" "0:0:0:1:0:0" "$(field "$line" 15)"
check_cmp "write time (ms) is at least 100 ms" -ge "$(field "$line" 9)" 100
check_cmp "total write time (ms) is at least 100 ms" -ge "$(field "$line" 14)" 100
h_region=$(top_msg @stats_create - /1 1 histogram:10,20)
dd_direct if=/dev/zero of=/dev/mapper/$TOP bs=4096 count=1 seek=$((2000 * 512)) oflag=direct,seek_bytes
check_eq "a latency above the last boundary lands in the open bucket" "0:0:1" \
	"$(field "$(top_msg @stats_print "$h_region")" 15)"
for r in $ms_region $ns_region $b_region $h_region; do top_msg @stats_delete "$r"; done

# In-flight I/O: counted while it runs, kept by clear, gone when it completes.
dmsetup suspend --noudevsync "$SLOW"
dmsetup load "$SLOW" --table "0 $DEV_SECTORS delay /dev/ram0 0 3000"
dmsetup resume --noudevsync "$SLOW"
f_region=$(top_msg @stats_create - /1)
read_at 2048 4096 1 "$TOP" &
reader=$!
# Wait (up to 2.5 s of the 3 s delay) for the reader to submit its I/O.
for _i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25; do
	line=$(top_msg @stats_print "$f_region")
	[ "$(field "$line" 10)" = 1 ] && break
	sleep 0.1
done
check_eq "an I/O in progress is counted in flight, not completed" "0 0 0 0 0 0 1" "$(counters "$line")"
top_msg @stats_clear "$f_region"
check_eq "clear keeps the in-flight count" "1" "$(field "$(top_msg @stats_print "$f_region")" 10)"
top_msg @stats_print_clear "$f_region" >/dev/null
check_eq "print_clear keeps the in-flight count" "1" "$(field "$(top_msg @stats_print "$f_region")" 10)"
wait "$reader"
line=$(top_msg @stats_print "$f_region")
check_eq "the completed I/O is counted once, nothing is left in flight" "1 0 8 0 0 0 0" "$(counters "$line")"
check_cmp "its time covers the 3 s delay" -ge "$(field "$line" 5)" 2900

dmsetup remove --noudevsync "$TOP"
dmsetup remove --noudevsync "$SLOW"
