# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Sourced after ../lib.sh, whose run() sets $out, $err and $rc: shellcheck
# cannot see that from this file.
# shellcheck disable=SC2154
#
# Not root: every device-mapper command run by an unprivileged user (uid and
# gid 65534, no supplementary groups, no capabilities: util-linux setpriv
# by its full path, busybox has its own applet without --reuid)
# fails with one line naming the problem and exit code 4 (iotally.8, EXIT
# STATUS), and changes nothing.

# as_nobody CMD...: CMD as uid/gid 65534 with every capability dropped.
as_nobody() {
	/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"
}

delete_all_regions
iotally create "$VOL" --length 1000 --aux keep >/dev/null || bail "iotally create failed"
before=$(stats_list)

check_ok "setpriv drops root (the test means something)" as_nobody id -u
check_eq "the unprivileged user is uid 65534" "65534" "$out"
check_error "list as an unprivileged user" 4 "needs root" as_nobody iotally list "$VOL"
# iostat works for anyone: so do the device rows, from sysfs; the regions
# need root, and the one-line warning says so.
check_ok "report as an unprivileged user: the device rows" as_nobody iotally report "$VOL"
check_match "report as an unprivileged user warns that regions need root" \
	"^iotally: warning: no regions .*needs root" "$err"
check_error "create as an unprivileged user" 4 "needs root" as_nobody iotally create "$VOL" --length 8
check_error "delete as an unprivileged user" 4 "needs root" as_nobody iotally delete "$VOL" 0
check_error "message as an unprivileged user" 4 "needs root" \
	as_nobody iotally message "$VOL" @stats_list
check_error "export as an unprivileged user" 4 "needs root" \
	as_nobody iotally export --openmetrics
check_eq "the unprivileged commands changed no region" "$before" "$(stats_list)"
delete_all_regions
