#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Build upstream getdelays (tools/accounting/getdelays.c), unmodified, from
# the pristine kernel source, against the pristine uapi taskstats headers, into
# build/tests/bin/getdelays. The guest suite "taskstats" checks that it still
# works against the patched kernel. Nothing of it is copied into the repository.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
pristine=$top/build/src/linux-pristine
src=$pristine/tools/accounting/getdelays.c
out=$top/build/tests/bin/getdelays
inc=$top/build/tests/getdelays-include

if [[ ! -f $src ]]; then
	echo "getdelays: $src is missing (run make kernel first)" >&2
	exit 1
fi
if [[ -x $out && $out -nt $src ]]; then
	exit 0
fi
mkdir -p "$inc/linux" "$(dirname "$out")"
# The installed linux-libc-dev may be older than 6.12's taskstats (v14).
cp "$pristine/include/uapi/linux/taskstats.h" "$pristine/include/uapi/linux/cgroupstats.h" \
	"$inc/linux/"
gcc -O2 -Wall -I"$inc" -o "$out.tmp" "$src"
mv "$out.tmp" "$out"
echo "  CC      $out (upstream tools/accounting/getdelays.c)"
