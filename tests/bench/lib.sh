# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
#
# Guest side, what every benchmark's run.sh sources first (`. ../lib.sh`,
# from its own folder): the suites' TAP helpers (tests/selftests/lib.sh),
# the settings its host.sh wrote (/etc/iotally.conf, when there) and the one
# null_blk + dm-linear setup. The benchmarks read /dev/nullb0 directly
# (bench/taskstats, bench/io-trace) or a dm-linear device over all of it
# (bench/dm-stats, bench/dm-stats-cpus, bench/iotally, bench/serve), the
# dm-stats ones with Debian's dm-mod.ko or ours in turn (load_engine).

# shellcheck source=../selftests/lib.sh
. ../../lib.sh
if [ -f /etc/iotally.conf ]; then
	# shellcheck disable=SC1091 # written by tests/vm/mkinitramfs.sh
	. /etc/iotally.conf
fi

# load_nullb MODE [GIB]: one null_blk device of GIB GiB (4 by default), two
# submit queues, completing inline (MODE inline) or by a 20 us timer (MODE
# timer). A null_blk already loaded is unloaded first.
load_nullb() {
	[ -d /sys/module/null_blk ] && { rmmod null_blk || bail "cannot unload null_blk"; }
	case $1 in
	inline) _irq="irqmode=0" ;;
	timer) _irq="irqmode=2 completion_nsec=20000" ;;
	*) bail "load_nullb: no null_blk mode '$1' (inline, timer)" ;;
	esac
	# shellcheck disable=SC2086
	modprobe null_blk nr_devices=1 gb="${2:-4}" queue_mode=2 submit_queues=2 $_irq ||
		bail "cannot load null_blk ($1)"
	[ -b /dev/nullb0 ] || bail "no /dev/nullb0"
}

# nullb_linear NAME: the dm-linear device NAME over all of /dev/nullb0.
nullb_linear() {
	dmsetup create --noudevsync "$1" --table "0 $(cat /sys/block/nullb0/size) linear /dev/nullb0 0" ||
		bail "cannot create the dm-linear device"
}

# load_engine stock|ours: dm-mod.ko with Debian's dm-stats engine, or the
# one with ours (installed as extra/dm-mod-iotally.ko by the bench's
# host.sh), in place of the one loaded; every mapped device is removed.
STOCK_KO=/lib/modules/$(uname -r)/kernel/drivers/md/dm-mod.ko
OURS_KO=/lib/modules/$(uname -r)/kernel/extra/dm-mod-iotally.ko
load_engine() {
	dmsetup remove_all --noudevsync >/dev/null 2>&1
	if [ -d /sys/module/dm_mod ]; then
		rmmod dm_mod || bail "cannot unload dm_mod"
	fi
	case $1 in
	stock) insmod "$STOCK_KO" ;;
	ours) insmod "$OURS_KO" ;;
	esac || bail "cannot load the $1 dm-mod.ko"
	[ -e /dev/mapper/control ] || mknod /dev/mapper/control c 10 \
		"$(sed -n 's/^ *\([0-9]*\) device-mapper$/\1/p' /proc/misc)"
}

# bench_iops "KEY=VALUE..." NAME IOPS: one fio measurement, as the line
# "# BENCH KEY=VALUE... iops=IOPS" the report reads and a passing NAME; a
# failing NAME and status 1 when fio measured nothing.
bench_iops() {
	if [ -n "$3" ] && [ "$3" -gt 0 ]; then
		echo "# BENCH $1 iops=$3"
		pass "$2: $3 IOPS"
	else
		fail "$2: fio measured nothing" "fio output: ${3:-none}"
		return 1
	fi
}

# nullb_randread SECONDS: fio's --minimal line for 4 KiB random direct reads
# of /dev/nullb0, 2 jobs.
nullb_randread() {
	fio --name=bench --filename=/dev/nullb0 --ioengine=psync --direct=1 \
		--rw=randread --bs=4k --numjobs=2 --group_reporting --norandommap \
		--time_based --runtime="$1" --minimal 2>/dev/null
}
