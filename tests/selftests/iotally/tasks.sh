# SPDX-License-Identifier: GPL-2.0-only
#
# iotally tasks --top needs per-task I/O in taskstats, which only the patched
# kernel has: there it lists the tasks; on the stock kernel (Debian's release
# ends in -amd64) it fails with one line and exit status 5, never an empty
# table with status 0.

case $(uname -r) in
*-amd64)
	check_error "tasks --top without per-task I/O: exit 5, one line" 5 "no per-task I/O" \
		iotally tasks --top -i 1 -n 3
	;;
*)
	read_at 0 4096 4 &
	check_ok "tasks --top with per-task I/O" iotally tasks --top -i 1 -n 3
	wait
	check_match "tasks --top prints its table" "TGID +COMM " "$(printf '%s\n' "$out" | sed -n 1p)"
	;;
esac
