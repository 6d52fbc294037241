#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run every suite of this directory (a subdirectory with a run.sh), each
# from its own directory; fail if any suite fails.
cd "$(dirname "$0")" || exit 1
rc=0
for t in */run.sh; do
	d=${t%/run.sh}
	echo "# suite $d"
	(cd "$d" && sh ./run.sh) || rc=1
done
exit $rc
