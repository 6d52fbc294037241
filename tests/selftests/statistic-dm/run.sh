#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The device-mapper exploiter of the generic statistics layer: every mapped
# device created while dm_mod.statistic is on has an interface
# dm-<major>:<minor> with request sizes, latencies,
# I/Os in flight and throughput, all off until started. fio reads and writes
# a dm-delay device (10 ms) over dm-zero while the data file is read, and
# the statistics must account for exactly the I/O fio did. Latencies run
# from a bio's arrival, so dm-delay's 10 ms count.
. ../lib.sh

STATS=/sys/kernel/debug/statistics
SECTORS=131072
READS=400	# 4 KiB each
WRITES=100	# 8 KiB each
DEPTH=4

# Off by default: a device created before dm_mod.statistic is switched on
# has no interface.
P=/sys/module/dm_mod/parameters/statistic
check_eq "dm_mod.statistic: off by default" N "$(cat $P)"
dmsetup create --noudevsync sdm-plain --table "0 8 zero" || bail "cannot create a dm-zero device"
I_PLAIN=dm-$(dmsetup info -c --noheadings -o major,minor sdm-plain | tr -d ' ')
check_eq "a device created while it is off has no interface" no \
	"$([ -e "$STATS/$I_PLAIN" ] && echo yes || echo no)"
echo 1 >$P || bail "cannot switch dm_mod.statistic on"

dmsetup create --noudevsync sdm-zero --table "0 $SECTORS zero" ||
	bail "cannot create the dm-zero device"
dmsetup create --noudevsync sdm-delay \
	--table "0 $SECTORS delay /dev/mapper/sdm-zero 0 10" ||
	bail "cannot create the dm-delay device"
I=dm-$(dmsetup info -c --noheadings -o major,minor sdm-delay | tr -d ' ')
D=$STATS/$I

I_ZERO=dm-$(dmsetup info -c --noheadings -o major,minor sdm-zero | tr -d ' ')
check_eq "an interface per mapped device" "yes yes" \
	"$([ -d "$D" ] && echo yes) $([ -d "$STATS/$I_ZERO" ] && echo yes)"
check_eq "root-only files: data 0400, definition 0600" "400 600" \
	"$(stat -c %a "$D/data") $(stat -c %a "$D/definition")"
check_eq "the statistics, their types and units, all off" \
	"name=request_sizes_read on=0 type=list units=bytes/incidents
name=request_sizes_write on=0 type=list units=bytes/incidents
name=latencies_read on=0 type=array units=microseconds/incidents
name=latencies_write on=0 type=array units=microseconds/incidents
name=pending on=0 type=range units=requests/incidents
name=throughput on=0 type=history units=bytes/incidents" \
	"$(awk '{ print $1, $2, $3, $NF }' "$D/definition")"
check_eq "latencies: log2 scale from 0, base interval 1" \
	"base_interval=1 scale=log2" \
	"$(grep '^name=latencies_read ' "$D/definition" |
		grep -o 'base_interval=[^ ]* scale=[^ ]*')"
check_eq "throughput: bytes per second over the last minute" \
	"entries_max=60 mode=products period=1000000" \
	"$(grep '^name=throughput ' "$D/definition" | grep -o 'entries_max=.*period=[0-9]*')"

# Off by default: I/O leaves no trace.
/usr/bin/dd if=/dev/mapper/sdm-delay of=/dev/null bs=4096 count=8 iflag=direct status=none
check_eq "off by default: I/O is not counted" "" \
	"$(grep -E '^request_sizes_|^pending [1-9]' "$D/data")"

run sh -c "echo on=1 >$D/definition"
check_eq "on=1 starts every statistic" "0 1 1 1 1 1 1" \
	"$rc $(awk '{ print $2 }' "$D/definition" | sed 's/on=//' | tr '\n' ' ' | sed 's/ $//')"

# fio in the background; the data file is read while it runs.
fio --name=reads --filename=/dev/mapper/sdm-delay --direct=1 --rw=randread \
	--bs=4k --ioengine=libaio --iodepth=$DEPTH --size=$((SECTORS * 512)) \
	--io_size=$((READS * 4096)) --eta=never --output=/tmp/fio-reads.out >/dev/null 2>&1 &
fio_pid=$!
reads=0 bad=0 last=0
while kill -0 $fio_pid 2>/dev/null; do
	snap=$(cat "$D/data") || bad=$((bad + 1))
	n=$(printf '%s\n' "$snap" | awk '$1 == "request_sizes_read" && $2 == "0x1000" { print $3 }')
	n=${n:-0}
	[ "$n" -lt "$last" ] && bad=$((bad + 1))
	last=$n
	reads=$((reads + 1))
done
wait $fio_pid
check_eq "fio reads succeed" 0 "$?"
check_eq "reading the data file while fio runs: counts never go back" "0" "$bad"
check_cmp "the data file was read while fio ran" -ge "$reads" 1

fio --name=writes --filename=/dev/mapper/sdm-delay --direct=1 --rw=randwrite \
	--bs=8k --ioengine=libaio --iodepth=$DEPTH --size=$((SECTORS * 512)) \
	--io_size=$((WRITES * 8192)) --eta=never --output=/tmp/fio-writes.out >/dev/null 2>&1
check_eq "fio writes succeed" 0 "$?"

data=$(cat "$D/data")
stat_lines() { printf '%s\n' "$data" | grep "^$1 "; }
check_eq "request sizes, reads: fio's block size, once per read" \
	"request_sizes_read 0x1000 $READS" "$(stat_lines request_sizes_read)"
check_eq "request sizes, writes: fio's block size, once per write" \
	"request_sizes_write 0x2000 $WRITES" \
	"$(stat_lines request_sizes_write | grep ' 0x2000 ')"
check_eq "latencies, reads: one per read" "$READS" \
	"$(stat_lines latencies_read | awk '{ n += $3 } END { print n }')"
check_eq "latencies, writes: one per write" "$WRITES" \
	"$(stat_lines latencies_write | awk '{ n += $3 } END { print n }')"
# dm-delay waits 3 jiffies; a TCG guest on a busy host sometimes takes a
# burst of timer ticks, so a few bios leave early: allow a tenth.
check_cmp "latencies: the 10 ms delay counts (at most a tenth up to 4096 us)" -le \
	"$(stat_lines 'latencies_[a-z]*' | awk '$2 ~ /^<=/ && substr($2, 3) + 0 <= 4096 { n += $3 }
		END { print n + 0 }')" \
	"$(((READS + WRITES) / 10))"
check_eq "latencies: 22 intervals up to 2^20 us and the rest" \
	"latencies_read <=0 latencies_read <=1048576 latencies_read >1048576 23" \
	"$(stat_lines latencies_read | sed -n '1p;22p;23p' | cut -d' ' -f1,2 |
		tr '\n' ' ')$(stat_lines latencies_read | wc -l)"
pending=$(stat_lines pending)
check_eq "pending: one sample per I/O" "$((READS + WRITES))" "$(echo "$pending" | cut -d' ' -f2)"
check_eq "pending: at least itself, at most fio's queue depth" "1 1" \
	"$(echo "$pending" | awk -v d=$DEPTH '{ print ($3 >= 1), ($5 <= d && $5 >= $3) }')"
check_eq "throughput: the bytes fio moved, over its periods" \
	"$((READS * 4096 + WRITES * 8192))" \
	"$(stat_lines throughput | awk '{ n += $3 } END { print n }')"
check_match "throughput: one line per second, printk-style time" \
	'^throughput \[[0-9]+\.[0-9]{6}\] [0-9]+$' "$(stat_lines throughput | tail -n 1)"

run sh -c "echo on=0 >$D/definition"
/usr/bin/dd if=/dev/mapper/sdm-delay of=/dev/null bs=4096 count=8 iflag=direct status=none
check_eq "on=0: stopped statistics keep their data and count nothing" \
	"request_sizes_read 0x1000 $READS" "$(grep '^request_sizes_read ' "$D/data")"
run sh -c "echo data=reset >$D/definition"
check_eq "data=reset empties the lists" "" "$(grep '^request_sizes_' "$D/data")"

dmsetup remove sdm-delay
dmsetup remove sdm-zero
check_eq "removing the device removes its interface" "no" \
	"$([ -e "$D" ] && echo yes || echo no)"

check_eq "the device made while it was off still has none" no \
	"$([ -e "$STATS/$I_PLAIN" ] && echo yes || echo no)"
dmsetup remove sdm-plain
echo 0 >$P
tap_finish
