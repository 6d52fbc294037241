# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
#
# Helpers of the dm-stats-targets suite: devices, direct I/O, regions.

# A fixed 512-bit key: aes-xts-plain64 takes two 256-bit AES keys.
CRYPT_KEY=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
CRYPT_KEY=${CRYPT_KEY}202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f

# mk NAME TABLE: create a device; bails out if the kernel refuses it.
mk() {
	dmsetup create --noudevsync "$1" --table "$2" || bail "cannot create $1: $2"
}

rm_dev() {
	for _d in "$@"; do dmsetup remove --noudevsync "$_d" || bail "cannot remove $_d"; done
}

m() {
	_dev=$1
	shift
	dmsetup message "$_dev" 0 "$@"
}

# io DEV r|w SECTOR: one direct 4 KiB read or write on CPU 0 (coreutils dd:
# busybox dd falls back to buffered I/O). Its status is dd's.
io() {
	case $2 in
	r) taskset -c 0 /usr/bin/dd status=none if="/dev/mapper/$1" of=/dev/null bs=4096 count=1 \
		skip=$(($3 * 512)) iflag=direct,skip_bytes 2>/dev/null ;;
	w) taskset -c 0 /usr/bin/dd status=none if=/dev/zero of="/dev/mapper/$1" bs=4096 count=1 \
		seek=$(($3 * 512)) oflag=direct,seek_bytes 2>/dev/null ;;
	esac
}

# counters LINE: the deterministic fields of a @stats_print line: reads, read
# merges, sectors read, writes, write merges, sectors written, in flight.
counters() { echo "$1" | awk '{ print $2, $3, $4, $6, $7, $8, $10 }'; }

# area DEV REGION LINE: one line of a region's @stats_print.
area() { m "$1" @stats_print "$2" "$3" 1; }

# The common workload, on regions created just before it:
#   whole  - /1 1 histogram:1000000   (every I/O lands in the first bucket)
#   two    0+4100 /2                  (areas [0,2050) and [2050,4100))
# Reads at 0, 64, 128 and 4096 (the last one half past the end of "two"),
# writes at 1024, 2048 (6 sectors in the second area, 2 in the first) and 3000.
WL_WHOLE="4 0 32 3 0 24 0"
WL_AREA0="3 0 24 2 0 10 0"
WL_AREA1="1 0 4 2 0 14 0"
# The merge workload: three writes, each starting where the last ended.
WL_MERGED="0 0 0 3 2 24 0"

# workload DEV: create the regions (ids in $whole and $two), run the I/O.
# Status: the number of I/Os dd reported failed.
workload() {
	whole=$(m "$1" @stats_create - /1 1 histogram:1000000) || bail "@stats_create on $1 failed"
	two=$(m "$1" @stats_create 0+4100 /2) || bail "@stats_create on $1 failed"
	_failed=0
	for _io in r:0 r:64 r:128 w:1024 w:2048 w:3000 r:4096; do
		io "$1" "${_io%%:*}" "${_io#*:}" || _failed=$((_failed + 1))
	done
	return $_failed
}

# merged DEV: a region over 8192+64 and three sequential writes from CPU 0.
merged() {
	_mr=$(m "$1" @stats_create 8192+64 /1) || bail "@stats_create on $1 failed"
	for _s in 8192 8200 8208; do io "$1" w $_s; done
	counters "$(area "$1" "$_mr" 0)"
	m "$1" @stats_delete "$_mr"
}

# conform LABEL DEV [merges|rq]: the common workload on DEV and upstream's
# counters for it; with "merges", the target accounts each bio as it is
# submitted, on the submitter's CPU, so merge counts are checked too. With
# "rq" (request-based) the histogram is not checked: the stock engine puts
# every request in the last bucket (see the dm-rq-upstream suite), ours times
# requests itself.
conform() {
	workload "$2"
	check_eq "$1: no I/O fails" 0 $?
	_line=$(area "$2" "$whole" 0)
	check_eq "$1: whole-device region counts every I/O once" "$WL_WHOLE" "$(counters "$_line")"
	[ "$3" = rq ] ||
		check_eq "$1: histogram counts every completed I/O" "7:0" \
			"$(echo "$_line" | awk '{ print $15 }')"
	check_eq "$1: first area, with the first 2 sectors of a straddling write" "$WL_AREA0" \
		"$(counters "$(area "$2" "$two" 0)")"
	check_eq "$1: second area, and a read half past the region's end" "$WL_AREA1" \
		"$(counters "$(area "$2" "$two" 1)")"
	m "$2" @stats_delete "$whole"
	m "$2" @stats_delete "$two"
	[ "$3" = merges ] &&
		check_eq "$1: sequential writes from one CPU count as merged" "$WL_MERGED" \
			"$(merged "$2")"
	return 0
}
