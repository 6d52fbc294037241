#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# io trace events benchmark, guest part (run by tests/bench/io-trace/host.sh
# on two kernels built from the same tree and configuration but for
# CONFIG_IO_TRACE_EVENTS: "noevents" without the io trace events, "events"
# with them).
#
# fio 4k random reads, psync, direct, 2 jobs on null_blk, in two null_blk
# modes: completion inline (submission and completion hooks, CPU-bound) and
# by timer 20 us later (the tasks also sleep in io_schedule(), so the wait
# hooks run and io:io_wait_start/io:io_wait_done fire). Rows:
#   off        kernel "noevents": no hook compiled in
#   disabled   kernel "events", no consumer: every hook is a static branch
#   io-bt      kernel "events", bpftrace attached to all four io:* events,
#              counting into maps (io-consumer.bt), printing nothing per I/O
#   biosnoop-bt kernel "events", bpftrace's biosnoop.bt done the same way on
#              the block layer's own tracepoints (biosnoop-tp.bt)
#   io-ftrace  kernel "events", io:io_start and io:io_done recorded into the
#              ring buffer of a tracefs instance (overwrite mode, no reader)
#   block-ftrace kernel "events", block:block_io_start and block_io_done
#              recorded the same way
# On "events" every round measures disabled and the consumer rows, in an
# order that turns around from round to round (A-B-C, C-B-A). One line per
# measurement on the TAP stream:
#   # BENCH kernel=K boot=B round=N row=R mode=M iops=X
# and TAP checks that every measurement happened and that each consumer saw
# the reads it was attached for (a consumer that saw nothing measured
# nothing).
#
# Settings (/etc/iotally.conf, written by host.sh): BENCH_KERNEL (events or
# noevents), BENCH_BOOT (the boot's number), BENCH_ROUNDS (3),
# BENCH_RUNTIME (fio seconds, 2), BENCH_ROWS (the events kernel's rows, all
# three by default).
# shellcheck source=../lib.sh
. ../lib.sh

KERNEL=${BENCH_KERNEL:?host.sh names the kernel}
BOOT=${BENCH_BOOT:-1}
ROUNDS=${BENCH_ROUNDS:-3}
RUNTIME=${BENCH_RUNTIME:-2}
T=/tmp/bench-io-trace
mkdir -p $T
TR=/sys/kernel/tracing

command -v fio >/dev/null || bail "fio is not in the guest"
case $KERNEL in
noevents)
	[ ! -d $TR/events/io ] || bail "kernel noevents has the io trace events"
	ROWS=off
	;;
events)
	[ -d $TR/events/io ] || bail "kernel events has no io trace events"
	command -v bpftrace >/dev/null || bail "bpftrace is not in the guest"
	[ -d $TR/events/block/block_io_start ] || bail "no block:block_io_start tracepoint"
	ROWS=${BENCH_ROWS:-disabled io-bt biosnoop-bt io-ftrace block-ftrace snoop-native snoop-bpf}
	;;
*) bail "unknown kernel $KERNEL" ;;
esac


# fio_run SECONDS: the reads; prints IOPS and the reads done
fio_run() {
	nullb_randread "$1" |
		awk -F';' 'NR == 1 { printf "%d %d\n", $8, $6 / 4 }'
}

# shellcheck source=../../selftests/io-bpftrace/bt.sh
. ../../io-bpftrace/bt.sh
# shellcheck source=../../selftests/lib-snoop.sh
. ../../lib-snoop.sh

INST=$TR/instances/bench-io-trace
# ftrace_events ROW: the two events a ring-buffer row records
ftrace_events() {
	case $1 in
	io-ftrace) echo "io/io_start io/io_done" ;;
	block-ftrace) echo "block/block_io_start block/block_io_done" ;;
	esac
}
# ftrace_written: the events the instance's buffer took (kept or overwritten)
ftrace_written() {
	cat $INST/per_cpu/cpu*/stats | awk '/^(entries|overrun):/ { n += $2 } END { print n + 0 }'
}

# consumer_begin ROW / consumer_end ROW ROUND: the row's consumer around
# both modes' measurements, and the check that it saw the reads.
consumer_begin() {
	case $1 in
	io-bt) bt_start ./io-consumer.bt $T/bt.out $T/bt.err ;;
	# iotally snoop on one backend, a latency histogram per file (as the
	# bpftrace consumers keep theirs), printed when it ends
	snoop-native | snoop-bpf)
		snoop_start snoop.out --backend "${1#snoop-}" snoop --summary latency \
			--file /dev/nullb0
		kill -0 "$snpid" 2>/dev/null || bail "iotally snoop did not start: $(cat $T/snoop.out.err)"
		;;
	biosnoop-bt) bt_start ./biosnoop-tp.bt $T/bt.out $T/bt.err ;;
	io-ftrace | block-ftrace)
		mkdir $INST || bail "tracefs instance"
		for _e in $(ftrace_events "$1"); do
			echo 1 >$INST/events/$_e/enable || bail "enable $_e"
		done
		;;
	esac
	reads=0
}
consumer_end() {
	case $1 in
	io-ftrace | block-ftrace)
		for _e in $(ftrace_events "$1"); do
			echo 0 >$INST/events/$_e/enable
		done
		# a start and a done per read, the warm-up's too
		check_cmp "$KERNEL $2 $1: the ring buffer took two events per read" \
			-ge "$(ftrace_written)" $((2 * reads))
		rmdir $INST
		;;
	io-bt | biosnoop-bt)
		bt_stop $T/bt.out
		check_eq "$KERNEL $2 $1: bpftrace ended on SIGINT" 0 "$?"
		check_eq "$KERNEL $2 $1: bpftrace ran cleanly" "" "$(grep -v '^Attaching' $T/bt.err)"
		# @reads: the consumer's count of completed 4 KiB reads
		_seen=$(sed -n 's/^@reads: //p' $T/bt.out)
		check_cmp "$KERNEL $2 $1: the consumer saw the $reads reads fio did (saw ${_seen:-none})" \
			-ge "${_seen:-0}" "$reads"
		;;
	snoop-native | snoop-bpf)
		snoop_stop INT
		check_eq "$KERNEL $2 $1: iotally snoop ended on SIGINT" 0 "$rc"
		check_match "$KERNEL $2 $1: iotally snoop ran on its backend" \
			"snoop: backend ${1#snoop-} " "$(cat $T/snoop.out.err)"
		check_match "$KERNEL $2 $1: iotally snoop lost no event" \
			"snoop: [0-9]* unmatched, 0 lost" "$(cat $T/snoop.out.err)"
		# the histogram's counts: the reads of /dev/nullb0 it saw complete
		_seen=$(awk '/\|/ { n += $NF } END { print n + 0 }' $T/snoop.out)
		check_cmp "$KERNEL $2 $1: the consumer saw the $reads reads fio did (saw $_seen)" \
			-ge "$_seen" "$reads"
		;;
	esac
	[ "$1" != io-bt ] || [ "$(cat $TR/events/io/io_start/enable)" = 0 ] ||
		fail "$KERNEL $2 $1: io:io_start is still enabled after bpftrace" ""
}

# measure ROUND ROW MODE
measure() {
	load_nullb "$3"
	fio_run 1 >/dev/null # warm-up, not measured
	# shellcheck disable=SC2046 # IOPS and reads, two words
	set -- "$1" "$2" "$3" $(fio_run "$RUNTIME")
	bench_iops "kernel=$KERNEL boot=$BOOT round=$1 row=$2 mode=$3" "$KERNEL round $1 $2 $3" "${4:-}" &&
		reads=$((reads + $5))
}

# The order of rows turns around every round.
reverse() { for _w in "$@"; do _r="$_w ${_r:-}"; done; echo $_r; _r=; }

r=1
while [ $r -le "$ROUNDS" ]; do
	order=$ROWS
	[ $((r % 2)) = 0 ] && order=$(reverse $ROWS)
	for row in $order; do
		consumer_begin "$row"
		for mode in inline timer; do
			measure $r "$row" $mode
		done
		consumer_end "$row" $r
	done
	r=$((r + 1))
done
rmmod null_blk
tap_finish
