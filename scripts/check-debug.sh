#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make check-debug: only the KASAN + lockdep part of make check. The
# DEBUG=1 flavour of the patched kernel in the guest, with KUnit at boot and
# the suites whose "kernels" file says debug: those that hammer our kernel
# code concurrently (the engine's 60 s stress run, fio while regions are
# created, printed, cleared and deleted; the engine suite; both
# statistics-layer suites). Any splat fails it, as in make check.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
mkdir -p build/logs

if ! make -s kernel DEBUG=1 >build/logs/kernel-debug-build.log 2>&1; then
	tail -n 20 build/logs/kernel-debug-build.log
	echo "0 passed, 1 failed"
	exit 1
fi
kunit_suites=$(scripts/kunit-suite-count.sh)
# shellcheck disable=SC2046
tests/vm/run.sh --kernel patched --debug --name kasan --timeout 1800 --mem 5632 \
	--kunit-suites "$kunit_suites" $(scripts/guest-suites.sh debug) | tee build/logs/check-debug.out
read -r _ p f _ < <(grep '^RESULT ' build/logs/check-debug.out | tail -n 1)
echo "${p:-0} passed, ${f:-1} failed"
[[ ${f:-1} == 0 ]]
