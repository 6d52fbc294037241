#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Saturation that %util cannot show. A fio job that keeps one I/O in flight
# (QD1) and one that keeps 32 (QD32) on null_blk, whose I/Os each take 50 ms,
# both keep the device busy nearly all the time: %util reads 80-100 % for
# both (less than 100 only for fio's turnaround in a TCG guest). The
# fraction of time with 16 or more I/Os in flight (iotally report's %qd16)
# tells them apart: 0 for QD1, nearly all of the busy time for QD32. The same
# holds for a dm-linear over null_blk and for its whole-device dm-stats region.
. ../lib.sh
. ../iotally/common.sh

require_cmd iotally fio

[ -d /sys/module/null_blk ] && { rmmod null_blk || bail "cannot unload null_blk"; }
modprobe null_blk nr_devices=1 gb=1 queue_mode=2 submit_queues=2 hw_queue_depth=64 \
	irqmode=2 completion_nsec=50000000 || bail "cannot load null_blk"
[ -b /dev/nullb0 ] || bail "no /dev/nullb0"
dmsetup create satlin --table "0 $(blockdev --getsz /dev/nullb0) linear /dev/nullb0 0" ||
	bail "cannot create the dm-linear over null_blk"
dm=$(kname satlin)
region=$(iotally create satlin) || bail "iotally create satlin failed"

# ge A B / le A B: decimal comparisons.
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 <= b + 0) }'; }

# check_num NAME OP VALUE BOUND: one decimal comparison as a TAP line.
check_num() {
	if [ -n "$3" ] && "$2" "$3" "$4"; then
		pass "$1"
	else
		fail "$1" "expected: ${3:-(none)} $2 $4
command: $cmd"
	fi
}

# saturation QD: reads at queue depth QD on the dm-linear for 8 s; after 2 s,
# one report over 4 s of the null_blk disk, the dm device and its region.
saturation() {
	qd=$1
	fio --name=qd$qd --filename=/dev/mapper/satlin --ioengine=libaio --direct=1 \
		--rw=randread --bs=4k --iodepth="$qd" --norandommap --time_based --runtime=8 \
		--cpus_allowed=0 >/dev/null 2>&1 &
	fio_pid=$!
	sleep 2
	cmd="iotally -j report --level region -o %util,aqu-sz,%qd1,%qd16,%qd32 -y nullb0 satlin 4 1"
	run $cmd
	wait "$fio_pid"
	[ "$rc" = 0 ] || { fail "QD$qd: $cmd" "exit $rc: $err"; return; }
	for what in nullb0 "$dm" "region $region"; do
		case $what in
		region*) row=$(json_rows region "$out" | grep "\"region_id\":${region}[,}]") ;;
		*) row=$(json_rows device "$out" | grep "\"device\":\"$what\"") ;;
		esac
		util=$(json_num %util "$row")
		qd1=$(json_num %qd1 "$row")
		qd16=$(json_num %qd16 "$row")
		aqu=$(json_num aqu-sz "$row")
		echo "# QD$qd $what: %util $util aqu-sz $aqu %qd1 $qd1 %qd16 $qd16"
		# Busy most of the time, both: in a TCG guest on a loaded host fio's
		# turnaround leaves the device idle 8-16 % of the time (measured).
		check_num "QD$qd $what: %util >= 80" ge "$util" 80
		if [ "$qd" = 1 ]; then
			check_num "QD1 $what: %qd16 <= 2 (never 16 in flight)" le "$qd16" 2
			check_num "QD1 $what: aqu-sz <= 1.05" le "$aqu" 1.05
		else
			check_num "QD32 $what: %qd16 >= 70" ge "$qd16" 70
			# Of the time it is busy, at least 80 % is at depth 16 or more.
			check_num "QD32 $what: %qd16 >= 0.8 x %qd1" ge "$qd16" \
				"$(awk -v a="$qd1" 'BEGIN { print 0.8 * a }')"
			check_num "QD32 $what: aqu-sz >= 16" ge "$aqu" 16
		fi
		# The sampled %qd1 and the kernel's exact busy time agree (measured:
		# within 6 points at 100 transitions a second, see iotally.rst).
		check_num "QD$qd $what: %qd1 within 10 points of %util" le \
			"$(awk -v a="$qd1" -v b="$util" 'BEGIN { d = a - b; print d < 0 ? -d : d }')" 10
	done
}

saturation 1
saturation 32

# The sampling rate is the user's: 4 samples a second over 2 s.
cmd="iotally -j report --level device --qd-sample 250ms -o %qd1 -y nullb0 2 1"
check_ok "--qd-sample 250ms is accepted" $cmd
check_eq "--qd-sample 250ms: idle null_blk never had an I/O in flight" 0 \
	"$(json_num %qd1 "$out" | awk '{ printf "%d\n", $1 }')"
check_error "--qd-sample must be a positive time" 2 "--qd-sample" \
	iotally report --qd-sample 0 -o %qd1 1 1

iotally delete satlin "$region" >/dev/null 2>&1
dmsetup remove satlin
rmmod null_blk
tap_finish
