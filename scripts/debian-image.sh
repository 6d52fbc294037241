#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The Debian 12 guest's root file system, as a tarball built with mmdebstrap
# from Debian's packages and cached under $HOME/.cache/iotally:
#
#   scripts/debian-image.sh        print the tarball's path (build it if missing)
#
# The cache key is a hash of the package list (versions.mk
# DEBIAN_GUEST_PACKAGES) and of the mmdebstrap options below, so changing
# either builds a new image; an empty or missing $HOME/.cache just means a
# cold build. Older images of this name are removed once the new one exists.
#
# The mirrors are the Debian bookworm entries of this machine's apt sources
# (/etc/apt/sources.list and sources.list.d/, one-line or deb822), the ones
# apt-get uses here; the image keeps them, but the guest never reaches them.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
packages=$(make -s -C "$top" -f versions.mk --no-print-directory \
	--eval 'print-guest-packages: ; @echo $(DEBIAN_GUEST_PACKAGES)' print-guest-packages)
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
. "$top/scripts/versions.sh"
update=$DEBIAN_GUEST_UPDATE_KERNEL
options+=(--customize-hook="chroot \"\$1\" sh -c 'cd /var/cache/apt/archives &&
	apt-get download -q linux-image-$update=$KERNEL_DEB_VERSION linux-headers-$update=$KERNEL_DEB_VERSION'")
key=$(printf '%s\n' "$packages" "${options[@]}" | sha256sum | cut -c1-16)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/iotally
image=$cache/debian-guest-$key.tar
if [[ -s $image ]]; then
	echo "$image"
	exit 0
fi

# The bookworm sources apt uses on this machine, one "deb URI SUITE COMPONENTS" per line.
mirrors() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[[ -f $f ]] && awk '$1 == "deb" && $0 !~ /\[/ && $3 ~ /^bookworm/ { print }' "$f"
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[[ -f $f ]] || continue
		awk 'function flush(   i, j, n, m, u, s) {
			if (types ~ /(^| )deb( |$)/ && uris != "") {
				n = split(uris, u, " "); m = split(suites, s, " ")
				for (i = 1; i <= n; i++) for (j = 1; j <= m; j++)
					if (s[j] ~ /^bookworm/) print "deb " u[i] " " s[j] " " comps
			}
			types = uris = suites = comps = ""
		}
		/^[[:space:]]*$/ { flush(); next }
		/^#/ { next }
		/^Types:/ { sub(/^Types:[[:space:]]*/, ""); types = $0 }
		/^URIs:/ { sub(/^URIs:[[:space:]]*/, ""); uris = $0 }
		/^Suites:/ { sub(/^Suites:[[:space:]]*/, ""); suites = $0 }
		/^Components:/ { sub(/^Components:[[:space:]]*/, ""); comps = $0 }
		END { flush() }' "$f"
	done
}
mapfile -t sources < <(mirrors | sort -u)
((${#sources[@]})) || { echo "debian-image: no Debian bookworm source in /etc/apt/sources.list*" >&2; exit 1; }

mkdir -p "$cache"
tmp=$(mktemp "$cache/.debian-guest-$key.XXXXXX.tar")
trap 'rm -f "$tmp"' EXIT
echo "  MMDEBSTRAP $image ($(wc -w <<<"$packages") packages; ${sources[*]})" >&2
start=$(date +%s)
# shellcheck disable=SC2086
mmdebstrap "${options[@]}" --include="$(tr ' ' ',' <<<$packages)" \
	--customize-hook='echo iotally-guest >"$1/etc/hostname"' \
	--customize-hook='passwd --root "$1" -d root' \
	bookworm "$tmp" "${sources[@]}" >"$cache/debian-guest-$key.log" 2>&1 || {
	tail -n 30 "$cache/debian-guest-$key.log" >&2
	exit 1
}
mv "$tmp" "$image"
trap - EXIT
find "$cache" -maxdepth 1 -name 'debian-guest-*.tar' ! -name "debian-guest-$key.tar" -delete
echo "  IMAGE   $image ($(du -m "$image" | cut -f1) MiB, built in $(($(date +%s) - start))s)" >&2
echo "$image"
