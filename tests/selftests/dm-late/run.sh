#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# device-mapper loaded after iotally started, as on a host that boots with
# plain disks, or where the exporter's service starts before LVM activation:
#   - with dm_mod unloaded, `iotally report` shows the block devices and
#     `iotally serve` starts and answers /metrics with them and with
#     iotally_source_up{source="dm"} 0, without counting an error;
#   - modprobe dm-mod, a dm-linear device and a region on it: the same serve
#     process (not restarted) then has iotally_source_up{source="dm"} 1 and
#     the region's series, and says once on stderr that dm was missing and
#     once that it came.
. ../lib.sh

PORT=9866
require_cmd iotally dmsetup wget

# unload_dm: the dm targets, then dm_mod (modules on the stock kernel);
# /proc/modules lists what holds each.
unload_dm() {
	for _pass in 1 2 3; do
		for _m in $(awk '$1 ~ /^dm_/ && $1 != "dm_mod" && $3 == 0 { print $1 }' /proc/modules); do
			rmmod "$_m" 2>/dev/null
		done
	done
	! grep -q '^dm_mod ' /proc/modules || rmmod dm_mod
}

# The kernel loads dm_mod by itself when /dev/mapper/control is opened
# (iotally and libdevmapper open it): not while this suite wants it absent.
kmodprobe=$(cat /proc/sys/kernel/modprobe)
trap 'echo "$kmodprobe" >/proc/sys/kernel/modprobe' EXIT
echo /bin/false >/proc/sys/kernel/modprobe
unload_dm
check_eq "no device-mapper in this kernel now (dm_mod unloaded, none in /proc/misc)" "0:0" \
	"$(grep -c '^dm_mod ' /proc/modules):$(grep -c ' device-mapper$' /proc/misc)"
grep -q ' device-mapper$' /proc/misc && bail "dm_mod could not be unloaded: $(grep '^dm' /proc/modules)"

ip link set lo up || bail "cannot bring up loopback"
modprobe brd rd_nr=1 rd_size=8192 max_part=0 || bail "cannot load brd"

check_ok "iotally report runs without device-mapper" iotally report --level region
check_match "... and shows the block devices (ram0)" '^ram0 ' "$out"
check_eq "... without a word on stderr" "" "$err"

fetch() { wget -q -O - "http://127.0.0.1:$PORT/metrics"; }
# wait_up SECONDS: until serve answers
wait_up() {
	_n=$1
	while [ "$_n" -gt 0 ]; do
		fetch >/dev/null 2>&1 && return 0
		sleep 1
		_n=$((_n - 1))
	done
	return 1
}
value() { printf '%s\n' "$1" | sed -n "s/^$2 //p"; }

iotally serve --listen 127.0.0.1:$PORT 2>/tmp/dm-late.err &
serve_pid=$!
wait_up 60 || bail "iotally serve does not answer: $(cat /tmp/dm-late.err)"
scrape=$(fetch)
check_eq 'without dm: iotally_source_up{source="dm"} 0' 0 "$(value "$scrape" 'iotally_source_up{source="dm"}')"
check_eq 'without dm: iotally_source_up{source="block"} 1' 1 \
	"$(value "$scrape" 'iotally_source_up{source="block"}')"
check_match "without dm: the block devices' own counters (ram0)" \
	'^iotally_device_reads_completed_total\{device="ram0",major="1",minor="0"\} [0-9]+$' "$scrape"
check_eq "without dm: no scrape error" 0 "$(value "$scrape" iotally_scrape_errors_total)"

check_eq "without dm: still no device-mapper (not loaded on demand)" 0 "$(grep -c ' device-mapper$' /proc/misc)"

echo "$kmodprobe" >/proc/sys/kernel/modprobe
modprobe dm-mod || bail "cannot load dm-mod"
dmsetup create --noudevsync late --table "0 16384 linear /dev/ram0 0" ||
	bail "cannot create the dm-linear device"
region=$(iotally create late) || bail "iotally create failed"
scrape=$(fetch)
check_eq "serve is still the same process" "$serve_pid" "$(pidof iotally)"
check_eq 'dm loaded: iotally_source_up{source="dm"} 1' 1 "$(value "$scrape" 'iotally_source_up{source="dm"}')"
check_match "dm loaded: the new region is served, without a restart" \
	"^iotally_region_info\{device=\"dm-0\",dm_name=\"late\",.*region_id=\"$region\"" "$scrape"
check_match "dm loaded: the dm device's own counters too" \
	'^iotally_device_reads_completed_total\{device="dm-0",dm_name="late",' "$scrape"
check_eq "dm loaded: no scrape error" 0 "$(value "$scrape" iotally_scrape_errors_total)"

kill -TERM "$serve_pid"
wait "$serve_pid"
check_eq "SIGTERM stops serve (exit 0)" 0 "$?"
echo "# serve's stderr:"
sed 's/^/#   /' /tmp/dm-late.err
check_eq "serve said once that dm was missing and once that it came" "1:1" \
	"$(grep -c 'iotally serve: dm: device-mapper is not available' /tmp/dm-late.err):$(grep -c 'iotally serve: dm: available again' /tmp/dm-late.err)"

dmsetup remove --noudevsync late
rmmod brd
tap_finish
