#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every alert of the mixin has the runbook its annotation points to: the
# annotation names Documentation/iotally-mixin.rst and the alert, and that
# page has a section titled with the alert's name (the name's line, then a
# line of as many '-'). The alerts' file must name at least one alert, so
# that the check can fail.
# usage: check_runbooks.sh IOTALLY-ALERTS.YML IOTALLY-MIXIN.RST
set -u
alerts=$1 doc=$2
names=$(sed -n 's/^ *- alert: *//p' "$alerts")
[ -n "$names" ] || { echo "not ok - $alerts names no alert"; exit 1; }
rc=0
for name in $names; do
	rule=$(printf '%s' "$name" | tr -c '\n' '-')
	if awk -v n="$name" -v r="$rule" 'prev == n && $0 == r { found = 1 } { prev = $0 }
		END { exit !found }' "$doc"; then
		echo "ok - $name has a section in $doc"
	else
		echo "not ok - $name: no section \"$name\" in $doc"
		rc=1
	fi
	if grep -q "^ *runbook: \"Documentation/iotally-mixin.rst, $name " "$alerts"; then
		echo "ok - $name's runbook annotation names its section"
	else
		echo "not ok - $name's runbook annotation does not name Documentation/iotally-mixin.rst, $name"
		rc=1
	fi
done
exit $rc
