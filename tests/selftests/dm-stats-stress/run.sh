#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# dm-stats stress: 60 s of fio random reads and writes (psync, direct, 2
# jobs) on a dm-linear over null_blk, while a loop creates, prints, clears,
# print-clears and deletes regions on the same device. Meant for the
# lockdep+KASAN kernel (tests/vm/run.sh --debug), where any splat fails the
# run. Afterwards, a region that existed for the whole run must have counted
# exactly the reads and writes fio says it completed, with none in flight.
. ../lib.sh

RUNTIME=${STRESS_RUNTIME:-60}
DEV=stress

require_cmd ./dm-stats-msg
modprobe null_blk nr_devices=1 gb=1 queue_mode=2 irqmode=1 submit_queues=2 ||
	bail "cannot load null_blk"
size=$(cat /sys/block/nullb0/size)
dmsetup create --noudevsync "$DEV" --table "0 $size linear /dev/nullb0 0" ||
	bail "cannot create a dm-linear device"

whole=$(dmsetup message "$DEV" 0 @stats_create - /1)
check_eq "the whole-run region is region 0" "0" "$whole"

# One batch of messages: regions 1-4 come and go (ids are reused lowest
# first), of every kind: areas, precise timestamps, histograms, overlaps.
batch() {
	awk -v seed="$1" -v size="$size" 'BEGIN {
		srand(seed)
		for (i = 0; i < 4; i++) {
			start = int(rand() * (size - 4096))
			len = 8 + int(rand() * (size - start - 8))
			step = 1 + int(len / (1 + int(rand() * 1000)))
			opt = ""
			if (i == 1) opt = " 1 precise_timestamps"
			if (i == 2) opt = " 2 histogram:1,5,10,100 precise_timestamps"
			if (i == 3) opt = " 1 histogram:1000,20000"
			printf "@stats_create %d+%d %d%s\n", start, len, step, opt
		}
		print "@stats_print 1 0 20"
		print "@stats_print_clear 2"
		print "@stats_clear 3"
		print "@stats_print_clear 4 1 3"
		print "@stats_set_aux 3 stress"
		print "@stats_list"
		print "@stats_print 0"
		for (i = 4; i >= 1; i--) printf "@stats_delete %d\n", i
	}'
}

fio --name=stress --filename=/dev/mapper/$DEV --ioengine=psync --direct=1 \
	--rw=randrw --bs=4k --numjobs=2 --group_reporting --norandommap \
	--time_based --runtime="$RUNTIME" --output-format=json >/tmp/fio.json 2>/tmp/fio.err &
fio=$!

batches=0 failed=0
while kill -0 "$fio" 2>/dev/null; do
	batch $batches | ./dm-stats-msg -q "$DEV" 2>>/tmp/batch.err || failed=$((failed + 1))
	batches=$((batches + 1))
done
wait "$fio"
check_eq "fio ran without error" "0" "$?"
check_cmp "the message loop ran many batches during the run" -ge "$batches" 10
check_eq "every message of every batch succeeded" "0" "$failed"
[ "$failed" = 0 ] || head -n 5 /tmp/batch.err | sed 's/^/#   /'
check_eq "only the whole-run region is left" "0: 0+$size $size - -" \
	"$(dmsetup message "$DEV" 0 @stats_list)"

ios=$(grep '"total_ios"' /tmp/fio.json | sed -n '1,2s/[^0-9]*\([0-9]*\).*/\1/p' | paste -sd ' ')
line=$(dmsetup message "$DEV" 0 @stats_print 0)
check_cmp "fio completed I/O" -gt "${ios%% *}" 0
check_eq "the whole-run region counted exactly fio's reads and writes" "$ios" \
	"$(echo "$line" | awk '{ print $2, $6 }')"
check_eq "and nothing is in flight" "0" "$(echo "$line" | awk '{ print $10 }')"
check_eq "and 8 sectors per I/O" \
	"$(echo "$ios" | awk '{ print $1 * 8, $2 * 8 }')" \
	"$(echo "$line" | awk '{ print $4, $8 }')"

dmsetup message "$DEV" 0 @stats_delete 0
dmsetup remove --noudevsync "$DEV"
rmmod null_blk
tap_finish
