#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# What the stock 6.12 engine reports for requests: the finding behind the
# request-based timing check of the dm-stats-engine suite, pinned down on
# the same workload (three 4 KiB reads through dm-multipath over null_blk,
# each completed after 100 ms).
#
# dm-rq.c stores "jiffies - start" in tio->duration_jiffies and passes it as
# dm_stats_account_io()'s start_time; the stock engine subtracts it from
# jiffies again, so each request adds the current jiffies value (about 2^32
# on 64-bit, which starts counting 5 minutes below it), not its duration,
# to the read time and puts it in the histogram's last bucket. Our engine
# times requests itself (see Documentation/device-mapper-stats.rst). Should
# a later kernel fix dm-rq.c, these checks fail and say so.
. ../lib.sh

msg() {
	_dev=$1
	shift
	dmsetup message "$_dev" 0 "$@"
}
# read_at DEV SECTOR: one direct 4 KiB read, on CPU 0 (coreutils dd).
read_at() {
	taskset -c 0 /usr/bin/dd status=none if="$1" of=/dev/null bs=4096 count=1 \
		skip=$(($2 * 512)) iflag=direct,skip_bytes
}

modprobe dm-multipath || bail "no dm-multipath module"
modprobe dm-round-robin || bail "no dm-round-robin module"
modprobe null_blk nr_devices=1 gb=1 queue_mode=2 irqmode=2 completion_nsec=100000000 ||
	bail "no null_blk module"
size=$(cat /sys/block/nullb0/size)
dmsetup create --noudevsync mp --table "0 $size multipath 0 0 1 1 round-robin 0 1 1 /dev/nullb0 1" ||
	bail "cannot create a multipath device over null_blk"
dm=$(dmsetup info -c --noheadings -o blkdevname mp)
check_eq "multipath is request-based (blk-mq queue)" "yes" "$([ -d "/sys/block/$dm/mq" ] && echo yes)"

r=$(msg mp @stats_create - /1 1 histogram:50,1000)
for s in 0 64 128; do read_at /dev/mapper/mp "$s"; done
line=$(msg mp @stats_print "$r")
check_eq "3 reads, 24 sectors, none in flight" "3 24 0" "$(echo "$line" | awk '{ print $2, $4, $10 }')"
t=$(echo "$line" | awk '{ print $5 }')
# 3 x 100 ms would be 300; 3 x jiffies_to_msecs(~2^32) is over 10^10.
check_cmp "stock engine: request read time is jiffies, not 3 x 100 ms (ms: $t)" -gt "$t" 1000000000
check_eq "stock engine: each request lands in the >1000 ms bucket" "0:0:3" \
	"$(echo "$line" | awk '{ print $15 }')"
msg mp @stats_delete "$r"
dmsetup remove --noudevsync mp
rmmod null_blk
tap_finish
