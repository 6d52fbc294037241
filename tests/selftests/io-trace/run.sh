#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The io trace events (Documentation/trace/io-provider.rst).
#
# A null_blk disk (memory backed, blk-mq, completions 3 ms after
# submission on a timer, so that tasks really wait even under TCG, where
# the code between a submission and its wait can take a millisecond of
# the host's time, and at most 32 KiB per
# request, so that big bios are split) carries: ext4 on dm-linear, a
# dm-crypt device, raw block-device I/O, and a loop device over a file of
# the ext4.  Each phase runs a known workload with every io event on in a
# tracefs instance of its own and checks what the events say: every
# io:io_start has exactly one io:io_done with the same device, sector, size
# and file;
# file names (full paths, names, directories, mounts), offsets, open flags
# and file systems; waits that pair up in the task that waits, after the
# io:io_start of what it waits for; no second io:io_start or io:io_done for split
# or merged I/O; and every layer: the disk under dm-linear, dm-crypt and
# a loop device fires for the bios sent to it, with the same file; so do
# the pool's data device under dm-thin and the legs under md raid1. NFS
# READ and WRITE RPCs fire for the server, to a kernel NFS server in the
# same guest.
. ../lib.sh

T=/tmp/io-trace
mkdir -p $T /mnt/a /mnt/up
TR=/sys/kernel/tracing
INST=$TR/instances/io-trace-test
FS_SECTORS=262144		# the first 128 MiB: ext4 on dm-linear
CRYPT_SECTORS=65536		# then 32 MiB of dm-crypt
RAW_SECTOR=393216		# raw I/O from 192 MiB on
DD=/usr/bin/dd

[ -d $TR/events/io ] || bail "no io trace events in $TR"
COMPLETION_NS=3000000
# KASAN makes the code between a submission and its wait several times slower
kasan_kernel && COMPLETION_NS=20000000
modprobe null_blk nr_devices=1 queue_mode=2 gb=1 memory_backed=1 irqmode=2 \
	completion_nsec=$COMPLETION_NS max_sectors=64 submit_queues=1 || bail "modprobe null_blk"
NULLB=/dev/nullb0
[ -b $NULLB ] || bail "$NULLB is missing"
modprobe loop 2>/dev/null
dmsetup create --noudevsync iofs --table "0 $FS_SECTORS linear $NULLB 0" ||
	bail "dm-linear"
KEY=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
dmsetup create --noudevsync iocrypt \
	--table "0 $CRYPT_SECTORS crypt aes-xts-plain64 $KEY 0 $NULLB $FS_SECTORS" ||
	bail "dm-crypt"
# No I/O but the tests' own: inode tables and journal zeroed now, not by
# ext4lazyinit later; no periodic writeback, no journal commit timer, no
# block bitmaps read ahead after mount (an io:io_done of a bio whose io:io_start
# came before a phase began tracing, or an io:io_start whose io:io_done comes
# after it ended, would not pair).
/sbin/mke2fs -q -F -t ext4 -b 4096 -E lazy_itable_init=0,lazy_journal_init=0 /dev/mapper/iofs ||
	bail "mkfs.ext4"
echo 0 >/proc/sys/vm/dirty_writeback_centisecs
EXT4_OPTS=commit=600,no_prefetch_block_bitmaps
mount -t ext4 -o $EXT4_OPTS /dev/mapper/iofs /mnt/a || bail "mount ext4"
mkdir -p /mnt/a/dir

# devno NAME: the "major,minor" of /sys/block/NAME, as the events print it
devno() { tr ':' ',' </sys/class/block/$1/dev; }
# dmname NAME: the dm-N disk of a device-mapper device
dmname() { dmsetup info -c --noheadings -o blkdevname "$1"; }
FS_DISK=$(dmname iofs)
NULLB_DEV=$(devno nullb0)
FS_DEV=$(devno "$FS_DISK")
CRYPT_DEV=$(devno "$(dmname iocrypt)")
[ -n "$FS_DISK" ] && [ -n "$FS_DEV" ] && [ -n "$CRYPT_DEV" ] || bail "cannot name the dm devices"

mkdir -p $INST || bail "cannot make a tracefs instance"
# tracing's comm probes stay registered throughout (lib.sh)
keep_comm_probes io-trace-keep || bail "cannot keep the comm probes registered"
echo 16384 >$INST/buffer_size_kb
# trace_begin: an empty buffer, every io event on. The buffer records
# before the events are enabled: an io:io_start that fires once they are is
# then always in the buffer, and so is the io:io_done that pairs with it (a
# bio that started earlier, while they were off, fires no io:io_done).
# io:io_start goes first: a bio submitted while another io event but not
# io:io_start was on would fire an io:io_done with no io:io_start.
trace_begin() {
	echo 0 >$INST/tracing_on
	echo >$INST/trace
	echo 1 >$INST/tracing_on
	echo 1 >$INST/events/io/io_start/enable
	echo 1 >$INST/events/io/enable
}
# idle: wait (10 s at most) until no block device has I/O in flight
idle() {
	_i=0
	while [ $_i -lt 100 ] && grep -qv '^ *0 *0$' /sys/block/*/inflight; do
		_i=$((_i + 1))
		sleep 0.1
	done
}
# trace_end NAME: every event since trace_begin in $T/NAME (events.awk),
# once what the phase started has completed
trace_end() {
	idle
	echo 0 >$INST/tracing_on
	echo 0 >$INST/events/io/enable
	awk -f ./events.awk $INST/trace >$T/$1
	check_eq "$1: no event lost" 0 \
		"$(awk '/entries-in-buffer/ { split($3, a, "/")
			print (a[1] == a[2]) ? 0 : 1 }' $INST/trace)"
}
# sel FILE AWK-CONDITION: the selected events of FILE (fields as named in
# events.awk: $1 ev, $2 pid, $3 comm, $4 dev, $5 rwbs, $6 sector, $7 bytes,
# $8 lsector, $9 flags, $10 disk, $11 driver, $12 error, $13 resid, $14 fsdev,
# $15 fstype, $16 ino, $17 off, $18 oflags, $19 path, $20 line, $21 mount,
# $22 fspath, $23 name, $24 dirname)
sel() { awk -F'|' "$HEX $2" "$1"; }
HEX='function hex(s,  i, n) { n = 0; sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return n }'

# pairs FILE NAME: every start has one done with the same dev, sector,
# bytes, and the same file: what io:io_start saw (b_flags, file system,
# inode, offset, open flags), which io:io_done reports
pairs() {
	sel $T/$1 '$1 == "start" { print $4, $6, $7 }' | sort >$T/$1.starts
	sel $T/$1 '$1 == "done" { print $4, $6, $7 }' | sort >$T/$1.dones
	check_cmp "$2: io:io_start fired" -gt "$(wc -l <$T/$1.starts)" 0
	check_eq "$2: every io:io_start has one io:io_done, same device, sector and size" \
		"$(cat $T/$1.starts)" "$(cat $T/$1.dones)"
	sel $T/$1 '$1 == "start" { print $4, $6, $7, $9, $14, $15, $16, $17, $18 }' |
		sort >$T/$1.start-files
	sel $T/$1 '$1 == "done" { print $4, $6, $7, $9, $14, $15, $16, $17, $18 }' |
		sort >$T/$1.done-files
	check_eq "$2: each io:io_done has its io:io_start's flags, fs, inode, offset, oflags" \
		"" "$(diff $T/$1.start-files $T/$1.done-files | grep '^[<>]' | head -n 6)"
	check_eq "$2: every io:io_done is error=0 resid=0" "" \
		"$(sel $T/$1 '$1 == "done" && ($12 != 0 || $13 != 0)')"
}
# waits FILE NAME: in every task, wait_start and wait_done alternate, the
# done repeating its start's buffer and file (io:io_wait_done names nothing:
# device, sector, size, inode and offset), and none is left open
waits() {
	check_eq "$2: waits pair up in the waiting task" "" "$(sel $T/$1 '
		{ key = $4 " " $6 " " $7 " " $16 " " $17 }
		$1 == "wait_start" { if ($2 in open) print "nested wait in " $2; open[$2] = key }
		$1 == "wait_done" { if (!($2 in open)) print "wait_done without wait_start in " $2
			else if (open[$2] != key)
				print "wait_done differs in " $2 ": " open[$2] " / " key
			delete open[$2] }
		END { for (p in open) print "open wait in " p }')"
}
drop_caches() { sync; echo 3 >/proc/sys/vm/drop_caches; }

# --- The event formats: one class, four events, the fields of the spec ---
for ev in io_start io_done io_wait_start io_wait_done; do
	check_ok "io:$ev has a format" cat $TR/events/io/$ev/format
	for f in dev sector lsector bytes flags opf rwbs end_io error resid disk driver \
		fsdev ino offset fstype oflags path mount fspath; do
		echo "$out" | grep -q "field:.* $f\(\[[0-9]*\]\)\{0,1\};" ||
			fail "io:$ev has field $f" "$out"
	done
done
for f in path mount fspath; do
	check_match "$f is a dynamic string" "__data_loc char\\[\\] $f;" \
		"$(cat $TR/events/io/io_start/format)"
done
check_eq "fi_name and fi_dirname are not carried (derived from path)" "" \
	"$(grep -E 'field:.* (name|dirname);' $TR/events/io/io_start/format)"
check_eq "the events are the tracepoints' own names" "io_done io_start io_wait_done io_wait_start" \
	"$(for d in $TR/events/io/*/; do basename "$d"; done | sort | tr '\n' ' ' | sed 's/ $//')"

# --- Buffered writes of a known file, fsync: page-cache I/O, named ---
# fsync() gives the writeback its struct file: the full path and the open
# flags. dm-linear maps sector for sector: the disk under it fires for the
# same sectors, sizes and file.
K=/mnt/a/dir/known.bin
trace_begin
$DD if=/dev/urandom of=$K bs=64k count=4 conv=fsync status=none
trace_end buffered-write
pairs buffered-write "buffered write"
F=$T/buffered-write
ON_FS='$4 == "'"$FS_DEV"'"'
ON_NULLB='$4 == "'"$NULLB_DEV"'"'
check_eq "buffered write: the file's bytes are written once, named" 262144 \
	"$(sel $F '$1 == "start" && '"$ON_FS"' && $19 == "'$K'" && $5 ~ /W/ { s += $7 }
		END { print s + 0 }')"
check_eq "buffered write: offsets cover the file exactly" "0 262144" \
	"$(sel $F '$1 == "start" && '"$ON_FS"' && $19 == "'$K'" { print $17, $17 + $7 }' |
		sort -n | awk 'NR == 1 { lo = $1; hi = $2; next } $1 == hi { hi = $2 }
			END { print lo, hi }')"
check_eq "buffered write: fs and type of the file" "$FS_DEV ext4" \
	"$(sel $F '$1 == "start" && $19 == "'$K'" { print $14, $15 }' | sort -u)"
check_eq "buffered write: PAGEIO, WRITE, dd's open flags (O_WRONLY)" "0x110 1" \
	"$(sel $F '$1 == "start" && $19 == "'$K'" {
		printf "0x%x %d\n", and(hex($9), 0x130), and(hex($18), 3) }' | sort -u)"
check_eq "buffered write: the inode number" "$(stat -c %i $K)" \
	"$(sel $F '$1 == "start" && $19 == "'$K'" { print $16 }' | sort -u)"
check_eq "buffered write: mount, path in the file system, name, directory" \
	"/mnt/a /dir/known.bin known.bin /mnt/a/dir" \
	"$(sel $F '$1 == "start" && $19 == "'$K'" { print $21, $22, $23, $24 }' | sort -u)"
check_cmp "fsync: metadata (the journal) is <none>" -gt \
	"$(sel $F '$1 == "start" && $19 == "<none>" && '"$ON_FS"'' | wc -l)" 0
check_eq "fsync: <none> has no name, directory, mount or file system" \
	"<none> <none> <none> <none> <none> -1 0" \
	"$(sel $F '$1 == "start" && $19 == "<none>" { print $21, $22, $23, $24, $15, $17, $16 }' |
		sort -u)"
# null_blk has no volatile write cache: submit_bio_noacct() strips the
# journal's preflush and FUA before the bio enters a queue
check_eq "fsync: no flush or FUA reaches disks without a write cache" "" \
	"$(sel $F '$1 == "start" && $5 ~ /F/')"
check_eq "buffered write: the disk under dm-linear fires for the same sectors, sizes and file" \
	"$(sel $F '$1 == "start" && '"$ON_FS"' && $19 == "'$K'" { print $6, $7, $17 }' | sort)" \
	"$(sel $F '$1 == "start" && '"$ON_NULLB"' && $19 == "'$K'" { print $6, $7, $17 }' | sort)"
check_eq "buffered write: the disk's events name the disk and its driver" "nullb0 null_blk" \
	"$(sel $F '$1 == "start" && '"$ON_NULLB"' { print $10, $11 }' | sort -u)"

# --- Writeback by the flusher: the full path, through the mount ---
# A buffered write without fsync, written back when sync wakes the
# flusher: no struct file, only the folio's inode. Its path in its file
# system follows the path of its file system's mount in the initial mount
# namespace (before: path and mount <unknown> outside the root file system)
WB=/mnt/a/dir/writeback.bin
$DD if=/dev/urandom of=$WB bs=64k count=2 status=none
trace_begin
sync
trace_end writeback
pairs writeback "writeback"
F=$T/writeback
check_eq "writeback: the file's bytes, named with full path and mount" \
	"131072 $WB /mnt/a /dir/writeback.bin" \
	"$(sel $F '$1 == "start" && '"$ON_FS"' && $16 == "'"$(stat -c %i $WB)"'" { s += $7
		n[$19 " " $21 " " $22] } END { for (k in n) print s + 0, k }')"
check_cmp "writeback: the flusher (a kworker) wrote them" -gt \
	"$(sel $F '$1 == "start" && $3 ~ /^kworker/ && $19 == "'$WB'"' | wc -l)" 0
check_eq "writeback: the disk under dm-linear, the same names" "$WB /mnt/a" \
	"$(sel $F '$1 == "start" && '"$ON_NULLB"' && $22 == "/dir/writeback.bin" {
		print $19, $21 }' | sort -u)"

# --- Writeback after a rename above the mount, and after a mount move ---
# root_mount_path() keeps the mount it found per CPU until a mount or
# umount changes mount_lock's sequence, and builds the path every time: a
# directory renamed above the mount (no mount change) and the file system
# mounted elsewhere (a change) both show in the next writeback's path.
# wbfile FILE: FILE written, then written back by the flusher
wbfile() {
	$DD if=/dev/urandom of="$1" bs=64k count=1 status=none
	sync
}
# wbnames NAME FILE: the path and mount the flusher's io:io_start events
# of FILE's inode name, in the trace $T/NAME
wbnames() {
	sel $T/$1 '$1 == "start" && '"$ON_FS"' && $16 == "'"$(stat -c %i "$2")"'" &&
		$3 ~ /^kworker/ { print $19, $21 }' | sort -u
}
umount /mnt/a || bail "umount /mnt/a"
mkdir -p $T/outer/m
mount -t ext4 -o $EXT4_OPTS /dev/mapper/iofs $T/outer/m || bail "mount ext4 on $T/outer/m"
# One trace (the kept mounts live as long as the events are on): a
# writeback, the rename, another writeback
trace_begin
wbfile $T/outer/m/dir/wb-before.bin
mv $T/outer $T/renamed
wbfile $T/renamed/m/dir/wb-after.bin
trace_end wb-rename
pairs wb-rename "writeback around a rename"
check_eq "writeback: the file system mounted elsewhere, its new mount" \
	"$T/outer/m/dir/wb-before.bin $T/outer/m" \
	"$(wbnames wb-rename $T/renamed/m/dir/wb-before.bin)"
check_eq "writeback: a directory above the mount renamed, the new path" \
	"$T/renamed/m/dir/wb-after.bin $T/renamed/m" \
	"$(wbnames wb-rename $T/renamed/m/dir/wb-after.bin)"
# Then the file system moves back (a mount change) within one trace
trace_begin
wbfile $T/renamed/m/dir/wb-away.bin
umount $T/renamed/m || bail "umount $T/renamed/m"
mount -t ext4 -o $EXT4_OPTS /dev/mapper/iofs /mnt/a || bail "mount ext4 again"
wbfile /mnt/a/dir/wb-back.bin
trace_end wb-remount
pairs wb-remount "writeback around a remount"
check_eq "writeback: before the umount, the old mount" \
	"$T/renamed/m/dir/wb-away.bin $T/renamed/m" \
	"$(wbnames wb-remount /mnt/a/dir/wb-away.bin)"
check_eq "writeback: mounted back, the first mount's path again" \
	"/mnt/a/dir/wb-back.bin /mnt/a" "$(wbnames wb-remount /mnt/a/dir/wb-back.bin)"

# --- A path of 4,000 bytes: its events fit, its names cut at the front ---
# Three names of at most 1023 bytes each keep an event within a ring
# buffer page; longer ones keep their end after "..." (the events would
# not fit, and the ring buffer would drop them unseen).
deep=/mnt/a/$(printf '%0255d/' 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 | tr 0 d)
deep=$deep$(printf '%0144d' 0 | tr 0 e)
long=$deep/long.bin
mkdir -p "$deep" || bail "mkdir of a 3,991-byte path"
check_eq "long path: 4,000 bytes" 4000 "${#long}"
trace_begin
$DD if=/dev/zero of="$long" bs=4096 count=2 oflag=direct status=none
trace_end long-path
F=$T/long-path
ino=$(stat -c %i "$long")
check_eq "long path: both direct writes fire on dm-linear, named by their file" 2 \
	"$(sel $F '$1 == "start" && '"$ON_FS"' && $16 == "'$ino'"' | wc -l)"
# carried NAME: what an event carries of NAME, 1,023 bytes or longer
carried() { printf '...%s' "$(printf '%s' "$1" | tail -c 1020)"; }
check_eq "long path: path, mount and fspath: 1023 bytes at most, the end after ..." \
	"1023 $(carried "$long") /mnt/a 1023 $(carried "${long#/mnt/a}")" \
	"$(sel $F '$1 == "start" && '"$ON_FS"' && $16 == "'$ino'" {
		print length($19), $19, $21, length($22), $22 }' | sort -u)"
check_eq "long path: name and directory, derived from the cut path" \
	"long.bin ...$(printf '%s' "$deep" | tail -c 1011)" \
	"$(sel $F '$1 == "start" && '"$ON_FS"' && $16 == "'$ino'" { print $23, $24 }' | sort -u)"
top=${deep#/mnt/a/}
rm -rf "/mnt/a/${top%%/*}"

# Three long names at once: a file 1,012 bytes deep in its file system,
# bind-mounted 1,008 bytes deep (path 1,016 bytes). The five strings the
# events carried before (with fi_name and fi_dirname) came to 4,051 bytes
# and did not fit in a page: the events were dropped unseen. The three
# carried now do.
bsrc=/mnt/a/$(printf '%0250d/' 1 2 3 | tr 0 s)$(printf '%0250d' 0 | tr 0 t)
bdst=/tmp/$(printf '%0250d/' 1 2 3 | tr 0 m)$(printf '%0250d' 0 | tr 0 n)
mkdir -p "$bsrc" "$bdst" && mount -o bind "$bsrc" "$bdst" || bail "bind mount of a deep directory"
check_eq "bind: path, mount and fspath of 1,016, 1,008 and 1,012 bytes" "1016 1008 1012" \
	"$((${#bdst} + 8)) ${#bdst} $((${#bsrc} - 6 + 8))"
trace_begin
$DD if=/dev/zero of="$bdst/fit.bin" bs=4096 count=1 oflag=direct status=none
trace_end bind-path
F=$T/bind-path
check_eq "bind: the direct write fires on dm-linear with all three names whole" \
	"$bdst/fit.bin $bdst ${bsrc#/mnt/a}/fit.bin" \
	"$(sel $F '$1 == "start" && '"$ON_FS"' && $16 == "'"$(stat -c %i "$bdst/fit.bin")"'" {
		print $19, $21, $22 }' | sort -u)"
umount "$bdst"
top=${bsrc#/mnt/a/}
rm -rf "/mnt/a/${top%%/*}"

# --- Buffered reads after dropping the cache: named, offsets, waits ---
drop_caches
trace_begin
cat $K >/dev/null
trace_end buffered-read
pairs buffered-read "buffered read"
F=$T/buffered-read
# Readahead gives its bios cat's struct file: the full path
check_eq "buffered read: the file's bytes are read once, named" 262144 \
	"$(sel $F '$1 == "start" && '"$ON_FS"' && $19 == "'$K'" { s += $7 } END { print s + 0 }')"
check_eq "buffered read: READ, PAGEIO" "0x50" \
	"$(sel $F '$1 == "start" && $19 == "'$K'" {
		printf "0x%x\n", and(hex($9), 0x170) }' | sort -u)"
check_eq "buffered read: the disk under dm-linear reads the same bytes of the file" 262144 \
	"$(sel $F '$1 == "start" && '"$ON_NULLB"' && $19 == "'$K'" { s += $7 }
		END { print s + 0 }')"
waits buffered-read "buffered read"
# A folio wait knows the inode, not the open file: the mount of its file
# system in the initial namespace gives the full path
check_cmp "buffered read: cat waits for the file's folios" -gt \
	"$(sel $F '$1 == "wait_start" && $3 == "cat" && $22 == "/dir/known.bin"' | wc -l)" 0
check_eq "buffered read: a folio wait has the full path, through its file system's mount" \
	"$K /mnt/a known.bin /mnt/a/dir" \
	"$(sel $F '$1 == "wait_start" && $3 == "cat" && $22 == "/dir/known.bin" {
		print $19, $21, $23, $24 }' | sort -u)"
check_eq "buffered read: every wait of cat comes after an io:io_start of its file" "" \
	"$(sel $F '$1 == "start" && !($22 in first) { first[$22] = $20 }
		$1 == "wait_start" && $3 == "cat" &&
			!($22 in first && first[$22] < $20) { print }')"

# --- O_DIRECT: the submitter names the file, never the pages ---
trace_begin
$DD if=/dev/urandom of=/mnt/a/dir/direct.bin bs=64k count=1 seek=2 oflag=direct status=none
$DD if=/mnt/a/dir/direct.bin of=/dev/null bs=64k count=1 skip=2 iflag=direct status=none
trace_end direct
pairs direct "O_DIRECT"
F=$T/direct
D=/mnt/a/dir/direct.bin
check_eq "O_DIRECT: write and read named, at offset 128 KiB, 64 KiB each" \
	"131072 65536 R
131072 65536 W" \
	"$(sel $F '$1 == "start" && '"$ON_FS"' && $19 == "'$D'" {
		print $17, $7, substr($5, 1, 1) }' | sort)"
check_eq "O_DIRECT: the disk under dm-linear, named after dd's file too" \
	"131072 65536 R
131072 65536 W" \
	"$(sel $F '$1 == "start" && '"$ON_NULLB"' && $19 == "'$D'" {
		print $17, $7, substr($5, 1, 1) }' | sort)"
check_eq "O_DIRECT: PHYS, and the open flags have O_DIRECT" "0x20 0x4000" \
	"$(sel $F '$1 == "start" && $19 == "'$D'" {
		printf "0x%x 0x%x\n", and(hex($9), 0x30), and(hex($18), 0x4000) }' | sort -u)"
check_eq "O_DIRECT: io:io_done has the file's inode and offset, as its io:io_start" \
	"$(stat -c %i $D) 131072" \
	"$(sel $F '$1 == "done" && and(hex($9), 0x20) && '"$ON_FS"' { print $16, $17 }' | sort -u)"
waits direct "O_DIRECT"
# A wait fires only when dd sleeps: if its vCPU was held up past the 3 ms
# completion (a busy host), that I/O ends before dd waits and has none.
check_eq "O_DIRECT: dd waits, named, and each wait comes after its io:io_start" "ok" \
	"$(sel $F '$1 == "start" && $19 == "'$D'" { seen[$2] = $20 }
		$1 == "wait_start" && $3 == "dd" && $19 == "'$D'" {
			n++; if (!(($2 in seen) && seen[$2] < $20)) early++ }
		END { if (n && !early) print "ok"
			else print n + 0 " waits, " early + 0 " before an io:io_start" }')"

# A file of 64 extents (every other 4 KiB block written, holes between):
# more than the inode holds, so its extent tree has a leaf block, which a
# direct read after the remount below must read first (metadata).
FRAG=/mnt/a/dir/fragmented.bin
i=0
while [ $i -lt 64 ]; do
	$DD if=/dev/urandom of=$FRAG bs=4k count=1 seek=$((i * 2)) conv=notrunc,fsync \
		status=none
	i=$((i + 1))
done
# (filefrag's summary counts physically contiguous runs: the extents are
# the lines of -v)
FRAG_EXTENTS=$(/usr/sbin/filefrag -v $FRAG | grep -c '^ *[0-9][0-9]*:')
check_cmp "fragmented file: more extents than an inode holds" -gt "${FRAG_EXTENTS:-0}" 4

# --- Metadata: a cold directory lookup waits on a buffer, <none> ---
# (A fresh mount: the journal keeps written metadata cached until a checkpoint.)
umount /mnt/a || bail "umount"
mount -t ext4 -o $EXT4_OPTS /dev/mapper/iofs /mnt/a || bail "mount again"
trace_begin
ls -l /mnt/a/dir >/dev/null
trace_end metadata
pairs metadata "metadata"
waits metadata "metadata"
n=$(sel $T/metadata '$1 == "wait_start" && $3 == "ls" && $19 == "<none>" &&
	$4 == "'"$FS_DEV"'"' | wc -l)
check_cmp "metadata: ls waits on a <none> buffer of the file system" -gt "$n" 0
[ "$n" -gt 0 ] || sed 's/^/# /' $T/metadata

# --- Metadata during a direct read: never the direct-I/O file's ---
# ext4 reads the fragmented file's extent leaf (cold since the remount) in
# dd's task, between dd's direct-I/O bios, which dd's file names. Only the
# bios with dd's data are the file's: the leaf is metadata, <none>.
drop_caches
trace_begin
$DD if=$FRAG of=/dev/null bs=512k count=1 iflag=direct status=none
trace_end frag
pairs frag "fragmented direct read"
F=$T/frag
FRAG_INO=$(stat -c %i $FRAG)
check_eq "fragmented direct read: 64 reads of 4 KiB named, at the written offsets" \
	"64 262144 0 516096" \
	"$(sel $F '$1 == "start" && '"$ON_FS"' && $19 == "'$FRAG'" { n++; s += $7
		if (min == "" || $17 < min) min = $17; if ($17 > max) max = $17 }
		END { print n + 0, s + 0, min, max }')"
check_eq "fragmented direct read: each named read is at an even 4 KiB block" "" \
	"$(sel $F '$1 == "start" && $19 == "'$FRAG'" && ($17 % 8192 != 0 || $7 != 4096) { print }')"
check_cmp "fragmented direct read: ext4 read metadata (<none>) in dd's task" -gt \
	"$(sel $F '$1 == "start" && $3 == "dd" && '"$ON_FS"' && $19 == "<none>"' | wc -l)" 0
check_eq "fragmented direct read: no metadata read is named as the file" "" \
	"$(sel $F '$1 == "start" && ($19 == "'$FRAG'" || $16 == "'$FRAG_INO'") &&
		!(and(hex($9), 0x20) && $7 == 4096) { print }')"

# --- Raw block device: split bios fire once, merged ones once each ---
trace_begin
$DD if=/dev/zero of=$NULLB bs=1M count=1 seek=$((RAW_SECTOR / 2048)) oflag=direct status=none
trace_end split
pairs split "split"
check_eq "split: one 1 MiB bio, one io:io_start and io:io_done although split in 32 KiB requests" \
	"start $NULLB_DEV $RAW_SECTOR 1048576
done $NULLB_DEV $RAW_SECTOR 1048576" \
	"$(sel $T/split '($1 == "start" || $1 == "done") && $4 == "'"$NULLB_DEV"'" {
		print $1, $4, $6, $7 }')"
check_eq "split: the block device file is named with its offset" \
	"/dev/nullb0 devtmpfs $((RAW_SECTOR * 512)) /dev /nullb0 nullb0 /dev" \
	"$(sel $T/split '$1 == "start" && $4 == "'"$NULLB_DEV"'" {
		print $19, $15, $17, $21, $22, $23, $24 }')"
merges0=$(awk '{ print $6 }' /sys/block/nullb0/stat)
trace_begin
fio --name=merge --filename=$NULLB --rw=write --bs=4k --size=256k \
	--offset=$((RAW_SECTOR * 512 + 4194304)) \
	--ioengine=libaio --iodepth=64 --iodepth_batch_submit=64 --direct=1 >/dev/null 2>&1
trace_end merge
merges=$(($(awk '{ print $6 }' /sys/block/nullb0/stat) - merges0))
check_cmp "merge: the block layer merged writes" -gt "$merges" 0
pairs merge "merge"
check_eq "merge: 64 bios of 4 KiB, one io:io_start and one io:io_done each" "64 64 64" \
	"$(sel $T/merge '$4 != "'"$NULLB_DEV"'" { next }
		$1 == "start" && $7 == 4096 { s++ } $1 == "done" && $7 == 4096 { d++ }
		$1 == "start" { k[$6]++ } END { n = 0; for (x in k) n++; print s + 0, d + 0, n }')"

# --- A direct read into a mapped file, sent down by dm-delay's worker ---
# fio's buffer is a tmpfs file (/dev/shm, made 64 KiB first: fio maps it
# as it finds it) mapped shared into its memory (a private mapping would
# give the read copies, anonymous pages). dm-delay's worker sends the read
# down to a dm-linear device (a piece of the null_blk disk from 512 MiB)
# without the reader's hint: the folios under that bio are the buffer
# file's, not locked and not under writeback, so they are user memory,
# never the buffer's file (which io:io_start and io:io_done used to name).
# The read is the device file's: the worker's bio, sent down with the
# bvec table of the bio that fio's read named, is named after it too, at
# its offset (before: <unknown>, no file, below every worker).
modprobe dm-delay 2>/dev/null
dmsetup create --noudevsync iomid --table "0 8192 linear $NULLB 1048576" &&
	dmsetup create --noudevsync iodelay --table "0 8192 delay /dev/mapper/iomid 0 5" ||
	bail "dm-delay over a dm-linear device"
DELAY_DEV=$(devno "$(dmname iodelay)")
ON_MID='$4 == "'"$(devno "$(dmname iomid)")"'"'
$DD if=/dev/zero of=/dev/shm/mapped-buffer bs=64k count=1 status=none
trace_begin
fio --name=mapped --filename=/dev/mapper/iodelay --rw=read --bs=16k --size=64k --direct=1 \
	--ioengine=psync --iomem=mmapshared:/dev/shm/mapped-buffer >$T/mapped.fio 2>&1 ||
	fail "mapped buffer: fio" "$(grep -i 'err' $T/mapped.fio | head -n 3)"
trace_end mapped
F=$T/mapped
check_eq "mapped buffer: four reads on dm-delay, named by the device file" \
	"4 /dev/mapper/iodelay" \
	"$(sel $F '$1 == "start" && $4 == "'"$DELAY_DEV"'" { n++; p = $19 } END { print n, p }')"
check_cmp "mapped buffer: the worker's reads below, on dm-linear" -ge \
	"$(sel $F '$1 == "start" && '"$ON_MID"'' | wc -l)" 4
check_eq "mapped buffer: no event names the buffer's file" "" \
	"$(sel $F '$19 ~ /mapped-buffer/ || $22 ~ /mapped-buffer/ { print $1, $4, $19, $22 }')"
check_eq "mapped buffer: below dm-delay, the worker's reads name the device file (B_PHYS)" \
	"0x20 /dev/mapper/iodelay" \
	"$(sel $F '$1 == "start" && '"$ON_MID"' { printf "0x%x %s\n", and(hex($9), 0x30), $19 }' |
		sort -u)"
check_eq "mapped buffer: below dm-delay, at the offsets fio read" "0 16384 32768 49152" \
	"$(sel $F '$1 == "start" && '"$ON_MID"' { print $17 }' | sort -n | tr '\n' ' ' |
		sed 's/ $//')"
BUF_INO=$(stat -c %i /dev/shm/mapped-buffer)
check_eq "mapped buffer: no event has the buffer's inode" "" \
	"$(sel $F '$16 == "'"$BUF_INO"'" && $19 != "/dev/mapper/iodelay" {
		print $1, $4, $14, $16 }' | sort -u)"
echo "# the events below dm-delay (first lines):"
sel $F "$ON_MID" | head -n 4 | sed 's/^/#   /'
dmsetup remove iodelay
dmsetup remove iomid

# --- dm-crypt: one io:io_start and io:io_done per bio, none for its clones ---
trace_begin
$DD if=/dev/urandom of=/dev/mapper/iocrypt bs=64k count=4 oflag=direct status=none
$DD if=/dev/mapper/iocrypt of=/dev/null bs=256k count=1 iflag=direct status=none
trace_end crypt
pairs crypt "dm-crypt"
check_eq "dm-crypt: the bytes written and read" "R 262144
W 262144" \
	"$(sel $T/crypt '$1 == "start" && $4 == "'"$CRYPT_DEV"'" { b[substr($5, 1, 1)] += $7 }
		END { for (k in b) print k, b[k] }' | sort)"
check_eq "dm-crypt: the disk below reads and writes the same bytes" "R 262144
W 262144" \
	"$(sel $T/crypt '$1 == "start" && $4 == "'"$NULLB_DEV"'" { b[substr($5, 1, 1)] += $7 }
		END { for (k in b) print k, b[k] }' | sort)"
check_eq "dm-crypt: the disk below, in the range of the crypt device" "" \
	"$(sel $T/crypt '$1 == "start" && $4 == "'"$NULLB_DEV"'" &&
		($6 < '$FS_SECTORS' || $6 + $7 / 512 > '$((FS_SECTORS + CRYPT_SECTORS))')')"
# Reads are cloned in dd's task: the same file; writes are encrypted into
# dm-crypt's own pages by its workers: no file's pages
check_eq "dm-crypt: the disk below reads for the device file" "/dev/mapper/iocrypt" \
	"$(sel $T/crypt '$1 == "start" && $4 == "'"$NULLB_DEV"'" && $5 ~ /R/ { print $19 }' |
		sort -u)"
check_eq "dm-crypt: the device file is named" "/dev/mapper/iocrypt" \
	"$(sel $T/crypt '$1 == "start" && $4 == "'"$CRYPT_DEV"'" { print $19 }' | sort -u)"
check_eq "dm-crypt: the disk and driver" "dm dm" \
	"$(sel $T/crypt '$1 == "start" && $4 == "'"$CRYPT_DEV"'" {
		sub(/-[0-9]+$/, "", $10); print $10, $11 }' | sort -u)"

# --- A loop device over a file: the backing file, never the upper one ---
$DD if=/dev/zero of=/mnt/a/loop.img bs=1M count=16 status=none
LOOP=$(/sbin/losetup --direct-io=on --show -f /mnt/a/loop.img) || bail "losetup"
/sbin/mke2fs -q -F -t ext2 -b 4096 $LOOP || bail "mkfs on $LOOP"
mount -t ext2 $LOOP /mnt/up || bail "mount $LOOP"
LOOP_DEV=$(devno "$(basename $LOOP)")
trace_begin
$DD if=/dev/urandom of=/mnt/up/upper.bin bs=64k count=2 conv=fsync status=none
trace_end loop
pairs loop "loop"
F=$T/loop
check_eq "loop: the upper file on the loop device" "$LOOP_DEV 131072" \
	"$(sel $F '$1 == "start" && $19 == "/mnt/up/upper.bin" { d = $4; s += $7 }
		END { print d, s + 0 }')"
check_cmp "loop: the lower I/O is the backing file's, named by the loop worker's direct I/O" -gt \
	"$(sel $F '$1 == "start" && $4 == "'"$FS_DEV"'" && $19 == "/mnt/a/loop.img" &&
		$18 != "0xffffffff"' | wc -l)" 0
check_eq "loop: the backing file's I/O reaches the disk under dm-linear, same bytes" \
	"$(sel $F '$1 == "start" && $4 == "'"$FS_DEV"'" && $19 == "/mnt/a/loop.img" { s += $7 }
		END { print s + 0 }')" \
	"$(sel $F '$1 == "start" && $4 == "'"$NULLB_DEV"'" && $19 == "/mnt/a/loop.img" { s += $7 }
		END { print s + 0 }')"
check_eq "loop: no upper name below the loop device" "" \
	"$(sel $F '$4 != "'"$LOOP_DEV"'" && $19 == "/mnt/up/upper.bin"')"
umount /mnt/up
/sbin/losetup -d $LOOP

# Each stacked device below is built on dm-linear pieces of the null_blk
# disk (from 640 MiB on, which nothing above touches): three layers fire
# for one bio, the top device, the dm-linear piece and null_blk.
# stack_bytes FILE DEV RW: the bytes of the io:io_start events of DEV for
# reads (R) or writes (W)
stack_bytes() {
	sel $T/$1 '$1 == "start" && $4 == "'"$2"'" && substr($5, 1, 1) == "'$3'" { s += $7 }
		END { print s + 0 }'
}
# piece NAME START SECTORS: a dm-linear piece of the null_blk disk
piece() {
	dmsetup create --noudevsync "$1" --table "0 $3 linear $NULLB $2" || bail "dm-linear $1"
}

# --- dm-thin: the pool's data device fires for the thin device's bios ---
# 64 KiB blocks, written whole: no zeroing. conv=fsync flushes the thin
# device, which commits the pool's metadata then and not on its timer.
piece iothinmeta 1310720 16384
piece iothindata 1327104 131072
POOL_ARGS="/dev/mapper/iothinmeta /dev/mapper/iothindata 128 0 1 skip_block_zeroing"
dmsetup create --noudevsync iopool --table "0 131072 thin-pool $POOL_ARGS" || bail "thin-pool"
dmsetup message iopool 0 "create_thin 0" || bail "create_thin"
dmsetup create --noudevsync iothin --table "0 65536 thin /dev/mapper/iopool 0" || bail "thin"
THIN_DEV=$(devno "$(dmname iothin)")
THINDATA_DEV=$(devno "$(dmname iothindata)")
trace_begin
$DD if=/dev/urandom of=/dev/mapper/iothin bs=64k count=4 oflag=direct conv=fsync status=none
$DD if=/dev/mapper/iothin of=/dev/null bs=256k count=1 iflag=direct status=none
trace_end thin
pairs thin "dm-thin"
for rw in W R; do
	check_eq "dm-thin: the thin device's $rw bytes" 262144 "$(stack_bytes thin "$THIN_DEV" $rw)"
	check_eq "dm-thin: the pool's data device fires for the same $rw bytes" 262144 \
		"$(stack_bytes thin "$THINDATA_DEV" $rw)"
done
# The writes provision blocks: the pool's worker sends them down, with the
# bvec table of dd's bios, which names dd's file (before: <unknown>)
check_eq "dm-thin: the data device writes for the thin device's file, from the pool's worker" \
	"/dev/mapper/iothin" \
	"$(sel $T/thin '$1 == "start" && $4 == "'"$THINDATA_DEV"'" && $5 ~ /W/ { print $19 }' |
		sort -u)"
check_cmp "dm-thin: the pool's worker sent writes down" -gt \
	"$(sel $T/thin '$1 == "start" && $4 == "'"$THINDATA_DEV"'" && $5 ~ /W/ && $3 != "dd"' |
		wc -l)" 0
# Reads of provisioned blocks are remapped in dd's task: the same file
check_eq "dm-thin: the data device reads for the thin device's file" "/dev/mapper/iothin" \
	"$(sel $T/thin '$1 == "start" && $4 == "'"$THINDATA_DEV"'" && $5 ~ /R/ { print $19 }' |
		sort -u)"
check_eq "dm-thin: null_blk reads the same bytes as the data device above it" 262144 \
	"$(sel $T/thin '$1 == "start" && $4 == "'"$NULLB_DEV"'" && $5 ~ /R/ &&
		$6 >= 1327104 && $6 < 1458176 { s += $7 } END { print s + 0 }')"
dmsetup remove iothin
dmsetup remove iopool
dmsetup remove iothindata
dmsetup remove iothinmeta

# --- md raid1: each mirror leg fires for a write, one leg for a read ---
# No superblock (--build) and no resync (--assume-clean): no I/O of md's
# own that could start or end outside a phase.
piece ioleg0 1458176 65536
piece ioleg1 1523712 65536
LEG0_DEV=$(devno "$(dmname ioleg0)")
LEG1_DEV=$(devno "$(dmname ioleg1)")
MDADM_NO_UDEV=1 /usr/sbin/mdadm --build /dev/md9 --run --assume-clean --level=1 \
	--raid-devices=2 /dev/mapper/ioleg0 /dev/mapper/ioleg1 >/dev/null 2>&1 ||
	bail "mdadm --build"
MD_DEV=$(devno md9)
# The first open of md9 scans it for partitions (md disks may have them):
# a read of its own, before the phase.
$DD if=/dev/md9 of=/dev/null bs=4k count=1 status=none
trace_begin
$DD if=/dev/urandom of=/dev/md9 bs=64k count=4 oflag=direct status=none
$DD if=/dev/md9 of=/dev/null bs=256k count=1 iflag=direct status=none
trace_end md
pairs md "md raid1"
check_eq "md raid1: the md device's bytes" "262144 262144" \
	"$(stack_bytes md "$MD_DEV" W) $(stack_bytes md "$MD_DEV" R)"
check_eq "md raid1: each leg writes the md device's bytes" "262144 262144" \
	"$(stack_bytes md "$LEG0_DEV" W) $(stack_bytes md "$LEG1_DEV" W)"
check_eq "md raid1: the legs together read the md device's bytes" 262144 \
	"$(($(stack_bytes md "$LEG0_DEV" R) + $(stack_bytes md "$LEG1_DEV" R)))"
check_eq "md raid1: null_blk writes both copies" 524288 "$(stack_bytes md "$NULLB_DEV" W)"
check_eq "md raid1: the md device's disk and driver" "md9 md" \
	"$(sel $T/md '$1 == "start" && $4 == "'"$MD_DEV"'" { print $10, $11 }' | sort -u)"
# raid1 sends reads down in dd's task: the same file
check_eq "md raid1: the legs read for the md device's file" "/dev/md9" \
	"$(sel $T/md '$1 == "start" && ($4 == "'"$LEG0_DEV"'" || $4 == "'"$LEG1_DEV"'") &&
		$5 ~ /R/ { print $19 }' | sort -u)"
/usr/sbin/mdadm --stop /dev/md9 >/dev/null 2>&1
dmsetup remove ioleg0
dmsetup remove ioleg1

# --- NFS: READ and WRITE RPCs fire for the server, nothing else does ---
# A kernel NFS server exports a directory of the ext4 above; the client
# mounts it over loopback. The client's RPCs fire with the mount's device
# and the server as the disk; the server's own writes to the ext4 fire
# below, for its file.
. ../lib-nfs.sh
mkdir -p /mnt/a/export /mnt/nfs
nfs_server_start /mnt/a/export
nfs_mount /mnt/nfs rsize=65536,wsize=65536
NFS_DEV=$(awk '$5 == "/mnt/nfs" { sub(":", ",", $3); print $3 }' /proc/self/mountinfo)
[ -n "$NFS_DEV" ] || bail "cannot find the NFS mount's device"
N=/mnt/nfs/dir
mkdir -p $N
ON_NFS='$4 == "'"$NFS_DEV"'"'
trace_begin
$DD if=/dev/urandom of=$N/direct.bin bs=64k count=2 oflag=direct status=none
$DD if=$N/direct.bin of=/dev/null bs=64k count=2 iflag=direct status=none
$DD if=/dev/urandom of=$N/buffered.bin bs=64k count=4 conv=fsync status=none
$DD if=/dev/urandom of=$N/osync.bin bs=64k count=1 oflag=sync status=none
ls -l $N >/dev/null
trace_end nfs-write
pairs nfs-write "NFS"
F=$T/nfs-write
check_eq "NFS: O_DIRECT writes and reads the file's bytes, named, at their offsets" \
	"0 65536 R
0 65536 W
65536 65536 R
65536 65536 W" \
	"$(sel $F '$1 == "start" && '"$ON_NFS"' && $19 == "'$N'/direct.bin" {
		print $17, $7, substr($5, 1, 1) }' | sort -n)"
check_eq "NFS: O_DIRECT is PHYS, with O_DIRECT in the open flags" "0x20 0x4000" \
	"$(sel $F '$1 == "start" && $19 == "'$N'/direct.bin" {
		printf "0x%x 0x%x\n", and(hex($9), 0x30), and(hex($18), 0x4000) }' | sort -u)"
# The client's writeback: in dd's fsync() (named after dd's file) or by the
# flusher before it (named after the inode, behind the mount's path)
check_eq "NFS: the buffered write: the file's bytes, PAGEIO" "262144 0x10" \
	"$(sel $F '$1 == "start" && '"$ON_NFS"' && $22 == "/dir/buffered.bin" {
		s += $7; f[sprintf("0x%x", and(hex($9), 0x30))] }
		END { for (x in f) print s + 0, x }')"
check_eq "NFS: the buffered write: fsync and the flusher name the full path and mount" \
	"$N/buffered.bin /mnt/nfs" \
	"$(sel $F '$1 == "start" && '"$ON_NFS"' && $22 == "/dir/buffered.bin" { print $19, $21 }' |
		sort -u)"
check_eq "NFS: O_SYNC: the file's bytes; where named, O_SYNC in the open flags" "65536 " \
	"$(sel $F '$1 == "start" && '"$ON_NFS"' && $22 == "/dir/osync.bin" { s += $7
		if ($19 == "'$N'/osync.bin" && and(hex($18), 0x101000) != 0x101000)
			bad = bad " " $18 }
		END { print s + 0, bad }')"
check_eq "NFS: the server is the disk, nfs the driver, nfs4 the file system" \
	"127.0.0.1 nfs nfs4" \
	"$(sel $F '$1 == "start" && '"$ON_NFS"' { print $10, $11, $15 }' | sort -u)"
check_eq "NFS: no sector; the logical block is the file offset in sectors" "" \
	"$(sel $F '$1 == "start" && '"$ON_NFS"' &&
		($6 != "18446744073709551615" || $8 * 512 != $17) { print }')"
check_eq "NFS: direct I/O's mount, path in the file system, name and directory" \
	"/mnt/nfs /dir/direct.bin direct.bin /mnt/nfs/dir" \
	"$(sel $F '$1 == "start" && $19 == "'$N'/direct.bin" { print $21, $22, $23, $24 }' |
		sort -u)"
check_eq "NFS: io:io_done has the file's inode and offset" \
	"$(stat -c %i $N/direct.bin) 0
$(stat -c %i $N/direct.bin) 65536" \
	"$(sel $F '$1 == "done" && '"$ON_NFS"' && and(hex($9), 0x20) && substr($5, 1, 1) == "R" {
		print $16, $17 }' | sort -n -k2)"
check_eq "NFS: only READ and WRITE fire: nothing for ls or any other RPC" "" \
	"$(sel $F '$1 == "start" && '"$ON_NFS"' && $22 !~ /^\/dir\/(direct|buffered|osync)\.bin$/')"
check_cmp "NFS: the server's writes reach the ext4 below, for the exported file" -gt \
	"$(sel $F '$1 == "start" && '"$ON_FS"' &&
		$19 == "/mnt/a/export/dir/buffered.bin" { s += $7 } END { print s + 0 }')" 0
# Read back after dropping the caches: readahead names the file
drop_caches
trace_begin
cat $N/buffered.bin >/dev/null
trace_end nfs-read
pairs nfs-read "NFS read"
check_eq "NFS read: readahead reads the file's bytes, named" 262144 \
	"$(sel $T/nfs-read '$1 == "start" && '"$ON_NFS"' && $19 == "'$N'/buffered.bin" &&
		$5 ~ /R/ { s += $7 } END { print s + 0 }')"
nfs_stop

# --- iotally snoop beside the test's own instance (its lines, filters,
# JSON and summaries on either backend: the snoop suite) ---
. ../lib-snoop.sh
# --- Under load, every event on: the debug kernel watches for splats ---
# iotally snoop -W in its own instance at the same time, a second consumer
command -v iotally >/dev/null && snoop_start snoop.load snoop -W
trace_begin
fio --name=load --directory=/mnt/a/dir --size=4m --nrfiles=4 --bs=4k --rw=randrw \
	--ioengine=psync --numjobs=2 --time_based --runtime=8 --fsync=16 >/dev/null 2>&1 &
fiopid=$!
i=0
while kill -0 $fiopid 2>/dev/null; do
	i=$((i + 1))
	mv /mnt/a/dir/known.bin /mnt/a/dir/renamed.bin &&
		mv /mnt/a/dir/renamed.bin /mnt/a/dir/known.bin
	[ $((i % 20)) = 0 ] && echo 1 >/proc/sys/vm/drop_caches
done
wait $fiopid
sync
trace_end load
pairs load "load"
waits load "load"
if command -v iotally >/dev/null; then
	snoop_stop INT
	check_eq "load: snoop beside another instance ends cleanly" 0 "$rc"
	check_cmp "load: snoop saw the load" -gt "$(grep -c ' /mnt/a/dir/' $T/snoop.load)" 10
	echo "# --- iotally snoop -W under the load (first lines) ---"
	head -40 $T/snoop.load | sed 's/^/# /'
fi
for e in io_start io_done io_wait_start io_wait_done; do
	echo "# --- the format of io:$e ---"
	sed 's/^/# /' $TR/events/io/$e/format
done

umount /mnt/a
dmsetup remove iocrypt
dmsetup remove iofs
rmdir $INST
release_comm_probes io-trace-keep
tap_finish
