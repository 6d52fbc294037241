#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Exit listeners of both kinds on the same CPUs
# (Documentation/accounting/taskstats-io.rst, "Exit listeners"): upstream
# getdelays in loop mode, which complains on stderr of every attribute it
# does not know, and `iotally tasks -m`, which registers with
# TASKSTATS_CMD_ATTR_IO. While tasks exit, some of them
# multi-threaded and doing block I/O:
#   - getdelays prints its usual records and nothing on stderr;
#   - iotally gets the same exits, each with TASKSTATS_TYPE_IO and the
#     exiting task's cgroup id, and no message lost: both kinds of message
#     carry one sequence number.
. ../lib.sh

require_cmd iotally getdelays ./ioload
T=/tmp/listeners
mkdir -p $T
CG=/sys/fs/cgroup
mounted_cg=
if ! grep -q " $CG cgroup2 " /proc/mounts; then
	mount -t cgroup2 none $CG || bail "cannot mount cgroup2"
	mounted_cg=1
fi
mkdir -p $CG/exiters || bail "mkdir $CG/exiters"
cgid=$(stat -c %i $CG/exiters)
# Per-task I/O accounting is off by default: on for this suite, as it was
# after (a kernel without the switch always counts).
S=/proc/sys/kernel/task_io_stats
was=
if [ -e $S ]; then
	was=$(cat $S)
	echo 1 >$S || bail "cannot switch per-task I/O accounting on"
fi
# ioload's thread N reads at N x 16 MiB: 32 MiB for its two threads.
SECTORS=65536
modprobe brd rd_nr=1 rd_size=$((SECTORS / 2)) max_part=0 || bail "modprobe brd"
modprobe dm-delay 2>/dev/null
dmsetup create --noudevsync lsdelay --table "0 $SECTORS delay /dev/ram0 0 2" ||
	bail "cannot create the dm-delay device"

cpus=$(cat /sys/devices/system/cpu/online)
getdelays -d -l -m "$cpus" >$T/gd.out 2>$T/gd.err &
gd_pid=$!
iotally --json tasks -m "$cpus" -w $T/io.json >$T/io.out 2>$T/io.err &
io_pid=$!
# Both have registered once each has said so or had time to.
wait_for 10 grep -q listening $T/io.err || bail "iotally tasks -m did not start: $(cat $T/io.err)"
sleep 1

# 40 exits in the cgroup: single-threaded ones doing direct I/O, and
# ioload with a thread, so exit messages carry per-tgid records too.
sh -c 'echo $$ >'$CG/exiters/cgroup.procs'
	i=0
	while [ $i -lt 20 ]; do
		/usr/bin/dd if=/dev/mapper/lsdelay of=/dev/null bs=4k count=2 \
			iflag=direct status=none
		i=$((i + 1))
	done
	i=0
	while [ $i -lt 10 ]; do
		echo | ./ioload /dev/mapper/lsdelay 2 1 4096 0 0 0 >/dev/null || exit 1
		i=$((i + 1))
	done'
check_eq "the exiting tasks did their I/O" 0 "$?"
sleep 2
kill -INT $io_pid
wait $io_pid
io_rc=$?
kill $gd_pid
wait $gd_pid 2>/dev/null

check_eq "getdelays -l: nothing on stderr" "" "$(cat $T/gd.err)"
gd_pids=$(grep -c '^PID' $T/gd.out)
check_cmp "getdelays -l: prints exit records (PID lines)" -ge "$gd_pids" 20
check_match "getdelays -l: prints delay accounting" "^IO +count +delay total" "$(cat $T/gd.out)"
check_eq "iotally tasks -m: exit status" 0 "$io_rc"
dd_io=$(grep '"comm":"dd"' $T/io.json | grep '"read":{"ops":2,"sectors":16}' |
	grep -c '"cgroup_id":'"$cgid"'[,}]')
check_cmp "iotally: each dd's record has its 2 reads of 4 KiB and the cgroup id of /exiters" \
	-ge "$dd_io" 20
tgid_io=$(grep '"tgid":' $T/io.json | grep '"read":{"ops":2,"sectors":16}' |
	grep -c '"cgroup_id":'"$cgid"'[,}]')
check_cmp "iotally: per-tgid records of the threaded exits (2 threads, a read each), in /exiters" \
	-ge "$tgid_io" 10
check_match "iotally: no exit message lost" '"lost_messages":0[,}]' "$(tail -n 1 $T/io.out)"

[ -z "$was" ] || echo "$was" >$S
dmsetup remove lsdelay
rmmod brd
rmdir $CG/exiters
[ -z "$mounted_cg" ] || umount $CG

tap_finish
