#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# iotally benchmark, guest part (run by tests/bench/iotally/host.sh): one
# device with 10,000 one-area regions, and `iotally report` and lvm2's
# `dmstats report` reading all of them, in interleaved rounds inside one boot.
#
# Per tool and round, one line on the TAP stream:
#   # BENCH tool=T round=N seconds=S rows=R
# and TAP checks that every run succeeded and reported every region (a run
# that reports fewer rows is a failure, not a fast run).
#
# Both tools see the same counters: before every run a short fio burst
# touches regions all over the device (dmstats reads with @stats_print_clear,
# so without it dmstats would report zeros after its first round).
#
# Settings (from /etc/iotally.conf, written by host.sh): BENCH_ROUNDS (5),
# BENCH_REGIONS (10000), BENCH_RUNTIME (fio seconds before each run, 1).
# shellcheck source=../lib.sh
. ../lib.sh

ROUNDS=${BENCH_ROUNDS:-5}
REGIONS=${BENCH_REGIONS:-10000}
RUNTIME=${BENCH_RUNTIME:-1}
DEV=benchio
GB=1
SECTORS=$((GB * 1024 * 1024 * 2))

command -v iotally >/dev/null || bail "iotally is not in the guest (make tools)"
command -v dmstats >/dev/null || bail "dmstats is not in the guest"
command -v dm-stats-msg >/dev/null || bail "dm-stats-msg is not in the guest (scripts/test-helpers.sh)"
load_nullb inline $GB
nullb_linear "$DEV"

echo "# BENCH kernel=$(uname -r) regions=$REGIONS rounds=$ROUNDS"

# REGIONS one-area regions of equal size side by side, from one process,
# with dmstats' program_id: both tools report them by default.
t0=$(cut -d' ' -f1 /proc/uptime)
awk -v n="$REGIONS" -v s="$SECTORS" 'BEGIN {
	t = int(s / n / 8) * 8
	for (i = 0; i < n; i++) printf "@stats_create %d+%d %d dmstats -\n", i * t, t, t
}' | dm-stats-msg -q "$DEV" || bail "cannot create $REGIONS regions"
t1=$(cut -d' ' -f1 /proc/uptime)
echo "# BENCH create_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')"
check_eq "$REGIONS regions created" "$REGIONS" "$(dmsetup message "$DEV" 0 @stats_list | wc -l)"

workload() {
	fio --name=touch --filename=/dev/mapper/$DEV --ioengine=psync --direct=1 \
		--rw=randrw --bs=4k --numjobs=1 --norandommap --time_based \
		--runtime="$RUNTIME" --minimal >/dev/null 2>&1
}

# measure TOOL ROUND: one report of every region, timed by /proc/uptime (10 ms
# resolution; a report takes seconds). Data rows: iotally prints a header
# line, dmstats one too.
measure() {
	workload
	t0=$(cut -d' ' -f1 /proc/uptime)
	case $1 in
	iotally) iotally report "$DEV" >/tmp/report.out 2>/tmp/report.err ;;
	dmstats) dmstats report "$DEV" >/tmp/report.out 2>/tmp/report.err ;;
	esac
	_rc=$?
	t1=$(cut -d' ' -f1 /proc/uptime)
	_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	_rows=$(($(wc -l </tmp/report.out) - 1))
	if [ "$_rc" = 0 ] && [ "$_rows" -ge "$REGIONS" ]; then
		echo "# BENCH tool=$1 round=$2 seconds=$_s rows=$_rows"
		pass "$1 report round $2: $_rows rows in ${_s}s"
	else
		fail "$1 report round $2" "exit $_rc, $_rows rows (want >= $REGIONS)
$(head -n 5 /tmp/report.err)"
	fi
}

# Warm-up: each tool once, not measured (page cache, libraries).
iotally report "$DEV" >/dev/null 2>&1
dmstats report "$DEV" >/dev/null 2>&1

r=1
while [ $r -le "$ROUNDS" ]; do
	# Alternate which tool goes first, so neither always runs warm.
	if [ $((r % 2)) = 1 ]; then
		measure iotally $r
		measure dmstats $r
	else
		measure dmstats $r
		measure iotally $r
	fi
	r=$((r + 1))
done

# The two reports agree on which regions exist.
iotally report "$DEV" --csv -o r/s >/tmp/iotally.csv 2>/dev/null
check_eq "iotally reported every region once" "$REGIONS" \
	"$(awk -F, 'NR > 1 && $8 == "region" { print $10 }' /tmp/iotally.csv | sort -u | wc -l)"
head -n 2 /tmp/iotally.csv | sed 's/^/# iotally csv: /'

dmsetup message "$DEV" 0 @stats_list | sed -n 's/^\([0-9]*\): .*/@stats_delete \1/p' |
	dm-stats-msg -q "$DEV" || fail "delete the regions" "a message failed"
dmsetup remove --noudevsync "$DEV" || fail "remove the device" "dmsetup remove failed"
tap_finish
