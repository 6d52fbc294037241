#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# io trace events benchmark, host part (run by scripts/bench.sh): what a
# disabled io event costs, and what all four cost with a consumer.
#
# Two kernels from the same tree and configuration: build/kernel (the
# patched kernel, CONFIG_IO_TRACE_EVENTS=y) and build/kernel-noiotrace
# (configs/iotally.config with the io trace events compiled out, and
# configs/tracing.config as make kernel has it, built
# here). They boot in turn, A-B-B-A (BENCH_QUADS times), each boot
# measuring its rows BENCH_ROUNDS times (tests/bench/io-trace/run.sh); the
# "events" boots also measure all four io events enabled with a bpftrace
# consumer against bpftrace's biosnoop.bt on the block tracepoints, in the
# same boot, interleaved. report.awk prints medians and ratios and the goal.
#
# Environment: BENCH_QUADS (1: boots noevents, events, events, noevents),
# BENCH_ROUNDS (3), BENCH_RUNTIME (fio seconds, 2), BENCH_ICOUNT (QEMU
# -icount options, "shift=3,sleep=on"; empty: the guest's clock is the
# host's).
#
# Two kernels mean two boots: their numbers can only be compared on a clock
# that the host's load does not move. With QEMU's -icount the guest's clock
# advances by 2^shift ns per instruction the guest executes, and by the
# host's clock only while every vCPU is idle (sleep=on); IOPS then count
# the instructions spent per I/O, boot after boot. What that clock cannot
# see: cache misses, branch prediction, a real device. The host's load
# average is printed with the table all the same.
set -euo pipefail

# shellcheck source=../host-common.sh
. "$(dirname "$0")/../host-common.sh"
quads=${BENCH_QUADS:-1}
rounds=${BENCH_ROUNDS:-3}
runtime=${BENCH_RUNTIME:-2}
stage=$top/build/bench/io-trace
mkdir -p "$stage"

# The patched kernel, then the same without the io trace events. The first
# build of the second starts from a copy of the first (not hard links:
# kbuild rewrites files in place): objtool, built with absolute paths,
# is rebuilt in the new directory and every object with it, but ccache
# has them all but the few files that depend on CONFIG_IO_TRACE_EVENTS.
make -C "$top" --no-print-directory kernel >&2
noev=$top/build/kernel-noiotrace
if [[ ! -f $noev/.config ]]; then
	rm -rf "$noev"
	cp -a "$top/build/kernel" "$noev"
fi
sed -e 's/^CONFIG_IO_TRACE_EVENTS=y$/# CONFIG_IO_TRACE_EVENTS is not set/' \
	-e '/^CONFIG_IO_TRACE_EVENTS_KUNIT_TEST=/d' "$top/configs/iotally.config" >"$stage/noiotrace.config"
grep -qx '# CONFIG_IO_TRACE_EVENTS is not set' "$stage/noiotrace.config" ||
	{ echo "io-trace bench: configs/iotally.config does not set CONFIG_IO_TRACE_EVENTS=y" >&2; exit 1; }
# the same fragments as make kernel's (Makefile: KERNEL_FRAGMENTS)
"$top/scripts/kernel-build.sh" "$noev" "$stage/noiotrace.config" "$top/configs/tracing.config" >&2
for k in "$top/build/kernel" "$noev"; do
	echo "$(basename "$k"): CONFIG_IO_TRACE_EVENTS $(grep -E '^(# )?CONFIG_IO_TRACE_EVENTS[= ]' "$k/.config")"
done >"$stage/kernels.txt"
if ! grep -q '^kernel: .*=y$' "$stage/kernels.txt" ||
	! grep -q '^kernel-noiotrace: .*is not set$' "$stage/kernels.txt"; then
	cat "$stage/kernels.txt" >&2
	echo "io-trace bench: the kernels are not what they should be" >&2
	exit 1
fi

load_before=$(load)
bench_icount

status=0
logs=()
boot=0
for ((q = 1; q <= quads; q++)); do
	for k in noevents events events noevents; do
		boot=$((boot + 1))
		printf 'BENCH_KERNEL=%s\nBENCH_BOOT=%s\nBENCH_ROUNDS=%s\nBENCH_RUNTIME=%s\n' \
			"$k" "$boot" "$rounds" "$runtime" >"$stage/guest-$boot.conf"
		kdir=$top/build/kernel
		[[ $k == noevents ]] && kdir=$noev
		name=bench-io-trace-$boot
		# Both kernels boot the same initramfs contents (bpftrace too).
		# KUnit is make check's: not run at boot here (under the
		# instruction clock, lib/statistic-core-test.c's reconfigure_under_adds
		# fails, and its adder thread then oopses on the test's freed
		# stack).
		"$top/tests/vm/run.sh" --kernel patched --kernel-dir "$kdir" --name "$name" \
			--mem 2048 --timeout 3600 "${icount[@]}" --append kunit.enable=0 \
			--guest-config "$stage/guest-$boot.conf" --suite bench/io-trace || status=$?
		logs+=("$top/build/logs/$name/tap.log")
	done
done

awk -v rounds="$rounds" -v quads="$quads" -v icount="$icount_opts" \
	-v load="$load_before, $(load) on $(nproc) CPUs" \
	-f "$top/tests/bench/lib.awk" -f "$top/tests/bench/io-trace/report.awk" \
	"${logs[@]}" | tee "$stage/report.txt"
# the promise of the option (a disabled event costs nothing measurable);
# the consumers' goals are reported, met or not
grep -q '^goal: io events compiled in and disabled .*: met$' "$stage/report.txt" || status=1
exit $status
