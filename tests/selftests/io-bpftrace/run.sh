#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The DTrace io provider's example scripts (spec 11.7.6), rewritten for
# bpftrace on the io trace events, print what the spec says they print:
# iosnoop (device, file, R/W per I/O), the same with milliseconds, whoio
# (bytes by device, application and pid) and the throughput of each device
# (KB/s histograms).  ext4 on dm-linear on a null_blk disk (nullb1) whose
# completions come 0.5 ms after submission; nullb0, the same kind of disk,
# is written raw.  The events fire for every device of the stack: dm-linear
# and the disk under it.
. ../lib.sh

T=/tmp/io-bpftrace
mkdir -p $T /mnt/a
DD=/usr/bin/dd
modprobe null_blk nr_devices=2 queue_mode=2 gb=1 memory_backed=1 irqmode=2 \
	completion_nsec=500000 submit_queues=1 || bail "modprobe null_blk"
dmsetup create --noudevsync iofs --table "0 262144 linear /dev/nullb1 0" || bail "dm-linear"
/sbin/mke2fs -q -F -t ext4 -b 4096 /dev/mapper/iofs || bail "mkfs.ext4"
echo 0 >/proc/sys/vm/dirty_writeback_centisecs
mount -t ext4 -o commit=600 /dev/mapper/iofs /mnt/a || bail "mount"
mkdir -p /mnt/a/dir
DM=$(dmsetup info -c --noheadings -o blkdevname iofs)
[ -n "$DM" ] || bail "cannot name the dm device"

. ./bt.sh
# bt_begin NAME: bpftrace NAME.bt in the background, once its BEGIN ran
bt_begin() {
	bt_start "$1.bt" $T/$1.out $T/$1.err
}
# bt_end NAME: Ctrl-C, as the spec's runs end
bt_end() {
	bt_stop $T/$1.out
	check_eq "$1.bt: bpftrace ended on SIGINT" 0 "$?"
	check_eq "$1.bt: bpftrace ran cleanly" "" "$(grep -v '^Attaching' $T/$1.err)"
}

# --- iosnoop.d: one line per I/O as it is issued ---
bt_begin iosnoop
$DD if=/dev/urandom of=/mnt/a/dir/snoop.bin bs=64k count=2 oflag=direct status=none
sync
echo 3 >/proc/sys/vm/drop_caches
cat /mnt/a/dir/snoop.bin >/dev/null
bt_end iosnoop
check_eq "iosnoop: the spec's header" "    DEVICE                                                       FILE RW" \
	"$(sed -n 2p $T/iosnoop.out)"
check_eq "iosnoop: the two direct writes, named" 2 \
	"$(grep -cE "^ *$DM +/mnt/a/dir/snoop.bin +W\$" $T/iosnoop.out)"
check_eq "iosnoop: and on the disk under dm-linear" 2 \
	"$(grep -cE "^ *nullb1 +/mnt/a/dir/snoop.bin +W\$" $T/iosnoop.out)"
check_cmp "iosnoop: the read back, named" -gt "$(grep -cE "^ *$DM +/mnt/a/dir/snoop.bin +R\$" $T/iosnoop.out)" 0
check_cmp "iosnoop: metadata is <none>" -gt "$(grep -cE "^ *$DM +<none> +[RW]\$" $T/iosnoop.out)" 0

# --- the same with milliseconds ---
bt_begin iotime
$DD if=/dev/urandom of=/mnt/a/dir/time.bin bs=64k count=3 oflag=direct status=none
bt_end iotime
check_eq "iotime: the spec's header" "    DEVICE                                                       FILE RW      MS" \
	"$(sed -n 2p $T/iotime.out)"
check_eq "iotime: three writes, named, each at least 0.5 ms" "3 3" \
	"$(awk -v dm="$DM" '$1 == dm && $2 == "/mnt/a/dir/time.bin" && $3 == "W" && $4 ~ /^[0-9]+\.[0-9][0-9][0-9]$/ {
		n++; if ($4 >= 0.5) slow++ } END { print n + 0, slow + 0 }' $T/iotime.out)"

# --- whoio.d: bytes by device, application and pid ---
# The file exists beforehand: overwriting it reads no metadata under dd's pid.
$DD if=/dev/zero of=/mnt/a/dir/who.bin bs=64k count=4 status=none conv=fsync
bt_begin whoio
$DD if=/dev/urandom of=/mnt/a/dir/who.bin bs=64k count=4 oflag=direct conv=notrunc status=none &
ddpid=$!
wait $ddpid
bt_end whoio
check_match "whoio: the spec's header" "^    DEVICE                  APP        PID           BYTES\$" "$(cat $T/whoio.out)"
check_eq "whoio: dd's 256 KiB on its device, under its pid" "@[$DM, dd, $ddpid]: 262144" \
	"$(grep "^@\[$DM, dd, $ddpid\]" $T/whoio.out)"
check_eq "whoio: and on the disk under it, sent down in dd's task" "@[nullb1, dd, $ddpid]: 262144" \
	"$(grep "^@\[nullb1, dd, $ddpid\]" $T/whoio.out)"

# --- throughput: KB/s per device, while copying from one to the other ---
# A file of the ext4 (on $DM) copied to the raw disk beyond the file
# system, as the spec's copy from a disk to a USB drive: a histogram per
# device. Every I/O completes 0.5 ms after its submission, so none of the
# 64 KiB writes to nullb0 can go faster than 65536 * 976562 / 500000 ns,
# 127999 KB/s, in the bucket [64K, 128K) at most.
$DD if=/dev/urandom of=/mnt/a/dir/copy.bin bs=64k count=16 status=none conv=fsync
echo 3 >/proc/sys/vm/drop_caches
bt_begin throughput
$DD if=/mnt/a/dir/copy.bin of=/dev/nullb0 bs=64k count=16 seek=4096 oflag=direct status=none
bt_end throughput
# hist_rows DEVICE: "LOW COUNT" per row of DEVICE's histogram, LOW in KB/s
hist_rows() {
	awk -v dev="$1" '
		function kb(s) { return s ~ /K$/ ? s * 1024 : s ~ /M$/ ? s * 1048576 : s ~ /G$/ ? s * 1073741824 : s + 0 }
		$0 == "@[" dev "]: " || $0 == "@[" dev "]:" { on = 1; next }
		/^@/ || /^$/ { on = 0 }
		on && /^\[/ {
			low = $1; gsub(/[][,)]/, "", low)
			rest = $0; sub(/^\[[^]]*[])] +/, "", rest); split(rest, a, " ")
			print kb(low), a[1]
		}' $T/throughput.out
}
# The disk field is a char array that bpftrace keys on whole: the bytes
# behind its NUL must not split one device into several histograms.
check_eq "throughput: one histogram per device" "1 1" \
	"$(grep -c '^@\[nullb0\]: *$' $T/throughput.out) $(grep -c "^@\[$DM\]: *\$" $T/throughput.out)"
check_eq "throughput: nullb0's histogram counts its 16 writes" 16 \
	"$(hist_rows nullb0 | awk '{ n += $2 } END { print n + 0 }')"
check_eq "throughput: no write to nullb0 beyond the bucket [64K, 128K) KB/s" "" \
	"$(hist_rows nullb0 | awk '$1 >= 131072 && $2 > 0')"
check_cmp "throughput: $DM has a histogram of the reads of the copy" -gt \
	"$(hist_rows "$DM" | awk '{ n += $2 } END { print n + 0 }')" 0
check_eq "throughput: nullb1, under $DM, as many reads as $DM" \
	"$(hist_rows "$DM" | awk '{ n += $2 } END { print n + 0 }')" \
	"$(hist_rows nullb1 | awk '{ n += $2 } END { print n + 0 }')"
check_eq "throughput: every row is a power-of-two bucket of KB/s with its count and bar" "" \
	"$(awk '/^@\[/ { on = 1; next } /^@/ || /^$/ { on = 0 } on' $T/throughput.out |
		grep -vE '^\[([0-9]+[KMG]?\]|[0-9]+[KMG]?, [0-9]+[KMG]?\)) +[0-9]+ \|[@ ]*\|$')"

for f in iosnoop iotime whoio throughput; do
	echo "# --- $f.bt ---"
	sed 's/^/# /' $T/$f.out | head -40
done
umount /mnt/a
dmsetup remove iofs
tap_finish
