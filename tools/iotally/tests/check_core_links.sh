#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# libiotally (the core) links neither cpp-httplib nor zlib: they belong to
# libiotally_exporter. Checked twice: in CMake's link interface of the core
# and in the symbols its objects leave undefined. The exporter library must
# show the symbols the check looks for, so that the check can fail.
# usage: check_core_links.sh LINK_LIBRARIES_FILE LIBIOTALLY.a LIBIOTALLY_EXPORTER.a
set -u
links=$1 core=$2 exporter=$3
pattern='httplib|deflate|inflate'
rc=0
if grep -Eio 'httplib|zlib' "$links"; then
	echo "not ok - libiotally's link libraries name the above: $(cat "$links")"
	rc=1
else
	echo "ok - libiotally's link libraries: $(cat "$links")"
fi
bad=$(nm -uC "$core" | grep -E "$pattern" | sort -u)
if [ -n "$bad" ]; then
	echo "not ok - libiotally leaves these undefined:"
	echo "$bad" | head -20
	rc=1
else
	echo "ok - libiotally needs no httplib or zlib symbol"
fi
if nm -uC "$exporter" | grep -Eq 'httplib' && nm -uC "$exporter" | grep -Eq 'deflate'; then
	echo "ok - libiotally_exporter needs httplib and zlib (the check sees them)"
else
	echo "not ok - libiotally_exporter needs no httplib or zlib symbol: the check is blind"
	rc=1
fi
exit $rc
