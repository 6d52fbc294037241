#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Build the small programs the guest suites and benchmarks run
# (tests/helpers/*.cpp) into build/tests/bin, which tests/vm/mkinitramfs.sh
# puts into every guest. Rebuilds only what changed.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/tests/bin
mkdir -p "$out"
# A program is rebuilt when it is older than its source or a shared header.
newest_header=
for h in "$top"/tests/helpers/*.hpp; do
	[[ -e $h ]] || continue
	[[ -z $newest_header || $h -nt $newest_header ]] && newest_header=$h
done
for src in "$top"/tests/helpers/*.cpp; do
	[[ -e $src ]] || continue
	bin=$out/$(basename "$src" .cpp)
	[[ $bin -nt $src && ( -z $newest_header || $bin -nt $newest_header ) ]] && continue
	${CXX:-g++} -std=c++20 -O2 -Wall -Wextra -Werror -o "$bin.tmp" "$src"
	mv "$bin.tmp" "$bin"
	echo "  HELPER  ${bin#"$top"/}"
done
