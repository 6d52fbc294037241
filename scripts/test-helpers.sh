#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Build the small programs the guest suites and benchmarks run
# (tests/selftests/helpers/*.cpp and *.c) into build/tests/bin, which
# tests/vm/mkinitramfs.sh puts into every guest for the benchmarks and the
# host's fuzzer runs. The rules are the suites' own
# (tests/selftests/helpers/helpers.mk, which each suite's Makefile includes
# to build what it needs in its folder), and so are the sources: the
# helpers folder as the kernel tree has it, with the libiotally headers
# make patches ships beside them (scripts/kselftest-stage.sh lays it out).
# make rebuilds only what changed.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
helpers=$("$top/scripts/kselftest-stage.sh")/tools/testing/selftests/iotally/helpers
out=$top/build/tests/bin
mkdir -p "$out"
programs=()
for src in "$helpers"/*.cpp "$helpers"/*.c; do
	[[ -e $src ]] && programs+=("$out/$(basename "${src%.*}")")
done
make -s -f "$helpers/helpers.mk" HELPERS_DIR="$helpers" OUTPUT="$out" "${programs[@]}"
