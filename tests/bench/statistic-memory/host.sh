#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Memory of CONFIG_DM_STATISTIC per mapped device while its statistics are
# stopped, host part (run by scripts/bench.sh): one boot of the patched
# kernel with 64 possible CPUs, 2 of them online (tests/vm/run.sh
# --maxcpus 64: -smp 64 and the kernel's maxcpus=2; the run fails unless
# the guest sees 0-63 as possible), where tests/bench/statistic-memory/run.sh
# creates 1,000 dm-linear devices with the dm exploiter off and on; this
# script prints the table.
#
# Environment: BENCH_DEVICES (default 1000), BENCH_MAXCPUS (default 64).
set -euo pipefail

top=$(cd "$(dirname "$0")/../../.." && pwd)
name=bench-statistic-memory
stage=$top/build/bench/statistic-memory
mkdir -p "$stage"
printf 'BENCH_DEVICES=%s\n' "${BENCH_DEVICES:-1000}" >"$stage/guest.conf"

# no_timer_check: with 64 vCPUs on a loaded host, 2 of 4 boots panicked in
# the boot-time check of the IO-APIC timer ("IO-APIC + timer doesn't work!",
# no tick seen within its busy-wait); the timer itself is QEMU's and works.
status=0
"$top/tests/vm/run.sh" --kernel patched --name "$name" --timeout 1800 --mem 2048 \
	--append no_timer_check \
	--maxcpus "${BENCH_MAXCPUS:-64}" --guest-config "$stage/guest.conf" \
	--suite bench/statistic-memory || status=$?

line=$(sed -n 's/^# BENCH //p' "$top/build/logs/$name/tap.log")
[[ -n $line ]] || { echo "bench statistic-memory: no result in build/logs/$name/tap.log" >&2; exit 1; }
val() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" <<<"$line"; }
{
	echo "CONFIG_DM_STATISTIC memory per mapped device, every statistic stopped:"
	echo "patched kernel, QEMU TCG, 2 online of $(val possible_cpus) possible CPUs, $(val devices) dm-linear"
	echo "devices, in alternating batches of 100 with dm_mod.statistic=0 (off) and =1 (on)"
	echo
	printf '%-28s %12s %12s %12s\n' "" "off" "on" "per device"
	printf '%-28s %12s %12s %12s\n' "Slab (bytes)" "$(val off_slab)" "$(val on_slab)" "$(val per_device_slab)"
	printf '%-28s %12s %12s %12s\n' "Percpu (bytes)" "$(val off_percpu)" "$(val on_percpu)" "$(val per_device_percpu)"
	printf '%-28s %12s %12s %12s\n' "per-CPU allocated (bytes)" "$(val off_percpu_alloc)" \
		"$(val on_percpu_alloc)" "$(val per_device_percpu_alloc)"
	printf '%-28s %12s %12s %12s\n' "statistic layer (bytes)" "-" "-" "$(val per_device_layer)"
	echo
	echo "Percpu: populated pages of all possible CPUs, in steps of 64 x 4 KiB here;"
	echo "per-CPU allocated: what the devices' per-CPU allocations add up to, from the"
	echo "percpu_alloc_percpu and percpu_free_percpu tracepoints"
	echo
	echo "per device: $(val per_device) bytes (Slab + Percpu)"
	echo "per-CPU memory allocated per device: $(val per_device_percpu_alloc) bytes (goal < 200)"
	echo "per device and possible CPU: $(val per_device_per_cpu) bytes"
	echo "ratio on/off, Slab + Percpu: $(awk -v a="$(val on_slab)" -v b="$(val on_percpu)" \
		-v c="$(val off_slab)" -v d="$(val off_percpu)" 'BEGIN { printf "%.3f", (a + b) / (c + d) }')"
} | tee "$stage/report.txt"
exit $status
