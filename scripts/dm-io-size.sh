#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What a bio pays in memory on every mapped device: struct dm_io (DM core's
# per-bio state, in the front pad of every bio a mapped device clones)
# compiled from the stock 6.12 drivers/md and from ours, against the stock
# Debian kernel's headers and configuration (with debug info), and laid
# out by pahole. Ours is compiled twice: as dm-mod is built for the stock
# kernel, and with CONFIG_DM_STATISTIC as the patched kernel may have it.
#
# TAP: "ok" when ours is at most 8 bytes larger than upstream's, each way;
# struct bio and struct request exactly upstream's size; then the stack the engine's I/O walks and index destruction take (gcc's
# -fstack-usage frames, summed along each path), against fixed limits.
# --report: pahole's layouts too (make bench prints them).
#
# Usage: scripts/dm-io-size.sh [--report]
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=versions.sh
. "$top/scripts/versions.sh"
# shellcheck source=host-tap.sh
. "$top/scripts/host-tap.sh"
headers=/usr/src/linux-headers-$KERNEL_RELEASE
pristine=$top/build/src/linux-pristine/drivers/md
out=$top/build/dm-io-size
slack=8
report=0
[[ ${1:-} == --report ]] && report=1

[[ -f $headers/Makefile ]] || bail "dm-io-size: $headers missing (run make deps)"
[[ -d $pristine ]] || pristine=$top/build/modules/pristine/drivers/md
[[ -d $pristine ]] || bail "dm-io-size: no pristine drivers/md (run make tree or make modules)"

# build_dm_o DIR [CFLAGS]: DIR/dm.o, with debug info, from the sources in DIR
build_dm_o() {
	printf 'obj-m := dm-mod.o\ndm-mod-y := dm.o\nccflags-y += -g %s\n' "${2:-}" >"$1/Kbuild"
	make -s -C "$headers" M="$1" dm.o
}

rm -rf "$out"
mkdir -p "$out/stock" "$out/ours-stat"
cp -p "$pristine"/dm*.[ch] "$out/stock/"
"$top/scripts/modules.sh" --stage "$out/ours-src" >/dev/null || exit 1
cp -a "$out/ours-src/drivers/md" "$out/ours"
cp -a "$out/ours-src/drivers/md/." "$out/ours-stat/"

size() { pahole -C dm_io "$1" | sed -n 's|.*/\* size: \([0-9]*\),.*|\1|p'; }
build_dm_o "$out/stock" || exit 1
build_dm_o "$out/ours" || exit 1
build_dm_o "$out/ours-stat" -DCONFIG_DM_STATISTIC=1 || exit 1
stock=$(size "$out/stock/dm.o")
[[ -n $stock ]] || { echo "dm-io-size: pahole found no struct dm_io in the stock dm.o" >&2; exit 1; }
if ((report)); then
	echo "# pahole -C dm_io, stock 6.12 drivers/md/dm.c:"
	pahole -C dm_io "$out/stock/dm.o" | sed 's/^/#   /'
	echo "# pahole -C dm_io, ours (CONFIG_DM_STATISTIC=y):"
	pahole -C dm_io "$out/ours-stat/dm.o" | sed 's/^/#   /'
fi
for v in ours:"dm-mod.ko for the stock kernel" ours-stat:"with CONFIG_DM_STATISTIC"; do
	dir=${v%%:*} what=${v#*:}
	s=$(size "$out/$dir/dm.o")
	if [[ -n $s ]] && ((s <= stock + slack)); then
		pass "struct dm_io $what: $s bytes, upstream's $stock (+$((s - stock)), at most +$slack)"
	else
		tap_result 1 "struct dm_io $what: ${s:-?} bytes, upstream's $stock (at most +$slack)"
	fi
done

# struct bio and struct request, the block layer's per-I/O structures: the
# stock kernel's headers against the same headers with the patched tree's
# copy of each block header the series changes (none today: the io events
# keep what io:io_done reports in a table of their own), with every option
# of ours on. A probe object defines one of each for pahole.
tree=$top/build/src/linux
mkdir -p "$out/blk-stock" "$out/blk-ours/patched"
probe='#include <linux/blk-mq.h>\nstruct bio iotally_probe_bio;\nstruct request iotally_probe_rq;\n'
printf "$probe" >"$out/blk-stock/blk.c"
changed=()
for h in include/linux/blk_types.h include/linux/bio.h include/linux/blkdev.h include/linux/blk-mq.h; do
	if [[ -f $tree/$h ]] && ! cmp -s "$tree/$h" "$top/build/src/linux-pristine/$h"; then
		changed+=("$h")
		mkdir -p "$out/blk-ours/patched/$(dirname "$h")"
		cp "$tree/$h" "$out/blk-ours/patched/$h"
	fi
done
{
	# the patched copies first: their include guards keep the stock ones out
	for h in "${changed[@]}"; do
		printf '#include "patched/%s"\n' "$h"
	done
	printf "$probe"
} >"$out/blk-ours/blk.c"
for d in blk-stock blk-ours; do
	printf 'obj-m := blk.o\nccflags-y += -g -I$(src) %s\n' \
		"-DCONFIG_IO_TRACE_EVENTS=1 -DCONFIG_TASK_IO_STATS=1" >"$out/$d/Kbuild"
	make -s -C "$headers" M="$out/$d" blk.o || exit 1
done
echo "# block headers the series changes: ${changed[*]:-none}"
for st in bio request; do
	a=$(pahole -C "$st" "$out/blk-stock/blk.o" | sed -n 's|.*/\* size: \([0-9]*\),.*|\1|p')
	b=$(pahole -C "$st" "$out/blk-ours/blk.o" | sed -n 's|.*/\* size: \([0-9]*\),.*|\1|p')
	if ((report)); then
		echo "# pahole -C $st, stock 6.12 headers: ${a:-?} bytes; patched: ${b:-?} bytes"
		diff <(pahole -C "$st" "$out/blk-stock/blk.o") <(pahole -C "$st" "$out/blk-ours/blk.o") |
			sed 's/^/#   /'
	fi
	[[ -n $a && $a == "$b" ]]
	tap_result $? "struct $st: ${b:-?} bytes, upstream's ${a:-?} (difference 0)"
done

# Stack: the completion walk runs once per stacked mapped device, possibly
# in hard interrupt context; index destruction also from an RCU callback.
# Frames from -fstack-usage (gcc, the stock kernel's flags), summed along
# each path. A function that is not there was inlined into its caller.
printf 'obj-m := dm-mod.o\ndm-mod-y := dm-stats-io.o dm-stats-index.o\nccflags-y += -fstack-usage\n' \
	>"$out/ours/Kbuild"
make -s -C "$headers" M="$out/ours" dm-stats-io.o dm-stats-index.o || exit 1
frame() { # FUNCTION: its frame in bytes, 0 if inlined
	awk -F'\t' -v f="$1" '{ split($1, p, ":"); sub(/\..*/, "", p[4]) }
		p[4] == f { print $2; found = 1; exit } END { if (!found) print 0 }' \
		"$out/ours/dm-stats-io.su" "$out/ours/dm-stats-index.su"
}
path() { # LIMIT NAME FUNCTION...: TAP on the sum of their frames
	local limit=$1 name=$2 sum=0 f b detail=
	shift 2
	for f; do
		b=$(frame "$f")
		sum=$((sum + b))
		detail+=" $f $b"
	done
	((sum <= limit))
	tap_result $? "stack of $name: $sum bytes (at most $limit):$detail"
}
path 560 "the I/O completion walk" dm_stats_account_io account_walk_end region_account_areas
path 560 "the I/O start walk" dm_stats_account_io account_walk_start region_account_areas
path 256 "index destruction" dm_stats_index_destroy dm_stats_index_free nodes_free_list
tap_finish
