#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make kunit: our KUnit suites under User-Mode Linux, the quick loop while
# writing kernel code (make check runs them in the patched x86 guest).
# The UML build lives in build/kunit-uml; extra arguments go to kunit.py run
# (e.g. a suite filter: scripts/kunit-uml.sh 'dm_stats*').
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
export CCACHE_BASEDIR=$top CCACHE_NOHASHDIR=1

out=$top/build/kunit-uml
mkdir -p "$out"
config=$out/.kunitconfig.iotally
{
	cat tests/kunit/iotally.kunitconfig
	grep -E '^CONFIG_[A-Z0-9_]*KUNIT[A-Z0-9_]*=y' configs/iotally.config || true
} | sort -u >"$config.new"
mv "$config.new" "$config"

# The same assembled tree as make kernel; its build lock keeps them apart.
exec 9>"$top/build/src/.lock"
flock 9
cd build/src/linux
exec python3 tools/testing/kunit/kunit.py run --arch=um --build_dir="$out" \
	--kunitconfig="$config" --make_options="CC=ccache gcc" \
	--jobs="$(nproc)" "$@"
