#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# iotally snoop end to end, on whichever backend --backend auto picks: the
# io trace events on the patched kernel, iotally's BPF programs on Debian's
# own (Documentation/iotally-bpf.rst, "snoop"). The same checks on both:
# one line per I/O and device with the file's full path, filters, JSON,
# summaries, SIGTERM and SIGINT; file names on every layer (readahead,
# direct reads and writes on dm-linear and the disk below, buffered
# writeback, dm-delay's worker); metadata read during a direct read named
# <none>, not as the file; a buffer too small counts what it lost and
# leaves the I/O alone; a program that cannot load is one line.
#
# A null_blk disk (memory backed, completions 3 ms after submission on a
# timer, at most 32 KiB per request) carries ext4 on dm-linear, and ext4
# on dm-delay further on.
. ../lib.sh

T=/tmp/snoop
mkdir -p $T /mnt/a /mnt/d
TR=/sys/kernel/tracing
FS_SECTORS=262144		# the first 128 MiB: ext4 on dm-linear
DELAY_START=262144		# then 64 MiB of ext4 on dm-delay
DELAY_SECTORS=131072
DD=/usr/bin/dd

command -v iotally >/dev/null || bail "iotally is not in the initramfs (make tools)"
if [ -d $TR/events/io ]; then BACKEND=native; else BACKEND=bpf; fi
echo "# expected backend: $BACKEND"
# each snoop enables and disables events: tracing's comm probes stay
# registered throughout (lib.sh); a patched guest crashed once without
if [ $BACKEND = native ]; then
	keep_comm_probes snoop-keep || bail "cannot keep the comm probes registered"
fi
modprobe null_blk nr_devices=1 queue_mode=2 gb=1 memory_backed=1 irqmode=2 \
	completion_nsec=3000000 max_sectors=64 submit_queues=1 || bail "modprobe null_blk"
NULLB=/dev/nullb0
[ -b $NULLB ] || bail "$NULLB is missing"
modprobe dm-delay 2>/dev/null
dmsetup create --noudevsync snoopfs --table "0 $FS_SECTORS linear $NULLB 0" || bail "dm-linear"
dmsetup create --noudevsync snoopdelay \
	--table "0 $DELAY_SECTORS delay $NULLB $DELAY_START 10" || bail "dm-delay"
# No I/O but the tests' own (as io-trace): no lazy init, no periodic
# writeback, no journal commit timer, no block bitmaps read ahead.
for dev in snoopfs snoopdelay; do
	/sbin/mke2fs -q -F -t ext4 -b 4096 -E lazy_itable_init=0,lazy_journal_init=0 \
		/dev/mapper/$dev || bail "mkfs.ext4 $dev"
done
echo 0 >/proc/sys/vm/dirty_writeback_centisecs
EXT4_OPTS=commit=600,no_prefetch_block_bitmaps
mount -t ext4 -o $EXT4_OPTS /dev/mapper/snoopfs /mnt/a || bail "mount ext4"
mount -t ext4 -o $EXT4_OPTS /dev/mapper/snoopdelay /mnt/d || bail "mount ext4 on dm-delay"
mkdir -p /mnt/a/dir
$DD if=/dev/urandom of=/mnt/a/dir/known.bin bs=64k count=16 status=none || bail "known.bin"
sync

dmname() { dmsetup info -c --noheadings -o blkdevname "$1"; }
FS_DISK=$(dmname snoopfs)
DELAY_DISK=$(dmname snoopdelay)
[ -n "$FS_DISK" ] && [ -n "$DELAY_DISK" ] || bail "cannot name the dm devices"
drop_caches() { sync; echo 3 >/proc/sys/vm/drop_caches; }

. ../lib-snoop.sh
# jsel FILE AWK-PROGRAM: the records of snoop --json (keys in sorted
# order) as fields: $1 comm, $2 disk, $3 rw, $4 bytes, $5 file, $6 flags,
# $7 offset, $8 fstype
jsel() {
	sed -n 's/.*"bytes":\([0-9]*\).*"comm":"\([^"]*\)".*"disk":"\([^"]*\)".*"file":"\([^"]*\)".*"flags":\([0-9]*\).*"fstype":"\([^"]*\)".*"offset":\([0-9-]*\).*"rw":"\([^"]*\)".*/\2 \3 \8 \1 \4 \5 \7 \6/p' "$1" |
		awk "$2"
}

# --- Lines, the file filter, SIGTERM, the backend -v names ---
snoop_start snoop.lines snoop --file /mnt/a/dir/snoop
$DD if=/dev/urandom of=/mnt/a/dir/snoop.bin bs=64k count=2 oflag=direct status=none
$DD if=/dev/urandom of=/mnt/a/dir/other.bin bs=64k count=1 oflag=direct status=none
sleep 1
snoop_stop TERM
check_eq "snoop: SIGTERM ends it cleanly" 0 "$rc"
check_eq "snoop -v: the backend auto picks" "iotally: snoop: backend $BACKEND" \
	"$(sed -n 's/ (.*//; /backend/p' $T/snoop.lines.err)"
check_match "snoop: the last line on stderr counts what was unmatched and lost" \
	'^snoop: [0-9]+ unmatched, 0 lost$' "$(tail -1 $T/snoop.lines.err)"
# Trace instance names are ours (no blank, no newline): ls | grep is exact.
# shellcheck disable=SC2010
check_eq "snoop: no tracefs instance left" "" "$(ls $TR/instances 2>/dev/null | grep iotally-snoop)"
check_match "snoop: the header" \
	"^ +TIME\(s\) COMM +PID DEVICE +RW +BYTES +LAT\(ms\) FILE\$" \
	"$(head -1 $T/snoop.lines)"
check_eq "snoop: one line per I/O and device, absolute names, only the files asked for" \
	"dd $FS_DISK W 65536 /mnt/a/dir/snoop.bin
dd $FS_DISK W 65536 /mnt/a/dir/snoop.bin
dd nullb0 W 65536 /mnt/a/dir/snoop.bin
dd nullb0 W 65536 /mnt/a/dir/snoop.bin" \
	"$(awk 'NR > 1 { print $2, $4, $5, $6, $8 }' $T/snoop.lines | sort)"
check_eq "snoop: latencies of at least the disk's 3 ms" 4 \
	"$(awk 'NR > 1 && $7 >= 3' $T/snoop.lines | wc -l)"

# --- JSON of a raw device's direct write, SIGINT ---
snoop_start snoop.json --json snoop --device nullb0
$DD if=/dev/zero of=$NULLB bs=64k count=1 seek=8192 oflag=direct status=none
sleep 1
snoop_stop INT
check_eq "snoop --json --device: SIGINT ends it cleanly" 0 "$rc"
check_eq "snoop --json: the raw device's write, its file and fields" \
	"dd nullb0 W 65536 /dev/nullb0 32 $((8192 * 65536)) devtmpfs" \
	"$(jsel $T/snoop.json '{ print $1, $2, $3, $4, $5, and($6, 0x20), $7, $8 }')"
check_eq "snoop --json: each record names its backend" "\"backend\":\"$BACKEND\"" \
	"$(grep -o '"backend":"[a-z]*"' $T/snoop.json | sort -u)"

# --- Direct reads: named on dm-linear and the disk below, at their offsets ---
drop_caches
snoop_start snoop.dread --json snoop --file /mnt/a/dir/snoop
$DD if=/mnt/a/dir/snoop.bin of=/dev/null bs=64k count=2 iflag=direct status=none
sleep 1
snoop_stop INT
check_eq "direct read: both bios on both layers, named, user memory (B_PHYS), at their offsets" \
	"dd $FS_DISK R 65536 32 0
dd $FS_DISK R 65536 32 65536
dd nullb0 R 65536 32 0
dd nullb0 R 65536 32 65536" \
	"$(jsel $T/snoop.dread '{ print $1, $2, $3, $4, and($6, 0x20), $7 }' | sort)"

# --- Readahead after drop_caches: named, the whole file once per layer ---
drop_caches
snoop_start snoop.ra --json snoop --file /mnt/a/dir/known
cat /mnt/a/dir/known.bin >/dev/null
sleep 1
snoop_stop INT
check_eq "readahead: the file's 1 MiB read once on each layer, page cache (B_PAGEIO)" \
	"$FS_DISK 1048576 16
nullb0 1048576 16" \
	"$(jsel $T/snoop.ra '$3 == "R" { b[$2] += $4; f[$2] = and($6, 0x10) }
		END { for (d in b) print d, b[d], f[d] }' | sort)"

# --- Buffered write, then sync: the writeback named by its full path ---
snoop_start snoop.wb --json snoop --file /mnt/a/dir/buffered
$DD if=/dev/urandom of=/mnt/a/dir/buffered.bin bs=64k count=4 status=none
sync
sleep 1
snoop_stop INT
check_eq "writeback: the file's 256 KiB written once on each layer, named" \
	"$FS_DISK 262144 /mnt/a/dir/buffered.bin
nullb0 262144 /mnt/a/dir/buffered.bin" \
	"$(jsel $T/snoop.wb '$3 == "W" { b[$2] += $4; n[$2] = $5 }
		END { for (d in b) print d, b[d], n[d] }' | sort)"

# --- dm-delay: its worker sends the bios down, not the task ---
snoop_start snoop.delay --json snoop --file /mnt/d/
$DD if=/dev/urandom of=/mnt/d/f.bin bs=64k count=1 oflag=direct status=none
sleep 1
snoop_stop INT
check_eq "dm-delay: the direct write on dm-delay, named, from dd" \
	"dd $DELAY_DISK W 65536 /mnt/d/f.bin 0" \
	"$(jsel $T/snoop.delay '$2 == "'"$DELAY_DISK"'" { print $1, $2, $3, $4, $5, $7 }')"
if [ $BACKEND = bpf ]; then
	# BPF knows the lower bio by its first page, the same as the upper's
	check_eq "dm-delay: the disk below names the file too, from the delay's worker" \
		"nullb0 W 65536 /mnt/d/f.bin 0" \
		"$(jsel $T/snoop.delay '$2 == "nullb0" { print $2, $3, $4, $5, $7 }')"
else
	# The native io:io_start names a lower bio through the submitting
	# task's direct I/O; dm-delay's worker has none, so the disk's write
	# carries no file and --file leaves it out. Naming it there too is
	# the io events' open item (every layer names the file, whoever
	# submits), which the BPF backend already meets.
	skip "dm-delay: the disk below names the file too, from the delay's worker" \
		"the native io events name no file for a bio a worker sends down"
fi

# --- Metadata read during a direct read is not named as the file ---
# Ten extents with holes between them: more than the inode holds, so the
# extent tree has a leaf block that the direct read must read (metadata,
# in the block device's page cache) after drop_caches.
for i in 0 1 2 3 4 5 6 7 8 9; do
	$DD if=/dev/urandom of=/mnt/a/dir/meta.bin bs=4k count=1 seek=$((i * 2)) \
		oflag=direct conv=notrunc status=none
done
drop_caches
snoop_start snoop.meta --json snoop --device "$FS_DISK"
$DD if=/mnt/a/dir/meta.bin of=/dev/null bs=80k count=1 iflag=direct status=none
sleep 1
snoop_stop INT
check_cmp "metadata: dd read metadata (<none>) on $FS_DISK during the direct read" -ge \
	"$(jsel $T/snoop.meta '$1 == "dd" && $3 == "R" && $5 == "<none>"' | wc -l)" 1
check_eq "metadata: what is named meta.bin is the file's 40 KiB of data, all user memory" \
	"40960 0" \
	"$(jsel $T/snoop.meta '$5 == "/mnt/a/dir/meta.bin" { s += $4; if (!and($6, 0x20)) bad++ }
		END { print s + 0, bad + 0 }')"
check_eq "metadata: the data bios on $FS_DISK at the extents' offsets, the holes skipped" \
	"0 8192 16384 24576 32768 40960 49152 57344 65536 73728" \
	"$(jsel $T/snoop.meta '$5 == "/mnt/a/dir/meta.bin" && $2 == "'"$FS_DISK"'" { print $7 }' |
		sort -n | xargs)"

# --- Summaries ---
snoop_start snoop.bytes snoop --summary bytes --device nullb0
$DD if=/dev/zero of=$NULLB bs=64k count=4 seek=8192 oflag=direct status=none &
ddpid=$!
wait $ddpid
sleep 1
snoop_stop INT
check_eq "snoop --summary bytes: by device, app and pid" \
	"$(printf '%10s %20s %10s %15s\n' DEVICE APP PID BYTES nullb0 dd $ddpid 262144)" \
	"$(cat $T/snoop.bytes)"

drop_caches
snoop_start snoop.waits snoop --summary waits --file /mnt/a/dir/known
cat /mnt/a/dir/known.bin >/dev/null &
catpid=$!
wait $catpid
sleep 1
snoop_stop INT
check_match "snoop --summary waits: cat waited on known.bin" \
	"^ +$catpid cat +[1-9][0-9]* +[0-9]+\.[0-9]{3} +[0-9]+\.[0-9]{3}\$" \
	"$(cat $T/snoop.waits)"

# -W: a line per wait, marked WAIT, named as the summary's
drop_caches
snoop_start snoop.wlines snoop -W --file /mnt/a/dir/known
cat /mnt/a/dir/known.bin >/dev/null &
catpid=$!
wait $catpid
sleep 1
snoop_stop INT
check_cmp "snoop -W: cat's waits on known.bin are lines ending in WAIT" -ge \
	"$(awk -v p=$catpid '$2 == "cat" && $3 == p && $8 == "/mnt/a/dir/known.bin" && $9 == "WAIT"' \
		$T/snoop.wlines | wc -l)" 1
echo "# snoop -W: $(grep -c WAIT $T/snoop.wlines) waits, $(tail -1 $T/snoop.wlines.err)"
sed -n '1,12p' $T/snoop.wlines | sed 's/^/# /'

snoop_start snoop.lat snoop --summary latency --file /mnt/a/dir/snoop --duration 4
$DD if=/mnt/a/dir/snoop.bin of=/dev/null bs=64k count=2 iflag=direct status=none
wait $snpid
check_eq "snoop --summary latency --duration: the file's 2 reads, on dm and on its disk" \
	" /mnt/a/dir/snoop.bin (latency, us) 4" \
	"$(awk '/latency, us/ { f = $0 } /\|/ { n += $NF }
		END { print f, n }' $T/snoop.lat)"
check_fails "snoop: a bad summary is a usage error" "expected bytes, latency or waits" \
	iotally snoop --summary nonsense

# --- A buffer too small for a flood: lost is counted, the I/O unharmed ---
$DD if=/dev/urandom of=$T/flood.src bs=4k count=1024 status=none
snoop_start snoop.flood snoop --buffer-kb 1 --device nullb0
ddpids=
for j in 0 1 2 3; do
	$DD if=$T/flood.src of=$NULLB bs=4k seek=$((100000 + j * 1024)) oflag=direct status=none &
	ddpids="$ddpids $!"
done
wait_ok=0
for p in $ddpids; do wait "$p" || wait_ok=1; done
sleep 1
snoop_stop INT
check_eq "flood: snoop ends cleanly" 0 "$rc"
lost=$(sed -n 's/^snoop: [0-9]* unmatched, \([0-9]*\) lost$/\1/p' $T/snoop.flood.err)
echo "# flood: $(tail -1 $T/snoop.flood.err), $(($(wc -l <$T/snoop.flood) - 1)) lines"
check_cmp "flood: a 1 KiB buffer loses records, and says how many" -gt "${lost:-0}" 0
sum_src=$(md5sum <$T/flood.src)
good=0
for j in 0 1 2 3; do
	[ "$($DD if=$NULLB bs=4k skip=$((100000 + j * 1024)) count=1024 iflag=direct status=none |
		md5sum)" = "$sum_src" ] && good=$((good + 1))
done
check_eq "flood: every write reached the disk intact" "4 0" "$good $wait_ok"

# --- A consumer that stops reading: the I/O goes on, the loss is counted ---
# snoop stopped (SIGSTOP) with its buffer small: the writes complete at
# their own pace, the events that found the buffer full are counted when
# snoop reads again, and nothing waits for it.
snoop_start snoop.stalled snoop --buffer-kb 4 --device nullb0
kill -STOP "$snpid"
uptime_cs() { awk '{ sub(/\./, "", $1); print $1 + 0 }' /proc/uptime; }
start_cs=$(uptime_cs)
$DD if=$T/flood.src of=$NULLB bs=4k seek=110000 oflag=direct status=none
stalled_rc=$?
stalled_cs=$(($(uptime_cs) - start_cs))
kill -CONT "$snpid"
sleep 1
snoop_stop INT
echo "# stalled consumer: 1024 direct writes in ${stalled_cs}0 ms; $(tail -1 $T/snoop.stalled.err)"
check_eq "stalled consumer: the writes complete while snoop is stopped" 0 "$stalled_rc"
check_eq "stalled consumer: snoop ends cleanly once it runs again" 0 "$rc"
lost=$(sed -n 's/^snoop: [0-9]* unmatched, \([0-9]*\) lost$/\1/p' $T/snoop.stalled.err)
check_cmp "stalled consumer: what found its buffer full is counted as lost" -gt "${lost:-0}" 0
check_eq "stalled consumer: the writes reached the disk intact" "$(md5sum <$T/flood.src)" \
	"$($DD if=$NULLB bs=4k skip=110000 count=1024 iflag=direct status=none | md5sum)"

# --- A program that cannot load: one line, non-zero ---
if [ $BACKEND = bpf ]; then
	run env IOTALLY_BPF_TEST_BAD_ATTACH=iotally_no_such_function \
		iotally --backend bpf snoop --duration 1
	echo "# a program that cannot attach: exit $rc: $err"
	check_match "bpf: a program that cannot attach is one line, exit 5" \
		"^5:iotally: snoop: cannot load the BPF programs: attach point iotally_no_such_function: .+\$" \
		"$rc:$err"
	check_eq "bpf: ... one line on stderr, nothing on stdout" "1:" \
		"$(printf '%s\n' "$err" | wc -l):$out"
	run env IOTALLY_BPF_TEST_BAD_ATTACH=iotally_no_such_function \
		iotally -v --backend bpf snoop --duration 1
	check_match "bpf -v: the backend line, libbpf's log if any, the same error line last, exit 5" \
		"^5:iotally: snoop: cannot load the BPF programs: attach point iotally_no_such_function: [^(]+\$" \
		"$rc:$(printf '%s\n' "$err" | tail -1)"
	printf '%s\n' "$err" | sed 's/^/# -v: /'
	# a program the verifier refuses (it writes to a bio): the load fails
	# as a whole, and -v shows why in the verifier's own words
	run env IOTALLY_BPF_TEST_VERIFIER_REFUSES=1 iotally --backend bpf snoop --duration 1
	echo "# a program the verifier refuses: exit $rc: $err"
	check_match "bpf: a program the verifier refuses is one line, exit 5" \
		"^5:1:iotally: snoop: cannot load the BPF programs: load: .+ \(-v shows libbpf's log\)\$" \
		"$rc:$(printf '%s\n' "$err" | wc -l):$err"
	run env IOTALLY_BPF_TEST_VERIFIER_REFUSES=1 iotally -v --backend bpf snoop --duration 1
	check_match "bpf -v: the verifier's log names the refused write" "only read is supported" "$err"
	check_match "bpf -v: ... and the error line comes last, exit 5" \
		"^5:iotally: snoop: cannot load the BPF programs: load: [^(]+\$" \
		"$rc:$(printf '%s\n' "$err" | tail -1)"
	printf '%s\n' "$err" | grep -B2 -A2 'only read' | sed 's/^/# -v: /'
	# the programs load again without it: nothing was left behind
	snoop_start snoop.after --json snoop --device nullb0
	$DD if=$NULLB of=/dev/null bs=4k count=8 iflag=direct status=none
	sleep 1
	snoop_stop INT
	check_eq "bpf: after a refused load, snoop runs and sees dd's 8 direct reads" "0:8" \
		"$rc:$(jsel $T/snoop.after '$1 == "dd" && $2 == "nullb0" && $3 == "R" && $4 == 4096' | wc -l)"
fi

umount /mnt/d
umount /mnt/a
dmsetup remove snoopdelay
dmsetup remove snoopfs
[ $BACKEND = native ] && release_comm_probes snoop-keep
tap_finish
