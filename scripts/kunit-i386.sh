#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make check-i386: our KUnit suites on a 32-bit x86 kernel (ARCH=i386, SMP)
# in qemu-system-i386 with two vCPUs, each on a host thread, so that a
# 64-bit counter torn into two 32-bit stores can show (the task_io_stats
# suite's reader_never_torn_test and writer_section_test). Same suites and
# symbols as make kunit (scripts/kunit-uml.sh). The build lives in
# build/kunit-i386; the KTAP is kept as build/logs/kunit-i386/ktap.log.
# Extra arguments go to kunit.py run (e.g. a suite filter 'task_io_stats*');
# --name NAME (scripts/check.sh's guest_with) only names the part.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
[[ ${1-} == --name ]] && shift 2
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
export CCACHE_BASEDIR=$top CCACHE_NOHASHDIR=1

out=$top/build/kunit-i386
logs=$top/build/logs/kunit-i386
mkdir -p "$out" "$logs"
config=$out/.kunitconfig.iotally
{
	cat tests/kunit/iotally.kunitconfig
	grep -E '^CONFIG_[A-Z0-9_]*KUNIT[A-Z0-9_]*=y' configs/iotally.config || true
	# A 32-bit distribution kernel: SMP, high memory, preemptible.
	echo CONFIG_SMP=y
	echo CONFIG_PREEMPT=y
} | sort -u >"$config.new"
mv "$config.new" "$config"

# The same assembled tree as make kernel; its build lock keeps them apart.
exec 9>"$top/build/src/.lock"
flock 9
cd build/src/linux
rc=0
python3 tools/testing/kunit/kunit.py run --arch=i386 --build_dir="$out" \
	--kunitconfig="$config" --make_options="CC=ccache gcc" \
	--qemu_args="-smp 2 -accel tcg,thread=multi" --timeout=600 \
	--jobs="$(nproc)" --raw_output=kunit "$@" >"$logs/ktap.log" || rc=$?
# The host's KTAP parser counts suites and cases as for the guests.
awk -v min_suites="$("$top/scripts/kunit-suite-count.sh")" \
	-f "$top/tests/vm/parse-ktap.awk" "$logs/ktap.log" | tee "$logs/results"
grep -q '^RESULT [0-9]* 0 ' "$logs/results" || rc=1
exit "$rc"
