# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
#
# A request-based device whose requests take a known time, for the suites
# that check what dm-stats reports for requests (dm-stats-engine on our
# engine, dm-rq-upstream on the stock one): dm-multipath over a null_blk
# whose requests complete after 100 ms. Source it after lib.sh.

# mp_setup: create the device "mp" and check that it is request-based.
# Status 1 if the kernel lacks dm-multipath, dm-round-robin or null_blk,
# 2 if the device cannot be created.
mp_setup() {
	modprobe dm-multipath 2>/dev/null && modprobe dm-round-robin 2>/dev/null &&
		modprobe null_blk nr_devices=1 gb=1 queue_mode=2 irqmode=2 \
			completion_nsec=100000000 || return 1
	_mp_table="multipath 0 0 1 1 round-robin 0 1 1 /dev/nullb0 1"
	dmsetup create --noudevsync mp --table "0 $(cat /sys/block/nullb0/size) $_mp_table" ||
		return 2
	_mp_dm=$(dmsetup info -c --noheadings -o blkdevname mp)
	check_eq "multipath is request-based (blk-mq queue)" "yes" \
		"$([ -d "/sys/block/$_mp_dm/mq" ] && echo yes)"
}

# mp_setup_or_bail: mp_setup, or bail out of the suite saying what failed.
mp_setup_or_bail() {
	mp_setup
	case $? in
	0) ;;
	1) bail "no dm-multipath, dm-round-robin or null_blk module" ;;
	*) bail "cannot create a multipath device over null_blk" ;;
	esac
}

# mp_three_reads [N ARG...]: a region over all of mp with histogram
# boundaries 50 and 1000 ms (or @stats_create's optional arguments N
# ARG...), three direct 4 KiB reads on CPU 0 (coreutils dd), then the
# region's @stats_print line on stdout; the region is deleted after.
mp_three_reads() {
	[ $# -gt 0 ] || set -- 1 histogram:50,1000
	_mp_region=$(dmsetup message mp 0 @stats_create - /1 "$@") || return 1
	for _mp_sector in 0 64 128; do
		taskset -c 0 /usr/bin/dd status=none if=/dev/mapper/mp of=/dev/null bs=4096 \
			count=1 skip=$((_mp_sector * 512)) iflag=direct,skip_bytes
	done
	dmsetup message mp 0 @stats_print "$_mp_region"
	dmsetup message mp 0 @stats_delete "$_mp_region"
}

# mp_check_reads NAME [N ARG...]: mp_three_reads, and the check NAME that
# the region counts 3 reads of 24 sectors with none in flight; sets
# $mp_read_time (its read time) and $mp_read_hist (its histogram).
mp_check_reads() {
	_mp_name=$1
	shift
	_mp_line=$(mp_three_reads "$@")
	check_eq "$_mp_name" "3 24 0" "$(echo "$_mp_line" | awk '{ print $2, $4, $10 }')"
	# shellcheck disable=SC2034 # read by the suites that source this file
	mp_read_time=$(echo "$_mp_line" | awk '{ print $5 }')
	# shellcheck disable=SC2034 # read by the suites that source this file
	mp_read_hist=$(echo "$_mp_line" | awk '{ print $15 }')
}

# mp_first_reads: how the dm-rq suites start: mp_setup_or_bail, then
# mp_check_reads of the default region.
mp_first_reads() {
	mp_setup_or_bail
	mp_check_reads "3 reads, 24 sectors, none in flight"
}

mp_teardown() {
	dmsetup remove --noudevsync mp
	rmmod null_blk
}
