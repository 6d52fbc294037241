#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Build a guest initramfs: busybox, the user-space programs the tests need with
# their shared libraries (found with ldd), kernel modules (decompressed, with a
# modules.dep made by depmod), the test suites and tests/vm/init.
#
#   mkinitramfs.sh --out FILE --release KREL --modules DIR [--dm-mod KO]...
#                  [--extra-module KO]... [--suites "A B"] [--config FILE]
#                  [--data DIR]
#
#   --modules DIR       root holding lib/modules/KREL (Debian's / or our modinstall)
#   --dm-mod KO         use this dm-mod.ko instead of the kernel's own
#   --extra-module KO   add a module (placed under kernel/extra/)
#   --data DIR          files for the suites, copied to the guest's /data
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
out='' release='' modroot='' dm_mod='' suites='' guest_config='' data=''
extra_modules=()
while (($#)); do
	case $1 in
	--out) out=$2; shift 2 ;;
	--release) release=$2; shift 2 ;;
	--modules) modroot=$2; shift 2 ;;
	--dm-mod) dm_mod=$2; shift 2 ;;
	--extra-module) extra_modules+=("$2"); shift 2 ;;
	--suites) suites=$2; shift 2 ;;
	--config) guest_config=$2; shift 2 ;;
	--data) data=$2; shift 2 ;;
	*) echo "mkinitramfs: unknown option $1" >&2; exit 2 ;;
	esac
done
[[ -n $out && -n $release && -n $modroot ]] || { echo "mkinitramfs: --out, --release and --modules are required" >&2; exit 2; }

# Modules the guest may load, by name; dependencies are added by depmod.
wanted_modules=(dm-mod dm-delay dm-zero dm-multipath dm-round-robin brd null_blk loop statistic statistic_sample)
# The targets dm-stats is tested on (dm-stats-targets); dm-crypt's
# aes-xts-plain64 needs xts (AES is built in).
wanted_modules+=(dm-crypt xts dm-thin-pool dm-snapshot dm-mirror dm-cache dm-cache-smq dm-flakey)
# ext2 file systems (iotally --file): the stock kernel mounts them with ext4.ko,
# which needs a crc32c driver.
wanted_modules+=(ext4 crc32c_generic)
# md raid1 (md-mod with it): the io-trace and iotally suites build arrays.
wanted_modules+=(raid1)
# The NFS client where it is modular (configs/modular.config): io-trace.
wanted_modules+=(nfs nfsv4)
# Our KUnit suites as modules (kernel-hz.sh's kernel), for their suite only.
[[ " $suites " == *" kunit-modules "* ]] &&
	mapfile -t -O "${#wanted_modules[@]}" wanted_modules < <(grep -v '^#' "$top/tests/selftests/kunit-modules/modules")
# Programs, by absolute path on the host.
programs=(/usr/sbin/dmsetup /usr/bin/fio /usr/bin/dd /usr/bin/taskset /usr/bin/stat
	/usr/bin/tmux /usr/bin/timeout /usr/bin/sync)
# kselftest's runner: GNU make runs the suites (make -C ... run_tests), its
# recipes under dash, as on Debian (busybox ash would run its own readlink
# applet, which has no -e); coreutils' timeout applies each suite's timeout
# (settings). The suites themselves still run under busybox ash (#!/bin/sh).
programs+=(/usr/bin/make /usr/bin/dash /usr/bin/readlink)
# iotally --file (mke2fs, filefrag) and the not-root checks (util-linux setpriv).
programs+=(/sbin/mke2fs /usr/sbin/filefrag /usr/bin/setpriv)
# The io-trace suite: util-linux losetup (--direct-io), mdadm (md raid1).
programs+=(/sbin/losetup /usr/sbin/mdadm)
# The taskstats suite: util-linux chrt (a SCHED_FIFO busy loop).
programs+=(/usr/bin/chrt)
# The io-bpftrace suite and the io-trace benchmark: bpftrace, only in their
# guests (200 MiB of libraries).
bpftrace=0
[[ " $suites " == *" io-bpftrace "* || " $suites " == *" bench/io-trace "* ]] && bpftrace=1
((bpftrace)) && programs+=(/usr/bin/bpftrace)
# The io-trace-names suite: perf (linux-perf).
[[ " $suites " == *" io-trace-names "* ]] && programs+=(/usr/bin/perf)
# A kernel NFS server's user space, only for the suites that mount NFS over
# loopback (tests/selftests/lib-nfs.sh): rpc.mountd and exportfs (exports),
# nfsdcld (nfsd's client database: no grace period). No rpc.nfsd, rpcbind
# or mount.nfs: NFSv4 only, nfsd set up through /proc/fs/nfsd, the client
# mounted with the kernel's own option parser.
case " $suites " in
*" io-trace "* | *" nfs-setup "*) programs+=(/usr/sbin/rpc.mountd /usr/sbin/exportfs /usr/sbin/nfsdcld) ;;
esac
# iostat -x beside iotally report -x (demo and iotally suites).
programs+=(/usr/bin/iostat)
# Upstream getdelays, built unmodified from the kernel source, for the suites
# that run it (taskstats, taskstats-listeners, delayacct): scripts/getdelays.sh needs the
# kernel tree, which a guest of the stock kernel without them (make demo)
# must not wait for.
case " $suites " in
*" taskstats "* | *" taskstats-listeners "* | *" delayacct "* | *" bench/taskstats-listeners "*)
	if [[ -x $top/scripts/getdelays.sh ]]; then
		"$top/scripts/getdelays.sh" >&2
	fi
	;;
esac
# Prometheus, promtool and node_exporter for the serve suites and mixin only (120 MB).
case " $suites " in
*" serve "* | *" serve-native "* | *" mixin "*) programs+=(/usr/bin/prometheus /usr/bin/promtool /usr/bin/prometheus-node-exporter) ;;
esac
# Our own user-space programs, when they have been built.
for p in "$top"/build/tools/iotally "$top"/build/tests/bin/*; do
	[[ -x $p && -f $p ]] && programs+=("$p")
done

root=$(mktemp -d "${TMPDIR:-/tmp}/iotally-initramfs.XXXXXX")
# mktemp makes it 0700; the archive's "." becomes the guest's / (0755, so
# that an unprivileged user can reach the programs and their libraries).
chmod 0755 "$root"
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,lib,lib64,etc,proc,sys,dev,tmp,run,root}

cp /bin/busybox "$root/bin/busybox"
ln -s busybox "$root/bin/sh"

copy_with_libs() {
	local prog=$1 dest=$2 lib
	install -D -m 0755 "$prog" "$root$dest"
	# ldd prints "name => /path (addr)" or "/path (addr)" for the loader.
	while read -r lib; do
		[[ -e $root$lib ]] && continue
		install -D -m 0755 "$lib" "$root$lib"
	done < <(ldd "$prog" 2>/dev/null | sed -n -e 's|.*=> \(/[^ ]*\).*|\1|p' -e 's|^\s*\(/[^ ]*\) (.*|\1|p')
}
for p in "${programs[@]}"; do
	[[ -e $p ]] || { echo "mkinitramfs: $p is missing (run make deps)" >&2; exit 1; }
	case $p in
	"$top"/*) copy_with_libs "$p" "/usr/bin/$(basename "$p")" ;;
	*) copy_with_libs "$p" "$p" ;;
	esac
done
ln -s dmsetup "$root/usr/sbin/dmstats"
# bpftrace parses its scripts' types with clang: the kernel's UAPI headers.
if ((bpftrace)); then
	for d in /usr/include/linux /usr/include/asm-generic /usr/include/x86_64-linux-gnu/asm; do
		mkdir -p "$root$(dirname "$d")" && cp -a "$d" "$root$d"
	done
fi
# tmux needs a terminfo entry for its terminal.
for t in /usr/share/terminfo/x/xterm /lib/terminfo/x/xterm /usr/share/terminfo/s/screen /lib/terminfo/s/screen \
	/lib/terminfo/l/linux /lib/terminfo/v/vt100; do
	[[ -e $t ]] && install -D -m 0644 "$(readlink -f "$t")" "$root$t"
done

# tmux refuses to start without a UTF-8 locale.
if [[ -d /usr/lib/locale/C.utf8 ]]; then
	mkdir -p "$root/usr/lib/locale" && cp -a /usr/lib/locale/C.utf8 "$root/usr/lib/locale/"
fi

# Kernel modules: the wanted ones and their dependencies, decompressed.
moddir=$root/lib/modules/$release
mkdir -p "$moddir"
src_moddir=$modroot/lib/modules/$release
if [[ -d $src_moddir ]]; then
	declare -A seen=()
	add_module() {
		local name=$1 path dep
		path=$(modinfo -b "$modroot" -k "$release" -n "$name" 2>/dev/null) || return 0
		[[ $path == /* && -f $path ]] || return 0 # built in
		[[ -n ${seen[$path]:-} ]] && return 0
		seen[$path]=1
		local rel=${path#"$src_moddir"/}
		rel=${rel%.xz}
		rel=${rel%.zst}
		rel=${rel%.gz}
		mkdir -p "$moddir/$(dirname "$rel")"
		if [[ $name == dm-mod && -n $dm_mod ]]; then
			cp "$dm_mod" "$moddir/$rel"
		else
			case $path in
			*.xz) xz -dc "$path" >"$moddir/$rel" ;;
			*.zst) zstd -qdc "$path" >"$moddir/$rel" ;;
			*.gz) gzip -dc "$path" >"$moddir/$rel" ;;
			*) cp "$path" "$moddir/$rel" ;;
			esac
		fi
		for dep in $(modinfo -b "$modroot" -k "$release" -F depends "$name" | tr ',' ' '); do
			add_module "$dep"
		done
	}
	for m in "${wanted_modules[@]}"; do add_module "$m"; done
	cp "$src_moddir"/modules.builtin* "$moddir/" 2>/dev/null || true
fi
: >"$moddir/modules.order"
for ko in "${extra_modules[@]}"; do
	install -D -m 0644 "$ko" "$moddir/kernel/extra/$(basename "$ko")"
done
if [[ -n $dm_mod && ! -e $moddir/kernel/drivers/md/dm-mod.ko ]]; then
	echo "mkinitramfs: --dm-mod given but this kernel has no modular dm-mod" >&2
	exit 1
fi
depmod -b "$root" "$release"

# The init program, and the suites in kselftest's frame, as the kernel tree
# has them: /src/tools/testing/selftests/iotally/SUITE (also /tests/SUITE).
install -m 0755 "$top/tests/vm/init" "$root/init"
# Every suite is copied (suites share helpers); only the named ones run.
for s in $suites; do
	[[ -f $top/tests/selftests/$s/run.sh || -f $top/tests/$s/run.sh ]] || { echo "mkinitramfs: no suite tests/selftests/$s" >&2; exit 1; }
done
# Their helper programs are built on the host by their Makefiles
# (scripts/kselftest-stage.sh); copied with their times, make finds them
# up to date in the guest, which has no compiler.
stage=$("$top/scripts/kselftest-stage.sh" $suites)
mkdir -p "$root/src"
cp -a "$stage/tools" "$stage/scripts" "$root/src/"
selftests=/src/tools/testing/selftests
ln -s "$selftests/iotally" "$root/tests"
if [[ -n $data ]]; then
	mkdir -p "$root/data"
	cp -r "$data/." "$root/data/"
fi
# The monitoring mixin where the package installs it (its rules, alerts and
# Grafana dashboard), with the list of its queries: serve-native and mixin
# run them against Prometheus.
for f in grafana-iotally.json iotally-rules.yml iotally-alerts.yml queries.txt; do
	install -D -m 0644 "$top/tools/iotally/contrib/mixin/$f" "$root/usr/share/iotally/$f"
done
# Benchmarks run as suites named bench/NAME (tests/bench/NAME/run.sh).
[[ -d $top/tests/bench ]] && cp -r "$top/tests/bench" "$root$selftests/iotally/bench"
{
	echo "IOTALLY_SUITES=\"$suites\""
	[[ -n $guest_config ]] && cat "$guest_config"
} >"$root/etc/iotally.conf"

(cd "$root" && find . -print0 | sort -z | cpio --null -o -H newc --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
echo "  INITRAMFS $out ($(du -h "$out" | cut -f1), modules: $(find "$moddir" -name '*.ko' | wc -l), suites: ${suites:-none})"
