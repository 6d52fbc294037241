# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
#
# Devices and helpers shared by the dm-stats conformance parts.

# A 64 MiB ramdisk: 131072 sectors.
DEV_SECTORS=131072
VOL=vol

# msg ARGS...: send one message to $VOL, output in $out, status in $rc.
msg() { run dmsetup message "$VOL" 0 "$@"; }

# msg_to DEV ARGS...
msg_to() {
	_dev=$1
	shift
	run dmsetup message "$_dev" 0 "$@"
}

# stats_list [DEV]: the @stats_list text of a device.
stats_list() { dmsetup message "${1:-$VOL}" 0 @stats_list; }

# create_region ARGS...: @stats_create on $VOL, the new id in $region.
create_region() {
	# shellcheck disable=SC2034 # $region is for the callers, in other files
	region=$(dmsetup message "$VOL" 0 @stats_create "$@") || bail "@stats_create $* failed"
}

delete_all_regions() {
	for _id in $(dmsetup message "${1:-$VOL}" 0 @stats_list |
		sed -n 's/^\([0-9]*\): .*/\1/p'); do
		dmsetup message "${1:-$VOL}" 0 @stats_delete "$_id"
	done
}

# field LINE N: the Nth space-separated field of a @stats_print line.
field() { echo "$1" | awk -v n="$2" '{ print $n }'; }

# counters LINE: the deterministic counters of a @stats_print line:
# reads, read merges, sectors read, writes, write merges, sectors written,
# in flight (fields 2,3,4,6,7,8,10; fields 5,9,11-14 are times).
counters() { echo "$1" | awk '{ print $2, $3, $4, $6, $7, $8, $10 }'; }

# dd_direct ARGS...: coreutils dd (busybox dd does not do O_DIRECT below a
# page), pinned to CPU 0 so that merge detection is deterministic.
dd_direct() { taskset -c 0 /usr/bin/dd status=none "$@"; }

# write_at SECTOR BYTES [COUNT]: COUNT (1) direct writes of BYTES at SECTOR.
write_at() {
	dd_direct if=/dev/zero of=/dev/mapper/$VOL bs="$2" count="${3:-1}" \
		seek=$(($1 * 512)) oflag=direct,seek_bytes
}

# read_at SECTOR BYTES [COUNT] [DEV]
read_at() {
	dd_direct if=/dev/mapper/${4:-$VOL} of=/dev/null bs="$2" count="${3:-1}" \
		skip=$(($1 * 512)) iflag=direct,skip_bytes
}

setup_devices() {
	modprobe brd rd_nr=1 rd_size=$((DEV_SECTORS / 2)) max_part=0 || return 1
	dmsetup create --noudevsync "$VOL" --table "0 $DEV_SECTORS linear /dev/ram0 0" || return 1
	[ -b /dev/mapper/$VOL ] || return 1
}

teardown_devices() {
	dmsetup remove --noudevsync "$VOL"
	rmmod brd
}
