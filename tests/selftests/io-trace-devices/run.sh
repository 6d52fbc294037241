#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# io:io_done reports the device, sector and size of its io:io_start
# (Documentation/trace/io-provider.rst, "What io:io_done reports"), also
# for a bio that a driver sends on in place, without a new io:io_start:
#
# - NVMe multipath: the head device (nvme0n1) sends each bio down one of
#   its paths by pointing the same bio at that path's disk (nvme0c0n1 or
#   nvme0c1n1, hidden) and submitting it again; the bio fired io:io_start
#   once, for the head, and completes on the path;
# - a partition: the bio is remapped to the whole disk's sectors before
#   it enters the queue; io:io_start and io:io_done both report the
#   partition, the disk's sector and the sector in the partition.
#
# The guest has one NVMe subsystem with two controllers sharing one
# namespace (tests/vm/run.sh --nvme-multipath), with the round-robin
# policy so that both paths carry reads.
. ../lib.sh

TR=/sys/kernel/tracing
T=/tmp/io-trace-devices
[ -d $TR/events/io ] || skip_all "no io trace events (CONFIG_IO_TRACE_EVENTS)"
SUBSYS=$(ls -d /sys/class/nvme-subsystem/nvme-subsys* 2>/dev/null | head -n 1)
[ -n "$SUBSYS" ] || skip_all "no NVMe subsystem (tests/vm/run.sh --nvme-multipath)"
CTRLS=$(ls -d "$SUBSYS"/nvme[0-9]* 2>/dev/null | wc -l)
[ "$CTRLS" -ge 2 ] || skip_all "the NVMe subsystem has $CTRLS controller(s), not two"
mkdir -p $T

# the head: a namespace block device of the subsystem, not a path (nvmeXcYnZ)
HEAD=$(for d in "$SUBSYS"/nvme*n*; do basename "$d"; done | grep -v 'c[0-9]*n' | head -n 1)
[ -b /dev/$HEAD ] || bail "no head device in $SUBSYS"
PATHS=$(for d in /sys/block/nvme*c*n*; do [ -e "$d" ] && basename "$d"; done | sort | tr '\n' ' ')
check_eq "two paths to the namespace" 2 "$(echo $PATHS | wc -w)"
echo round-robin >"$SUBSYS/iopolicy" 2>/dev/null ||
	echo "# no round-robin policy: $(cat "$SUBSYS/iopolicy")"

devno() { tr ':' ',' </sys/class/block/$1/dev; }
HEAD_DEV=$(devno $HEAD)

# le32 N: N as four little-endian bytes (octal escapes for printf)
le32() {
	printf "\\$(printf %03o $(($1 & 255)))\\$(printf %03o $((($1 >> 8) & 255)))"
	printf "\\$(printf %03o $((($1 >> 16) & 255)))\\$(printf %03o $((($1 >> 24) & 255)))"
}
# One MBR partition: 8 MiB from sector 2048
PART_START=2048
PART_SECTORS=16384
{
	dd if=/dev/zero bs=446 count=1 status=none
	printf '\000\000\000\000\203\000\000\000'
	le32 $PART_START
	le32 $PART_SECTORS
	dd if=/dev/zero bs=48 count=1 status=none
	printf '\125\252'
} >$T/mbr
check_eq "the partition table is one sector" 512 "$(wc -c <$T/mbr)"
dd if=$T/mbr of=/dev/$HEAD bs=512 count=1 oflag=direct status=none || bail "write the MBR"
blockdev --rereadpt /dev/$HEAD || bail "re-read the partition table"
PART=${HEAD}p1
wait_for 10 test -b /dev/$PART || bail "no /dev/$PART"
PART_DEV=$(devno $PART)
check_eq "the partition starts at sector $PART_START" $PART_START \
	"$(cat /sys/class/block/$PART/start)"

INST=$TR/instances/io-trace-devices
mkdir $INST || bail "tracefs instance"
# trace PHASE CMD...: every io event of CMD, one line each (events.awk)
trace() {
	_phase=$1
	shift
	echo >$INST/trace
	echo 1 >$INST/events/io/io_start/enable
	echo 1 >$INST/events/io/io_done/enable
	"$@"
	echo 0 >$INST/events/io/io_done/enable
	echo 0 >$INST/events/io/io_start/enable
	awk -f ../io-trace/events.awk $INST/trace >$T/$_phase
	check_eq "$_phase: no event lost" 0 \
		"$(awk '/entries-in-buffer/ { split($3, a, "/"); print (a[1] == a[2]) ? 0 : 1 }' \
			$INST/trace)"
}
# sel FILE AWK: fields as events.awk writes them ($1 ev, $4 dev, $6 sector,
# $7 bytes, $8 lsector, $10 disk)
sel() { awk -F'|' "$2" "$1"; }
# same PHASE: each io:io_start has one io:io_done with its device, disk,
# sector, sector in the partition and size
same() {
	sel $T/$1 '$1 == "start" { print $4, $10, $6, $8, $7 }' | sort >$T/$1.starts
	sel $T/$1 '$1 == "done" { print $4, $10, $6, $8, $7 }' | sort >$T/$1.dones
	check_eq "$1: each io:io_start has one io:io_done with its device, sector and size" \
		"$(cat $T/$1.starts)" "$(cat $T/$1.dones)"
}

reads() { # DEV: 32 direct 4 KiB reads
	dd if=/dev/$1 of=/dev/null bs=4096 count=32 skip=16 iflag=direct status=none
}

# --- the multipath head ---
trace head reads $HEAD
check_eq "head: 32 reads fire io:io_start for the head" "32 $HEAD_DEV $HEAD" \
	"$(sel $T/head '$1 == "start" { n++; d[$4 " " $10] } END { for (k in d) print n, k }')"
same head
check_eq "head: no event names a path" "" \
	"$(sel $T/head '$10 ~ /c[0-9]+n/ || $4 != "'"$HEAD_DEV"'" { print $1, $4, $10 }' | sort -u)"
echo "# paths: $PATHS; policy $(cat "$SUBSYS/iopolicy")"
for c in "$SUBSYS"/nvme[0-9]*; do
	echo "# $(basename "$c"): $(cat "$c"/state 2>/dev/null)"
done

# --- a partition of the head ---
trace part reads $PART
check_eq "partition: 32 reads, the partition's device, the disk's sectors" \
	"32 $PART_DEV $PART $((PART_START + 128)) 128" \
	"$(sel $T/part '$1 == "start" { n++
			if (!first) { first = 1; d = $4 " " $10 " " $6 " " $8 } }
		END { print n, d }')"
same part
check_eq "partition: the sector in the partition is the disk's less the partition's start" "" \
	"$(sel $T/part '$6 - $8 != '$PART_START' { print }')"
# writes, through the partition
trace part-write dd if=/dev/zero of=/dev/$PART bs=8192 count=8 oflag=direct status=none
same part-write
check_eq "partition: 8 writes of 8 KiB for the partition" "8 65536 $PART_DEV" \
	"$(sel $T/part-write '$1 == "start" && $5 ~ /W/ { n++; s += $7; d[$4] }
		END { for (k in d) print n, s, k }')"

rmdir $INST
tap_finish
