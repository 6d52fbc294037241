#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The DTrace io provider's example scripts (spec 11.7.6), rewritten for
# bpftrace on the io trace events, print what the spec says they print:
# iosnoop (device, file, R/W per I/O), the same with milliseconds, and
# whoio (bytes by device, application and pid).  ext4 on dm-linear on a null_blk disk whose completions come
# 0.5 ms after submission.
. ../lib.sh

T=/tmp/io-bpftrace
mkdir -p $T /mnt/a
DD=/usr/bin/dd
modprobe null_blk nr_devices=1 queue_mode=2 gb=1 memory_backed=1 irqmode=2 \
	completion_nsec=500000 submit_queues=1 || bail "modprobe null_blk"
dmsetup create --noudevsync iofs --table "0 262144 linear /dev/nullb0 0" || bail "dm-linear"
/sbin/mke2fs -q -F -t ext4 -b 4096 /dev/mapper/iofs || bail "mkfs.ext4"
echo 0 >/proc/sys/vm/dirty_writeback_centisecs
mount -t ext4 -o commit=600 /dev/mapper/iofs /mnt/a || bail "mount"
mkdir -p /mnt/a/dir
DM=$(dmsetup info -c --noheadings -o blkdevname iofs)
[ -n "$DM" ] || bail "cannot name the dm device"

# bt_start NAME: bpftrace NAME.bt in the background, once its BEGIN ran
bt_start() {
	bpftrace "$1.bt" >$T/$1.out 2>$T/$1.err &
	btpid=$!
	_i=0
	while [ "$(grep -c . $T/$1.out 2>/dev/null)" -lt 2 ]; do
		_i=$((_i + 1))
		kill -0 $btpid 2>/dev/null || { cat $T/$1.err; bail "bpftrace $1.bt died"; }
		[ $_i -le 600 ] || bail "bpftrace $1.bt did not attach in 60 s"
		sleep 0.1
	done
}
# bt_stop NAME: Ctrl-C, as the spec's runs end
bt_stop() {
	kill -INT $btpid
	wait $btpid
	check_eq "$1.bt: bpftrace ran cleanly" "" "$(grep -v '^Attaching' $T/$1.err)"
}

# --- iosnoop.d: one line per I/O as it is issued ---
bt_start iosnoop
$DD if=/dev/urandom of=/mnt/a/dir/snoop.bin bs=64k count=2 oflag=direct status=none
sync
echo 3 >/proc/sys/vm/drop_caches
cat /mnt/a/dir/snoop.bin >/dev/null
bt_stop iosnoop
check_eq "iosnoop: the spec's header" "    DEVICE                                                       FILE RW" \
	"$(sed -n 2p $T/iosnoop.out)"
check_eq "iosnoop: the two direct writes, named" 2 \
	"$(grep -cE "^ *$DM +/dir/snoop.bin +W\$" $T/iosnoop.out)"
check_cmp "iosnoop: the read back, named" -gt "$(grep -cE "^ *$DM +/dir/snoop.bin +R\$" $T/iosnoop.out)" 0
check_cmp "iosnoop: metadata is <none>" -gt "$(grep -cE "^ *$DM +<none> +[RW]\$" $T/iosnoop.out)" 0

# --- the same with milliseconds ---
bt_start iotime
$DD if=/dev/urandom of=/mnt/a/dir/time.bin bs=64k count=3 oflag=direct status=none
bt_stop iotime
check_eq "iotime: the spec's header" "    DEVICE                                                       FILE RW      MS" \
	"$(sed -n 2p $T/iotime.out)"
check_eq "iotime: three writes, named, each at least 0.5 ms" "3 3" \
	"$(awk -v dm="$DM" '$1 == dm && $2 == "/dir/time.bin" && $3 == "W" && $4 ~ /^[0-9]+\.[0-9][0-9][0-9]$/ {
		n++; if ($4 >= 0.5) slow++ } END { print n + 0, slow + 0 }' $T/iotime.out)"

# --- whoio.d: bytes by device, application and pid ---
# The file exists beforehand: overwriting it reads no metadata under dd's pid.
$DD if=/dev/zero of=/mnt/a/dir/who.bin bs=64k count=4 status=none conv=fsync
bt_start whoio
$DD if=/dev/urandom of=/mnt/a/dir/who.bin bs=64k count=4 oflag=direct conv=notrunc status=none &
ddpid=$!
wait $ddpid
bt_stop whoio
check_match "whoio: the spec's header" "^    DEVICE                  APP        PID           BYTES\$" "$(cat $T/whoio.out)"
check_eq "whoio: dd's 256 KiB on its device, under its pid" "@[$DM, dd, $ddpid]: 262144" \
	"$(grep "^@\[$DM, dd, $ddpid\]" $T/whoio.out)"

for f in iosnoop iotime whoio; do
	echo "# --- $f.bt ---"
	sed 's/^/# /' $T/$f.out | head -40
done
umount /mnt/a
dmsetup remove iofs
tap_finish
