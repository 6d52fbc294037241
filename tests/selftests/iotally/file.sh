# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Sourced after ../lib.sh, whose run() sets $out, $err and $rc: shellcheck
# cannot see that from this file.
# shellcheck disable=SC2154
#
# Files as regions: `iotally create --file` maps a file on ext2 on a
# device-mapper device to one region per extent, grouped under the file's
# name; `iotally update --file` re-maps it after the file grew. The expected
# extents come from e2fsprogs' filefrag (FIEMAP read by another program), not
# from iotally.

FSVOL=fsvol
MNT=/mnt/iotally
FSIMG=/tmp/iotally-fs.img

# file_ranges FILE: the file's extents as "start+length" in sectors of the
# device, one a line, in file order, from filefrag; extents that continue
# each other both in the file and on the device are one range (dmstats
# --filemap does the same).
file_ranges() {
	/usr/sbin/filefrag -v -b512 "$1" | awk '
	$1 ~ /^[0-9]+:$/ {
		gsub(/\.\./, " "); gsub(/:/, " ")
		split($0, f, " ")
		# f: ext, logical first, logical last, physical first, physical last, length
		if (n && f[2] == lend + 1 && f[4] == pend + 1) {
			len[n] += f[6]
		} else {
			n++; start[n] = f[4]; len[n] = f[6]
		}
		lend = f[3]; pend = f[5]
	}
	END { for (i = 1; i <= n; i++) printf "%d+%d\n", start[i], len[i] }'
}

# region_ranges: the ranges of the regions on $FSVOL, sorted like sort(1).
region_ranges() {
	stats_list "$FSVOL" | awk '{ print $2 }' | sort
}

# group_aux: the aux_data of the lowest region on $FSVOL.
group_aux() {
	stats_list "$FSVOL" | sed -n '1s/^[0-9]*: [^ ]* [^ ]* [^ ]* //p'
}

# regions_in_group0 JSON: how many regions `iotally list --json` puts in
# group 0 (a region's keys are sorted: "group_id" comes before
# "histogram_bounds_ns"; the group's own object has "members" there).
regions_in_group0() {
	printf '%s\n' "$1" | grep -o '"group_id":0,"histogram_bounds_ns"' | wc -l | tr -d ' '
}

# file_setup: the file system, or the step that failed in $step. e2fsprogs'
# programs by their full paths: busybox runs its own applets first.
file_setup() {
	modprobe loop 2>/dev/null
	modprobe ext4 2>/dev/null # the stock kernel mounts ext2 with ext4.ko
	modprobe crc32c_generic 2>/dev/null # which needs crc32c
	step="a 32 MiB image in /tmp"
	dd if=/dev/zero of="$FSIMG" bs=1M count=32 2>/dev/null || return 1
	step="losetup"
	_loop=$(losetup -f) && losetup "$_loop" "$FSIMG" || return 1
	step="dmsetup create $FSVOL"
	dmsetup create --noudevsync "$FSVOL" --table "0 65536 linear $_loop 0" || return 1
	# 1 KiB blocks: a file past 12 blocks gets an indirect block in the
	# middle of its data, so it has more than one extent.
	step="mke2fs"
	/sbin/mke2fs -q -F -t ext2 -b 1024 -I 256 /dev/mapper/$FSVOL >/dev/null || return 1
	step="mount -t ext2"
	mkdir -p "$MNT" && mount -t ext2 /dev/mapper/$FSVOL "$MNT"
}

file_teardown() {
	umount "$MNT"
	dmsetup remove --noudevsync "$FSVOL"
	losetup -d "$_loop"
	rm -f "$FSIMG"
}

if ! file_setup; then
	fail "set up ext2 on a dm device over loop" "failed: $step"
	file_teardown 2>/dev/null
else
	# 100 KiB in 1 KiB blocks: 12 direct blocks, an indirect block, 88 more.
	dd if=/dev/urandom of="$MNT/data.db" bs=1k count=100 2>/dev/null
	sync
	want=$(file_ranges "$MNT/data.db")
	n=$(lines "$want")
	check_cmp "filefrag sees more than one extent (the test means something)" -ge "$n" 2

	check_ok "iotally create --file" iotally create --file "$MNT/data.db"
	check_match "create --file names the device, the group and its regions" \
		"^$FSVOL: group 0 of $n regions?: " "$out"
	check_eq "one region per extent, where filefrag puts them" \
		"$(echo "$want" | sort)" "$(region_ranges)"
	check_eq "every region has one area" "$n" \
		"$(stats_list "$FSVOL" | awk '{ split($2, r, "+"); if (r[2] == $3) k++ } END { print k + 0 }')"
	check_match "the regions are a dmstats group named after the file" \
		"^DMS_GROUP=data\\.db:0-$((n - 1))(#|\$)" "$(group_aux)"
	check_ok "iotally list $FSVOL --json" iotally list --json "$FSVOL"
	check_eq "list puts every region in group 0" "$n" "$(regions_in_group0 "$out")"
	check_ok "dmstats list --allprograms" dmstats list --allprograms "$FSVOL"
	check_match "dmstats list knows the group by the file's name" "data\\.db" "$out"

	# Reading the file through the page cache cold: every extent is read,
	# so every region counts reads.
	sync
	echo 3 >/proc/sys/vm/drop_caches
	cat "$MNT/data.db" >/dev/null
	check_eq "reading the file is counted in every one of its regions" "$n" \
		"$(for id in $(stats_list "$FSVOL" | cut -d: -f1); do
			dmsetup message "$FSVOL" 0 @stats_print "$id" | awk '$2 > 0'
		done | wc -l | tr -d ' ')"

	# The file grows by 400 KiB: new extents (and a double-indirect block).
	dd if=/dev/urandom of="$MNT/data.db" bs=1k count=400 seek=100 conv=notrunc 2>/dev/null
	sync
	want=$(file_ranges "$MNT/data.db")
	n2=$(lines "$want")
	check_cmp "the grown file has more extents" -gt "$n2" "$n"
	check_ok "iotally update --file" iotally update --file "$MNT/data.db"
	check_match "update names the group and its regions" "^$FSVOL: group 0 of $n2 regions: " "$out"
	check_eq "after update: one region per extent of the grown file" \
		"$(echo "$want" | sort)" "$(region_ranges)"
	check_match "after update: all of them in the group" "^DMS_GROUP=data\\.db:" "$(group_aux)"
	check_eq "after update: the group lists every region" "$n2" \
		"$(regions_in_group0 "$(iotally list --json "$FSVOL")")"
	check_eq "regions that still map an extent kept their counters" "0" \
		"$(dmsetup message "$FSVOL" 0 @stats_print 0 | awk '{ print ($2 > 0 ? 0 : 1) }')"
	before=$(stats_list "$FSVOL")
	check_ok "update --file of an unchanged file" iotally update --file "$MNT/data.db"
	check_eq "update of an unchanged file changes nothing" "$before" "$(stats_list "$FSVOL")"

	# Bad input, and nothing made.
	echo x >"$MNT/other"
	check_error "update --file of a file with no group" 6 "no group named 'other'" \
		iotally update --file "$MNT/other"
	check_error "create --file of a directory" 2 "not a regular file" iotally create --file "$MNT"
	check_error "create --file of a missing file" 2 "nosuch" iotally create --file "$MNT/nosuch"
	check_error "create --file of a file not on a dm device" 3 "not a device-mapper device" \
		iotally create --file /etc/iotally.conf
	check_eq "failed commands changed no region" "$before" "$(stats_list "$FSVOL")"

	delete_all_regions "$FSVOL"
	file_teardown
fi
