#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Configure and build the patched kernel out of the source tree.
#
#   scripts/kernel-build.sh OUTDIR FRAGMENT...
#
# The configuration is allnoconfig plus the fragments; it is regenerated only
# when a fragment changes, and every symbol a fragment sets must come out of
# Kconfig exactly as written (a later fragment overrides an earlier one, as
# in Kconfig). The image and modules are built with ccache and the modules
# installed under OUTDIR/modinstall.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
src=$top/build/src/linux
out=$(mkdir -p "$1" && cd "$1" && pwd)
shift
fragments=("$@")
jobs=${JOBS:-$(nproc)}

export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache}
export CCACHE_BASEDIR=$top
export CCACHE_NOHASHDIR=1
ccache --max-size=8G >/dev/null
# Fixed build identity: reproducible images and better ccache hits.
export KBUILD_BUILD_TIMESTAMP='2024-11-17 00:00:00 UTC'
export KBUILD_BUILD_USER=iotally KBUILD_BUILD_HOST=iotally KBUILD_BUILD_VERSION=1

# KERNEL_CC=clang for the KMSAN flavour (make kernel KMSAN=1); host tools
# stay with gcc.
kcc=${KERNEL_CC:-gcc}
kmake() {
	make -C "$src" O="$out" CC="ccache $kcc" HOSTCC="ccache gcc" -j"$jobs" "$@"
}

mkdir -p "$out"
# One output directory, several builders: serialise. The source tree is
# locked too, so that it does not change under a running build.
exec 8>"$out/.lock"
flock 8
exec 9>"$top/build/src/.lock"
flock -s 9
merged=$out/iotally-fragment.config
cat "${fragments[@]}" >"$merged.new"
if [[ ! -f $out/.config ]] || ! cmp -s "$merged.new" "$merged"; then
	echo "  CONFIG  allnoconfig + ${fragments[*]##*/}"
	kmake -s KCONFIG_ALLCONFIG="$merged.new" allnoconfig
	bad=0
	# A later fragment overrides an earlier one: check each symbol's last line.
	while IFS= read -r line; do
		if [[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]]; then
			sym=${BASH_REMATCH[1]}
			if ! grep -qxF "$line" "$out/.config"; then
				got=$(grep -E "^(# )?${sym}[= ]" "$out/.config" || echo "$sym absent")
				echo "kernel-build: wanted $line, Kconfig gave: $got" >&2
				bad=1
			fi
		elif [[ $line =~ ^#\ (CONFIG_[A-Za-z0-9_]+)\ is\ not\ set$ ]]; then
			if grep -q "^${BASH_REMATCH[1]}=" "$out/.config"; then
				echo "kernel-build: wanted $line, Kconfig enabled it" >&2
				bad=1
			fi
		fi
	done < <(tac "$merged.new" | awk '{ s = $0 }
		/^CONFIG_/ { sub(/=.*/, "", s) }
		/^# CONFIG_.* is not set$/ { s = $2 }
		/^(CONFIG_|# CONFIG_.* is not set$)/ { if (seen[s]++) next }
		{ print }' | tac)
	if ((bad)); then
		rm -f "$out/.config"
		exit 1
	fi
	mv "$merged.new" "$merged"
else
	rm -f "$merged.new"
fi

kmake bzImage modules
rm -rf "$out/modinstall"
kmake -s INSTALL_MOD_PATH="$out/modinstall" INSTALL_MOD_STRIP=1 modules_install
echo "  KERNEL  $out/arch/x86/boot/bzImage ($(cat "$out/include/config/kernel.release"))"
