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
# shellcheck source=flavour-check.sh
. scripts/flavour-check.sh

flavour_build kernel-debug-build.log DEBUG=1
kunit_suites=$(scripts/kunit-suite-count.sh)
# shellcheck disable=SC2046
tests/vm/run.sh --kernel patched --debug --name kasan --kunit-suites "$kunit_suites" \
	$(scripts/guest-suites.sh debug) | tee build/logs/check-debug.out
flavour_result build/logs/check-debug.out
