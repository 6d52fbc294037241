#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The NFS harness of lib-nfs.sh by itself: a kernel NFS server exporting an
# ext4 on a brd disk, mounted over loopback with NFSv4.2 in the same guest
# (then a tmpfs export).
# What is written through the mount, with O_DIRECT and buffered with an
# fsync, is on the server's disk, byte for byte; it reads back through the
# mount; /proc/mounts and /proc/self/mountstats name the mount, its server
# and version, and count the READ and WRITE RPCs; nfsd serves NFSv4 only
# and skipped its grace period; and it all stops cleanly, twice.
. ../lib.sh
. ../lib-nfs.sh

T=/tmp/nfs-setup
SRV=/srv/export		# the server's local path
MNT=/mnt/nfs		# the client's mount
DD=/usr/bin/dd		# coreutils: O_DIRECT as asked
mkdir -p $T $SRV

modprobe brd rd_nr=1 rd_size=65536 || bail "modprobe brd"
/sbin/mke2fs -q -F -t ext4 -b 4096 /dev/ram0 || bail "mkfs.ext4 /dev/ram0"
mount -t ext4 /dev/ram0 $SRV || bail "mount ext4 on $SRV"

nfs_server_start $SRV
nfs_mount $MNT
echo "# nfs setup: server started in ${NFS_SERVER_SECONDS} s," \
	"client mounted in ${NFS_MOUNT_SECONDS} s"

# --- The server: NFSv4 only, no grace period, the export ---
check_ok "nfsd's versions can be read" cat $NFSD_FS/versions
echo "# $NFSD_FS/versions: $out"
check_match "nfsd serves NFSv4.1 and 4.2, not NFSv3" '^-3 \+4( .*)? \+4\.1 \+4\.2$' "$out"
check_eq "nfsd runs $NFS_THREADS threads" "$NFS_THREADS" "$(cat $NFSD_FS/threads)"
check_eq "nfsd listens on TCP 2049" "tcp 2049" "$(cat $NFSD_FS/portlist)"
check_eq "nfsd skipped its grace period (nfsdcld has no client to reclaim)" skipped "$(nfs_grace)"
check_match "the export is the NFSv4 root, rw, to 127.0.0.1" \
	"^$SRV"'[[:space:]]+127\.0\.0\.1\(.*rw,.*fsid=0' "$(cat /var/lib/nfs/etab)"

# --- The client's mount ---
check_match "/proc/mounts: an nfs4 mount of 127.0.0.1:/, vers=$NFS_VERS, addr=127.0.0.1" \
	"^127\.0\.0\.1:/ $MNT nfs4 rw,.*vers=$NFS_VERS,.*addr=127\.0\.0\.1" \
	"$(grep " $MNT " /proc/mounts)"
MS="device 127.0.0.1:/ mounted on $MNT with fstype nfs4"
check_match "/proc/self/mountstats names the mount" "^$MS statvers=" "$(cat /proc/self/mountstats)"
# mountstats_of FIELD: the first line of the mount's block that starts with FIELD
mountstats_of() {
	awk -v ms="$MS" -v f="$1" 'index($0, "device ") == 1 { on = index($0, ms) == 1 }
		on && $1 == f { print; exit }' /proc/self/mountstats
}
check_match "mountstats: the server's address" 'addr=127\.0\.0\.1' "$(mountstats_of opts:)"
check_match "mountstats: vers=$NFS_VERS" "vers=$NFS_VERS" "$(mountstats_of opts:)"
check_match "mountstats: the transport is TCP" 'xprt:[[:space:]]+tcp ' "$(mountstats_of xprt:)"

# rpcs OP: how many OP RPCs the mount has sent (per-op statistics)
rpcs() { mountstats_of "$1:" | awk '{ print $2 + 0 }'; }

# --- O_DIRECT writes, then buffered writes with an fsync ---
$DD if=/dev/urandom of=$T/src bs=64k count=32 status=none || bail "dd /dev/urandom"
w0=$(rpcs WRITE)
check_ok "O_DIRECT write of 2 MiB through the mount" \
	$DD if=$T/src of=$MNT/direct.bin bs=64k oflag=direct status=none
check_cmp "O_DIRECT write: WRITE RPCs sent" -gt "$(($(rpcs WRITE) - w0))" 0
check_ok "O_DIRECT write: the server's file is identical" cmp $T/src $SRV/direct.bin
w0=$(rpcs WRITE)
check_ok "buffered write of 2 MiB with fsync through the mount" \
	$DD if=$T/src of=$MNT/dir-buffered.bin bs=64k conv=fsync status=none
check_cmp "buffered write: WRITE RPCs sent" -gt "$(($(rpcs WRITE) - w0))" 0
check_ok "buffered write: the server's file is identical" cmp $T/src $SRV/dir-buffered.bin
# from the server's disk, not its page cache
sync
echo 3 >/proc/sys/vm/drop_caches
check_ok "both files are on the server's disk, identical" \
	sh -c "cmp $T/src $SRV/direct.bin && cmp $T/src $SRV/dir-buffered.bin"

# --- Reads back through the mount ---
r0=$(rpcs READ)
check_ok "O_DIRECT read through the mount is identical" \
	sh -c "$DD if=$MNT/direct.bin bs=64k iflag=direct status=none | cmp $T/src -"
check_cmp "O_DIRECT read: READ RPCs sent" -gt "$(($(rpcs READ) - r0))" 0
r0=$(rpcs READ)
check_ok "buffered read through the mount (client cache dropped) is identical" \
	cmp $T/src $MNT/dir-buffered.bin
check_cmp "buffered read: READ RPCs sent" -gt "$(($(rpcs READ) - r0))" 0
check_eq "a file the server makes is seen through the mount" "server" \
	"$(echo server >$SRV/from-server && cat $MNT/from-server)"
echo "# mountstats of $MNT: $(mountstats_of READ:) / $(mountstats_of WRITE:)"

# --- Stop, and start again: nothing left behind ---
# threads: how many tasks are named $1 (nfsd's threads, the daemons)
threads() { cat /proc/[0-9]*/comm 2>/dev/null | grep -cxE "$1"; }
check_cmp "nfsd's threads run" -eq "$(threads nfsd)" "$NFS_THREADS"
# nfs_stop in this shell, not in check_ok's $(...): it forgets the mount
if nfs_stop; then pass "nfs_stop"; else fail "nfs_stop" "status $?"; fi
check_eq "no nfs4 mount is left" "" "$(grep ' nfs4 ' /proc/mounts)"
check_eq "nfsd's file system is unmounted" "" "$(grep ' nfsd ' /proc/mounts)"
check_eq "no nfsd thread is left" 0 "$(threads nfsd)"
check_eq "no rpc.mountd or nfsdcld is left" 0 "$(threads 'rpc\.mountd|nfsdcld')"
t0=$(cut -d' ' -f1 /proc/uptime)
nfs_server_start $SRV
nfs_mount $MNT
check_eq "after a restart, nfsd skipped its grace period again" skipped "$(nfs_grace)"
check_ok "after a restart, the files read back through the mount" \
	sh -c "cmp $T/src $MNT/direct.bin && cmp $T/src $MNT/dir-buffered.bin"
if nfs_stop; then pass "nfs_stop again"; else fail "nfs_stop again" "status $?"; fi
t1=$(cut -d' ' -f1 /proc/uptime)
echo "# nfs setup again: server started in ${NFS_SERVER_SECONDS} s," \
	"client mounted in ${NFS_MOUNT_SECONDS} s," \
	"$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }') s" \
	"with the reads and the stop"

# --- A tmpfs export (no UUID: fsid=0 names it) ---
mkdir -p /srv/tmpfs
mount -t tmpfs none /srv/tmpfs || bail "mount tmpfs on /srv/tmpfs"
nfs_server_start /srv/tmpfs
nfs_mount $MNT
check_ok "tmpfs export: an O_DIRECT write through the mount is in the server's file" \
	sh -c "$DD if=$T/src of=$MNT/t.bin bs=64k oflag=direct status=none &&
		cmp $T/src /srv/tmpfs/t.bin"
if nfs_stop; then pass "tmpfs export: nfs_stop"; else fail "tmpfs export: nfs_stop" "status $?"; fi
umount /srv/tmpfs
umount $SRV
tap_finish
