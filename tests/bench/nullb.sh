# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
#
# Guest side, sourced by the benchmarks that read null_blk directly
# (bench/taskstats, bench/io-trace), after ../../lib.sh.

# load_nullb MODE: one null_blk device, completing inline or by a 20 us timer.
load_nullb() {
	[ -d /sys/module/null_blk ] && { rmmod null_blk || bail "cannot unload null_blk"; }
	case $1 in
	inline) _irq="irqmode=0" ;;
	timer) _irq="irqmode=2 completion_nsec=20000" ;;
	esac
	# shellcheck disable=SC2086
	modprobe null_blk nr_devices=1 gb=4 queue_mode=2 submit_queues=2 $_irq ||
		bail "cannot load null_blk ($1)"
	[ -b /dev/nullb0 ] || bail "no /dev/nullb0"
}

# nullb_randread SECONDS: fio's --minimal line for 4 KiB random direct reads
# of /dev/nullb0, 2 jobs.
nullb_randread() {
	fio --name=bench --filename=/dev/nullb0 --ioengine=psync --direct=1 \
		--rw=randread --bs=4k --numjobs=2 --group_reporting --norandommap \
		--time_based --runtime="$1" --minimal 2>/dev/null
}
