#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Native histograms: Debian's Prometheus 2.42 with --enable-feature=native-histograms
# scrapes `iotally serve` in the guest, on loopback, and so asks for the
# protobuf exposition. A dm-delay device (20 ms) carries two precise regions
# with the same 27 boundaries but for one nanosecond: one made by
# `iotally create --histogram native` (exponential: a native histogram), the
# other 1 ns later at every boundary (not exponential: classic buckets).
# fio writes to both. Through Prometheus' HTTP API:
#   - the native region, the per-task wait histogram and the statistics
#     layer's log2 array are stored as native histograms ("histogram" in
#     the query result), the other region as classic _bucket series;
#   - histogram_quantile(0.99, rate(...[1m])) on the native region agrees
#     with `iotally histogram --interval 60`'s p99 over the same minute
#     within one bucket;
#   - the series per histogram, native against classic, are counted.
# On our kernel fio runs in the cgroup /native and serve has --cgroups: each
# iotally_cgroup_* family is queried in Prometheus, and so is every query of
# the Grafana dashboard's per-cgroup row. The queries and their results are
# printed as TAP diagnostics.
. ../lib.sh
# fetch, urlencode, prometheus_start
. ../lib-http.sh

require_cmd iotally prometheus fio

PORT=9866
PROM=9091
HALF=65536 # sectors
DEV=native
WINDOW=60
# What Prometheus 2.42 asks for with native histograms on (captured from it).
PB_ACCEPT='application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited,application/openmetrics-text;version=1.0.0;q=0.8,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1'

ip link set lo up || bail "cannot bring up loopback"
modprobe brd rd_nr=1 rd_size=$((HALF)) max_part=0 || bail "cannot load brd"
modprobe dm-delay || bail "cannot load dm-delay"
# Our kernel gives a mapped device a statistics interface only while
# dm_mod.statistic is on (off by default): on for this suite, as it was after.
P=/sys/module/dm_mod/parameters/statistic
stat_was=
if [ -e $P ]; then
	stat_was=$(cat $P)
	echo 1 >$P || bail "cannot switch dm_mod.statistic on"
fi
dmsetup create --noudevsync "$DEV" --table "0 $((2 * HALF)) delay /dev/ram0 0 20" ||
	bail "cannot create the dm-delay device"
majmin=$(dmsetup info -c --noheadings -o major,minor --separator : "$DEV" | tr -d ' ')
iface=dm-$majmin
# Our kernel: the per-task wait histogram and the statistics layer's log2
# arrays too. Upstream's engine (stock kernel): the regions only.
ours=
if [ -d "/sys/kernel/debug/statistics/$iface" ]; then
	ours=1
	echo on=1 >"/sys/kernel/debug/statistics/$iface/definition" || bail "cannot start $iface"
fi
# Our kernel must not pass for upstream's and skip its part.
[ -z "$stat_was" ] || [ -n "$ours" ] ||
	bail "our kernel (dm_mod.statistic) gave $DEV no /sys/kernel/debug/statistics/$iface"

# Our kernel: fio in a cgroup of its own, with the io controller (io.stat).
CG=/sys/fs/cgroup
mounted_cg=
if [ -n "$ours" ]; then
	if ! grep -q " $CG cgroup2 " /proc/mounts; then
		mount -t cgroup2 none $CG || bail "cannot mount cgroup2"
		mounted_cg=1
	fi
	echo +io >$CG/cgroup.subtree_control || bail "cannot enable the io controller"
	mkdir -p $CG/native || bail "mkdir $CG/native"
	# Per-task I/O accounting (off by default) on, as it was after.
	S=/proc/sys/kernel/task_io_stats
	was=$(cat $S) || bail "no $S"
	echo 1 >$S || bail "cannot switch per-task I/O accounting on"
fi
# in_native CMD...: CMD in the cgroup /native on our kernel, as is elsewhere.
in_native() {
	if [ -n "$ours" ]; then
		sh -c 'echo $$ >'"$CG/native"'/cgroup.procs && exec "$@"' sh "$@"
	else
		"$@"
	fi
}

nat=$(iotally create "$DEV" --start 0 --length $HALF --histogram native) ||
	bail "iotally create --histogram native failed"
bounds=$(dmsetup message "$DEV" 0 @stats_list | sed -n "s/^$nat: .* histogram:\([0-9,]*\).*/\1/p")
check_eq "--histogram native: 27 precise boundaries from 954 ns to 64 s + 1 ns" \
	"27 954 64000000001" \
	"$(echo "$bounds" | awk -F, '{ print NF, $1, $NF }')"
shifted=$(echo "$bounds" | awk -F, '{ for (i = 1; i <= NF; i++) printf "%s%.0f", (i > 1 ? "," : ""), $i + 1 }')
cls=$(dmsetup message "$DEV" 0 @stats_create "$HALF+$HALF" /1 2 precise_timestamps \
	"histogram:$shifted" classic) || bail "cannot create the classic region"
run iotally create "$DEV" --start 0 --length 8 --histogram native:5
check_match "--histogram native:5 is refused in one line, exit 2" \
	"^2:iotally: --histogram native:5: the schema is 0 to 4" "$rc:$err"

# query QUERY [TIME]: the JSON of an instant query.
query() { fetch "/api/v1/query?query=$(urlencode "$1")${2:+&time=$2}" $PROM; }
# scalar QUERY [TIME]: the value of a one-series instant query ("" if none).
scalar() { query "$@" | sed -n 's/.*"value":\[[^,]*,"\([^"]*\)"\].*/\1/p'; }
# render: the series of a query's JSON result, one "{labels} value" line each.
render() {
	awk '{
		n = split($0, parts, /"metric":\{/)
		for (i = 2; i <= n; i++) {
			m = parts[i]; sub(/\}.*/, "", m); gsub(/"__name__":"[^"]*",?/, "", m)
			v = parts[i]
			if (match(v, /"value":\[[^,]*,"[^"]*"\]/)) {
				v = substr(v, RSTART, RLENGTH); sub(/.*,"/, "", v); sub(/"\]$/, "", v)
			} else if (match(v, /"histogram":\[[^,]*,\{"count":"[^"]*","sum":"[^"]*"/)) {
				h = substr(v, RSTART, RLENGTH); sub(/.*"count":"/, "", h)
				c = h; sub(/".*/, "", c); sm = h; sub(/.*"sum":"/, "", sm); sub(/"$/, "", sm)
				b = ""
				if (match(v, /"buckets":\[\[[^]]*\](,\[[^]]*\])*\]/)) {
					nb = split(substr(v, RSTART + 11, RLENGTH - 12), bk, /\],\[/)
					for (q = 1; q <= nb; q++) {
						x = bk[q]; gsub(/[]["]/, "", x); split(x, f, ",")
						b = b (q > 1 ? " " : "") "(" f[2] "," f[3] "]:" f[4]
					}
				}
				v = "native histogram: count " c ", sum " sm ", buckets (lower,upper]:count " b
			}
			print "{" m "} " v
		}
		if (n < 2) print "(no series)"
	}'
}
# show QUERY: the query and its result at the end of the window, as diagnostics.
show() {
	_r=$(query "$1" "$end")
	echo "#   $1"
	printf '%s\n' "$_r" | render | sed 's/^/#     => /'
}

iotally serve "$DEV" --listen 127.0.0.1:$PORT ${ours:+--tasks 3 --tasks-by wait --statistics "$iface" --cgroups} \
	2>/tmp/serve-native.err &
serve_pid=$!
prometheus_start prometheus-native $PROM "iotally=127.0.0.1:$PORT" \
	--enable-feature=native-histograms
wait_for 60 fetch /-/healthy || bail "iotally serve did not come up: $(cat /tmp/serve-native.err)"

type=$(wget -S -q -O /tmp/scrape.pb --header "Accept: $PB_ACCEPT" \
	http://127.0.0.1:$PORT/metrics 2>&1 | sed -n 's/^ *Content-Type: *//Ip' | tr -d '\r')
check_eq "Prometheus' protobuf Accept header gets the protobuf format" \
	"application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited" \
	"$type"
check_cmp "the protobuf scrape is not empty" -gt "$(wc -c </tmp/scrape.pb)" 1000

wait_for 120 fetch /-/ready $PROM || bail "prometheus did not come up: $(tail -n 5 /tmp/prometheus-native.log)"
up() { [ "$(scalar 'up{job="iotally"}')" = 1 ]; }
wait_for 60 up || fail "Prometheus scrapes iotally serve" "$(tail -n 5 /tmp/prometheus-native.log)"

in_native fio --filename=/dev/mapper/$DEV --ioengine=psync --direct=1 --rw=randwrite --bs=4k \
	--numjobs=2 --size=$((HALF * 512)) --time_based --runtime=$((WINDOW + 30)) \
	--name=nat --offset=0 --name=cls --offset=$((HALF * 512)) >/tmp/fio-native.out 2>&1 &
fio_pid=$!
sleep 10

hist=$(iotally histogram "$DEV" "$nat" --interval $WINDOW -j)
end=$(date +%s)
sleep 3 # a scrape after the window closed
p99=$(echo "$hist" | sed -n 's/.*"p99":{"estimate_ns":\([^,]*\),"lower_ns":\([0-9]*\),"upper_ns":\([0-9a-z]*\)}.*/\1 \2 \3/p')
echo "# iotally histogram over ${WINDOW}s: p99 estimate, lower, upper (ns): $p99"

# Stored as native histograms: the query result has "histogram", not "value".
for q in "iotally_region_io_latency_seconds{region_id=\"$nat\"}" \
	"iotally_task_io_wait_nanoseconds{comm=\"fio\"}" \
	"iotally_statistic_log2{statistic=\"latencies_write\"}"; do
	if [ -z "$ours" ] && [ "${q#iotally_region}" = "$q" ]; then
		skip "$q is a native histogram in Prometheus" "upstream's kernel has neither family"
		continue
	fi
	r=$(query "$q" "$end")
	echo "#   $q"
	printf '%s\n' "$r" | render | sed 's/^/#     => /'
	check_match "$q is a native histogram in Prometheus" '"histogram":\[' "$r"
done
check_match "the classic region is classic buckets in Prometheus" '"value":\[' \
	"$(query "iotally_region_io_latency_seconds_bucket{region_id=\"$cls\",le=\"+Inf\"}" "$end")"

# p99 of the last minute, Prometheus against iotally histogram: the native
# bucket index of each (bucket k holds (2^(k-1), 2^k] s; iotally's bucket
# [lower, upper) has upper = floor(2^k s) + 1 ns, the last one k = 7).
prom99=$(scalar "histogram_quantile(0.99, rate(iotally_region_io_latency_seconds{region_id=\"$nat\"}[1m]))" "$end")
echo "# histogram_quantile(0.99, rate(...[1m])): $prom99 s"
verdict=$(echo "$p99 $prom99" | awk '
	# pow2ceil(x): the k with 2^(k-1) < x <= 2^k (busybox awk has no log())
	function pow2ceil(x,  k, p) {
		k = 0; p = 1
		while (p < x) { p *= 2; k++ }
		while (p / 2 >= x) { p /= 2; k-- }
		return k
	}
	NF == 4 && $4 > 0 {
		ki = ($3 == "null") ? 7 : pow2ceil(($3 - 1) / 1e9)
		kp = pow2ceil($4)
		d = ki - kp; if (d < 0) d = -d
		print ((d <= 1) ? "ok" : "apart") ": iotally bucket " ki ", Prometheus bucket " kp
		next
	}
	{ print "no p99: " $0 }')
echo "# native bucket of the p99 (2^(k-1), 2^k] s: $verdict"
check_eq "Prometheus' p99 of the native region is within one bucket of iotally histogram's" \
	ok "${verdict%%:*}"

# Series per histogram as Prometheus stores them.
series() { scalar "count({__name__=~\"$1\",$2})" "$end"; }
n_nat=$(series 'iotally_region_io_latency_seconds.*' "region_id=\"$nat\"")
n_cls=$(series 'iotally_region_io_latency_seconds.*' "region_id=\"$cls\"")
n_task=$(series 'iotally_task_io_wait_nanoseconds.*' 'comm="fio"')
n_stat=$(series 'iotally_statistic_log2.*' 'statistic="latencies_write"')
echo "# series per histogram in Prometheus:"
echo "#   region, 27 boundaries, native:  $n_nat"
echo "#   region, 27 boundaries, classic: $n_cls"
echo "#   task I/O wait, 24 log2 buckets, native, one per fio process (all): $n_task"
echo "#   statistics layer latencies_write, native: $n_stat"
check_eq "a native region is 1 series, the classic one 27 + 3" "1:30" "$n_nat:$n_cls"

# The text formats keep classic buckets for every region.
text=$(fetch /metrics)
check_eq "text 0.0.4 has 28 _bucket series of the native region" 28 \
	"$(printf '%s\n' "$text" | grep -c "^iotally_region_io_latency_seconds_bucket{.*region_id=\"$nat\"")"
if [ -n "$ours" ]; then
	check_match "text 0.0.4 has the task wait histogram as classic buckets" \
		'iotally_task_io_wait_nanoseconds_bucket\{pid="[0-9]+",comm="fio",le="1024"\}' "$text"
	# What the same histograms cost as classic series (the text format).
	pid=$(printf '%s\n' "$text" | sed -n 's/^iotally_task_io_wait_nanoseconds_count{pid="\([0-9]*\)",comm="fio".*/\1/p' | head -n 1)
	echo "# series per histogram as classic (text 0.0.4 of the same exporter):"
	echo "#   task I/O wait of one fio process: $(printf '%s\n' "$text" |
		grep -c "^iotally_task_io_wait_nanoseconds_[a-z]*{pid=\"$pid\",")"
	echo "#   statistics layer latencies_write: $(printf '%s\n' "$text" |
		grep -c '^iotally_statistic_log2_[a-z]*{.*statistic="latencies_write"')"
else
	skip "text 0.0.4 has the task wait histogram as classic buckets" "upstream's kernel"
fi

if [ -n "$ours" ]; then
	echo "# per-cgroup families in Prometheus (fio in /native):"
	for f in read_bytes_total written_bytes_total reads_total writes_total \
		io_wait_seconds_count io_wait_seconds_sum device_read_bytes_total \
		device_written_bytes_total device_discarded_bytes_total device_reads_total \
		device_writes_total; do
		show "iotally_cgroup_$f{cgroup=\"/native\"}"
		check_cmp "iotally_cgroup_$f of /native is in Prometheus" -ge \
			"$(query "iotally_cgroup_$f{cgroup=\"/native\"}" "$end" | grep -o '"metric":' | wc -l)" 1
	done
	for f in exits_total exit_messages_lost_total exit_overflows_total exits_unaccounted_total; do
		show "iotally_cgroup_$f"
	done
	check_eq "iotally_cgroup_exit_messages_lost_total in Prometheus is 0" 0 \
		"$(scalar iotally_cgroup_exit_messages_lost_total "$end")"
	check_cmp "/native wrote in Prometheus" -gt \
		"$(scalar 'iotally_cgroup_written_bytes_total{cgroup="/native"}' "$end" | cut -d. -f1)" 0
	q='histogram_quantile(0.5, rate(iotally_cgroup_io_wait_seconds_bucket{cgroup="/native"}[1m]))'
	show "$q"
	# A 20 ms wait is in the log2 bucket (16.8 ms, 33.6 ms].
	check_eq "/native: Prometheus' p50 wait is in the 20 ms bucket" in \
		"$(scalar "$q" "$end" | awk '{ print ($1 > 0.016777216 && $1 <= 0.033554432) ? "in" : "out: " $1 }')"

	# The dashboard's per-cgroup row, its variables as Grafana sets them.
	echo "# the Grafana dashboard's per-cgroup row (\$cgroup = /native, \$__rate_interval = 1m):"
	awk '/"title": "Per cgroup/ { on = 1; next }
		on && /"type": "row"/ { exit }
		on && /"title":/ { t = $0; sub(/^[^:]*: "/, "", t); sub(/",?$/, "", t); print "T " t }
		on && /"expr":/ { e = $0; sub(/^[^:]*: "/, "", e); sub(/",?$/, "", e); gsub(/\\"/, "\"", e); print "E " e }' \
		/usr/share/iotally/grafana-iotally.json >/tmp/cgroup-row.txt
	check_cmp "the dashboard's per-cgroup row has queries" -ge "$(grep -c '^E ' /tmp/cgroup-row.txt)" 8
	while read -r kind text; do
		if [ "$kind" = T ]; then
			echo "# panel \"$text\""
			continue
		fi
		e=$(printf '%s' "$text" | sed 's/\$cgroup/\/native/g; s/\$__rate_interval/1m/g')
		show "$e"
		n=$(query "$e" "$end" | grep -o '"metric":' | wc -l)
		check_cmp "dashboard query returns series: $e" -ge "$n" 1
	done </tmp/cgroup-row.txt
fi

wait "$fio_pid"
kill -TERM "$serve_pid"
wait "$serve_pid"
check_eq "SIGTERM stops serve (exit 0)" 0 "$?"
kill "$prom_pid"
wait "$prom_pid" 2>/dev/null
dmsetup remove --noudevsync "$DEV"
rmmod brd
[ -z "$stat_was" ] || echo "$stat_was" >$P
if [ -n "$ours" ]; then
	rmdir $CG/native
	echo "$was" >$S
	echo -io >$CG/cgroup.subtree_control
	[ -z "$mounted_cg" ] || umount $CG
fi
tap_finish
