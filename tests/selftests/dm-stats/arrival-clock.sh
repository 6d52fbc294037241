# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
#
# Regions directly on a dm-delay device. dm-delay, like dm-crypt, dm-thin
# and dm-cache, starts accounting a bio only when it remaps it; upstream
# times a bio's latency (ticks, histogram) from its arrival at the mapped
# device, and its busy time (in_flight, io_ticks, time_in_queue) from the
# start of its accounting. 20 ms of delay; the bounds leave room for a
# guest on a busy host, whose jiffies can lag and then catch up (a 20 ms
# delay measured 9.6 ms in ns once): at least 5 ms per I/O, more than
# anything measured from the remap (0-1 ms).

DLY=dly
modprobe dm-delay 2>/dev/null
dmsetup create --noudevsync "$DLY" --table "0 $DEV_SECTORS delay /dev/ram0 0 20" ||
	bail "cannot create a dm-delay device"
jr=$(dmsetup message "$DLY" 0 @stats_create - /1 1 histogram:5,1000)
nr=$(dmsetup message "$DLY" 0 @stats_create - /1 2 precise_timestamps histogram:5000000,1000000000)

# 10 reads and 5 writes, spaced so that none starts where another ended.
for s in 0 64 128 192 256 320 384 448 512 576; do read_at "$s" 4096 1 "$DLY"; done
for s in 1024 1088 1152 1216 1280; do
	dd_direct if=/dev/zero of=/dev/mapper/$DLY bs=4096 count=1 \
		seek=$((s * 512)) oflag=direct,seek_bytes
done

# check_held NAME HISTOGRAM: of the 15 I/Os held 20 ms, none measured 1 s
# or more, and three quarters or more from 5 ms. dm-delay counts its hold
# in jiffies: a guest whose jiffies lag on a busy host and then catch up
# at once releases a bio early by the clock, on either engine (once: 1 of
# 15 under 5 ms, at a host load of 19). Timed from the remap, all 15
# would be under 5 ms.
check_held() {
	check_eq "$1: 15 I/Os in the histogram, none at 1 s or more" "15 0" \
		"$(echo "$2" | awk -F: '{ print $1 + $2 + $3, $3 }')"
	check_cmp "$1: 3/4 of the 20 ms I/Os or more measured from 5 ms" -ge \
		"$(echo "$2" | awk -F: '{ print $2 + 0 }')" 12
}

# check_from_remap NAME REGION UNIT PER_MS: REGION's 10 reads and 5 writes,
# their times in UNIT (PER_MS of them a millisecond): read and write ticks
# include dm-delay's 5 ms, io_ticks and time_in_queue start at the remap.
check_from_remap() {
	line=$(dmsetup message "$DLY" 0 @stats_print "$2")
	check_eq "$1: 10 reads and 5 writes counted" "10 0 80 5 0 40 0" "$(counters "$line")"
	check_held "$1" "$(field "$line" 15)"
	check_cmp "$1: read ticks ($3) include the delay: >= 10 x 5 ms" \
		-ge "$(field "$line" 5)" $((50 * $4))
	check_cmp "$1: read ticks ($3) below 10 s" -lt "$(field "$line" 5)" $((10000 * $4))
	check_cmp "$1: write ticks ($3) include the delay: >= 5 x 5 ms" \
		-ge "$(field "$line" 9)" $((25 * $4))
	check_cmp "$1: io_ticks ($3) run from the remap, not the arrival" \
		-lt "$(field "$line" 11)" $((160 * $4))
	check_cmp "$1: time_in_queue ($3) runs from the remap" \
		-lt "$(field "$line" 12)" $((160 * $4))
}
check_from_remap "dm-delay" "$jr" ms 1
check_from_remap "dm-delay precise" "$nr" ns 1000000

# A bio held by dm-delay has arrived but is not in flight yet. 5 s: room
# for a slow dmsetup on a busy host between the read and the print.
dmsetup suspend --noudevsync "$DLY"
dmsetup load "$DLY" --table "0 $DEV_SECTORS delay /dev/ram0 0 5000"
dmsetup resume --noudevsync "$DLY"
dmsetup message "$DLY" 0 @stats_clear "$jr"
read_at 2048 4096 1 "$DLY" &
reader=$!
sleep 1
line=$(dmsetup message "$DLY" 0 @stats_print "$jr")
check_eq "dm-delay: a bio held by the target is not yet in flight" "0 0 0 0 0 0 0" \
	"$(counters "$line")"
wait "$reader"
line=$(dmsetup message "$DLY" 0 @stats_print "$jr")
check_eq "dm-delay: the held bio, once done, is counted once" "1 0 8 0 0 0 0" "$(counters "$line")"
check_cmp "dm-delay: its read ticks (ms) cover the 5 s it was held" -ge "$(field "$line" 5)" 4500
check_cmp "dm-delay: its io_ticks (ms) do not" -lt "$(field "$line" 11)" 1000

dmsetup remove --noudevsync "$DLY"
