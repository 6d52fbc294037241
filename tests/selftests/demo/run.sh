#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# make demo: iotally on a device whose latency is known in advance. A
# dm-delay device over a ramdisk adds 5 ms to every read and 20 ms to every
# write; fio reads and writes it, and the regions sit on it (dm-stats times
# an I/O from its arrival, so they count the delay as upstream does);
# iotally shows the device as iostat would, its regions beside it, a latency histogram whose buckets show the
# two delays, two readers at once that clear nothing, a frame of top, the
# tasks doing the I/O, the generic statistics layer, Prometheus text, and
# iostat -x beside iotally report -x on the same device.
#
# It runs on two kernels (scripts/demo.sh): Debian's stock kernel with our
# dm-mod.ko and statistic.ko (make demo, the default) and our patched kernel
# (make demo KERNEL=patched). The tasks doing the I/O and the io provider's
# lines come from the patched kernel's per-task I/O and io trace events
# there, and from iotally's BPF programs on the stock kernel, with the same
# output. One step needs what only the patched kernel has today, and says
# so where it does not run: the statistics layer of the dm device
# (dm_mod.statistic, which our out-of-tree dm-mod.ko does not have: it has
# no dm-statistic.o).
#
# What a user reads is the commands and their output; the checks behind them
# print TAP lines that scripts/demo.sh keeps out of sight.
. ../lib.sh

SECTORS=262144 # 128 MiB
RDELAY=5       # ms
WDELAY=20      # ms
DEV=slow

say() { printf '\n### %s\n' "$*"; }
# shown NAME CMD...: print the command as a user would type it, run it,
# print its output, and record whether it succeeded.
shown() {
	_n=$1
	shift
	printf '# %s\n' "$*"
	check_ok "$_n" "$@"
	[ -n "$out" ] && printf '%s\n' "$out"
	[ "$rc" = 0 ] || printf '%s\n' "$err"
}

require_cmd iotally
# Which kernel: ours has device-mapper built in; on Debian's, dm_mod is a
# module (the guest's init loaded our dm-mod.ko in place of Debian's), and
# only a loadable module has /sys/module/NAME/initstate.
if [ -e /sys/module/dm_mod/initstate ]; then
	KERNEL=stock
	source="iotally's BPF programs"
	# A statistics layer for dm devices only if this dm-mod has one.
	layer=0
	[ -e /sys/module/dm_mod/parameters/statistic ] && layer=1
	version=$(cat /sys/module/dm_mod/version 2>/dev/null)
	echo "iotally demo on Debian's stock kernel $(uname -r), with our dm-stats engine as"
	echo "dm-mod.ko (${version:-no version}) and the statistics layer as statistic.ko."
	# Our engine, not Debian's (which has no version): make modules' build.
	check_match "the stock kernel runs our dm-mod.ko ($version)" '^iotally-' "$version"
	check_ok "the statistics layer loads on the stock kernel" modprobe statistic
	check_eq "the statistics layer is in debugfs" yes \
		"$([ -d /sys/kernel/debug/statistics ] && echo yes || echo no)"
else
	KERNEL=patched
	source="the patched kernel"
	layer=1
	echo "iotally demo on the patched kernel $(uname -r)."
fi
modprobe brd rd_nr=1 rd_size=$((SECTORS / 2)) max_part=0 || bail "cannot load brd"
# Both are off by default: per-task I/O accounting, and the generic
# statistics layer's interface for new mapped devices. The patched kernel
# must have both.
if [ "$KERNEL" = patched ]; then
	echo 1 >/proc/sys/kernel/task_io_stats || bail "cannot switch per-task I/O accounting on"
fi
if [ "$layer" = 1 ]; then
	echo 1 >/sys/module/dm_mod/parameters/statistic || bail "cannot give new devices statistics"
fi
dmsetup create --noudevsync "$DEV" \
	--table "0 $SECTORS delay /dev/ram0 0 $RDELAY /dev/ram0 0 $WDELAY" ||
	bail "cannot create the dm-delay device"
KNAME=dm-$(dmsetup info -c --noheadings -o minor "$DEV" | tr -d ' ')
IFACE=dm-$(dmsetup info -c --noheadings -o major,minor "$DEV" | tr -d ' ')

echo "iotally demo: /dev/mapper/$DEV ($KNAME) is dm-delay over a ramdisk: every read takes ${RDELAY} ms"
echo "more, every write ${WDELAY} ms more (released on a jiffy: up to one 4 ms tick less at HZ=250)."

say "A region over the whole device, with a latency histogram (precise timestamps: the default with --histogram)"
shown "create a region with a histogram" iotally create "$DEV" --areas 4 --histogram 2ms,4ms,8ms,16ms,32ms,64ms
region=$out
[ "$layer" = 1 ] && iotally stat on "$IFACE" >/dev/null 2>&1

fio --name=reads --filename=/dev/mapper/$DEV --direct=1 --rw=randread --bs=4k --size=32m \
	--iodepth=1 --rate_iops=40 --time_based --runtime=40 --output=/dev/null --eta=never &
r=$!
fio --name=writes --filename=/dev/mapper/$DEV --direct=1 --rw=randwrite --bs=16k \
	--offset=64m --size=32m --iodepth=1 --rate_iops=10 --time_based --runtime=40 \
	--output=/dev/null --eta=never &
w=$!
# fio takes seconds to start in a TCG guest: wait for its first reads.
n=0
until [ "$(awk '{ print $1 + $5 }' /sys/block/$KNAME/stat)" -gt 20 ] || [ $n -ge 60 ]; do
	sleep 0.5
	n=$((n + 1))
done

say "fio: 40 reads/s of 4 KiB (first half), 10 writes/s of 16 KiB (second half). Every device, its regions beside it:"
shown "report: device rows and region rows" iotally report -N --level area -y -o r/s,rkB/s,r_await,w/s,wkB/s,w_await,aqu-sz,%util 2 1
echo "(A region's await counts from the I/O's arrival; its aqu-sz and %util count it in flight only"
echo " once dm-delay releases it, as upstream dm-stats does: the device row has the queue.)"
dev_await=$(iotally -j report "$DEV" --level device -y -o r_await 2 1 | grep -o '"r_await":[0-9.]*' | cut -d: -f2)
# At least the delay; how much more depends on how late the guest's timers
# fire on a busy host.
check_eq "the device's r_await is at least dm-delay's ${RDELAY} ms ($dev_await)" yes \
	"$(awk -v a="$dev_await" -v d="$RDELAY" 'BEGIN { print (a != "" && a >= d) ? "yes" : "no" }')"

say "One frame of top: the busiest regions, with a heat strip of their areas"
shown "one frame of top" iotally top -c 1 -i 2

say "The tasks doing the I/O (per-task I/O from $source)"
shown "tasks --top" iotally tasks --top -i 2 -n 4
check_match "tasks --top: fio is among the tasks doing the I/O" " fio " "$out"

say "The io provider: one line per I/O, with its latency (from $source)"
shown "snoop: 6 lines on $KNAME" iotally snoop --device "$KNAME" --count 6
# dm-delay holds an I/O for its delay rounded up to jiffies from the jiffy
# it arrived in: at HZ=250, 5 ms is 2 ticks, so at least one whole 4 ms tick.
check_eq "snoop: 6 lines, fio's I/Os on $KNAME, each held at least a 4 ms tick" 6 \
	"$(printf '%s\n' "$out" | awk -v d="$KNAME" '$2 == "fio" && $4 == d && $7 >= 4' | wc -l)"

say "The same device as iostat -x shows it, and as iotally report -x shows it"
shown "iostat -x" iostat -x -t "$KNAME" 1 2
shown "iotally report -x" iotally report -x -t --level device "$KNAME" 1 2

wait "$r" "$w"

say "The latency histogram of region $region: reads near ${RDELAY} ms, writes near ${WDELAY} ms"
shown "latency histogram" iotally histogram "$DEV" "$region"
h=$(iotally -j histogram "$DEV" "$region")
# Buckets are {"count":N,"lower_ns":L,"upper_ns":U} (JSON keys sorted). Most
# I/Os take the delay; a few take less in real time when the guest's jiffies
# catch up after its vCPU was descheduled (the statistics layer sees them too).
total=$(printf '%s\n' "$h" | grep -o '"total":[0-9]*' | cut -d: -f2)
below=$(printf '%s\n' "$h" | grep -o '"count":[0-9]*,"lower_ns":[0-9]*,"upper_ns":[0-9]*' |
	awk -F'[:,]' '$6 <= 4000000 { s += $2 } END { print s + 0 }')
check_eq "most I/Os took at least a 4 ms tick of dm-delay ($below of $total took less)" yes \
	"$(awk -v b="$below" -v t="$total" 'BEGIN { print (t > 0 && 2 * b < t) ? "yes" : "no" }')"
busy=$(printf '%s\n' "$h" | grep -o '"count":[1-9][0-9]*' | wc -l | tr -d ' ')
check_cmp "the I/O spreads over at least two buckets ($busy)" -ge "$busy" 2

say "Two readers at once, and neither clears the counters (dmstats report would)"
iotally report -N "$DEV" -o r_ios,w_ios,r_await,w_await >/tmp/reader1 2>&1 &
p1=$!
iotally report -N "$DEV" -o r_ios,w_ios,r_await,w_await >/tmp/reader2 2>&1 &
p2=$!
wait "$p1" "$p2"
echo "# reader 1"
cat /tmp/reader1
echo "# reader 2"
cat /tmp/reader2
check_eq "both readers saw the same counts" "$(cat /tmp/reader1)" "$(cat /tmp/reader2)"
before=$(dmsetup message "$DEV" 0 @stats_print "$region")
iotally report "$DEV" >/dev/null
check_eq "reading cleared nothing" "$before" "$(dmsetup message "$DEV" 0 @stats_print "$region")"

if [ "$layer" = 1 ]; then
	say "The generic statistics layer (debugfs) of the same device"
	echo "# iotally stat show $IFACE   (latencies_read, in microseconds; empty buckets left out)"
	check_ok "stat show" iotally stat show "$IFACE"
	printf '%s\n' "$out" | sed -n '/^latencies_read (array)/,/^$/p' | awk 'NR <= 2 || $2 != 0'
else
	say "The generic statistics layer of the same device: not on this kernel"
	echo "(statistic.ko is loaded, but our out-of-tree dm-mod.ko gives dm devices no interface"
	echo " in it (no dm_mod.statistic): make demo KERNEL=patched shows it.)"
fi

say "Prometheus text (iotally export --prometheus), an excerpt"
run iotally export --prometheus
check_eq "export succeeded" 0 "$rc"
printf '%s\n' "$out" | head -n 12
echo "... ($(printf '%s\n' "$out" | grep -vc '^#') samples in all)"

iotally delete "$DEV" --all >/dev/null
dmsetup remove --noudevsync "$DEV"
rmmod brd
tap_finish
