#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Per-task I/O benchmark, guest part (run by tests/bench/taskstats/host.sh
# on the patched kernel). Everything is measured in one boot, interleaved:
#
# - fio 4k random reads on null_blk with the accounting on and off, switched
#   at run time through /proc/sys/kernel/task_io_stats (the
#   static key), in two null_blk modes: completion inline (the submission
#   hook alone, CPU-bound) and by timer (tasks also sleep in io_schedule(),
#   so the wait hooks run too);
# - the fork-and-exit rate of forkexit with and without an exit listener
#   (`iotally tasks -m 0-1`) registered, accounting on;
# - then, per null_blk mode, the same reads in one run of ioab
#   (tests/selftests/helpers/ioab.cpp), which flips the accounting every SLICE ms
#   (A-B-B-A) and counts the reads of each slice: the host's load changes
#   far more slowly than that, so it weighs on both sides alike, where
#   separate fio runs seconds apart see different hosts; and the same run
#   flipping printk.time instead, a control (A/A) whose ratio shows the
#   noise of the method itself.
#
# Each round measures every pair of configurations A-B-B-A, and which one is
# A alternates from round to round. One line per measurement on the TAP
# stream (two per configuration and round):
#   # BENCH kind=fio mode=M acct=on|off round=N iops=X
#   # BENCH kind=fork listener=yes|no round=N rate=R records=C lost=L
#   # BENCH kind=ab mode=M switch=acct|control slice_ms=S pairs=N on_iops=X
#     off_iops=Y ratio=R paired=P
# and TAP checks that every measurement happened and that the switch works.
#
# Settings (/etc/iotally.conf, written by host.sh): BENCH_ROUNDS (4),
# BENCH_RUNTIME (fio seconds, 2), BENCH_FORK_SECONDS (2), BENCH_AB_SLICE_MS
# (100), BENCH_AB_PAIRS (100).
# shellcheck source=../lib.sh
. ../lib.sh

ROUNDS=${BENCH_ROUNDS:-4}
RUNTIME=${BENCH_RUNTIME:-2}
FORK_SECONDS=${BENCH_FORK_SECONDS:-2}
AB_SLICE_MS=${BENCH_AB_SLICE_MS:-100}
AB_PAIRS=${BENCH_AB_PAIRS:-100}
PARAM=/proc/sys/kernel/task_io_stats
T=/tmp/bench-taskstats
mkdir -p $T

[ -w $PARAM ] || bail "no writable $PARAM (patched kernel with CONFIG_TASK_IO_STATS?)"
for p in fio forkexit ioab iotally; do
	command -v $p >/dev/null || bail "$p is not in the guest"
done

# acct on|off: switch the accounting and check that it took.
acct() {
	case $1 in
	on) echo 1 >$PARAM ;;
	off) echo 0 >$PARAM ;;
	esac
	_want=1
	[ "$1" = off ] && _want=0
	[ "$(cat $PARAM)" = $_want ] || bail "cannot switch the accounting $1"
}


fio_iops() {
	nullb_randread "$1" |
		awk -F';' 'NR == 1 { printf "%d\n", $8 }'
}

# measure_fio MODE ACCT ROUND
measure_fio() {
	acct "$2"
	bench_iops "kind=fio mode=$1 acct=$2 round=$3" "fio $1, accounting $2, round $3" "$(fio_iops "$RUNTIME")"
}

# measure_fork yes|no ROUND
measure_fork() {
	_records=0 _lost=0
	if [ "$1" = yes ]; then
		iotally tasks -m 0-1 >$T/listen.out 2>$T/listen.err &
		_listener=$!
		# listening, or no longer running
		if ! wait_for 30 eval "grep -q '^listening' $T/listen.err || ! kill -0 $_listener" ||
			! grep -q '^listening' $T/listen.err; then
			fail "fork+exit with a listener, round $2" \
				"listener did not start: $(cat $T/listen.err)"
			return
		fi
	fi
	_out=$(forkexit "$FORK_SECONDS")
	_rc=$?
	if [ "$1" = yes ]; then
		kill -TERM $_listener
		wait $_listener
		_sum=$(tail -n 1 $T/listen.out)
		_records=$(echo "$_sum" | awk '$1 == "summary" { print $3 }')
		_lost=$(echo "$_sum" | awk '$1 == "summary" { print $7 }')
	fi
	_rate=$(echo "$_out" | awk '$1 == "forks" { print $6 }')
	if [ $_rc = 0 ] && [ -n "$_rate" ] && [ -n "$_records" ] && [ -n "$_lost" ]; then
		echo "# BENCH kind=fork listener=$1 round=$2 rate=$_rate records=$_records lost=$_lost"
		pass "fork+exit, listener $1, round $2: $_rate per second"
	else
		fail "fork+exit, listener $1, round $2" "forkexit: $_out (rc $_rc); listener: ${_sum:-none}"
	fi
}

# The switch itself: a bad value is refused and changes nothing.
acct on
if echo maybe >$PARAM 2>/dev/null; then
	fail "a non-boolean value is refused" "the write succeeded"
else
	pass "a non-boolean value is refused"
fi
check_eq "a refused value leaves the accounting on" 1 "$(cat $PARAM)"

r=1
while [ $r -le "$ROUNDS" ]; do
	# Alternate which configuration goes first, so neither always runs warm.
	if [ $((r % 2)) = 1 ]; then first=on second=off; else first=off second=on; fi
	# A-B-B-A within a round: a drift of the guest's speed over the round
	# (host load) weighs on both configurations alike.
	for mode in inline timer; do
		load_nullb $mode
		fio_iops 1 >/dev/null # warm-up, not measured
		measure_fio $mode $first $r
		measure_fio $mode $second $r
		measure_fio $mode $second $r
		measure_fio $mode $first $r
	done
	acct on
	if [ $((r % 2)) = 1 ]; then first=no second=yes; else first=yes second=no; fi
	measure_fork $first $r
	measure_fork $second $r
	measure_fork $second $r
	measure_fork $first $r
	r=$((r + 1))
done
acct on

# measure_ab MODE acct|control: the accounting flipped every AB_SLICE_MS
# inside one run; or, as a control that shows the method's own noise, a
# switch that changes nothing on the I/O path (printk.time: A/A).
measure_ab() {
	case $2 in
	acct) _switch=$PARAM ;;
	control) _switch=/sys/module/printk/parameters/time ;;
	esac
	_was=$(cat $_switch)
	_out=$(ioab /dev/nullb0 $_switch "$AB_SLICE_MS" "$AB_PAIRS" 2 2>&1)
	_rc=$?
	# pairs N on_iops X off_iops Y ratio R paired P
	_kv=$(echo "$_out" | awk '$1 == "pairs" && NF == 10 {
		printf "pairs=%s on_iops=%s off_iops=%s ratio=%s paired=%s", $2, $4, $6, $8, $10 }')
	if [ $_rc = 0 ] && [ -n "$_kv" ]; then
		echo "# BENCH kind=ab mode=$1 switch=$2 slice_ms=$AB_SLICE_MS $_kv"
		pass "ioab $1 $2: $_out"
	else
		fail "ioab $1 $2" "ioab: $_out (rc $_rc)"
	fi
	check_eq "ioab $1 $2 leaves $_switch as it found it" "$_was" "$(cat $_switch)"
}
for mode in inline timer; do
	load_nullb $mode
	measure_ab $mode acct
	measure_ab $mode control
done
rmmod null_blk
tap_finish
