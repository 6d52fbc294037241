#!/bin/sh
. ../lib.sh
modprobe brd rd_nr=1 rd_size=65536 max_part=0
modprobe dm-delay
dmsetup create --noudevsync d --table "0 131072 delay /dev/ram0 0 20"
a=$(dmsetup message d 0 @stats_create - /1 1 histogram:10,100)
b=$(dmsetup message d 0 @stats_create - /1 2 precise_timestamps histogram:10000000,100000000)
for s in 0 64 128 192 256 320 384 448 512 576; do taskset -c 0 /usr/bin/dd status=none if=/dev/mapper/d of=/dev/null bs=4096 count=1 skip=$((s*512)) iflag=direct,skip_bytes; done
for s in 1000 1064 1128 1192 1256; do taskset -c 0 /usr/bin/dd status=none if=/dev/zero of=/dev/mapper/d bs=4096 count=1 seek=$((s*512)) oflag=direct,seek_bytes; done
echo "# A $(dmsetup message d 0 @stats_print $a)"
echo "# B $(dmsetup message d 0 @stats_print $b)"
cat /proc/uptime
sleep 1
echo "# A1 $(dmsetup message d 0 @stats_print $a)"
pass dummy
tap_finish
