#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# make demo: iotally watching live I/O on a device-mapper device.
# A dm-linear volume over a ramdisk, a region of 8 areas with a latency
# histogram, fio writing to the front of the volume and reading all of it,
# and iotally reporting what the kernel counts while it runs.
. ../lib.sh
. ../dm-stats/common.sh

say() { printf '\n### %s\n' "$*"; }

setup_devices || bail "cannot set up brd and dm devices"
command -v iotally >/dev/null || bail "iotally is not in the guest (make tools)"

say "iotally create $VOL --areas 8 --histogram 1ms,5ms,20ms --program-id demo"
check_ok "create a region" iotally create "$VOL" --areas 8 --histogram 1ms,5ms,20ms --program-id demo
echo "$out"
region=$(echo "$out" | grep -Eo '[0-9]+' | tail -n 1)

say "fio: 4k random writes to the first quarter, 64k sequential reads everywhere (20 s)"
fio --name=hot --filename=/dev/mapper/$VOL --direct=1 --rw=randwrite --bs=4k \
	--size=16m --time_based --runtime=20 --rate_iops=400 --output=/dev/null --eta=never &
hot=$!
fio --name=scan --filename=/dev/mapper/$VOL --direct=1 --rw=read --bs=64k \
	--time_based --runtime=20 --rate_iops=50 --output=/dev/null --eta=never &
scan=$!
sleep 2

say "iotally list $VOL"
iotally list "$VOL"

say "iotally report $VOL --level area --interval 3 --count 3 (per area: the writes hit the first quarter)"
check_ok "report live I/O" iotally report "$VOL" --level area --interval 3 --count 3
echo "$out"

say "iotally histogram $VOL $region"
check_ok "latency histogram" iotally histogram "$VOL" "$region"
echo "$out"

wait "$hot" "$scan"
say "iotally report $VOL --json (since the region was created)"
check_ok "JSON report" iotally report "$VOL" --json
echo "$out" | head -n 40

check_ok "delete the region" iotally delete "$VOL" "$region"
teardown_devices
tap_finish
