# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Sourced after ../lib.sh, whose run() sets $out, $err and $rc: shellcheck
# cannot see that from this file.
# shellcheck disable=SC2154
#
# iotally stat: the generic statistics layer in debugfs, driven through the
# sample exploiter (statistic_sample) with known (X, Y) pairs; every change
# checked in the definition file, every value against the data file. On a
# kernel without the layer, iotally says so in one line.

STATS=/sys/kernel/debug/statistics
CTL=/sys/kernel/debug/statistic_sample/control

# ctl CMD...: one sample control command per write.
ctl() {
	for _c in "$@"; do
		echo "$_c" >"$CTL" || bail "sample command failed: $_c"
	done
}

# sattr NAME ATTR: one attribute of a statistic of interface $I.
sattr() { grep "^name=$1 " "$STATS/$I/definition" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

if ! modprobe statistic_sample 2>/dev/null || [ ! -w "$CTL" ]; then
	if [ -d "$STATS" ]; then
		skip "iotally stat" "the statistics layer is here but not its sample exploiter"
	else
		check_error "stat list on a kernel without the statistics layer (exit 5)" 5 "$STATS" \
			iotally stat list
	fi
	return 0 2>/dev/null || true
fi

I=iotst
ctl "interface $I" "create $I cnt incidents/incidents" "create $I sizes bytes/incidents" \
	"create $I lat us/incidents"
check_ok "stat list" iotally stat list
check_match "stat list shows the interface" "^$I\$" "$out"
check_ok "stat list --json" iotally stat list --json
check_match "stat list --json lists the names" "\"interfaces\":\[.*\"$I\".*\]" "$out"

check_ok "stat on (the whole interface)" iotally stat on "$I"
check_eq "stat on started every statistic" "1 1 1" "$(sattr cnt on) $(sattr sizes on) $(sattr lat on)"
check_ok "stat off $I cnt" iotally stat off "$I" cnt
check_eq "stat off NAME stops only that one" "0 1 1" "$(sattr cnt on) $(sattr sizes on) $(sattr lat on)"
check_ok "stat on $I cnt" iotally stat on "$I" cnt

check_ok "stat set: sizes becomes a list" iotally stat set "$I" name=sizes type=list entries_max=16
check_eq "the definition file has the new type" "list 16" "$(sattr sizes type) $(sattr sizes entries_max)"
check_ok "stat set: lat becomes a linear array" iotally stat set "$I" name=lat type=array \
	range_min=0 range_max=40 base_interval=10 scale=lin
check_eq "the definition file has the array" "array 10 lin 0 40" \
	"$(sattr lat type) $(sattr lat base_interval) $(sattr lat scale) $(sattr lat range_min) $(sattr lat range_max)"

ctl "inc $I cnt 0 5" "add $I sizes 0x1000 3" "add $I sizes 0x2000 1" "inc $I lat 15 2" "inc $I lat 35"
check_ok "stat show --json" iotally stat show --json "$I"
j=$out
check_match "value: the total" \
	'"columns":\["total"\],"data":\[\{"total":5\}\],"name":"cnt","on":true,"type":"value"' "$j"
check_match "list: X as a number, with its count" \
	'"columns":\["x","count"\],"data":\[\{"count":3,"x":4096\},\{"count":1,"x":8192\}\],"name":"sizes"' "$j"
# The array's buckets as the data file prints them, and their counts.
want=$(grep '^lat ' "$STATS/$I/data" |
	awk '{ printf "%s\\{\"bucket\":\"%s\",\"count\":%s\\}", (NR > 1 ? "," : ""), $2, $3 }')
check_match "array: every bucket of the data file, in order" "\"data\":\[$want\],\"name\":\"lat\"" "$j"
check_eq "array: 3 values in all" 3 "$(grep '^lat ' "$STATS/$I/data" | awk '{ s += $3 } END { print s }')"
check_ok "stat show (text)" iotally stat show "$I"
check_match "text: a table per statistic" "^sizes \(list\)\$" "$out"
check_match "text: the list's rows" "^0x1000 +3\$" "$out"

check_ok "stat reset" iotally stat reset "$I"
check_eq "stat reset discarded the data" "cnt 0" "$(grep '^cnt ' "$STATS/$I/data")"
check_eq "stat reset kept the statistics running" "1" "$(sattr cnt on)"

before=$(sed 's/\[[0-9.]*\]/[T]/g' "$STATS/$I/definition")
check_error "stat set with a bad value" 2 "scale=log3" iotally stat set "$I" name=lat scale=log3
check_error "stat set of a read-only attribute" 2 "units" iotally stat set "$I" name=lat units=x
check_error "stat set of a statistic that does not exist" 2 "nosuch" iotally stat set "$I" name=nosuch on=1
check_error "stat set that the kernel refuses (history without its attributes)" 2 "rejected" \
	iotally stat set "$I" name=lat type=history
check_error "stat on of an interface that does not exist" 3 "nosuchiface" iotally stat on nosuchiface
check_eq "failed stat commands changed no definition" "$before" \
	"$(sed 's/\[[0-9.]*\]/[T]/g' "$STATS/$I/definition")"
ctl "interface_remove $I"
