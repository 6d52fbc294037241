#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# iotally serve --textfile on the patched kernel (whose guest has no TCP/IP,
# so no HTTP here: tests/selftests/serve covers that on the stock kernel):
# the per-task I/O family names the process doing the I/O and stays within
# its top N; the device family is the kernel's own counters; the file is
# replaced by rename at every interval.
. ../lib.sh
. ../dm-stats/common.sh

require_cmd iotally
# Per-task I/O accounting is off by default: on for this suite only.
TIS=/proc/sys/kernel/task_io_stats
tis_was=$(cat $TIS)
echo 1 >$TIS || bail "cannot switch per-task I/O accounting on"
DEV=tdelay
modprobe brd rd_nr=1 rd_size=32768 max_part=0 || bail "cannot load brd"
dmsetup create --noudevsync "$DEV" --table "0 65536 delay /dev/ram0 0 20" ||
	bail "cannot create the dm-delay device"
iotally create "$DEV" --precise --histogram 10ms,100ms >/dev/null || bail "iotally create failed"
tf=$(mktemp -d)

# A writer that lasts: 20 ms per direct 4 KiB write.
taskset -c 0 /usr/bin/dd if=/dev/zero of=/dev/mapper/$DEV bs=4k count=1000 oflag=direct \
	status=none &
dd_pid=$!
sleep 1
check_ok "serve --tasks 2 --textfile, three writes a second apart" \
	iotally serve "$DEV" --tasks 2 --textfile "$tf" --interval 1 --count 3
f=$tf/iotally.prom
check_eq "only iotally.prom in the directory" "iotally.prom" "$(ls -A "$tf")"
written=$(sed -n "s/^iotally_task_written_bytes_total{pid=\"$dd_pid\",comm=\"dd\"} //p" "$f")
check_cmp "the writer is in the top 2 with the bytes it wrote" -ge "${written:-0}" 4096
check_cmp "at most 2 tasks are exported" -le "$(grep -c '^iotally_task_written_bytes_total{' "$f")" 2
waited=$(sed -n "s/^iotally_task_io_wait_seconds_total{pid=\"$dd_pid\",comm=\"dd\"} //p" "$f")
check_eq "the writer waited at least 20 ms per write it made" ok \
	"$(awk -v w="${waited:-0}" -v b="${written:-0}" 'BEGIN { print (w >= 0.02 * b / 4096 * 0.9) ? "ok" : w " s for " b " bytes" }')"
check_ok "serve --tasks 1 --tasks-by wait" \
	iotally serve "$DEV" --tasks 1 --tasks-by wait --textfile "$tf" --interval 1 --count 2
check_match "ranked by wait, the writer is the one task" \
	"^iotally_task_io_waits_total\{pid=\"$dd_pid\",comm=\"dd\"\} [1-9][0-9]*\$" \
	"$(grep '^iotally_task_io_waits_total{' "$tf/iotally.prom")"
kill "$dd_pid" 2>/dev/null
wait "$dd_pid" 2>/dev/null
sleep 1

minor=$(dmsetup info -c --noheadings -o minor "$DEV" | tr -d ' ')
check_ok "serve --textfile once" iotally serve "$DEV" --textfile "$tf" --count 1
check_eq "iotally_device_writes_completed_total is /sys/block/dm-$minor/stat's" \
	"$(awk '{ print $5 }' /sys/block/dm-$minor/stat)" \
	"$(sed -n "s/^iotally_device_writes_completed_total{device=\"dm-$minor\".*} //p" "$f")"
check_eq "the region saw the writes the device saw" \
	"$(awk '{ print $5 }' /sys/block/dm-$minor/stat)" \
	"$(sed -n "s/^iotally_region_writes_completed_total{device=\"dm-$minor\".*} //p" "$f")"
# The histogram's count is the writes'.
check_eq "the histogram counts every write once" \
	"$(awk '{ print $5 }' /sys/block/dm-$minor/stat)" \
	"$(sed -n 's/^iotally_region_io_latency_seconds_count{.*} //p' "$f")"
# (Where those writes fall in the histogram is the engine's business: on the
# stock kernel each of these merged writes takes the 20 ms of the delay, on
# the patched engine 0.17 ms; reported, and for the engine's suites.)
echo "# @stats_print: $(dmsetup message "$DEV" 0 @stats_print 0)"

# SIGTERM ends the writer loop cleanly.
iotally serve "$DEV" --textfile "$tf" --interval 60 2>/tmp/tf.err &
pid=$!
sleep 2
kill -TERM "$pid"
wait "$pid"
check_eq "SIGTERM stops the textfile writer, saying so" "0:iotally serve: Terminated, stopping" \
	"$?:$(cat /tmp/tf.err)"
check_eq "and leaves only the finished file" "iotally.prom" "$(ls -A "$tf")"

rm -rf "$tf"
delete_all_regions "$DEV"
dmsetup remove --noudevsync "$DEV"
rmmod brd
echo "$tis_was" >$TIS
tap_finish
