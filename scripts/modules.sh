#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Build build/modules/dm-mod.ko: device-mapper's core module with iotally's
# statistics engine, against the stock Debian kernel's headers, so that it
# loads on the stock kernel in place of Debian's dm-mod.ko.
#
# Only our own files come from this repository; the rest of dm-mod is taken
# from the pristine linux-source tree at build time (never copied into the
# repository), with patches/series applied to the files it touches.
#
# Usage: scripts/modules.sh   (JOBS=N to change the parallelism, default 2;
#        DM_STATS_SRC=DIR to take the engine from DIR instead of drivers/md)
#        scripts/modules.sh --stage DIR
#            only stage the sources into DIR/drivers/md and write DIR/dkms.conf:
#            the iotally-dkms package's /usr/src/iotally-VERSION (make deb), so
#            DKMS builds exactly the file list and Kbuild that make modules builds.
#
# The module carries MODULE_VERSION("iotally-VERSION") (VERSION from
# debian/changelog): the stock dm-mod has no version, so modinfo and
# /sys/module/dm_mod/version tell ours from Debian's.
set -euo pipefail

stage_only=
if [[ ${1:-} == --stage ]]; then
	[[ -n ${2:-} ]] || { echo "usage: modules.sh --stage DIR" >&2; exit 2; }
	stage_only=$2
fi

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=versions.sh
. "$top/scripts/versions.sh"
headers=/usr/src/linux-headers-$KERNEL_RELEASE
pristine=$top/build/src/linux-pristine
out=$top/build/modules
stage=$out/dm-mod
jobs=${JOBS:-2}

version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
[[ -n $stage_only || -f $headers/Makefile ]] || { echo "modules: $headers missing (run make deps)" >&2; exit 1; }

# The pristine drivers/md, extracted on its own if the kernel tree is not there.
mdsrc=$pristine/drivers/md
if [[ ! -e $pristine/.extracted ]]; then
	mdsrc=$out/pristine/drivers/md
	if [[ ! -d $mdsrc ]]; then
		echo "  EXTRACT $KERNEL_SOURCE_DIR/drivers/md"
		mkdir -p "$out/pristine"
		tar -C "$out/pristine" --strip-components=1 -xf "$KERNEL_SOURCE_TAR" "$KERNEL_SOURCE_DIR/drivers/md"
	fi
fi

# Stage: upstream dm-mod sources and headers, our patches, then our files.
new=$(mktemp -d "$out.stage.XXXXXX")
trap 'rm -rf "$new"' EXIT
mkdir -p "$new/drivers/md"
cp -p "$mdsrc"/dm*.[ch] "$new/drivers/md/"
if [[ -f $top/patches/series ]]; then
	while read -r p _; do
		[[ -z $p || $p == \#* ]] && continue
		mapfile -t files < <(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$top/patches/$p")
		# drivers/md's Kconfig and Makefile do not matter here (the Kbuild
		# below replaces them); any other file outside dm-mod does.
		ours=0 build=0
		for f in "${files[@]}"; do
			if [[ $f == drivers/md/dm*.[ch] && -f $new/$f ]]; then
				ours=$((ours + 1))
			elif [[ $f == drivers/md/Kconfig || $f == drivers/md/Makefile ]]; then
				build=$((build + 1))
			fi
		done
		((ours)) || continue
		if ((ours + build != ${#files[@]})); then
			echo "modules: patches/$p mixes dm-mod sources with files outside dm-mod" >&2
			exit 1
		fi
		# Only the sections for dm-mod's own sources: a section starts at its
		# "--- " line (held back until its "+++ " line names the file).
		awk '/^--- /{ held = $0; next }
		     /^\+\+\+ /{ keep = ($2 ~ /^b\/drivers\/md\/dm[^\/]*\.[ch]$/)
				  if (keep) print held; held = "" }
		     /^diff /{ keep = 0; next }
		     keep' "$top/patches/$p" |
			(cd "$new" && patch -s -p1 -F0 -N --batch --no-backup-if-mismatch -r -)
	done <"$top/patches/series"
fi
cp "${DM_STATS_SRC:-$top/drivers/md}"/dm-stats*.[ch] "${DM_STATS_SRC:-$top/drivers/md}"/dm-statistic.h \
	"$new/drivers/md/"

# Drop-in means the stock symbol versions (checked below). The CRCs of
# dm-mod's exports reach struct mapped_device, hence struct dm_stats and
# struct dm_stats_aux: genksyms must see the stock definitions of those two,
# private to dm-mod (no other module depends on their layout). Only this
# out-of-tree build does that: the staged dm-stats.h gets, around our
# definitions, an "#ifdef __GENKSYMS__" branch with the pristine ones,
# taken from the pristine tree at build time.
python3 - "$mdsrc/dm-stats.h" "$new/drivers/md/dm-stats.h" <<'PY'
import re
import sys

stock_src = open(sys.argv[1]).read()
ours = open(sys.argv[2]).read()
names = ("dm_stats", "dm_stats_aux")


def struct_span(src, name):
    m = re.search(r"^struct %s \{\n.*?^\};\n" % name, src, re.S | re.M)
    if not m:
        sys.exit("modules: no struct %s in %s" % (name, sys.argv[2]))
    return m.start(), m.end()


stock = "\n".join(stock_src[slice(*struct_span(stock_src, n))] for n in names)
start = min(struct_span(ours, n)[0] for n in names)
end = max(struct_span(ours, n)[1] for n in names)
# take the kernel-doc comments and helper structures before them along
doc = ours.rfind("\n\n", 0, start)
m = re.search(r"^/\*\*\n \* struct ", ours[:start], re.M)
if m:
    start = min(start, m.start())
elif doc >= 0:
    start = doc + 2
ours = (ours[:start] + "#ifdef __GENKSYMS__\n" + stock + "#else\n" +
        ours[start:end] + "#endif\n" + ours[end:])
open(sys.argv[2], "w").write(ours)
PY

cat >"$new/drivers/md/dm-iotally-version.c" <<VERSION
// SPDX-License-Identifier: GPL-2.0-only
/* Generated by scripts/modules.sh: names this dm-mod as iotally's build. */
#include <linux/module.h>

MODULE_VERSION("iotally-$version");
VERSION

cat >"$new/drivers/md/Kbuild" <<'KBUILD'
# SPDX-License-Identifier: GPL-2.0
# dm-mod as Debian configures it, with iotally's statistics engine.
obj-m := dm-mod.o
dm-mod-y := dm.o dm-table.o dm-target.o dm-linear.o dm-stripe.o \
	    dm-ioctl.o dm-io.o dm-kcopyd.o dm-sysfs.o dm-stats.o \
	    dm-stats-index.o dm-stats-io.o dm-stats-mem.o dm-stats-message.o \
	    dm-rq.o dm-io-rewind.o dm-iotally-version.o
dm-mod-$(CONFIG_DM_INIT) += dm-init.o
dm-mod-$(CONFIG_DM_UEVENT) += dm-uevent.o
dm-mod-$(CONFIG_BLK_DEV_ZONED) += dm-zone.o
dm-mod-$(CONFIG_IMA) += dm-ima.o
dm-mod-$(CONFIG_DM_AUDIT) += dm-audit.o
KBUILD

if [[ -n $stage_only ]]; then
	# Only what Kbuild compiles: the other dm-*.c of drivers/md stay out.
	mkdir -p "$stage_only/drivers/md"
	objs=$(grep -v '^#' "$new/drivers/md/Kbuild" | grep -o '[a-z0-9-]*\.o' | grep -vx 'dm-mod\.o' | sed 's/\.o$//')
	cp "$new/drivers/md/Kbuild" "$stage_only/drivers/md/"
	for o in $objs; do
		cp "$new/drivers/md/$o.c" "$stage_only/drivers/md/"
	done
	# Every header: the sources include each other's freely.
	cp "$new"/drivers/md/*.h "$stage_only/drivers/md/"
	cat >"$stage_only/dkms.conf" <<DKMS
# Generated by scripts/modules.sh --stage: iotally's dm-mod for Debian's 6.12.
PACKAGE_NAME="iotally"
PACKAGE_VERSION="$version"
BUILT_MODULE_NAME[0]="dm-mod"
BUILT_MODULE_LOCATION[0]="drivers/md/"
DEST_MODULE_LOCATION[0]="/updates/dkms"
MAKE[0]="make -C \${kernel_source_dir} M=\${dkms_tree}/\${PACKAGE_NAME}/\${PACKAGE_VERSION}/build/drivers/md modules"
CLEAN="make -C \${kernel_source_dir} M=\${dkms_tree}/\${PACKAGE_NAME}/\${PACKAGE_VERSION}/build/drivers/md clean"
# The device-mapper core of 6.12: other kernels have other internals.
BUILD_EXCLUSIVE_KERNEL="^6\\.12\\."
AUTOINSTALL="yes"
DKMS
	echo "  STAGE   $stage_only (dm-mod $version: $(wc -w <<<"$objs") objects)"
	exit 0
fi

# Keep the previous stage (and its objects) when nothing changed: fast rebuilds.
mkdir -p "$stage/drivers/md"
(cd "$new/drivers/md" && for f in *; do
	cmp -s "$f" "$stage/drivers/md/$f" || cp "$f" "$stage/drivers/md/$f"
done)
(cd "$stage/drivers/md" && for f in dm*.[ch] Kbuild; do
	[[ -e $new/drivers/md/$f ]] || rm -f "$f"
done)

make -s -C "$headers" M="$stage/drivers/md" -j"$jobs" modules
# Drop-in means the same symbol versions: other device-mapper modules of the
# stock kernel (dm-delay, dm-crypt, ...) must load against this dm-mod.
bad=$(join <(awk '$3 == "drivers/md/dm-mod" { print $2, $1 }' "$headers/Module.symvers" | sort) \
	<(awk '{ print $2, $1 }' "$stage/drivers/md/Module.symvers" | sort) | awk '$2 != $3 { print $1 }')
if [[ -n $bad ]]; then
	echo "modules: symbol versions differ from the stock dm-mod: $bad" >&2
	exit 1
fi
# Debug info only makes the guest initramfs big: keep symbols, drop DWARF.
objcopy --strip-debug "$stage/drivers/md/dm-mod.ko" "$out/dm-mod.ko"
echo "  MODULE  $out/dm-mod.ko ($(modinfo -F vermagic "$out/dm-mod.ko"))"
