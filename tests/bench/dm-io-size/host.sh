#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make bench: what a bio pays in memory on every mapped device, whether or
# not it is counted: struct dm_io, stock 6.12 against ours (pahole's
# layouts and sizes), and the stack the engine's I/O walks and index
# destruction take (-fstack-usage). No guest: compiles against the stock
# kernel's headers. The table is kept in build/bench/dm-io-size/report.txt.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
out=$top/build/bench/dm-io-size
mkdir -p "$out"
"$top/scripts/dm-io-size.sh" --report | tee "$out/report.txt"
exit "${PIPESTATUS[0]}"
