#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make check-kmsan: the KMSAN flavour of the patched kernel (make kernel
# KMSAN=1, built with clang) in the guest, with KUnit at boot and the
# dm-stats suites (conformance, targets, engine, stress, a fuzzing script).
# KMSAN reports every use of memory that was never written (a bio's
# per-I/O state in bioset memory, for one); any report fails the run, as
# any splat does (tests/vm/run.sh). Not part of make check: the clang
# build and the instrumented guest take long.
#
#   scripts/check-kmsan.sh [SUITE...]   only these guest suites (KUnit
#                                       always runs at boot)
#
# The flavour has no lockdep (configs/kmsan.config says why: with it the
# guest never got past "Starting KernelMemorySanitizer"). 3 GiB of guest
# memory: KMSAN keeps a shadow and an origin page for every page.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
# shellcheck source=flavour-check.sh
. scripts/flavour-check.sh

flavour_build kernel-kmsan-build.log KMSAN=1
fuzz_data=build/fuzz-kmsan
fuzz=()
if scripts/test-helpers.sh >build/logs/kmsan-helpers.log 2>&1 &&
	scripts/fuzz-dm.sh gen "$fuzz_data" 300 1 >build/logs/kmsan-fuzz-gen.log 2>&1; then
	fuzz=(--data "$fuzz_data" --suite dm-stats-fuzz)
fi
suites=()
if (($#)); then
	for s in "$@"; do
		if [[ $s == dm-stats-fuzz ]]; then
			suites+=("${fuzz[@]}")
		else
			suites+=(--suite "$s")
		fi
	done
else
	suites=(--suite dm-stats --suite dm-stats-targets --suite dm-stats-engine
		--suite dm-stats-stress "${fuzz[@]}")
fi
kunit_suites=$(scripts/kunit-suite-count.sh)
# The instrumented kernel is several times slower: the suites' upper
# bounds on elapsed time (dm-stats-targets' dm-thin case) are scaled.
echo "TIME_SCALE=10" >build/logs/kmsan-guest.conf
tests/vm/run.sh --kernel patched --kernel-dir build/kernel-kmsan --name kmsan --timeout 5400 \
	--mem 3072 --kunit-suites "$kunit_suites" --guest-config build/logs/kmsan-guest.conf \
	"${suites[@]}" | tee build/logs/check-kmsan.out
kmsan=0
if grep -q 'BUG: KMSAN' build/logs/kmsan/console.log 2>/dev/null; then
	grep -A 12 'BUG: KMSAN' build/logs/kmsan/console.log | head -n 60
	kmsan=1
fi
flavour_result build/logs/check-kmsan.out "$kmsan"
