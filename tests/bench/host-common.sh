# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2034 # $top, $icount, ... are for the host.sh
#
# Source me from a benchmark's host.sh: what the host parts share.
#
#   top           the repository's top directory
#   load          the host's load average over the last minute
#   bench_icount  sets $icount_opts (BENCH_ICOUNT: QEMU -icount options,
#                 "shift=3,sleep=on" by default; empty: the guest's clock is
#                 the host's) and $icount, tests/vm/run.sh's options for it

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

load() { cut -d' ' -f1 /proc/loadavg; }

bench_icount() {
	icount_opts=${BENCH_ICOUNT-shift=3,sleep=on}
	icount=()
	[[ -n $icount_opts ]] && icount=(--icount "$icount_opts")
	return 0
}
