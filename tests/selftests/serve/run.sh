#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# iotally serve scraped by a real Prometheus, in the guest on loopback:
# a dm-delay device with two delays (50 ms on its first half, 500 ms on its
# second), one precise region with a latency histogram on each half, fio
# writing to both. The delays are long because an emulated guest on a busy
# host adds tens of milliseconds to an I/O (36 writes/s measured at 2 ms). Prometheus scrapes `iotally serve` (HTTP, OpenMetrics,
# gzip) and node_exporter's textfile collector, which reads what
# `iotally serve --textfile` writes. Through Prometheus' HTTP API:
#   - rate(..._total[20s]) agrees with `iotally report` over the same 20 s
#     within 10 %, for both jobs;
#   - histogram_quantile(0.99, rate(..._bucket[20s])) falls in the bucket
#     the delay puts the writes in.
# Then the queue depth counters of a device kept 16 deep (null_blk, fio).
# Then the faults: port in use, no permission (dm down, the rest served), a named device that cannot be
# read, a region deleted and a device removed between scrapes, SIGTERM.
. ../lib.sh
# fetch, urlencode, prometheus_start
. ../lib-http.sh
. ../dm-stats/common.sh

require_cmd iotally prometheus promtool prometheus-node-exporter fio
[ -d /sys/module/null_blk ] && { rmmod null_blk || bail "cannot unload null_blk"; }

PORT=9863
HALF=65536 # sectors: 32 MiB per delay
DEV=slow
WINDOW=20

ip link set lo up || bail "cannot bring up loopback"
modprobe brd rd_nr=1 rd_size=$((2 * HALF / 2)) max_part=0 || bail "cannot load brd"
modprobe dm-delay || bail "cannot load dm-delay"
dmsetup create --noudevsync "$DEV" --table "0 $HALF delay /dev/ram0 0 50
$HALF $HALF delay /dev/ram0 $HALF 500" || bail "cannot create the dm-delay device"

# Precise timestamps: buckets finer than the tick. 50 ms lands in
# [20ms,400ms), 500 ms in [450ms,5s): wide, for the emulated guest's tail
# (a p99 of 210 ms was measured for the 50 ms delay on a busy host).
fast=$(iotally create "$DEV" --start 0 --length $HALF --precise --histogram 20ms,400ms,450ms,5s) ||
	bail "iotally create failed"
slow=$(iotally create "$DEV" --start $HALF --length $HALF --precise --histogram 20ms,400ms,450ms,5s) ||
	bail "iotally create failed"

# promql QUERY TIME: the value of a one-series instant query ("" if none).
promql() {
	fetch "/api/v1/query?query=$(urlencode "$1")&time=$2" 9090 |
		sed -n 's/.*"value":\[[^,]*,"\([^"]*\)"\].*/\1/p'
}

tf=$(mktemp -d)
iotally serve "$DEV" --listen 127.0.0.1:$PORT 2>/tmp/serve.err &
serve_pid=$!
iotally serve "$DEV" --textfile "$tf" --interval 1 2>/tmp/textfile.err &
textfile_pid=$!
prometheus-node-exporter --web.listen-address=127.0.0.1:9100 --collector.disable-defaults \
	--collector.textfile --collector.textfile.directory="$tf" >/tmp/node.log 2>&1 &
node_pid=$!
prometheus_start prometheus 9090 "iotally=127.0.0.1:$PORT node=127.0.0.1:9100"

wait_for 60 fetch /-/healthy || bail "iotally serve did not come up: $(cat /tmp/serve.err)"
check_eq "/-/healthy answers OK" "OK" "$(fetch /-/healthy)"
check_match "/ links /metrics" '<a href="/metrics">' "$(fetch /)"
check_eq "serve says where it listens" \
	"iotally serve: listening on http://127.0.0.1:$PORT/metrics" "$(cat /tmp/serve.err)"
wait_for 120 fetch /-/ready 9090 || bail "prometheus did not come up: $(tail -n 5 /tmp/prometheus.log)"
up() { [ "$(promql "up{job=\"$1\"}" "$(date +%s)")" = 1 ]; }
wait_for 60 up iotally || fail "Prometheus scrapes iotally serve" "$(tail -n 5 /tmp/prometheus.log)"
wait_for 60 up node || fail "Prometheus scrapes node_exporter" "$(tail -n 5 /tmp/node.log)"

fio --filename=/dev/mapper/$DEV --ioengine=psync --direct=1 --rw=randwrite --bs=4k \
	--numjobs=4 --size=$((HALF * 512)) --time_based --runtime=$((WINDOW + 25)) \
	--name=fast --offset=0 --name=slow --offset=$((HALF * 512)) >/tmp/fio.out 2>&1 &
fio_pid=$!
sleep 8

# iotally report over WINDOW seconds, then the same window in Prometheus.
# Its CSV columns are found by name.
report=$(iotally report "$DEV" -y --interval $WINDOW --count 1 --csv -o w/s)
end=$(date +%s)
sleep 3 # a scrape after the window closed
col() { # REGION COLUMN
	printf '%s\n' "$report" | awk -F, -v r="$1" -v c="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		$h["region"] == r { print $h[c] }'
}
echo "# iotally report over ${WINDOW}s:"
printf '%s\n' "$report" | sed 's/^/#   /'
for job in iotally node; do
	for r in $fast $slow; do
		want=$(col "$r" w/s)
		got=$(promql "rate(iotally_region_writes_completed_total{job=\"$job\",region_id=\"$r\"}[${WINDOW}s])" "$end")
		echo "# job=$job region=$r: rate() $got/s, iotally report $want/s"
		check_cmp "job $job region $r: Prometheus sees writes" -gt \
			"$(awk -v g="${got:-0}" 'BEGIN { print int(g * 1000) }')" 0
		check_eq "job $job region $r: rate() agrees with iotally report within 10 %" ok \
			"$(awk -v g="${got:-0}" -v w="${want:-0}" 'BEGIN { d = g - w; if (d < 0) d = -d
				print (w > 0 && d <= 0.1 * w) ? "ok" : "rate " g " vs report " w }')"
	done
	q="histogram_quantile(0.99, rate(iotally_region_io_latency_seconds_bucket{job=\"$job\",region_id=\"%s\"}[${WINDOW}s]))"
	# shellcheck disable=SC2059
	p99=$(promql "$(printf "$q" "$fast")" "$end")
	echo "# job=$job p99 of the 50 ms region: $p99 s"
	check_eq "job $job: p99 of the 50 ms region is in (20ms, 400ms]" ok \
		"$(awk -v v="${p99:-0}" 'BEGIN { print (v > 0.02 && v <= 0.4) ? "ok" : v }')"
	# shellcheck disable=SC2059
	p99=$(promql "$(printf "$q" "$slow")" "$end")
	echo "# job=$job p99 of the 500 ms region: $p99 s"
	check_eq "job $job: p99 of the 500 ms region is in (450ms, 5s]" ok \
		"$(awk -v v="${p99:-0}" 'BEGIN { print (v > 0.45 && v <= 5) ? "ok" : v }')"
done
wait "$fio_pid"
sleep 1
# The device family is the kernel's own counter of the whole device.
minor=$(dmsetup info -c --noheadings -o minor "$DEV" | tr -d ' ')
check_eq "iotally_device_writes_completed_total is /sys/block/dm-$minor/stat's" \
	"$(awk '{ print $5 }' /sys/block/dm-$minor/stat)" \
	"$(fetch /metrics | sed -n "s/^iotally_device_writes_completed_total{device=\"dm-$minor\".*} //p")"
check_eq "node_exporter read the textfile without error" 0 \
	"$(fetch /metrics 9100 | sed -n 's/^node_textfile_scrape_error \(.*\)/\1/p')"

# The exposition itself.
fetch /metrics >/tmp/scrape.txt
echo "# the first 30 lines of a scrape (text 0.0.4):"
head -n 30 /tmp/scrape.txt | sed 's/^/#   /'
run promtool check metrics </tmp/scrape.txt
echo "# promtool check metrics: exit $rc, output: '$out$err'"
check_eq "promtool check metrics reports nothing" "0:" "$rc:$out$err"
om=$(wget -q -O - --header 'Accept: application/openmetrics-text; version=1.0.0' \
	http://127.0.0.1:$PORT/metrics | tail -n 1)
check_eq "OpenMetrics when asked for it, ending in # EOF" "# EOF" "$om"
check_match "dm_name, device as the kernel names it, major and minor" \
	"^iotally_region_writes_completed_total\{device=\"dm-[0-9]+\",dm_name=\"$DEV\",dm_uuid=\"\",major=\"[0-9]+\",minor=\"[0-9]+\",region_id=\"$fast\",program_id=\"iotally\"\} [1-9][0-9]*\$" \
	"$(cat /tmp/scrape.txt)"
check_eq "the scrapes counted no error" "iotally_scrape_errors_total 0" \
	"$(grep '^iotally_scrape_errors_total' /tmp/scrape.txt)"
check_eq "the textfile is text 0.0.4 (no # EOF) and has no temporary beside it" "iotally.prom" \
	"$(ls -A "$tf")"
check_eq "no sample in the textfile has a timestamp" "" \
	"$(grep -v '^#' "$tf/iotally.prom" | awk '{ sub(/\{.*\}/, "x"); if (NF != 2) print }')"
before=$(dmsetup message "$DEV" 0 @stats_print "$fast")
fetch /metrics >/dev/null
check_eq "a scrape clears nothing" "$before" "$(dmsetup message "$DEV" 0 @stats_print "$fast")"

# Faults.
run timeout 20 iotally serve --listen 127.0.0.1:$PORT
echo "# port in use: exit $rc: $err"
check_eq "a port in use is one line and exit 1" \
	"1:iotally: cannot listen on 127.0.0.1:$PORT: Address already in use" "$rc:$err"
# Without root it serves what it may read (serve-privilege has each case).
/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	iotally serve --listen 127.0.0.1:9864 2>/tmp/nobody.err &
nobody_pid=$!
wait_for 30 fetch /-/healthy 9864 || fail "serve as nobody starts" "$(cat /tmp/nobody.err)"
scrape=$(fetch /metrics 9864)
echo "# not root: $(grep -v 'listening on' /tmp/nobody.err)"
check_eq "without root: dm down, block served" "dm=0 block=1" \
	"dm=$(printf '%s\n' "$scrape" | sed -n 's/^iotally_source_up{source="dm"} //p') block=$(printf '%s\n' "$scrape" | sed -n 's/^iotally_source_up{source="block"} //p')"
check_match "without root: one line says why" "^iotally serve: dm: permission denied.*CAP_SYS_ADMIN" \
	"$(grep -v 'listening on' /tmp/nobody.err)"
kill -TERM "$nobody_pid"
wait "$nobody_pid"
run timeout 20 iotally serve nosuch --listen 127.0.0.1:9864
echo "# a device that cannot be read at start: exit $rc: $err"
check_eq "a named device that cannot be read is one line at start, exit 3" \
	"3:iotally: nosuch: no such device" "$rc:$err"
dmsetup create --noudevsync gone --table "0 1024 linear /dev/ram0 0" || bail "cannot create gone"
kept=$(iotally create gone --start 0 --length 512) || bail "cannot create a region on gone"
deleted=$(iotally create gone --start 512 --length 512) || bail "cannot create a region on gone"
iotally serve --listen 127.0.0.1:9865 2>/tmp/all.err &
all_pid=$!
wait_for 30 fetch /-/healthy 9865 || fail "serve of every device starts" "$(cat /tmp/all.err)"
check_eq "a device with regions is scraped, each region" 2 \
	"$(fetch /metrics 9865 | grep -c '^iotally_region_writes_completed_total{.*dm_name="gone"')"
# A region deleted by another tool between two scrapes: left out, no error.
# series TEXT REGION: the writes series of that region of gone in a scrape
series() {
	printf '%s\n' "$1" | grep -c "^iotally_region_writes_completed_total{.*dm_name=\"gone\",.*region_id=\"$2\""
}
dmsetup message gone 0 @stats_delete "$deleted"
scrape=$(fetch /metrics 9865)
errors=$(printf '%s\n' "$scrape" | grep '^iotally_scrape_errors_total')
echo "# region $deleted of gone deleted: $(series "$scrape" "$deleted") series of it," \
	"$(series "$scrape" "$kept") of region $kept, $errors"
check_eq "a deleted region is left out, the other stays, no error counted" \
	"0:1:iotally_scrape_errors_total 0" \
	"$(series "$scrape" "$deleted"):$(series "$scrape" "$kept"):$errors"
dmsetup remove --noudevsync gone
scrape=$(fetch /metrics 9865)
echo "# device gone removed: $(printf '%s\n' "$scrape" | grep -c 'dm_name="gone"') series of it," \
	"$(printf '%s\n' "$scrape" | grep '^iotally_scrape_errors_total'), /-/healthy: $(fetch /-/healthy 9865)"
check_eq "a removed device is left out, the server goes on" "0:ok" \
	"$(printf '%s\n' "$scrape" | grep -c 'dm_name="gone"'):$(fetch /-/healthy 9865 | tr -d '\n' | tr OK ok)"
kill -TERM "$all_pid"
wait "$all_pid"
check_eq "SIGTERM stops serve cleanly (exit 0)" 0 "$?"
# Queue depth (--qd-sample): null_blk, whose I/Os each take 50 ms, kept 16
# deep by fio (libaio, iodepth 16). Over 10 s of it, from two scrapes of a
# serve sampling every 10 ms, timed by /proc/uptime: the time with at least
# 1 in flight grows as the clock does, within [0.9, 1.05] of it (each scrape
# sees the time up to the sampler's last sample, up to a period before it
# plus a TCG guest's scheduling, and fio may stall for a moment; 1 s of
# stalls in 10 is already a lot); with at least 32 and 128 it does not grow
# at all (fio keeps at most 16 in flight), nor with at least 1 on the idle
# ram0.
modprobe null_blk nr_devices=1 gb=1 queue_mode=2 submit_queues=2 hw_queue_depth=64 \
	irqmode=2 completion_nsec=50000000 || bail "cannot load null_blk"
iotally serve --listen 127.0.0.1:9866 --qd-sample 10ms 2>/tmp/qd.err &
qd_pid=$!
wait_for 30 fetch /-/healthy 9866 || fail "serve --qd-sample starts" "$(cat /tmp/qd.err)"
fetch /metrics 9866 >/dev/null # the first scrape: what it exports is sampled from now on
fio --filename=/dev/nullb0 --ioengine=libaio --direct=1 --rw=randread --bs=4k --iodepth=16 \
	--time_based --runtime=20 --name=qd >/tmp/fio-qd.out 2>&1 &
fio_pid=$!
sleep 5
uptime_s() { awk '{ print $1 }' /proc/uptime; }
u0=$(uptime_s)
s0=$(fetch /metrics 9866)
sleep 10
u1=$(uptime_s)
s1=$(fetch /metrics 9866)
wait "$fio_pid"
# qd_rate DEVICE N: the growth of its at_least=N counter over the clock's.
qd_at() {
	printf '%s\n' "$1" |
		sed -n "s/^iotally_device_queue_depth_seconds_total{device=\"$2\",.*,at_least=\"$3\"} //p"
}
qd_rate() {
	awk -v a="$(qd_at "$s0" "$1" "$2")" -v b="$(qd_at "$s1" "$1" "$2")" -v s="$u0" -v e="$u1" \
		'BEGIN { if (a == "" || b == "") print "none"; else printf "%.3f\n", (b - a) / (e - s) }'
}
echo "# queue depth rates over $(awk -v s="$u0" -v e="$u1" 'BEGIN { print e - s }') s:" \
	"nullb0 at_least=1 $(qd_rate nullb0 1), =8 $(qd_rate nullb0 8), =16 $(qd_rate nullb0 16)," \
	"=32 $(qd_rate nullb0 32), =128 $(qd_rate nullb0 128); ram0 at_least=1 $(qd_rate ram0 1)"
check_eq "nullb0 kept 16 deep: rate of at_least=1 is in [0.9, 1.05]" ok \
	"$(awk -v r="$(qd_rate nullb0 1)" 'BEGIN { print (r ~ /^[0-9.]+$/ && r >= 0.9 && r <= 1.05) ? "ok" : r }')"
check_eq "nullb0 kept 16 deep: at_least=32 and at_least=128 do not grow" "0.000 0.000" \
	"$(qd_rate nullb0 32) $(qd_rate nullb0 128)"
check_eq "idle ram0: at_least=1 does not grow" "0.000" "$(qd_rate ram0 1)"
check_eq "the queue depth scrapes counted no error" "iotally_scrape_errors_total 0" \
	"$(printf '%s\n' "$s1" | grep '^iotally_scrape_errors_total')"
kill -TERM "$qd_pid"
wait "$qd_pid"
check_eq "SIGTERM stops serve and its sampler cleanly (exit 0)" 0 "$?"
rmmod null_blk

kill -TERM "$serve_pid"
wait "$serve_pid"
rc=$?
echo "# SIGTERM: exit $rc: $(tail -n 1 /tmp/serve.err)"
check_eq "SIGTERM stops serve, saying so" "0:iotally serve: Terminated, stopping" \
	"$rc:$(tail -n 1 /tmp/serve.err)"
kill -TERM "$textfile_pid"
wait "$textfile_pid"
check_eq "SIGTERM stops the textfile writer (exit 0)" 0 "$?"
kill "$prom_pid" "$node_pid"
wait "$prom_pid" "$node_pid" 2>/dev/null

rm -rf "$tf"
dmsetup remove --noudevsync "$DEV"
rmmod brd
tap_finish
