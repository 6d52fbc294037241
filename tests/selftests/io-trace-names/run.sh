#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The io events have one name each, their tracepoint's own (io_start,
# io_done, io_wait_start, io_wait_done), and every kind of consumer finds
# them by it and sees them fire: the kernel command line's trace_event=,
# bootconfig's ftrace.event, a tracefs instance, perf, bpftrace's
# tracepoint probes, raw tracepoints and BTF-typed programs (libbpf's
# tp_btf/; bpf-tp-count attaches both ways). No event goes by another
# name: the DTrace names (io:::start...) are documentation's, not the
# kernel's. Each consumer watches 16 direct 4 KiB reads of a null_blk disk
# (one bio each, on the one device: at least 16 events).
#
# make check boots this suite's guest with trace_event=io:io_start on the
# command line and this folder's bootconfig (ftrace.event.io.io_done):
# without them those two parts skip, saying so.
. ../lib.sh

TR=/sys/kernel/tracing
T=/tmp/io-trace-names
READS=16
[ -d $TR/events/io ] || skip_all "no io trace events (CONFIG_IO_TRACE_EVENTS)"
mkdir -p $T
# Completions by timer, 1 ms after submission: each read's task sleeps
# in its wait (with completions in the submitter's softirq a fast guest
# saw no wait at all)
modprobe null_blk nr_devices=1 gb=1 irqmode=2 completion_nsec=1000000 || bail "modprobe null_blk"
[ -b /dev/nullb0 ] || bail "/dev/nullb0 is missing"
DEVNO=$(tr ':' ',' </sys/class/block/nullb0/dev)

# reads: the workload every consumer watches
reads() { /usr/bin/dd if=/dev/nullb0 of=/dev/null bs=4096 count=$READS iflag=direct status=none; }
# events FILE EVENT: EVENT's lines for nullb0 in an ftrace text FILE
events() { grep -c " $2: $DEVNO " "$1"; }

check_eq "the events are io_start, io_done, io_wait_start and io_wait_done" \
	"io_done io_start io_wait_done io_wait_start" \
	"$(for d in $TR/events/io/*/; do basename "$d"; done | sort | tr '\n' ' ' | sed 's/ $//')"

# --- enabled at boot, in the top-level buffer ---
boot_enabled() { # NAME EVENT HOW
	if [ "$(cat $TR/events/io/$2/enable)" != 1 ]; then
		_tap_result 1 "$1: io:$2 enabled at boot by its name"
		_tap_diag "" "events/io/$2/enable is $(cat $TR/events/io/$2/enable); $3"
		return
	fi
	_tap_result 0 "$1: io:$2 enabled at boot by its name"
	echo >$TR/trace
	reads
	cp $TR/trace $T/top.$2
	check_cmp "$1: io:$2 fires for each read" -ge "$(events $T/top.$2 $2)" $READS
	echo 0 >$TR/events/io/$2/enable
}
if grep -q 'trace_event=io:io_start' /proc/cmdline; then
	boot_enabled "trace_event=" io_start \
		"kernel log: $(dmesg | grep -i 'trace event' | tail -n 2)"
else
	skip "trace_event=io:io_start" "not on this boot's command line"
fi
if grep -q 'ftrace.event.io.io_done.enable' /proc/bootconfig 2>/dev/null; then
	boot_enabled "bootconfig" io_done "/proc/bootconfig: $(tr '\n' ' ' </proc/bootconfig)"
else
	skip "bootconfig ftrace.event.io.io_done" "no bootconfig with it on this boot"
fi
echo >$TR/trace

# --- a tracefs instance ---
INST=$TR/instances/io-trace-names
mkdir $INST || bail "cannot make a tracefs instance"
echo 1 >$INST/events/io/io_wait_done/enable
echo 1 >$INST/events/io/io_start/enable
reads
echo 0 >$INST/events/io/enable
cp $INST/trace $T/instance
rmdir $INST
check_cmp "tracefs: io:io_start fires for each read" -ge "$(events $T/instance io_start)" $READS
check_cmp "tracefs: io:io_wait_done fires" -gt "$(grep -c ' io_wait_done: ' $T/instance)" 0

# --- perf ---
PERF=$(command -v perf)
if [ -n "$PERF" ]; then
	run $PERF record -q -e io:io_start -e io:io_done -a -o $T/perf.data -- /usr/bin/dd \
		if=/dev/nullb0 of=/dev/null bs=4096 count=$READS iflag=direct status=none
	check_eq "perf record -e io:io_start -e io:io_done: exit status 0 ($err)" 0 "$rc"
	$PERF script -i $T/perf.data >$T/perf.txt 2>$T/perf.err
	check_cmp "perf: io:io_start for each read" -ge \
		"$(grep -c "io:io_start: $DEVNO " $T/perf.txt)" $READS
	check_cmp "perf: io:io_done for each read" -ge \
		"$(grep -c "io:io_done: $DEVNO " $T/perf.txt)" $READS
else
	skip "perf record -e io:io_start" "perf is not installed"
fi

# --- bpftrace's tracepoint probes ---
if command -v bpftrace >/dev/null; then
	kdev=$(awk -F: '{ print $1 * 1048576 + $2 }' /sys/class/block/nullb0/dev) # MKDEV()
	run bpftrace -e "tracepoint:io:io_done /args->dev == $kdev/ { @done = count(); }" \
		-c "/usr/bin/dd if=/dev/nullb0 of=/dev/null bs=4096 count=$READS iflag=direct"
	n=$(printf '%s\n' "$out" | sed -n 's/^@done: \([0-9]*\)$/\1/p')
	check_cmp "bpftrace tracepoint:io:io_done: one per read (${n:-none}; rc $rc)" \
		-eq "${n:-0}" $READS
else
	skip "bpftrace tracepoint:io:io_done" "bpftrace is not installed"
fi

# --- BPF: raw tracepoint by name, and BTF-typed (btf_trace_io_start) ---
run ./bpf-tp-count raw io_start -- /usr/bin/dd if=/dev/nullb0 of=/dev/null bs=4096 \
	count=$READS iflag=direct status=none
check_eq "raw tracepoint io_start: attaches ($err)" 0 "$rc"
check_cmp "raw tracepoint io_start: fires for each read (${out:-none})" -ge "${out:-0}" $READS
run ./bpf-tp-count raw start -- true
check_match "raw tracepoint: no event is called start (no renaming)" \
	"BPF_RAW_TRACEPOINT_OPEN start \\(raw\\): No such file or directory" "$err"
if [ -e /sys/kernel/btf/vmlinux ]; then
	run ./bpf-tp-count btf io_done -- /usr/bin/dd if=/dev/nullb0 of=/dev/null bs=4096 \
		count=$READS iflag=direct status=none
	check_eq "tp_btf io_done: loads and attaches ($err)" 0 "$rc"
	check_cmp "tp_btf io_done: fires for each read (${out:-none})" -ge "${out:-0}" $READS
else
	fail "tp_btf io_done" \
		"the kernel has no BTF (/sys/kernel/btf/vmlinux; CONFIG_DEBUG_INFO_BTF)"
fi

rmmod null_blk
tap_finish
