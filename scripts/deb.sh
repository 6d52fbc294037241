#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make deb: iotally_VERSION_amd64.deb and iotally-dkms_VERSION_all.deb in
# build/deb, built by dpkg-buildpackage from a copy of this checkout (so the
# build leaves nothing in the tree and its outputs stay under build/), then
# checked by lintian: any error fails, warnings are printed (each is
# explained in Documentation/iotally-deploy.rst, "Packaging notes").
#
# The version is debian/changelog's; tools/iotally/CMakeLists.txt must say
# the same, or this stops.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/deb
version=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
cmake_version=$(sed -n 's/^project(iotally VERSION \([0-9.]*\).*/\1/p' "$top/tools/iotally/CMakeLists.txt")
if [[ $version != "$cmake_version" ]]; then
	echo "deb: debian/changelog says $version, tools/iotally/CMakeLists.txt $cmake_version" >&2
	exit 1
fi

src=$out/iotally-$version
mkdir -p "$out"
rm -f "$out"/iotally*_"$version"_*.deb "$out"/iotally_"$version"_*.{changes,buildinfo}
# Only what the source package holds: no build/, no VCS; the copy keeps
# the previous build's obj-* directory, so a second make deb is incremental.
rsync -a --delete --exclude=/build/ --exclude=/.git --exclude='/obj-*/' \
	--exclude=/debian/.debhelper/ --exclude='/debian/iotally*/' \
	"$top/" "$src/"
# The pristine kernel tree that scripts/modules.sh reads, if this checkout
# has one; otherwise it extracts drivers/md from linux-source itself.
if [[ -e $top/build/src/linux-pristine/.extracted && ! -e $src/build/src/linux-pristine ]]; then
	mkdir -p "$src/build/src"
	ln -s "$top/build/src/linux-pristine" "$src/build/src/linux-pristine"
fi

export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/ccache} CCACHE_BASEDIR=$src CCACHE_NOHASHDIR=1
# ctest runs in make check (scripts/check.sh); the package build does not repeat it.
export DEB_BUILD_OPTIONS="nocheck parallel=${JOBS:-$(nproc)}"
(cd "$src" && dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1 || {
	tail -n 40 "$out/build.log" >&2
	echo "deb: dpkg-buildpackage failed; log: $out/build.log" >&2
	exit 1
}

changes=$out/iotally_${version}_amd64.changes
lintian --info --display-info --pedantic "$changes" >"$out/lintian.log" 2>&1 || true
cat "$out/lintian.log"
if grep -q '^E: ' "$out/lintian.log"; then
	echo "deb: lintian reports errors" >&2
	exit 1
fi
for deb in "$out"/iotally_"$version"_amd64.deb "$out"/iotally-dkms_"$version"_all.deb; do
	[[ -f $deb ]] || { echo "deb: $deb was not built" >&2; exit 1; }
	echo "  DEB     $deb ($(stat -c %s "$deb") bytes, installed $(dpkg-deb -f "$deb" Installed-Size) KiB)"
done
