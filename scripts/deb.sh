#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make deb [SUITE=bookworm|trixie]: iotally_VERSION_amd64.deb and
# iotally-dkms_VERSION_all.deb for one Debian release in build/deb/SUITE,
# built the way Debian builds them: dpkg-buildpackage in a clean chroot of
# that release (its compiler, its libraries, its linux-source-6.12), with
# no network, then checked by that release's lintian in the same chroot:
# any error fails, warnings are printed (each is explained in
# Documentation/iotally-deploy.rst, "Packaging notes").
#
#   scripts/deb.sh [SUITE]     (JOBS=N: the build's parallelism, default nproc)
#
# VERSION is debian/changelog's with the release's "+deb<N>" (versions.mk
# <suite>.NUMBER): 0.1.0+deb12, 0.1.0+deb13. The build's copy of the tree
# gets a changelog entry for it, as sbuild's --append-to-version does.
# tools/iotally/CMakeLists.txt must carry debian/changelog's version, or
# this stops.
#
# The chroot is a tarball built once by mmdebstrap and cached under
# $HOME/.cache/iotally (deb-chroot-SUITE-KEY.tar), the key a hash of its
# package list: versions.mk DEB_BUILD_PACKAGES, the release's pinned
# linux-source-6.12 and linux-image (whose BTF the BPF programs' vmlinux.h
# is dumped from: debian/rules) and debian/control's Build-Depends. Every build unpacks
# it afresh into build/deb-chroot/SUITE; the host's ccache directory is
# bind-mounted into it, so a rebuild of unchanged sources is mostly hits.
# No -dbgsym package (noautodbgsym): compressing its debug information
# took minutes.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=debian-suite.sh
. "$top/scripts/debian-suite.sh" "${1:-bookworm}"
version=$deb_version
out=$top/build/deb/$suite
chroot=$top/build/deb-chroot/$suite
upstream=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
cmake_version=$(sed -n 's/^project(iotally VERSION \([0-9.]*\).*/\1/p' "$top/tools/iotally/CMakeLists.txt")
if [[ $upstream != "$cmake_version" ]]; then
	echo "deb: debian/changelog says $upstream, tools/iotally/CMakeLists.txt $cmake_version" >&2
	exit 1
fi
[[ $(id -u) == 0 ]] || { echo "deb: needs root (mmdebstrap, chroot)" >&2; exit 1; }

# The build chroot, cached.
# debian/control's Build-Depends, as one relation list for apt-get satisfy.
builddeps=$(awk '/^Build-Depends:/ { f = 1; sub(/^Build-Depends:/, "") }
	f && /^[^ \t]/ && !/^Build-Depends:/ { f = 0 }
	f' "$top/debian/control" | tr -s ' \t\n' ' ' | sed 's/^ *//; s/[ ,]*$//')
[[ -n $builddeps ]] || { echo "deb: no Build-Depends in debian/control" >&2; exit 1; }
# The kernel source at the release's pinned version: apt-get satisfy would
# take the newest of an unversioned relation.
builddeps=$(sed -E "s/(^|, )linux-source-6\.12(,|$)/\1linux-source-6.12 (= $suite_kernel_version)\2/" <<<"$builddeps")
[[ $builddeps == *"linux-source-6.12 (= $suite_kernel_version)"* ]] ||
	{ echo "deb: no linux-source-6.12 in debian/control's Build-Depends" >&2; exit 1; }
options=(--variant=buildd --format=tar --aptopt='APT::Install-Recommends "false"'
	--include="$(suite_var DEB_BUILD_PACKAGES | tr ' ' ','),linux-source-6.12=$suite_kernel_version,linux-image-$suite_release=$suite_kernel_version"
	--customize-hook="chroot \"\$1\" apt-get satisfy -y -q -o APT::Build-Profiles=nocheck '$builddeps'"
	--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*')
key=$(printf '%s\n' "$suite" "${options[@]}" | sha256sum | cut -c1-16)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/iotally
name=deb-chroot-$suite-$key
tarball=$cache/$name.tar
if [[ ! -s $tarball ]]; then
	mapfile -t sources < <(suite_sources)
	((${#sources[@]})) || { echo "deb: no Debian source in /etc/apt/sources.list* for $suite" >&2; exit 1; }
	mkdir -p "$cache"
	tmp=$(mktemp "$cache/.$name.XXXXXX.tar")
	trap 'rm -f "$tmp"' EXIT
	echo "  MMDEBSTRAP $tarball ($suite build chroot)"
	start=$(date +%s)
	mmdebstrap "${options[@]}" "$suite" "$tmp" "${sources[@]}" >"$cache/$name.log" 2>&1 || {
		tail -n 30 "$cache/$name.log" >&2
		echo "deb: mmdebstrap failed; log: $cache/$name.log" >&2
		exit 1
	}
	mv "$tmp" "$tarball"
	trap - EXIT
	find "$cache" -maxdepth 1 -name "deb-chroot-$suite-*.tar" ! -name "$name.tar" -delete
	echo "  CHROOT  $tarball ($(du -m "$tarball" | cut -f1) MiB, built in $(($(date +%s) - start))s)"
fi

# A clean chroot for every build.
rm -rf "$chroot"
mkdir -p "$chroot"
tar -C "$chroot" --numeric-owner -xpf "$tarball"

# Only what the source package holds: no build/, no VCS.
src=$out/iotally-$version
mkdir -p "$out"
rm -rf "$src" "$out"/iotally*_"$version"_*.deb "$out"/iotally_"$version"_*.{changes,buildinfo}
rsync -a --exclude=/build/ --exclude=/.git --exclude='/obj-*/' \
	--exclude=/debian/.debhelper/ --exclude='/debian/iotally*/' \
	"$top/" "$src/"
# The release's version: a changelog entry of its own on top of the tree's,
# one second after it (a newer entry needs a newer date; the build stays
# reproducible: SOURCE_DATE_EPOCH comes from it).
{
	printf 'iotally (%s) %s; urgency=medium\n\n' "$version" "$suite"
	printf '  * Built for Debian %s (%s).\n\n' "$suite_number" "$suite"
	printf ' -- %s  %s\n\n' "$(dpkg-parsechangelog -l "$top/debian/changelog" -S Maintainer)" \
		"$(LC_ALL=C date -u -R -d "@$(($(dpkg-parsechangelog -l "$top/debian/changelog" -S Timestamp) + 1))")"
	cat "$top/debian/changelog"
} >"$src/debian/changelog"

ccache_dir=${CCACHE_DIR:-$HOME/.cache/ccache}
mkdir -p "$ccache_dir"
# In a mount namespace of its own (the mounts go with it) and with no
# network: the build as root of the chroot, lintian as nobody.
inner='set -e
cd /build/iotally-$1
dpkg-buildpackage -us -uc -b >/build/build.log 2>&1 || exit 10
setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/tmp TMPDIR=/tmp \
	lintian --info --display-info --pedantic /build/iotally_$1_amd64.changes >/build/lintian.log 2>&1 || exit 11'
rc=0
unshare --mount --net --pid --fork --kill-child bash -c '
	set -e
	root=$1
	mount -t proc proc "$root/proc"
	mount -t devtmpfs devtmpfs "$root/dev"
	mount -t tmpfs tmpfs "$root/dev/shm"
	mount -t tmpfs tmpfs "$root/tmp"
	mkdir -p "$root/build" "$root/ccache"
	mount --bind "$2" "$root/build"
	mount --bind "$3" "$root/ccache"
	shift 3
	exec chroot "$root" "$@"' _ "$chroot" "$out" "$ccache_dir" \
	/usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
	CCACHE_DIR=/ccache CCACHE_BASEDIR="/build/iotally-$version" CCACHE_NOHASHDIR=1 \
	CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache \
	DEB_BUILD_OPTIONS="nocheck noautodbgsym parallel=${JOBS:-$(nproc)}" DEB_BUILD_PROFILES=nocheck \
	bash -c "$inner" _ "$version" || rc=$?
case $rc in
0) ;;
10)
	tail -n 40 "$out/build.log" >&2
	echo "deb: dpkg-buildpackage failed in the $suite chroot; log: $out/build.log" >&2
	exit 1 ;;
11)
	cat "$out/lintian.log" >&2
	echo "deb: lintian failed in the $suite chroot" >&2
	exit 1 ;;
*) echo "deb: the $suite chroot failed (rc=$rc)" >&2; exit 1 ;;
esac

cat "$out/lintian.log"
if grep -q '^E: ' "$out/lintian.log"; then
	echo "deb: lintian reports errors" >&2
	exit 1
fi
for deb in "$out"/iotally_"$version"_amd64.deb "$out"/iotally-dkms_"$version"_all.deb; do
	[[ -f $deb ]] || { echo "deb: $deb was not built" >&2; exit 1; }
	echo "  DEB     $deb ($(stat -c %s "$deb") bytes, installed $(dpkg-deb -f "$deb" Installed-Size) KiB)"
done
echo "  DEPENDS iotally: $(dpkg-deb -f "$out/iotally_${version}_amd64.deb" Depends)"
