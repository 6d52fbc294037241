#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make check-debug: the KASAN + lockdep flavour of the patched kernel
# (make kernel DEBUG=1) in the guest, with KUnit at boot and the suites that
# hammer our kernel code concurrently: the engine's 60 s stress run (fio
# while regions are created, printed, cleared and deleted), the engine suite
# and both statistics-layer suites. Any splat fails it, as in make check.
# Kept apart from make check because a cold KASAN build doubles its time.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
mkdir -p build/logs

if ! make -s kernel DEBUG=1 >build/logs/kernel-debug-build.log 2>&1; then
	tail -n 20 build/logs/kernel-debug-build.log
	echo "0 passed, 1 failed"
	exit 1
fi
kunit_suites=$(scripts/kunit-suite-count.sh)
tests/vm/run.sh --kernel patched --debug --name kasan --timeout 1800 \
	--kunit-suites "$kunit_suites" --suite dm-stats-stress --suite dm-stats-engine \
	--suite statistic --suite statistic-dm | tee build/logs/check-debug.out
read -r _ p f _ < <(grep '^RESULT ' build/logs/check-debug.out | tail -n 1)
echo "${p:-0} passed, ${f:-1} failed"
[[ ${f:-1} == 0 ]]
