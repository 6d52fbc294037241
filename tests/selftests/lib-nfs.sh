# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
#
# A kernel NFS server and an NFS client mount of it in the same guest, over
# loopback, for the suites that do file I/O through NFS. NFSv4 only (4.0, 4.1,
# 4.2; no rpcbind, no lockd, no statd): nfsd's control files are written by
# hand (no rpc.nfsd), rpc.mountd answers nfsd's export upcalls, nfsdcld keeps
# the (empty) client database so that nfsd skips its grace period, and the
# client is mounted with plain mount(2) options (no mount.nfs). Source it
# after lib.sh; every step that fails bails out of the suite saying which.
#
#   nfs_server_start EXPORT_DIR   export EXPORT_DIR (any file system nfsd
#                                 can export: ext4, tmpfs...) as the NFSv4
#                                 root (fsid=0) to 127.0.0.1, rw, sync,
#                                 no_root_squash; start NFS_THREADS (4) nfsd
#                                 threads on TCP port 2049 (after an
#                                 nfs_stop if it ran before)
#   nfs_mount MOUNTPOINT [OPTS]   mount the server's root (127.0.0.1:/) at
#                                 MOUNTPOINT, NFSv4.2 (or NFS_VERS: 4.0,
#                                 4.1), with OPTS (e.g. rsize=65536,
#                                 wsize=65536) added
#   nfs_stop                      unmount every nfs_mount, stop nfsd (its
#                                 threads and listeners), rpc.mountd and
#                                 nfsdcld, and unmount nfsd's file system
#
# Files: the daemons' logs in $NFS_RUN/*.log (shown when a step fails).
# nfs_server_start sets NFS_SERVER_SECONDS, nfs_mount NFS_MOUNT_SECONDS:
# the seconds each took (/proc/uptime, two decimals).

NFS_RUN=/tmp/nfs
NFS_THREADS=${NFS_THREADS:-4}
NFS_VERS=${NFS_VERS:-4.2}
NFSD_FS=/proc/fs/nfsd
NFS_PIPEFS=/run/rpc_pipefs
NFS_STATE=/var/lib/nfs
_nfs_mounts=''
_nfs_mountd_pid=''
_nfs_cld_pid=''

_nfs_uptime() { cut -d' ' -f1 /proc/uptime; }
# _nfs_seconds START: seconds since START (from _nfs_uptime), two decimals
_nfs_seconds() { awk -v a="$1" -v b="$(_nfs_uptime)" 'BEGIN { printf "%.2f", b - a }'; }

# _nfs_bail WHAT: bail out saying WHAT failed, with the daemons' logs
_nfs_bail() {
	for _l in "$NFS_RUN"/*.log; do
		[ -s "$_l" ] && _tap_diag "$(basename "$_l"): " "$(tail -n 20 "$_l")"
	done
	_tap_diag "dmesg: " "$(dmesg | grep -iE 'nfs|rpc|svc' | tail -n 20)"
	bail "nfs: $*"
}

# _nfs_write FILE VALUE: write VALUE to a control file, or bail with errno
_nfs_write() {
	_nfs_err=$( (echo "$2" >"$1") 2>&1) || _nfs_bail "echo '$2' >$1: $_nfs_err"
}

nfs_server_start() {
	_nfs_t0=$(_nfs_uptime)
	NFS_EXPORT=$1
	[ -d "$NFS_EXPORT" ] || bail "nfs: export directory $NFS_EXPORT does not exist"
	for _p in rpc.mountd exportfs nfsdcld; do
		command -v $_p >/dev/null || bail "nfs: $_p is not in the guest"
	done
	# nfsdcld's database starts empty: a client of an earlier
	# nfs_server_start in it would be waited for, 10 s of grace period
	rm -rf "$NFS_STATE/nfsdcld"
	mkdir -p "$NFS_RUN" "$NFS_STATE/nfsdcld" "$NFS_PIPEFS" "$NFSD_FS" 2>/dev/null
	: >"$NFS_STATE/etab"
	: >"$NFS_STATE/rmtab"
	: >"$NFS_RUN/mountd.log"
	: >"$NFS_RUN/nfsdcld.log"
	# rpc.mountd checks a client's address against the export's by name
	# too: answer from files, never from a DNS server there is none of.
	grep -q '^127.0.0.1' /etc/hosts 2>/dev/null ||
		echo "127.0.0.1 localhost $(hostname)" >>/etc/hosts
	[ -e /etc/nsswitch.conf ] ||
		printf 'passwd: files\ngroup: files\nhosts: files\n' >/etc/nsswitch.conf

	ip link set lo up || _nfs_bail "cannot bring up loopback"
	grep -q " $NFSD_FS nfsd " /proc/mounts ||
		mount -t nfsd none "$NFSD_FS" ||
		_nfs_bail "mount -t nfsd none $NFSD_FS (no CONFIG_NFSD?)"
	grep -q " $NFS_PIPEFS rpc_pipefs " /proc/mounts ||
		mount -t rpc_pipefs none "$NFS_PIPEFS" ||
		_nfs_bail "mount -t rpc_pipefs none $NFS_PIPEFS"

	# The export: the NFSv4 pseudo root itself, so that no other
	# directory is exported and no file system UUID is needed (tmpfs has
	# none).
	_nfs_flags=rw,sync,fsid=0,no_root_squash,no_subtree_check,insecure
	echo "$NFS_EXPORT 127.0.0.1($_nfs_flags)" >/etc/exports
	_nfs_err=$(exportfs -ra 2>&1) || _nfs_bail "exportfs -ra: $_nfs_err"
	grep -q "^$NFS_EXPORT" "$NFS_STATE/etab" ||
		_nfs_bail "exportfs wrote no $NFS_EXPORT to $NFS_STATE/etab"

	# rpc.mountd without MOUNT versions 1-3 registers no RPC service
	# (no rpcbind); it answers nfsd's upcalls for auth.unix.ip,
	# nfsd.export and nfsd.fh.
	rpc.mountd -F -N 2 -N 3 >"$NFS_RUN/mountd.log" 2>&1 &
	_nfs_mountd_pid=$!
	# nfsdcld before nfsd: nfsd waits 1 s at most for it to open its pipe,
	# and with it (and no client to reclaim) skips the grace period, in
	# which every OPEN would be refused for 90 s.
	nfsdcld -F -p "$NFS_PIPEFS" -s "$NFS_STATE/nfsdcld" >"$NFS_RUN/nfsdcld.log" 2>&1 &
	_nfs_cld_pid=$!
	sleep 0.2
	kill -0 $_nfs_mountd_pid 2>/dev/null || _nfs_bail "rpc.mountd exited"
	kill -0 $_nfs_cld_pid 2>/dev/null || _nfs_bail "nfsdcld exited"

	# Versions are set before nfsd has a service (EBUSY after); -2 is
	# accepted even when nfsd was built without NFSv2. v3 off: no lockd.
	_nfs_write "$NFSD_FS/versions" "-2 -3 +4 +4.1 +4.2"
	# Should nfsdcld not be reached, a grace period of 10 s, not 90.
	_nfs_write "$NFSD_FS/nfsv4gracetime" 10
	_nfs_write "$NFSD_FS/portlist" "tcp 2049"
	_nfs_write "$NFSD_FS/threads" "$NFS_THREADS"
	[ "$(cat "$NFSD_FS/threads")" = "$NFS_THREADS" ] ||
		_nfs_bail "$NFSD_FS/threads reads $(cat "$NFSD_FS/threads"), not $NFS_THREADS"
	# shellcheck disable=SC2034 # for the suites
	NFS_SERVER_SECONDS=$(_nfs_seconds "$_nfs_t0")
}

# nfs_grace: "skipped" if nfsd's last start skipped its grace period
# (nfsdcld reached, no client to reclaim), else what the kernel said
nfs_grace() {
	_nfs_said='no clients to reclaim, skipping|starting [0-9]+-second grace period'
	dmesg | grep -oE "NFSD: ($_nfs_said)" | tail -n 1 | sed 's/.*skipping$/skipped/'
}

nfs_mount() {
	_nfs_t0=$(_nfs_uptime)
	mkdir -p "$1"
	# nfsv4.ko where the client is modular (the kernel of kernel-hz.sh)
	[ -d /sys/module/nfsv4 ] || modprobe nfsv4 2>/dev/null
	_nfs_opts=vers=$NFS_VERS,addr=127.0.0.1,clientaddr=127.0.0.1${2:+,$2}
	_nfs_err=$(mount -t nfs4 -o "$_nfs_opts" 127.0.0.1:/ "$1" 2>&1) ||
		_nfs_bail "mount -t nfs4 -o $_nfs_opts 127.0.0.1:/ $1: $_nfs_err" \
			"(EINVAL for vers=4.1 or 4.2: a kernel without" \
			"CONFIG_NFS_V4_1 or CONFIG_NFS_V4_2)"
	grep -q "^127.0.0.1:/ $1 nfs4 " /proc/mounts ||
		_nfs_bail "$1 is not an nfs4 mount in /proc/mounts"
	_nfs_mounts="$1 $_nfs_mounts"
	# shellcheck disable=SC2034 # for the suites
	NFS_MOUNT_SECONDS=$(_nfs_seconds "$_nfs_t0")
}

nfs_stop() {
	_nfs_rc=0
	for _m in $_nfs_mounts; do
		umount "$_m" || _nfs_rc=1
	done
	_nfs_mounts=''
	if [ -e "$NFSD_FS/threads" ]; then
		echo 0 >"$NFSD_FS/threads" || _nfs_rc=1
	fi
	exportfs -ua || _nfs_rc=1
	for _p in $_nfs_mountd_pid $_nfs_cld_pid; do
		kill "$_p" 2>/dev/null && wait "$_p" 2>/dev/null
	done
	_nfs_mountd_pid='' _nfs_cld_pid=''
	# unmounting nfsd's file system shuts down what is left of nfsd in
	# this network namespace (its listeners)
	if grep -q " $NFSD_FS nfsd " /proc/mounts; then
		umount "$NFSD_FS" || _nfs_rc=1
	fi
	if grep -q " $NFS_PIPEFS rpc_pipefs " /proc/mounts; then
		umount "$NFS_PIPEFS" || _nfs_rc=1
	fi
	return $_nfs_rc
}
