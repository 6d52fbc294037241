#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make bench: what a bio pays in memory on every mapped device, whether or
# not it is counted: struct dm_io, stock 6.12 against ours (pahole's
# layouts, and the sizes as a table). No guest: a compile of dm.c.
set -uo pipefail
top=$(cd "$(dirname "$0")/../../.." && pwd)
exec "$top/scripts/dm-io-size.sh" --report
