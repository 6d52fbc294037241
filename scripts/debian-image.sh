#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A Debian guest's root file system, as a tarball built with mmdebstrap
# from Debian's packages and cached under $HOME/.cache/iotally:
#
#   scripts/debian-image.sh [SUITE]   print the tarball's path (build it if
#                                     missing); SUITE: bookworm (default), trixie
#
# The cache key is a hash of the release, its package list (versions.mk
# DEBIAN_GUEST_PACKAGES with SUITE) and the mmdebstrap options below, so
# changing any builds a new image; an empty or missing $HOME/.cache just
# means a cold build. Older images of the same release are removed once the
# new one exists: debian-image-SUITE-KEY.tar.
#
# The mirrors are this machine's apt sources for Debian, with the release's
# name (scripts/debian-suite.sh); the image keeps them, but the guest never
# reaches them.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=debian-suite.sh
. "$top/scripts/debian-suite.sh" "${1:-bookworm}"
packages=$suite_guest_packages
[[ -n $packages ]] || { echo "debian-image: DEBIAN_GUEST_PACKAGES is empty" >&2; exit 1; }

# Everything that changes the image's content goes into the key.
# The kernel headers' packages stay in apt's cache: the test reinstalls them
# offline (a kernel update; a kernel without headers, then with them again).
options=(--variant=apt --format=tar --aptopt='APT::Install-Recommends "false"'
	--skip=cleanup/apt/cache
	--customize-hook='find "$1/var/cache/apt/archives" -name "*.deb" ! -name "linux-headers-*" -delete'
	--dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*'
	--dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-include=/usr/share/doc/*/copyright')
# Not installed: the image and headers of a second kernel flavour, kept in
# apt's cache for the guest test's kernel update (tests/debian/run.sh).
update=$suite_update_kernel kver=$suite_kernel_version
options+=(--customize-hook="chroot \"\$1\" sh -c 'cd /var/cache/apt/archives &&
	apt-get download -q linux-image-$update=$kver linux-headers-$update=$kver'")
key=$(printf '%s\n' "$suite" "$packages" "${options[@]}" | sha256sum | cut -c1-16)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/iotally
name=debian-image-$suite-$key
image=$cache/$name.tar
if [[ -s $image ]]; then
	echo "$image"
	exit 0
fi

mapfile -t sources < <(suite_sources)
((${#sources[@]})) || { echo "debian-image: no Debian bookworm source in /etc/apt/sources.list* to take $suite from" >&2; exit 1; }

mkdir -p "$cache"
tmp=$(mktemp "$cache/.$name.XXXXXX.tar")
trap 'rm -f "$tmp"' EXIT
echo "  MMDEBSTRAP $image ($(wc -w <<<"$packages") packages; ${sources[*]})" >&2
start=$(date +%s)
# shellcheck disable=SC2086
mmdebstrap "${options[@]}" --include="$(tr ' ' ',' <<<$packages)" \
	--customize-hook='echo iotally-guest >"$1/etc/hostname"' \
	--customize-hook='passwd --root "$1" -d root' \
	"$suite" "$tmp" "${sources[@]}" >"$cache/$name.log" 2>&1 || {
	tail -n 30 "$cache/$name.log" >&2
	exit 1
}
mv "$tmp" "$image"
trap - EXIT
find "$cache" -maxdepth 1 -name "debian-image-$suite-*.tar" ! -name "$name.tar" -delete
echo "  IMAGE   $image ($(du -m "$image" | cut -f1) MiB, built in $(($(date +%s) - start))s)" >&2
echo "$image"
