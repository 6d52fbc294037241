#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The monitoring mixin (Documentation/iotally-mixin.rst) in a real
# Prometheus: Debian's 2.42 with native histograms on, scraping
# `iotally serve --cgroups --cgroup-max 1 --qd-regions` every second on loopback and
# evaluating the mixin's rules and alerts every second, as installed in
# /usr/share/iotally, the alerts' "for:" cut to 10 s in a copy for the test.
# A device with two halves: no delay under a region made with
# `--histogram native` (stored as a native histogram), dm-delay's 200 ms
# under a region with classic buckets; fio writes to each from a cgroup of
# its own (so one cgroup is summed into __overflow__). Then:
#   - every query of the mixin (queries.txt: each panel's target with its
#     variables as Grafana sets them to "All", each recording rule, each
#     alert's expression without its threshold) returns at least one series;
#   - every rule evaluates without error;
#   - the 200 ms region's p99 is in its (100 ms, 1 s] bucket, through the
#     classic half of the rule, the native region's is under 50 ms, through
#     the native half;
#   - IotallyRegionLatencyHigh fires for the 200 ms region and not for the
#     other, IotallyCgroupsOverflowed for the exporter; IotallySourceDown,
#     IotallyExporterDown and IotallyDeviceQueueing (at most 5 in flight
#     here) do not; IotallyDeviceSaturated's signal is the kernel's own
#     io_ticks rate of the dm device;
#   - IotallyDeviceSaturated (its window cut to 30 s in the copy) on a
#     linear device over another 200 ms dm-delay: never pending nor firing
#     while one write a second keeps it busy about a fifth of the time, then
#     firing once four writers always wait on it.
. ../lib.sh
# fetch, urlencode, prometheus_start
. ../lib-http.sh

require_cmd iotally prometheus fio

PORT=9867
PROM=9092
HALF=65536 # sectors: 32 MiB per half
DEV=mixin
SAT_DELAY=mixin-delayed
SAT_DEV=mixin-sat
CG=/sys/fs/cgroup
MIXIN=/usr/share/iotally
T=/tmp/mixin
mkdir -p $T
[ -f $MIXIN/queries.txt ] || bail "no $MIXIN/queries.txt in the guest (tests/vm/mkinitramfs.sh)"

ip link set lo up || bail "cannot bring up loopback"
# rd_size is in KiB: two RAM disks of 64 MiB, two halves of mixin on
# ram0, the saturation device on ram1.
modprobe brd rd_nr=2 rd_size=$HALF max_part=0 || bail "cannot load brd"
modprobe dm-delay || bail "cannot load dm-delay"
dmsetup create --noudevsync "$DEV" --table "0 $HALF linear /dev/ram0 0
$HALF $HALF delay /dev/ram0 $HALF 200" || bail "cannot create the device"
minor=$(dmsetup info -c --noheadings -o minor "$DEV" | tr -d ' ')
# The saturation alert's device: slow because it sits on dm-delay. dm-delay's
# own device counts an I/O in flight only once its delay is over and it
# passes it down (accounts_remapped_io), so its io_ticks miss the 200 ms;
# the linear device above it counts each I/O from its arrival to its end.
dmsetup create --noudevsync $SAT_DELAY --table "0 $HALF delay /dev/ram1 0 200" ||
	bail "cannot create $SAT_DELAY"
dmsetup create --noudevsync $SAT_DEV --table "0 $HALF linear /dev/mapper/$SAT_DELAY 0" ||
	bail "cannot create $SAT_DEV"
sat=dm-$(dmsetup info -c --noheadings -o minor $SAT_DEV | tr -d ' ')
native=$(iotally create "$DEV" --start 0 --length $HALF --histogram native) ||
	bail "iotally create --histogram native failed"
slow=$(iotally create "$DEV" --start $HALF --length $HALF --precise --histogram 20ms,100ms,1s,2s) ||
	bail "iotally create failed"

mounted_cg=
if ! grep -q " $CG cgroup2 " /proc/mounts; then
	mount -t cgroup2 none $CG || bail "cannot mount cgroup2"
	mounted_cg=1
fi
# The io controller: each cgroup's io.stat, which the dashboard shows.
echo +io >$CG/cgroup.subtree_control || bail "cannot enable the io controller"
mkdir -p $CG/fast $CG/slow || bail "cannot make the cgroups"
fast_pid='' slow_pid='' light_pid='' heavy_pid='' serve_pid='' prom_pid=''
# Whatever happens (a bail too): the next suites find the guest as it was.
cleanup() {
	for _p in $fast_pid $slow_pid $light_pid $heavy_pid $serve_pid $prom_pid; do
		kill -TERM "$_p" 2>/dev/null
	done
	wait 2>/dev/null
	rmdir $CG/fast $CG/slow
	echo -io >$CG/cgroup.subtree_control
	[ -z "$mounted_cg" ] || umount $CG
	dmsetup remove --noudevsync "$DEV"
	dmsetup remove --noudevsync $SAT_DEV
	dmsetup remove --noudevsync $SAT_DELAY
	rmmod brd
}
trap cleanup EXIT

query() { fetch "/api/v1/query?query=$(urlencode "$1")" $PROM; }
# scalar QUERY: the value of a one-series query ("" if none).
scalar() { query "$1" | sed -n 's/.*"value":\[[^,]*,"\([^"]*\)"\].*/\1/p'; }
# count_series QUERY: how many series it returns, "error" if Prometheus did not answer.
count_series() {
	_c=$(query "$1") && printf '%s' "$_c" | grep -q '"status":"success"' ||
		{ echo error; return; }
	printf '%s' "$_c" | grep -o '"metric":' | wc -l | tr -d ' '
}
uptime_s() { awk '{ print $1 }' /proc/uptime; }
# firing: one line per firing alert, "NAME label=value ..." (sorted labels).
firing() {
	fetch /api/v1/alerts $PROM | awk '{
		n = split($0, a, /\{"labels":\{/)
		for (i = 2; i <= n; i++) {
			if (a[i] !~ /"state":"firing"/)
				continue
			l = a[i]; sub(/\}.*/, "", l); gsub(/"/, "", l); gsub(/,/, " ", l); gsub(/:/, "=", l)
			name = l; sub(/.*alertname=/, "", name); sub(/ .*/, "", name)
			print name " " l
		}
	}'
}

# fio in each cgroup: 50 writes/s on the half without delay, four writers
# always waiting on the 200 ms half (the device always has I/O in flight),
# from before the first scrape: every rate() Prometheus computes is of
# the device under load, as its utilisation must be to fire
# IotallyDeviceSaturated.
sh -c "echo \$\$ >$CG/fast/cgroup.procs && exec fio --filename=/dev/mapper/$DEV --ioengine=psync \
	--direct=1 --rw=randwrite --bs=4k --rate_iops=50 --size=$((HALF * 512)) --time_based \
	--runtime=300 --name=fast --offset=0" >$T/fio-fast.out 2>&1 &
fast_pid=$!
sh -c "echo \$\$ >$CG/slow/cgroup.procs && exec fio --filename=/dev/mapper/$DEV --ioengine=psync \
	--direct=1 --rw=randwrite --bs=4k --numjobs=4 --size=$((HALF * 512)) --time_based \
	--runtime=300 --name=slow --offset=$((HALF * 512))" >$T/fio-slow.out 2>&1 &
slow_pid=$!
# The saturation device's light load: one 4 KiB write a second, each 200 ms.
fio --filename=/dev/mapper/$SAT_DEV --ioengine=psync --direct=1 --rw=randwrite --bs=4k \
	--rate_iops=1 --size=$((HALF * 512)) --time_based --runtime=600 --name=light \
	>$T/fio-light.out 2>&1 &
light_pid=$!

# The alerts with "for:" cut to 10 s, and IotallyDeviceSaturated's window
# from 5 m to 30 s: the rate over 5 m of a device busy all the time, read
# by a Prometheus that started a minute ago, is a fifth (rate() divides
# what the samples it has saw by the whole window). The recording rules as
# installed.
sed -e 's/^\(        for: \).*/\110s/' \
	-e '/^      - alert: IotallyDeviceSaturated$/,/^        for: /s/\[5m\]/[30s]/' \
	$MIXIN/iotally-alerts.yml >$T/alerts.yml
SATURATED='rate(iotally_device_io_time_seconds_total[30s]) > 0.9'
grep -qF "expr: \"$SATURATED\"" $T/alerts.yml ||
	bail "IotallyDeviceSaturated is not \"$SATURATED\" in the copy: $(grep -A1 IotallyDeviceSaturated $T/alerts.yml)"
iotally serve --cgroups --cgroup-max 1 --qd-regions --listen 127.0.0.1:$PORT 2>$T/serve.err &
serve_pid=$!
PROM_RULES="$MIXIN/iotally-rules.yml $T/alerts.yml" \
	prometheus_start mixin-prometheus $PROM "iotally=127.0.0.1:$PORT" --enable-feature=native-histograms
wait_for 60 fetch /-/healthy || bail "iotally serve did not come up: $(cat $T/serve.err)"
wait_for 120 fetch /-/ready $PROM || bail "prometheus did not come up: $(tail -n 5 /tmp/mixin-prometheus.log)"
up() { [ "$(scalar 'up{job="iotally"}')" = 1 ]; }
wait_for 60 up || bail "Prometheus does not scrape iotally serve: $(tail -n 5 /tmp/mixin-prometheus.log)"
scraped_at=$(uptime_s)

# The alerts fire once their expression has held for 10 s.
fires() { firing | grep -q "^$1 .*$2"; }
wait_for 120 fires IotallyRegionLatencyHigh "region_id=$slow" || true
wait_for 30 fires IotallyCgroupsOverflowed "" || true
firing >$T/firing.txt
echo "# firing alerts:"
sed 's/^/#   /' $T/firing.txt
echo "# utilisation of dm-$minor over the last 5 minutes:" \
	"$(scalar "rate(iotally_device_io_time_seconds_total{device=\"dm-$minor\"}[5m])")"
check_eq "IotallyRegionLatencyHigh fires for the 200 ms region" 1 \
	"$(grep -c "^IotallyRegionLatencyHigh .*region_id=$slow\( \|$\)" $T/firing.txt)"
check_eq "IotallyRegionLatencyHigh does not fire for the region without delay" 0 \
	"$(grep -c "^IotallyRegionLatencyHigh .*region_id=$native\( \|$\)" $T/firing.txt)"
# The saturation alert's signal is the kernel's io_ticks of the device
# (/sys/block/dm-N/stat, field 10, ms): Prometheus' rate over 30 s against
# the counter read here at both ends of the same 30 s (timed by
# /proc/uptime), within 15 % (two windows a scrape apart). It does not
# reach IotallyDeviceSaturated's 90 % here: dm-delay's io_ticks measured
# 24 % with four writers always waiting, on 6.12 under TCG (it counts an
# I/O only once its delay is over); the alert fires on $SAT_DEV below.
ticks() { awk '{ print $10 }' /sys/block/dm-$minor/stat; }
u0=$(uptime_s)
t0=$(ticks)
sleep 30
t1=$(ticks)
u1=$(uptime_s)
end=$(date +%s)
sleep 2
util=$(fetch "/api/v1/query?query=$(urlencode "rate(iotally_device_io_time_seconds_total{device=\"dm-$minor\"}[30s])")&time=$end" $PROM |
	sed -n 's/.*"value":\[[^,]*,"\([^"]*\)"\].*/\1/p')
stat=$(awk -v a="$t0" -v b="$t1" -v s="$u0" -v e="$u1" 'BEGIN { print (b - a) / 1000 / (e - s) }')
echo "# dm-$minor busy over 30 s: Prometheus ${util:-none}, /sys/block $stat"
check_eq "IotallyDeviceSaturated's signal is the kernel's io_ticks rate within 15 %" ok \
	"$(awk -v g="${util:-x}" -v w="$stat" 'BEGIN { d = g - w; if (d < 0) d = -d
		print (g != "x" && w > 0 && d <= 0.15 * w) ? "ok" : "rate " g " vs stat " w }')"

# IotallyDeviceSaturated under light I/O, on the device it fires for below:
# one 200 ms write a second since before the first scrape. Once the alert
# has seen 30 s of it (its window) and 10 s more (its "for:"), and a few
# seconds for late scrapes, its expression without the threshold says a
# fifth, and ALERTS has had no pending or firing sample for $sat since
# Prometheus started.
light_s=50
wait_s=$(awk -v s="$scraped_at" -v n="$(uptime_s)" -v l=$light_s 'BEGIN { w = s + l - n; print (w > 0) ? int(w) + 1 : 0 }')
sleep "$wait_s"
busy=$(scalar "rate(iotally_device_io_time_seconds_total{device=\"$sat\"}[30s])")
echo "# $sat busy over 30 s of light I/O: ${busy:-none}"
check_eq "one 200 ms write a second keeps $sat busy about 0.2 of the time (0.1 to 0.5)" ok \
	"$(awk -v v="${busy:-x}" 'BEGIN { print (v != "x" && v >= 0.1 && v <= 0.5) ? "ok" : v }')"
check_eq "IotallyDeviceSaturated was never pending nor firing for $sat under light I/O" 0 \
	"$(count_series "count_over_time(ALERTS{alertname=\"IotallyDeviceSaturated\",device=\"$sat\"}[10m])")"
# Then four writers always waiting on it: at least one of its I/Os is in
# flight all the time. Checked at the end, the checks below meanwhile.
kill "$light_pid"
wait "$light_pid" 2>/dev/null
light_pid=''
fio --filename=/dev/mapper/$SAT_DEV --ioengine=psync --direct=1 --rw=randwrite --bs=4k \
	--numjobs=4 --size=$((HALF * 512)) --time_based --runtime=600 --name=heavy \
	>$T/fio-heavy.out 2>&1 &
heavy_pid=$!
heavy_at=$(date +%s)

check_eq "IotallyCgroupsOverflowed fires (--cgroup-max 1, three cgroups)" 1 \
	"$(grep -c '^IotallyCgroupsOverflowed ' $T/firing.txt)"
check_eq "IotallySourceDown does not fire" 0 "$(grep -c '^IotallySourceDown ' $T/firing.txt)"
check_eq "IotallyExporterDown does not fire" 0 "$(grep -c '^IotallyExporterDown ' $T/firing.txt)"
check_eq "IotallyDeviceQueueing does not fire (at most 5 in flight)" 0 \
	"$(grep -c '^IotallyDeviceQueueing ' $T/firing.txt)"
# Said, not checked: dm-delay counts an I/O in flight only once its delay is
# over (accounts_remapped_io), so the four writers waiting on it are not in
# flight here (0.0003 and 0.0074 in two runs); the serve suite checks the counters on
# null_blk, whose I/Os are in flight while they take their time.
echo "# dm-$minor at least 1 in flight (the rule, 5 m):" \
	"$(scalar "device:iotally_device_queue_depth_seconds:rate5m{device=\"dm-$minor\",at_least=\"1\"}")"

# The regions' p99 through the rules: the native one as Prometheus stores it.
# An instant query finds no sample while a scrape is late (a loaded host
# slows the TCG guest): asked again for up to 30 s, the target's state said.
native_stored() {
	query "iotally_region_io_latency_seconds{region_id=\"$native\"}" | grep -q '"histogram":'
}
wait_for 30 native_stored ||
	echo "# iotally's target: $(fetch /api/v1/targets $PROM |
		grep -o '"\(health\|lastError\|lastScrapeDuration\)":[^,]*' | tr '\n' ' ')"
check_match "the region without delay is a native histogram in Prometheus" '"histogram":' \
	"$(query "iotally_region_io_latency_seconds{region_id=\"$native\"}")"
p99=$(scalar "region:iotally_region_io_latency_seconds:p99_rate5m{region_id=\"$slow\"}")
echo "# p99 of the 200 ms region (classic buckets): $p99 s"
check_eq "p99 of the 200 ms region is in (100ms, 1s]" ok \
	"$(awk -v v="${p99:-0}" 'BEGIN { print (v > 0.1 && v <= 1) ? "ok" : v }')"
p99=$(scalar "region:iotally_region_io_latency_seconds:p99_rate5m{region_id=\"$native\"}")
echo "# p99 of the region without delay (native histogram): $p99 s"
check_eq "p99 of the native region is recorded, under 50 ms" ok \
	"$(awk -v v="${p99:-x}" 'BEGIN { print (v != "x" && v > 0 && v < 0.05) ? "ok" : v }')"

# Every rule evaluates without error.
fetch /api/v1/rules $PROM >$T/rules.json
rules=$(grep -c '^      - \(record\|alert\): ' $MIXIN/iotally-rules.yml $T/alerts.yml | awk -F: '{ n += $2 } END { print n }')
check_eq "every rule of the mixin ($rules) is loaded and evaluates without error" "$rules:0" \
	"$(grep -o '"health":"ok"' $T/rules.json | wc -l | tr -d ' '):$(grep -o '"health":"err"' $T/rules.json | wc -l | tr -d ' ')"

# Every query of the mixin returns series. Grafana's "All" is .*, its
# $__rate_interval at a scrape every second is 1m here. A scrape that
# missed its 1 s timeout on a loaded host marks the gauges stale until the
# next one: a query is asked again for up to 15 s.
tab=$(printf '\t')
n=0
series() { query "$e" | grep -o '"metric":' | wc -l; }
has_series() { [ "$(series)" -ge 1 ]; }
while IFS="$tab" read -r name expr; do
	case $name in '#'* | '') continue ;; esac
	e=$(printf '%s' "$expr" | sed 's/\$__rate_interval/1m/g; s/\$dm_name/.*/g; s/\$device/.*/g; s/\$cgroup/.*/g')
	wait_for 15 has_series || true
	got=$(series)
	echo "# $name: $got series: $e"
	check_cmp "$name returns series" -ge "$got" 1
	n=$((n + 1))
done <$MIXIN/queries.txt
check_cmp "queries.txt has the mixin's queries" -ge "$n" 80

# IotallyDeviceSaturated fires for $sat once 30 s of its window are
# mostly of the four writers and 10 s more have passed: about 40 s after
# they started.
sat_firing() { firing | grep -q "^IotallyDeviceSaturated .*device=$sat\( \|$\)"; }
wait_for 120 sat_firing || true
first=$(scalar "min_over_time(timestamp(ALERTS{alertname=\"IotallyDeviceSaturated\",alertstate=\"firing\",device=\"$sat\"})[5m:1s])")
echo "# $sat busy over 30 s under four writers:" \
	"$(scalar "rate(iotally_device_io_time_seconds_total{device=\"$sat\"}[30s])");" \
	"IotallyDeviceSaturated firing $(awk -v f="${first:-x}" -v s="$heavy_at" 'BEGIN {
		print (f == "x") ? "never" : sprintf("%.0f s after they started", f - s) }')"
check_eq "IotallyDeviceSaturated fires for $sat under four writers always waiting on dm-delay" 1 \
	"$(count_series "ALERTS{alertname=\"IotallyDeviceSaturated\",alertstate=\"firing\",device=\"$sat\"}")"

kill "$fast_pid" "$slow_pid" "$heavy_pid" 2>/dev/null
wait "$fast_pid" "$slow_pid" "$heavy_pid" 2>/dev/null
fast_pid='' slow_pid='' heavy_pid=''
kill -TERM "$serve_pid"
wait "$serve_pid"
check_eq "SIGTERM stops serve (exit 0)" 0 "$?"
serve_pid=''
tap_finish
