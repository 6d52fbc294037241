#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# iotally serve benchmark, guest part (run by tests/bench/serve/host.sh): the
# time of one scrape of every region against `dmstats report` of the same
# regions, at 1,000 and at 10,000 one-area regions on one device, in
# interleaved rounds inside one boot. Per tool, size and round one line:
#   # BENCH regions=N tool=T round=R seconds=S rows=ROWS
# Tools:
#   scrape   one scrape in a new process (`iotally serve --textfile --count 1`:
#            the same reads and exposition as an HTTP scrape, and a process
#            start, as `dmstats report` has);
#   http     a GET /metrics of a running `iotally serve` (busybox wget), when
#            the guest kernel has TCP/IP;
#   dmstats  `dmstats report` (which also clears: @stats_print_clear).
# A run that reports fewer rows than regions is a failure, not a fast run.
#
# Settings (from /etc/iotally.conf, written by host.sh): BENCH_ROUNDS (5),
# BENCH_SIZES ("1000 10000"), BENCH_RUNTIME (fio seconds before each run, 1).
# shellcheck source=../lib.sh
. ../lib.sh

ROUNDS=${BENCH_ROUNDS:-5}
SIZES=${BENCH_SIZES:-1000 10000}
RUNTIME=${BENCH_RUNTIME:-1}
DEV=benchio
GB=1
SECTORS=$((GB * 1024 * 1024 * 2))
PORT=9863

command -v iotally >/dev/null || bail "iotally is not in the guest (make tools)"
command -v dmstats >/dev/null || bail "dmstats is not in the guest"
command -v dm-stats-msg >/dev/null || bail "dm-stats-msg is not in the guest (scripts/test-helpers.sh)"
load_nullb inline $GB
nullb_linear "$DEV"
http=0
ip link set lo up 2>/dev/null && http=1
echo "# BENCH kernel=$(uname -r) rounds=$ROUNDS http=$http"

workload() {
	fio --name=touch --filename=/dev/mapper/$DEV --ioengine=psync --direct=1 \
		--rw=randrw --bs=4k --numjobs=1 --norandommap --time_based \
		--runtime="$RUNTIME" --minimal >/dev/null 2>&1
}

tf=$(mktemp -d)
# measure N TOOL ROUND: the clock stops when the tool exits; its rows are
# counted after that. Counting them with busybox grep in the emulated guest
# takes longer than the scrape that wrote them (2.4 s for the 2 MB of a
# 1,000-region scrape, where dmstats' one line per region takes no time to
# count): timed together, they made the scrape look slower than dmstats.
measure() {
	workload
	t0=$(cut -d' ' -f1 /proc/uptime)
	case $2 in
	scrape)
		iotally serve "$DEV" --textfile "$tf" --count 1 2>/tmp/run.err
		_rc=$?
		t1=$(cut -d' ' -f1 /proc/uptime)
		_rows=$(grep -c '^iotally_region_writes_completed_total{' "$tf/iotally.prom")
		;;
	http)
		wget -q -O /tmp/run.out "http://127.0.0.1:$PORT/metrics" 2>/tmp/run.err
		_rc=$?
		t1=$(cut -d' ' -f1 /proc/uptime)
		_rows=$(grep -c '^iotally_region_writes_completed_total{' /tmp/run.out)
		;;
	dmstats)
		dmstats report "$DEV" >/tmp/run.out 2>/tmp/run.err
		_rc=$?
		t1=$(cut -d' ' -f1 /proc/uptime)
		_rows=$(($(wc -l </tmp/run.out) - 1))
		;;
	esac
	_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	if [ "$_rc" = 0 ] && [ "$_rows" -ge "$1" ]; then
		echo "# BENCH regions=$1 tool=$2 round=$3 seconds=$_s rows=$_rows"
		pass "$1 regions, $2 round $3: $_rows rows in ${_s}s"
	else
		fail "$1 regions, $2 round $3" "exit $_rc, $_rows rows (want >= $1)
$(head -n 5 /tmp/run.err)"
	fi
}

for n in $SIZES; do
	awk -v n="$n" -v s="$SECTORS" 'BEGIN {
		t = int(s / n / 8) * 8
		for (i = 0; i < n; i++) printf "@stats_create %d+%d %d dmstats -\n", i * t, t, t
	}' | dm-stats-msg -q "$DEV" || bail "cannot create $n regions"
	check_eq "$n regions created" "$n" "$(dmsetup message "$DEV" 0 @stats_list | wc -l)"
	tools="scrape dmstats"
	if [ "$http" = 1 ]; then
		iotally serve "$DEV" --listen 127.0.0.1:$PORT 2>/tmp/serve.err &
		serve_pid=$!
		i=0
		until wget -q -O /dev/null "http://127.0.0.1:$PORT/-/healthy" 2>/dev/null; do
			i=$((i + 1))
			[ $i -lt 60 ] || bail "iotally serve did not start: $(cat /tmp/serve.err)"
			sleep 1
		done
		tools="scrape http dmstats"
	fi
	# Warm-up, not measured.
	iotally serve "$DEV" --textfile "$tf" --count 1 2>/dev/null
	dmstats report "$DEV" >/dev/null 2>&1
	r=1
	while [ $r -le "$ROUNDS" ]; do
		# Rotate which tool goes first.
		set -- $tools
		k=$((r % $#))
		while [ $k -gt 0 ]; do
			first=$1
			shift
			set -- "$@" "$first"
			k=$((k - 1))
		done
		for t in "$@"; do measure "$n" "$t" "$r"; done
		r=$((r + 1))
	done
	if [ "$http" = 1 ]; then
		kill -TERM "$serve_pid"
		wait "$serve_pid"
	fi
	dmsetup message "$DEV" 0 @stats_list | sed -n 's/^\([0-9]*\): .*/@stats_delete \1/p' |
		dm-stats-msg -q "$DEV" || fail "delete the regions" "a message failed"
done
rm -rf "$tf"
dmsetup remove --noudevsync "$DEV" || fail "remove the device" "dmsetup remove failed"
tap_finish
