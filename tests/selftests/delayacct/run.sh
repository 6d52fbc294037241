#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Delay accounting's block I/O delay (blkio_count and blkio_delay_total in
# taskstats, as upstream getdelays prints them) counts every I/O wait of a
# task once, and no more time than has passed.
#
# ioload does a known number of direct reads of a dm-delay device: each is
# one sleep in io_schedule(). It shares CPU 0 with a busy loop, so that its
# sleeps find it ineligible and, with the scheduler feature DELAY_DEQUEUE
# (the default), keep it queued as a delayed task: woken still queued, or
# blocked later by the busy loop's pick. On 6.12 without the fix, delay
# accounting missed a quarter of those waits and could charge a wait from
# an earlier one's start. The same reads run again with DELAY_DEQUEUE off
# when the kernel lets the suite switch it (debugfs sched/features).
. ../lib.sh

# dm-delay holds an I/O from its arrival's jiffy for msecs_to_jiffies(10):
# at least 8 ms at HZ=250 (the patched kernel's), 6.7 ms at HZ=300, which
# the lower bound below (half of 10 ms a read) relies on; at HZ=100 a hold
# could be shorter than a jiffy.
DELAY_MS=10
READS=50
THREADS=4
WAITS=$((THREADS * READS))
SECTORS=131072		# 64 MiB: ioload thread N reads from N x 16 MiB
DEV=/dev/mapper/dadelay
T=/tmp/delayacct
mkdir -p $T

modprobe brd rd_nr=1 rd_size=$((SECTORS / 2)) max_part=0 || bail "modprobe brd"
dmsetup create --noudevsync dadelay --table "0 $SECTORS delay /dev/ram0 0 $DELAY_MS" ||
	bail "cannot create the dm-delay device"
echo 1 >/proc/sys/kernel/task_delayacct || bail "cannot enable delay accounting"
FEATURES=/sys/kernel/debug/sched/features
[ -f $FEATURES ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null

taskset -c 0 sh -c 'while :; do :; done' &
hog=$!

# uptime_ns: the time since boot, in ns (/proc/uptime has centiseconds)
uptime_ns() { awk '{ printf "%d0000000\n", $1 * 100 }' /proc/uptime; }
# blkio PID: "count total" of getdelays' IO line for PID
blkio() {
	getdelays -d -t "$1" >$T/getdelays.out 2>&1
	awk '/^IO / { getline; print $1, $2 }' $T/getdelays.out
}

# reads NAME: ioload's reads beside the busy loop on CPU 0, their blkio
# count against the reads, and its total against the time they took
reads() {
	rm -f $T/ctl $T/load.out
	mkfifo $T/ctl
	_t0=$(uptime_ns)
	taskset -c 0 ./ioload $DEV $THREADS $READS 4096 0 4096 0 <$T/ctl >$T/load.out &
	exec 5>$T/ctl
	wait_for 120 grep -q '^ready' $T/load.out || bail "ioload did not get ready"
	_t1=$(uptime_ns)
	_pid=$(awk '{ print $2 }' $T/load.out)
	_io=$(blkio "$_pid")
	exec 5>&-
	wait "$_pid" 2>/dev/null
	_count=${_io% *}
	_total=${_io#* }
	_seen="blkio count ${_count:-none}, total ${_total:-none} ns"
	_tap_diag "" "$1: $WAITS reads, $_seen in $((_t1 - _t0)) ns"
	check_eq "$1: delay accounting counts each of the $WAITS I/O waits once" \
		"$WAITS" "${_count:-none}"
	[ "${_count:-}" = "$WAITS" ] || _tap_diag "getdelays: " "$(cat $T/getdelays.out)"
	# Each thread waits for one read at a time: their delays add up to at
	# most THREADS times the time the reads took (uptime_ns is rounded
	# down to 10 ms at both ends)
	check_cmp "$1: the I/O delay is no longer than the $THREADS threads' reads took" -le \
		"${_total:-0}" $((THREADS * (_t1 - _t0 + 20000000)))
	check_cmp "$1: the I/O delay is at least half the reads' hold time" -ge \
		"${_total:-0}" $((WAITS * DELAY_MS / 2 * 1000000))
}

reads "DELAY_DEQUEUE on"
if [ -w $FEATURES ] && grep -qw DELAY_DEQUEUE $FEATURES; then
	echo NO_DELAY_DEQUEUE >$FEATURES
	reads "DELAY_DEQUEUE off"
	echo DELAY_DEQUEUE >$FEATURES
else
	skip "DELAY_DEQUEUE off: no writable $FEATURES"
fi

kill $hog
wait $hog 2>/dev/null
dmsetup remove dadelay
rmmod brd
tap_finish
