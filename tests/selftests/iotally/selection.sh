# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Sourced after ../lib.sh, whose run() sets $out, $err and $rc: shellcheck
# cannot see that from this file.
# shellcheck disable=SC2154
#
# One selection in report, top, export and serve: on a dm device ($VOL, a
# region on it), an md raid1 array (on two loop devices), a loop device and
# a plain disk (null_blk), one set of --select expressions names the same
# devices in all four. report and serve show every chosen device (its row,
# its counters); top (with device-mapper there) and export show regions,
# so of the chosen devices they show the one with a region, and no other.

# sorted_words WORDS...: the words sorted, unique, on one line.
sorted_words() {
	printf '%s\n' "$@" | sed '/^$/d' | sort -u | tr '\n' ' ' | sed 's/ $//'
}

# The kernel names of the devices each command shows for the selection "$@".
reported() {
	run iotally -j report --level device "$@"
	[ "$rc" = 0 ] || { echo "report failed: $err"; return; }
	# shellcheck disable=SC2046
	sorted_words $(printf '%s\n' "$out" | grep -o '"device":"[^"]*"' | cut -d'"' -f4)
}
# top's rows name a region's device by its dm name: as its kernel name here.
topped() {
	run iotally -j top -c 1 -i 0.5 "$@"
	[ "$rc" = 0 ] || { echo "top failed: $err"; return; }
	# shellcheck disable=SC2046
	sorted_words $(printf '%s\n' "$out" | grep -o '"dm_name":"[^"]*"' | cut -d'"' -f4 |
		while read -r n; do
			if [ "$n" = "$VOL" ]; then echo "$SEL_DM"; else echo "$n"; fi
		done)
}
# The device="..." labels of an exposition's device and region families.
labelled() {
	# shellcheck disable=SC2046
	sorted_words $(printf '%s\n' "$1" |
		grep -E '^iotally_(device_reads_completed_total|region_info)\{' |
		grep -o 'device="[^"]*"' | cut -d'"' -f2)
}
exported() {
	run iotally export "$@"
	[ "$rc" = 0 ] || { echo "export failed: $err"; return; }
	labelled "$out"
}
served() {
	rm -rf /tmp/selprom && mkdir -p /tmp/selprom
	run iotally serve --textfile /tmp/selprom --count 1 "$@"
	[ "$rc" = 0 ] || { echo "serve failed: $err"; return; }
	labelled "$(cat /tmp/selprom/iotally.prom)"
}

# check_selection NAME EXPECTED_ALL EXPECTED_REGIONS ARGS...: report and
# serve show EXPECTED_ALL, top and export EXPECTED_REGIONS.
check_selection() {
	_name=$1
	_all=$2
	_regions=$3
	shift 3
	check_eq "selection $_name: report" "$_all" "$(reported "$@")"
	check_eq "selection $_name: serve" "$_all" "$(served "$@")"
	check_eq "selection $_name: top" "$_regions" "$(topped "$@")"
	check_eq "selection $_name: export" "$_regions" "$(exported "$@")"
}

# selection_loop FILE: the first free loop device, bound to FILE.
selection_loop() {
	_l=$(losetup -f) && losetup "$_l" "$1" && echo "$_l"
}

selection_setup() {
	modprobe loop 2>/dev/null
	modprobe raid1 2>/dev/null # md-mod with it; built in on the patched kernel
	step="null_blk"
	modprobe null_blk nr_devices=1 gb=1 || return 1
	[ -b /dev/nullb0 ] || return 1
	SEL_DISK=nullb0
	step="three loop devices on files in /tmp"
	for i in 0 1 2; do
		dd if=/dev/zero of=/tmp/selimg$i bs=1M count=16 2>/dev/null || return 1
	done
	SEL_LOOP=$(selection_loop /tmp/selimg0) || return 1
	SEL_LEG0=$(selection_loop /tmp/selimg1) || return 1
	SEL_LEG1=$(selection_loop /tmp/selimg2) || return 1
	step="md raid1 on two loop devices (mdadm --build)"
	[ -e /proc/mdstat ] || return 1
	MDADM_NO_UDEV=1 /usr/sbin/mdadm --build /dev/md7 --run --assume-clean --level=1 \
		--raid-devices=2 "$SEL_LEG0" "$SEL_LEG1" >/dev/null 2>&1 || return 1
	[ -e /sys/block/md7 ] || return 1
	SEL_LOOP=${SEL_LOOP#/dev/}
	SEL_LEG0=${SEL_LEG0#/dev/}
	SEL_LEG1=${SEL_LEG1#/dev/}
	# $VOL's kernel name, from sysfs.
	SEL_DM=
	for d in /sys/block/dm-*; do
		[ "$(cat "$d/dm/name" 2>/dev/null)" = "$VOL" ] && SEL_DM=${d##*/}
	done
	[ -n "$SEL_DM" ]
}

selection_teardown() {
	/usr/sbin/mdadm --stop /dev/md7 >/dev/null 2>&1
	for l in "$SEL_LOOP" "$SEL_LEG0" "$SEL_LEG1"; do
		[ -n "$l" ] && losetup -d "/dev/$l"
	done
	rm -f /tmp/selimg0 /tmp/selimg1 /tmp/selimg2
	rm -rf /tmp/selprom
	rmmod null_blk
}

delete_all_regions
if selection_setup; then
	iotally create "$VOL" >/dev/null || bail "iotally create failed"
	# One device of each kind, by its kernel or dm name.
	check_selection "one of each kind" \
		"$(sorted_words "$SEL_DM" md7 "$SEL_LOOP" "$SEL_DISK")" "$SEL_DM" \
		--select "name=$VOL" --select name=md7 --select "name=$SEL_LOOP" \
		--select "name=$SEL_DISK"
	# By dm target: the linear devices device-mapper lists.
	linear=
	for n in $(dmsetup table | awk '$4 == "linear" { sub(":$", "", $1); print $1 }'); do
		for d in /sys/block/dm-*; do
			[ "$(cat "$d/dm/name")" = "$n" ] && linear="$linear ${d##*/}"
		done
	done
	# shellcheck disable=SC2086
	check_selection "target=linear" "$(sorted_words $linear)" "$SEL_DM" --select target=linear
	# md and loop devices alone: nothing of them in top or export, and no
	# other device either.
	check_selection "md array" md7 "" --select name=md7
	# Every loop device /sys/block lists (the unbound ones loop made at
	# load too), ours among them.
	# (the word splitting is wanted: sorted_words takes words)
	# shellcheck disable=SC2046
	loops=$(sorted_words $(cd /sys/block && echo loop*))
	check_match "selection: our loop devices are in /sys/block" " ?$SEL_LOOP( |$)" "$loops"
	check_selection "loop devices by glob" "$loops" "" --select "name=loop*"
	check_selection "plain disk" "$SEL_DISK" "" "$SEL_DISK"
	# A selection that matches nothing fails alike in the four.
	for cmd in "report" "top -c 1 -i 0.5" "export" "serve --textfile /tmp --count 1"; do
		# shellcheck disable=SC2086
		check_error "selection matching nothing: $cmd" 3 "matches no" \
			iotally $cmd --select name=nosuchdevice
	done
	delete_all_regions
	selection_teardown
else
	fail "selection: set up a dm device, an md array, a loop device and null_blk" \
		"failed at: $step"
	selection_teardown 2>/dev/null
fi
