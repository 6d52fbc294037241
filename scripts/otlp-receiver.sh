#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The OTLP receiver of the tests of `iotally serve --otlp`: the binary of a
# Debian package pinned in versions.mk (OTLP_RECEIVER_*: VictoriaMetrics of
# Debian 13, which says why not Prometheus), downloaded once from the pool
# of this machine's Debian mirror, its sha256 checked, unpacked with
# dpkg-deb and cached under $HOME/.cache/iotally. Nothing is installed and
# apt's sources are not touched.
#
#   scripts/otlp-receiver.sh     print the binary's path (fetch it if missing)
#
# make deps runs it, so every make target (make check included) has it.
# Offline with nothing cached: a message and status 1.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=versions.sh
. "$top/scripts/versions.sh"
deb=$OTLP_RECEIVER_DEB
name=$(basename "$OTLP_RECEIVER_BINARY")
cache=${XDG_CACHE_HOME:-$HOME/.cache}/iotally
dir=$cache/$name-$OTLP_RECEIVER_VERSION
bin=$dir/$name
if [[ -x $bin ]]; then
	echo "$bin"
	exit 0
fi

# The pool of this machine's Debian mirror, the one apt-get uses here
# (scripts/debian-suite.sh reads apt's sources).
# shellcheck source=debian-suite.sh
. "$top/scripts/debian-suite.sh" trixie
mirror=$(suite_sources | awk '$3 == "trixie" { print $2; exit }')
if [[ -z $mirror ]]; then
	echo "otlp-receiver: no Debian mirror in /etc/apt/sources.list* to take $deb from" >&2
	exit 1
fi
url=${mirror%/}/$deb
mkdir -p "$cache"
tmp=$(mktemp -d "$cache/.$name-$OTLP_RECEIVER_VERSION.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "  FETCH   $url" >&2
if ! curl -fsSL --retry 3 --max-time 600 -o "$tmp/package.deb" "$url"; then
	echo "otlp-receiver: cannot download $url" >&2
	exit 1
fi
if ! echo "$OTLP_RECEIVER_SHA  $tmp/package.deb" | sha256sum -c --quiet -; then
	echo "otlp-receiver: $url: sha256 is not versions.mk's OTLP_RECEIVER_SHA" >&2
	exit 1
fi
dpkg-deb -x "$tmp/package.deb" "$tmp/root"
install -m 0755 "$tmp/root/$OTLP_RECEIVER_BINARY" "$tmp/$name"
"$tmp/$name" -version >/dev/null
mkdir -p "$dir"
mv "$tmp/$name" "$bin"
echo "$bin"
