#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Source me with a Debian release's code name: what scripts/deb.sh,
# scripts/debian-image.sh and tests/debian/run.sh need to know of it.
#
#   . scripts/debian-suite.sh SUITE      (bookworm, trixie: versions.mk DEBIAN_SUITES)
#
# Sets suite, suite_number, suite_kernel_version, suite_release,
# suite_update_kernel, suite_guest_packages, deb_version (debian/changelog's
# version with the release's "+deb<N>") and defines suite_var NAME (any
# variable of versions.mk, with SUITE set) and suite_sources (this machine's
# Debian mirrors for the release).

# Those variables are read by the scripts that source this file, which is
# where shellcheck would see them used:
# shellcheck disable=SC2034
suite=$1
_suite_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=versions.sh
. "$_suite_top/scripts/versions.sh"

# suite_var NAME: versions.mk's NAME for this suite ($(SUITE) expanded).
suite_var() { versions_var "$1" SUITE="$suite"; }

if ! [[ " $(suite_var DEBIAN_SUITES) " == *" $suite "* ]]; then
	echo "debian-suite: unknown SUITE '$suite' (versions.mk DEBIAN_SUITES: $(suite_var DEBIAN_SUITES))" >&2
	exit 2
fi
suite_number=$(suite_var "$suite.NUMBER")
suite_kernel_version=$(suite_var "$suite.KERNEL_DEB_VERSION")
suite_release=$(suite_var "$suite.KERNEL_RELEASE")
suite_update_kernel=$(suite_var "$suite.UPDATE_KERNEL")
suite_guest_packages=$(suite_var DEBIAN_GUEST_PACKAGES)
# The packages of every release carry its number, as Debian's stable updates
# do (+deb12u1): both can live in one repository, and a release upgrade
# (12 to 13) upgrades them.
deb_version=$(dpkg-parsechangelog -l "$_suite_top/debian/changelog" -S Version)+deb$suite_number

# suite_sources: this machine's Debian mirrors for the release, one
# "deb URI SUITE COMPONENTS" per line: the bookworm entries of apt's sources
# (/etc/apt/sources.list and sources.list.d/, one-line or deb822), the ones
# apt-get uses here, with the release's name in place of bookworm
# (trixie, trixie-updates, trixie-security).
suite_sources() {
	local f
	{
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
	} | awk -v s="$suite" '{ sub(/^bookworm/, s, $3); print }' | sort -u
}
