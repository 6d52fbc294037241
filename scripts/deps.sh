#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Install the Debian packages iotally needs, idempotently: nothing is fetched
# when every package is already installed at the wanted version.
# Usage: scripts/deps.sh PKG[=VERSION]...   (the list comes from versions.mk)
set -euo pipefail

missing=()
for spec in "$@"; do
	name=${spec%%=*}
	want=
	[[ $spec == *=* ]] && want=${spec#*=}
	have=$(dpkg-query -W -f='${db:Status-Abbrev}${Version}' "$name" 2>/dev/null || true)
	if [[ $have != ii* ]]; then
		missing+=("$spec")
	elif [[ -n $want && ${have#ii } != "$want" ]]; then
		missing+=("$spec")
	fi
done

((${#missing[@]} == 0)) && exit 0

echo "deps: installing ${missing[*]}"
if [[ $(id -u) -ne 0 ]]; then
	echo "deps: must run as root to install packages" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# The initramfs-tools hook would build a Debian initrd for the stock image,
# which we never use: our guests boot their own initramfs.
export INITRD=No
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
