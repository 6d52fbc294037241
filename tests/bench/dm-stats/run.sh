#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# dm-stats benchmark, guest part (run by tests/bench/dm-stats/host.sh on the
# stock kernel): Debian's dm-mod.ko and iotally's are loaded in turn and
# measured on the same dm-linear over null_blk.
#
# IOPS rows: every round measures each row A-B-B-A (engine A, B, B, A, A
# reloaded in between, B measured twice without reloading), so that a
# drift of the host's load over the quadruple weighs on both engines alike;
# which engine is A alternates from round to round.
#
# Per engine and round, one line per measurement on the TAP stream:
#   # BENCH engine=E round=N row=R iops=X
#   # BENCH engine=E round=N create10k_s=S delete10k_s=S floor10k_s=S bytes10k=B
# and TAP checks that every measurement happened (a missing number is a
# failure, not a skipped row). floor10k_s is the time of 10,000 messages
# that do nothing (@stats_delete of an id that does not exist, on a device
# without regions): the fixed cost of one message, ioctl and all, that
# every create and delete pays too.
#
# Settings (from /etc/iotally.conf, written by host.sh): BENCH_ROUNDS (4),
# BENCH_RUNTIME (fio seconds per measurement, 2), BENCH_BIG_ROUNDS (1),
# BENCH_ROWS (the IOPS rows to measure, all five by default; empty: none),
# BENCH_ENGINES ("stock ours"; stock or ours: that engine alone, still
# measured four times per row and round, reloaded as in A-B-B-A).
# shellcheck source=../lib.sh
. ../lib.sh

ROUNDS=${BENCH_ROUNDS:-4}
# The stock engine takes minutes to create 10,000 regions (it suspends the
# device for each): that row is built in the first BIG_ROUNDS rounds only,
# and measured ROUNDS times while it stands.
BIG_ROUNDS=${BENCH_BIG_ROUNDS:-1}
RUNTIME=${BENCH_RUNTIME:-2}
PARAM=/sys/module/dm_mod/parameters/stats_current_allocated_bytes
DEV=bench
GB=10
SECTORS=$((GB * 1024 * 1024 * 2))
# 16 boundaries, in ns (precise_timestamps).
HIST=1000,2000,4000,8000,16000,32000,64000,128000,256000,512000,1000000,2000000,4000000,8000000,16000000,32000000

[ -f "$STOCK_KO" ] || bail "no stock dm-mod.ko at $STOCK_KO"
[ -f "$OURS_KO" ] || bail "no iotally dm-mod.ko at $OURS_KO"
command -v dm-stats-msg >/dev/null || bail "dm-stats-msg is not in the guest (scripts/test-helpers.sh)"
# Timed messages go through a 1 KiB ioctl buffer: dmsetup's 16 KiB one
# costs more to copy in and out under TCG than any message's own work (the
# floor row shows what is left), and replies that need more grow it.
MSG="dm-stats-msg -b 1024"
load_nullb inline $GB

make_dev() { nullb_linear "$DEV"; }

drop_dev() {
	dmsetup remove --noudevsync "$DEV" || bail "cannot remove the dm-linear device"
}

# tiles N: N one-area regions of equal size side by side over the device.
tiles() {
	awk -v n="$1" -v s="$SECTORS" 'BEGIN {
		t = int(s / n / 8) * 8
		for (i = 0; i < n; i++) printf "@stats_create %d+%d %d\n", i * t, t, t
	}'
}

# same N MESSAGE: the message N times.
same() {
	awk -v n="$1" -v m="$2" 'BEGIN { for (i = 0; i < n; i++) print m }'
}

fio_iops() {
	fio --name=bench --filename=/dev/mapper/$DEV --ioengine=psync --direct=1 \
		--rw=randread --bs=4k --numjobs=2 --group_reporting --norandommap \
		--time_based --runtime="$RUNTIME" --minimal 2>/dev/null |
		awk -F';' 'NR == 1 { printf "%d\n", $8 }'
}

# measure ENGINE ROUND ROW: one fio run on the device as it is now.
measure() {
	bench_iops "engine=$1 round=$2 row=$3" "$1 round $2 $3" "$(fio_iops)"
}

# The big row: 10,000 tiled one-area regions, timed create and delete,
# their memory, and fio among them.
row_10k() {
	make_dev
	_t=$(same 10000 "@stats_delete 2147483647" | $MSG -q -k -t "$DEV" 2>&1 >/dev/null)
	_floor=$(echo "$_t" | sed -n 's/^MESSAGES 10000 SECONDS //p')
	_base=$(cat $PARAM)
	_t=$(tiles 10000 | $MSG -q -t "$DEV" 2>&1 >/dev/null)
	_create=$(echo "$_t" | sed -n 's/^MESSAGES 10000 SECONDS //p')
	_bytes=$(($(cat $PARAM) - _base))
	_n=$(dmsetup message "$DEV" 0 @stats_list | wc -l)
	check_eq "$1 round $2: 10000 regions created" "10000" "$_n"
	_i=0
	while [ $_i -lt "$ROUNDS" ]; do
		measure "$1" "$2" tiled10k
		_i=$((_i + 1))
	done
	_t=$(dmsetup message "$DEV" 0 @stats_list | sed -n 's/^\([0-9]*\): .*/@stats_delete \1/p' |
		$MSG -q -t "$DEV" 2>&1 >/dev/null)
	_delete=$(echo "$_t" | sed -n 's/^MESSAGES 10000 SECONDS //p')
	if [ -n "$_create" ] && [ -n "$_delete" ] && [ -n "$_floor" ]; then
		echo "# BENCH engine=$1 round=$2 create10k_s=$_create delete10k_s=$_delete floor10k_s=$_floor bytes10k=$_bytes"
		pass "$1 round $2: create ${_create}s, delete ${_delete}s, floor ${_floor}s, $_bytes bytes"
	else
		fail "$1 round $2: create and delete 10000 regions" \
			"create: $_create delete: $_delete floor: $_floor"
	fi
	drop_dev
}

# row_msgs ROW: the messages that set ROW up, in /tmp/msgs. Messages go
# through a file: a function in a pipeline would run in a subshell and lose
# its TAP count.
row_msgs() {
	case $1 in
	whole1) echo "@stats_create - /1" ;;
	whole1-hist16-precise) echo "@stats_create - /1 2 precise_timestamps histogram:$HIST" ;;
	overlap100) same 100 "@stats_create - /1" ;;
	tiled1k) tiles 1000 ;;
	esac >/tmp/msgs
}

# setup_row ENGINE ROW: load ENGINE and set ROW up on a new device.
setup_row() {
	load_engine "$1"
	make_dev
	fio_iops >/dev/null # warm-up, not measured
	if [ "$2" != none ]; then
		row_msgs "$2"
		$MSG -q "$DEV" </tmp/msgs || fail "$1 $2: create the regions" "a message failed"
	fi
}

# quad ROUND ROW A B: ROW measured on engines A, B, B, A.
quad() {
	setup_row "$3" "$2"
	measure "$3" "$1" "$2"
	drop_dev
	setup_row "$4" "$2"
	measure "$4" "$1" "$2"
	measure "$4" "$1" "$2"
	drop_dev
	setup_row "$3" "$2"
	measure "$3" "$1" "$2"
	drop_dev
}

ROWS=${BENCH_ROWS-"none whole1 whole1-hist16-precise overlap100 tiled1k"}
ENGINES=${BENCH_ENGINES:-stock ours}
case $ENGINES in
"stock ours") ;;
stock | ours) ;;
*) bail "BENCH_ENGINES must be \"stock ours\", stock or ours, not \"$ENGINES\"" ;;
esac
r=1
while [ $r -le "$ROUNDS" ]; do
	for row in $ROWS; do
		if [ "$ENGINES" != "stock ours" ]; then
			quad $r "$row" "$ENGINES" "$ENGINES"
		elif [ $((r % 2)) = 1 ]; then
			quad $r "$row" stock ours
		else
			quad $r "$row" ours stock
		fi
	done
	if [ "$r" -le "$BIG_ROUNDS" ]; then
		for e in $ENGINES; do
			load_engine $e
			row_10k $e $r
		done
	fi
	r=$((r + 1))
done
dmsetup remove_all --noudevsync >/dev/null 2>&1
tap_finish
