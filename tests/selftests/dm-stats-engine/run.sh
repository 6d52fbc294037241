#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# dm-stats engine suite: what iotally's engine promises beyond upstream
# (see Documentation/device-mapper-stats.rst), so it is run with our engine
# only, on the patched kernel or on the stock kernel with our dm-mod.ko:
#
# - @stats_create neither suspends the device nor waits for I/O, and an I/O
#   in flight when a region is created is not counted in it;
# - request-based devices (dm-multipath) report correct times;
# - a one-area region costs a small fraction of the stock engine's 65,992 B,
#   and deleting regions gives all statistics memory back.
. ../lib.sh
. ../dm-multipath.sh

SECTORS=131072
VOL=eng
SLOW=engslow
PARAM=/sys/module/dm_mod/parameters/stats_current_allocated_bytes

msg() {
	_dev=$1
	shift
	dmsetup message "$_dev" 0 "$@"
}
ms_now() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }
# read_at DEV SECTOR: one direct 4 KiB read, on CPU 0 (coreutils dd).
read_at() {
	taskset -c 0 /usr/bin/dd status=none if="$1" of=/dev/null bs=4096 count=1 \
		skip=$(($2 * 512)) iflag=direct,skip_bytes
}
# check_memory_back: deleted regions are freed after an RCU grace period;
# within 5 s the accounted bytes are back at $base.
check_memory_back() {
	_n=0
	while [ "$(cat $PARAM)" != "$base" ] && [ $_n -lt 50 ]; do
		sleep 0.1
		_n=$((_n + 1))
	done
	check_eq "deleting them gives all memory back" "$base" "$(cat $PARAM)"
}

delete_all() {
	for _id in $(dmsetup message "$1" 0 @stats_list | sed -n 's/^\([0-9]*\): .*/\1/p'); do
		dmsetup message "$1" 0 @stats_delete "$_id"
	done
}

modprobe brd rd_nr=1 rd_size=$((SECTORS / 2)) max_part=0 || bail "cannot load brd"
modprobe dm-delay 2>/dev/null
dmsetup create --noudevsync "$SLOW" --table "0 $SECTORS delay /dev/ram0 0 3000" ||
	bail "cannot create a dm-delay device"
dmsetup create --noudevsync "$VOL" --table "0 $SECTORS linear /dev/mapper/$SLOW 0" ||
	bail "cannot create a dm-linear device"

# No suspension, and generations --------------------------------------------
old=$(msg "$VOL" @stats_create - /1)
read_at /dev/mapper/$VOL 0 &
reader=$!
sleep 1
check_eq "a read is in flight (3 s delay below)" "1" \
	"$(msg "$VOL" @stats_print "$old" | awk '{ print $10 }')"
t0=$(ms_now)
new=$(msg "$VOL" @stats_create - /1)
t1=$(ms_now)
check_cmp "create with I/O in flight returns without waiting for it" -lt $((t1 - t0)) 1500
check_eq "the new region does not count the read already in flight" "0 0" \
	"$(msg "$VOL" @stats_print "$new" | awk '{ print $2, $10 }')"
wait "$reader"
check_eq "after completion: the old region counted it, nothing in flight" "1 8 0" \
	"$(msg "$VOL" @stats_print "$old" | awk '{ print $2, $4, $10 }')"
check_eq "after completion: the new region never saw it" "0 0 0" \
	"$(msg "$VOL" @stats_print "$new" | awk '{ print $2, $4, $10 }')"

read_at /dev/mapper/$VOL 64 &
reader=$!
sleep 1
check_ok "delete with I/O in flight" msg "$VOL" @stats_delete "$old"
wait "$reader"
check_eq "a read started under two regions completes in the survivor" "1 8 0" \
	"$(msg "$VOL" @stats_print "$new" | awk '{ print $2, $4, $10 }')"
delete_all "$VOL"
dmsetup remove --noudevsync "$VOL"
dmsetup remove --noudevsync "$SLOW"

# Memory -----------------------------------------------------------------------
dmsetup create --noudevsync "$VOL" --table "0 $SECTORS linear /dev/ram0 0" ||
	bail "cannot create a dm-linear device"
base=$(cat $PARAM)
i=0
while [ $i -lt 50 ]; do
	msg "$VOL" @stats_create $((i * 8))+8 8 >/dev/null || break
	i=$((i + 1))
done
check_eq "50 one-area regions created" "50" "$i"
used=$(($(cat $PARAM) - base))
check_cmp "one-area regions cost under 1/20 of the stock 65,992 B each" \
	-lt "$used" $((50 * 65992 / 20))
check_cmp "and they are accounted" -gt "$used" $((50 * 104))
delete_all "$VOL"
check_memory_back
check_fails "a region over the memory limit fails with ENOMEM" "Cannot allocate memory" \
	dmsetup message "$VOL" 0 @stats_create 0+8000000 1
check_eq "and leaves nothing behind" "$base " "$(cat $PARAM) $(msg "$VOL" @stats_list)"

# 10,000 regions, created from one process (dm-stats-msg) -------------------------
if command -v dm-stats-msg >/dev/null; then
	awk 'BEGIN { for (i = 0; i < 10000; i++) printf "@stats_create %d+8 8\n", i * 8 }' |
		dm-stats-msg -q "$VOL"
	list=$(msg "$VOL" @stats_list)
	check_eq "10,000 one-area regions created" "10000" "$(echo "$list" | wc -l)"
	check_eq "the first and last have ids 0 and 9999 at their sectors" \
		"0: 0+8 8 - -|9999: 79992+8 8 - -" \
		"$(echo "$list" | sed -n '1p;$p' | paste -sd '|')"
	used=$(($(cat $PARAM) - base))
	echo "# 10,000 one-area regions: $used bytes of statistics memory"
	check_cmp "10,000 regions cost under 1/20 of the stock engine's 659,920,000 B" \
		-lt "$used" $((10000 * 65992 / 20))
	read_at /dev/mapper/$VOL 40000
	read_at /dev/mapper/$VOL 79992
	# 4 KiB at sector 4: the second half of region 0 and the first of region 1.
	taskset -c 0 /usr/bin/dd status=none if=/dev/mapper/$VOL of=/dev/null bs=4096 count=1 \
		skip=2048 iflag=direct,skip_bytes
	got=$(printf '@stats_print %s\n' 0 1 2 4999 5000 5001 9999 | dm-stats-msg "$VOL" |
		awk '{ printf "%s%s/%s", (NR > 1 ? " " : ""), $2, $4 }')
	check_eq "among 10,000 regions, each read lands in exactly the regions it touches" \
		"1/4 1/4 0/0 0/0 1/8 0/0 1/8" "$got"
	echo "$list" | sed -n 's/^\([0-9]*\): .*/@stats_delete \1/p' | dm-stats-msg -q "$VOL"
	check_eq "all 10,000 deleted" "" "$(msg "$VOL" @stats_list)"
	check_memory_back
else
	fail "10,000 regions" "dm-stats-msg is not in the guest (scripts/test-helpers.sh)"
fi
dmsetup remove --noudevsync "$VOL"
rmmod brd

# Request-based devices ----------------------------------------------------------
# dm-rq hands dm_stats_account_io() the I/O's duration where a start time is
# expected; the engine times requests itself (the stock engine's numbers:
# suite dm-rq-upstream). 100 ms null_blk completions.
mp_setup
case $? in
0)
	line=$(mp_three_reads)
	check_eq "request-based: 3 reads, 24 sectors, none in flight" "3 24 0" \
		"$(echo "$line" | awk '{ print $2, $4, $10 }')"
	t=$(echo "$line" | awk '{ print $5 }')
	check_cmp "request-based: read time covers 3 x 100 ms" -ge "$t" 300
	check_cmp "request-based: read time is a duration, under 3 s" -lt "$t" 3000
	check_eq "request-based: each read in the 50-1000 ms bucket" "0:3:0" \
		"$(echo "$line" | awk '{ print $15 }')"
	mp_teardown
	;;
1) skip "request-based device timing" "no dm-multipath or null_blk in this kernel" ;;
*)
	fail "create a multipath device over null_blk" "dmsetup create failed"
	rmmod null_blk
	;;
esac

tap_finish
