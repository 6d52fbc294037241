#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Boot a guest kernel under QEMU (TCG), run test suites in it and count results.
#
#   tests/vm/run.sh --kernel stock|patched [--debug] [--name NAME]
#                   [--dm-mod KO] [--extra-module KO]... [--suite S]...
#                   [--timeout SECONDS] [--mem MB] [--append "ARGS"]
#                   [--kunit-suites N] [--guest-config FILE] [--icount OPTS]
#                   [--maxcpus N] [--data DIR] [--kernel-dir DIR]
#                   [--bootconfig FILE] [--nvme-multipath]
#
#   stock    Debian's vmlinuz-$KERNEL_RELEASE with its own modules
#   patched  build/kernel (or build/kernel-debug with --debug): our kernel
#
#   --debug   the debug guest (make check, make check-debug): the KASAN +
#             lockdep kernel in build/kernel-debug, with DEBUG_GUEST_TIMEOUT
#             and DEBUG_GUEST_MEM (versions.mk) unless --timeout or --mem
#             say otherwise (KASAN's shadow and quarantine, slower code)
#   --kernel-dir DIR  with --kernel patched: the kernel built in DIR
#             instead (a configuration variant, e.g. build/kernel-noiotrace)
#   --maxcpus N  N possible CPUs (-smp N and the kernel's maxcpus=QEMU_CPUS;
#             q35 above 255): the guest brings QEMU_CPUS of them online, and
#             the run checks that it sees exactly those online and 0..N-1 in
#             /sys/devices/system/cpu/possible; per-CPU memory and any
#             loop over possible CPUs grow with N
#   --icount  QEMU -icount OPTS (e.g. shift=3,sleep=on): the guest's clock
#             counts the instructions it executes (2^shift ns each; vCPUs
#             take turns), so a busy host cannot change what it measures
#   --data    files the suites read, copied to the guest's /data
#             (scripts/fuzz-dm.sh: the dm-stats-fuzz scripts)
#   --bootconfig FILE  with --kernel patched: FILE appended to the
#             initramfs by the kernel's own tools/bootconfig, and
#             "bootconfig" on the command line (CONFIG_BOOT_CONFIG)
#   --nvme-multipath  an NVMe subsystem with two controllers sharing one
#             64 MiB namespace (QEMU's nvme-subsys): with
#             CONFIG_NVME_MULTIPATH, one head device and a path per
#             controller (the io-trace-devices suite)
#
# Logs: build/logs/NAME/{console.log,tap.log,results}. The last line printed
# is "RESULT pass fail skip"; the exit status is non-zero on any failure, a
# missing test, a guest that did not finish, or a kernel splat.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../../scripts/versions.sh
. "$top/scripts/versions.sh"
# shellcheck source=qemu-common.sh
. "$top/tests/vm/qemu-common.sh"

kernel='' debug=0 name='' dm_mod='' timeout='' mem='' append='' kunit_suites=0
guest_config='' icount='' maxcpus='' data='' kernel_dir='' bootconfig=''
nvme_multipath=0
suites=()
extra=()
while (($#)); do
	case $1 in
	--kernel) kernel=$2; shift 2 ;;
	--debug) debug=1; shift ;;
	--name) name=$2; shift 2 ;;
	--dm-mod) dm_mod=$(readlink -f "$2"); shift 2 ;;
	--extra-module) extra+=(--extra-module "$(readlink -f "$2")"); shift 2 ;;
	--suite) suites+=("$2"); shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	--kunit-suites) kunit_suites=$2; shift 2 ;;
	--guest-config) guest_config=$(readlink -f "$2"); shift 2 ;;
	--icount) icount=$2; shift 2 ;;
	--maxcpus) maxcpus=$2; shift 2 ;;
	--data) data=$(readlink -f "$2"); shift 2 ;;
	--kernel-dir) kernel_dir=$(readlink -f "$2"); shift 2 ;;
	--bootconfig) bootconfig=$(readlink -f "$2"); shift 2 ;;
	--nvme-multipath) nvme_multipath=1; shift ;;
	-h | --help) sed -n '4,38p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
if ((debug)); then
	timeout=${timeout:-$DEBUG_GUEST_TIMEOUT} mem=${mem:-$DEBUG_GUEST_MEM}
else
	timeout=${timeout:-$QEMU_TIMEOUT} mem=${mem:-$QEMU_MEM}
fi

case $kernel in
stock)
	image=/boot/vmlinuz-$KERNEL_RELEASE
	release=$KERNEL_RELEASE
	modroot=/
	;;
patched)
	kdir=$top/build/kernel
	((debug)) && kdir=$top/build/kernel-debug
	[[ -n $kernel_dir ]] && kdir=$kernel_dir
	image=$kdir/arch/x86/boot/bzImage
	[[ -f $kdir/include/config/kernel.release ]] || { echo "run.sh: $kdir is not built (make kernel)" >&2; exit 2; }
	release=$(cat "$kdir/include/config/kernel.release")
	modroot=$kdir/modinstall
	;;
*) echo "run.sh: --kernel stock|patched is required" >&2; exit 2 ;;
esac
[[ -f $image ]] || { echo "run.sh: no kernel image $image" >&2; exit 2; }
if [[ -z $name ]]; then
	name=$kernel
	((debug)) && name+=-debug
fi
logs=$top/build/logs/$name
rm -rf "$logs"
mkdir -p "$logs"

args=(--out "$logs/initramfs.cpio.gz" --release "$release" --modules "$modroot"
	--suites "${suites[*]:-}")
[[ -n $dm_mod ]] && args+=(--dm-mod "$dm_mod")
[[ -n $guest_config ]] && args+=(--config "$guest_config")
[[ -n $data ]] && args+=(--data "$data")
"$top/tests/vm/mkinitramfs.sh" "${args[@]}" "${extra[@]}"
if [[ -n $bootconfig ]]; then
	# tools/bootconfig from the kernel's source, built out of the tree
	bctool=$top/build/bootconfig/bootconfig
	[[ $kernel == patched ]] || { echo "run.sh: --bootconfig needs --kernel patched" >&2; exit 2; }
	if [[ ! -x $bctool ]]; then
		mkdir -p "$top/build/bootconfig"
		make -s -C "$top/build/src/linux/tools/bootconfig" OUTPUT="$top/build/bootconfig/" >&2
	fi
	"$bctool" -a "$bootconfig" "$logs/initramfs.cpio.gz" >&2
	append+=" bootconfig"
fi

icount_args=()
[[ -n $icount ]] && icount_args=(-icount "$icount")
# Many possible CPUs: N present, QEMU_CPUS of them brought up. Not
# -smp QEMU_CPUS,maxcpus=N: its hotplug slots are MADT entries marked
# disabled, which Linux 6.12 counts as possible only under a hypervisor it
# recognises (acpi_is_processor_usable()), and TCG is none, so that guest
# has QEMU_CPUS possible CPUs. QEMU 7.2's default machine (i440fx) takes at
# most 255 CPUs.
smp=$QEMU_CPUS machine_args=() accel=tcg
if [[ -n $maxcpus ]]; then
	smp=$maxcpus
	# One TCG thread for all vCPUs: with 255 vCPU threads, a CPU ran a
	# stale translation of code the kernel had just patched (an int3 the
	# patch had removed) in 3 of 3 boots on a loaded host.
	accel=tcg,thread=single
	# no_timer_check: with many vCPUs on a loaded host, the IO-APIC timer
	# check panicked 2 of 4 boots ("IO-APIC + timer doesn't work!")
	# watchdog_thresh=60 while booting: as the kernel poisons its freed
	# init text (kernel_init -> free_reserved_area), TCG drops what it
	# translated of each page on every vCPU; with 255 of them that took
	# 7-13 s on a quiet host and 26 s, a soft lockup, on a loaded one.
	# The guest's init restores the default 10 s before any test.
	append+=" maxcpus=$QEMU_CPUS no_timer_check watchdog_thresh=60"
	((maxcpus > 255)) && machine_args=(-machine q35)
fi
device_args=()
if ((nvme_multipath)); then
	# The namespace is attached to every controller of its subsystem
	# (shared, no bus given): two paths to one namespace. The controllers
	# of one subsystem share its serial number (QEMU checks).
	truncate -s 64M "$logs/nvme.img"
	# shellcheck disable=SC2054 # QEMU's own option lists, comma-separated
	device_args=(-device nvme-subsys,id=iosubsys,nqn=iotally-subsys
		-device nvme,serial=iotally,subsys=iosubsys
		-device nvme,serial=iotally,subsys=iosubsys
		-drive "file=$logs/nvme.img,if=none,id=iotallyns,format=raw"
		-device nvme-ns,drive=iotallyns,nsid=1,shared=on)
fi
boot() {
	qemu_smp=$smp qemu_accel=$accel qemu_boot "$timeout" "$mem" "${icount_args[@]}" "${machine_args[@]}" \
		"${device_args[@]}" \
		-kernel "$image" -initrd "$logs/initramfs.cpio.gz" \
		-append "console=ttyS0 panic=-1 oops=panic loglevel=7 $append"
}

# A boot that died of a stray int3 before the guest's init said a word, is
# booted again, at most twice, and said so. Multi-threaded TCG lets a vCPU
# run a stale translation of a breakpoint that text_poke_bp() had already
# replaced: 2 of 40 stock boots on an idle host died at
# sched_clock_cpu+0x9, right after "sched_clock: Marking stable" flipped
# its static key, with the final NOP already in memory. That is before any
# test or module of ours has run. Every other splat, and any crash once
# init has started, still fails the run; the crashed boot's console stays
# in console.boot-N.log.
boot_crashed_early() {
	! grep -q '^# iotally-guest ' "$logs/tap.log" 2>/dev/null &&
		grep -q 'Oops: int3' "$logs/console.log" 2>/dev/null
}

attempt=1 max_attempts=3
while :; do
	echo "  BOOT    $name: $(basename "$image") ($release), ${#suites[@]} suites, timeout ${timeout}s"
	start=$(date +%s)
	boot
	elapsed=$(($(date +%s) - start))
	echo "  GUEST   $name: qemu exited rc=$qemu_rc after ${elapsed}s"
	if ((attempt < max_attempts)) && boot_crashed_early; then
		mv "$logs/console.log" "$logs/console.boot-$attempt.log"
		echo "# $name: boot $attempt died of a stray int3 before init ran (TCG text patching):" \
			"$(grep -m 1 -n 'Oops: int3' "$logs/console.boot-$attempt.log"); booting again"
		rm -f "$logs/tap.log"
		attempt=$((attempt + 1))
		continue
	fi
	break
done

pass=0 fail=0 skip=0
add_result() {
	local line
	line=$(tail -n 1 "$1")
	read -r _ p f s <<<"$line"
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	head -n -1 "$1"
}

qemu_check_exit "$name" || fail=$((fail + 1))

awk -v name="$name" -v suites="${suites[*]:-}" -f "$top/tests/vm/parse-tap.awk" \
	"$logs/tap.log" >"$logs/tap.results"
add_result "$logs/tap.results"

if [[ $kernel == patched ]]; then
	awk -v min_suites="$kunit_suites" -f "$top/tests/vm/parse-ktap.awk" \
		"$logs/console.log" >"$logs/kunit.results"
	add_result "$logs/kunit.results"
fi

# Per-CPU behaviour is part of what we test: the guest must see every vCPU.
qemu_check_cpus "$name" || fail=$((fail + 1))
# With --maxcpus, the guest must also see every possible CPU asked for:
# that is what per-CPU memory and loops over possible CPUs grow with.
if [[ -n $maxcpus ]]; then
	possible=$(sed -n 's/^# iotally-guest .*possible=\([0-9,-]*\).*/\1/p' "$logs/tap.log" | head -n 1)
	if [[ $possible != "0-$((maxcpus - 1))" ]]; then
		echo "not ok - $name: the guest's possible CPUs are '${possible}', not 0-$((maxcpus - 1))"
		fail=$((fail + 1))
	fi
fi

# Kernel splats: any of these in the console log fails the run.
qemu_check_splats "$name" "$logs/console.log" || fail=$((fail + 1))

echo "$pass $fail $skip" >"$logs/results"
echo "# $name: $pass passed, ${fail} failed, $skip skipped (logs: build/logs/$name)"
echo "RESULT $pass $fail $skip"
((fail == 0))
