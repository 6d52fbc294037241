# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Sourced after ../lib.sh, whose run() sets $out, $err and $rc: shellcheck
# cannot see that from this file.
# shellcheck disable=SC2154
#
# iotally report: the derived numbers of a known direct-I/O workload, the
# raw counters they come from, rates over an interval, and reads that never
# clear the counters (two reports at once both see all the I/O).

delete_all_regions
region=$(iotally create "$VOL" --areas 4 --program-id rep) || bail "iotally create failed"

# 16 writes of 4 KiB at sector 0 (15 of them merged: each starts where the
# previous ended, on the same CPU) and 2 reads of 64 KiB at sector 65536
# (area 2; 1 merged).
write_at 0 4096 16
read_at 65536 65536 2

check_ok "report --json -o all (since the region was created)" iotally report --json -o all "$VOL"
j=$(json_rows region "$out")
check_eq "report: one row for the one region" 1 "$(lines "$j")"
check_eq "report: and one for the device itself" 1 "$(lines "$(json_rows device "$out")")"
check_eq "report: bytes written" 65536 "$(json_int w_bytes "$j")"
check_eq "report: bytes read" 131072 "$(json_int r_bytes "$j")"
check_eq "report: bytes in all" 196608 "$(json_int bytes "$j")"
check_eq "report: writes" 16 "$(json_int w_ios "$j")"
check_eq "report: reads" 2 "$(json_int r_ios "$j")"
check_eq "report: transfers" 18 "$(json_int ios "$j")"
check_eq "report: sectors written" 128 "$(json_int w_sectors "$j")"
check_eq "report: sectors read" 256 "$(json_int r_sectors "$j")"
check_eq "report: write merges" 15 "$(json_int w_merges "$j")"
check_eq "report: read merges" 1 "$(json_int r_merges "$j")"
check_match "report: KiB per write" '"wareq-sz":4(\.0)?[,}]' "$j"
check_match "report: KiB per read" '"rareq-sz":64(\.0)?[,}]' "$j"
check_match "report: KiB per transfer is 192/18" '"areq-sz":10\.66666' "$j"
check_match "report: nothing in flight" '"in_flight":0[,}]' "$j"
check_match "report: no rates without an interval" '"r/s":null' "$j"
check_match "report: discards are writes to dm-stats: absent, not zero" '"d/s":null' "$j"
check_match "report: the region counts in jiffies" '"time_resolution":"jiffies"' "$j"
check_match "report: units say what r_await is" '"r_await":"ms"' "$out"

# The same numbers from the raw counters, summed over the areas.
raw=$(dmsetup message "$VOL" 0 @stats_print "$region")
check_eq "report: bytes written = 512 x sectors written in @stats_print" \
	"$(echo "$raw" | awk '{ s += $8 } END { print s * 512 }')" "$(json_int w_bytes "$j")"
check_eq "report: reads = reads in @stats_print" \
	"$(echo "$raw" | awk '{ s += $2 } END { print s }')" "$(json_int r_ios "$j")"
check_eq "report: write merges = merges in @stats_print" \
	"$(echo "$raw" | awk '{ s += $7 } END { print s }')" "$(json_int w_merges "$j")"
check_eq "report did not clear the counters" "$raw" "$(dmsetup message "$VOL" 0 @stats_print "$region")"

check_ok "report --level area --json" iotally report --json --level area -o w_ios,r_ios "$VOL"
a=$(json_rows area "$out")
check_eq "report --level area: one row per area" 4 "$(lines "$a")"
check_eq "report --level area: writes per area" "16 0 0 0" \
	"$(printf '%s\n' "$a" | grep -o '"w_ios":[0-9.]*' | cut -d: -f2 | awk '{ printf "%s%d", (NR > 1 ? " " : ""), $1 }')"
check_eq "report --level area: reads per area" "0 0 2 0" \
	"$(printf '%s\n' "$a" | grep -o '"r_ios":[0-9.]*' | cut -d: -f2 | awk '{ printf "%s%d", (NR > 1 ? " " : ""), $1 }')"
check_ok "report --csv -o w_ios,r_bytes" iotally report --csv -o w_ios,r_bytes "$VOL"
check_eq "report --csv: the region's values" "16,131072" \
	"$(printf '%s\n' "$out" | awk -F, '$8 == "region" { print $(NF - 1) "," $NF }')"
check_ok "report (text) -N -o w_ios,w_merges" iotally report -N -o w_ios,w_merges "$VOL"
check_match "report text shows the device row first" "^$VOL +- +- +[0-9]+ +[0-9]+\$" "$(printf '%s\n' "$out" | sed -n 2p)"
check_match "report text shows the region's writes and merges" "^$VOL +$region +- +16 +15\$" "$(printf '%s\n' "$out" | sed -n 3p)"
check_ok "report --select target=linear" iotally report --json --select target=linear "$VOL"
check_match "report --select target=linear keeps the linear device" "\"dm_name\":\"$VOL\"" "$out"

# The device row is the kernel's own counters, never a sum of regions:
# three whole-device regions see each read three times, the device once.
delete_all_regions
# shellcheck disable=SC2034 # i only counts the three rounds
for i in 1 2 3; do iotally create "$VOL" >/dev/null; done
before=$(awk '{ print $1 }' "/sys/block/$(kname "$VOL")/stat")
read_at 0 4096 8
check_ok "report --json with three overlapping regions" iotally report --json -o r_ios "$VOL"
after=$(awk '{ print $1 }' "/sys/block/$(kname "$VOL")/stat")
check_eq "report: each overlapping region saw the 8 reads" "8 8 8" \
	"$(json_rows region "$out" | grep -o '"r_ios":[0-9]*' | cut -d: -f2 | tr '\n' ' ' | sed 's/ $//')"
check_eq "report: the device row is /sys/block's reads, not 24" "$after" \
	"$(json_int r_ios "$(json_rows device "$out")")"
check_eq "report: the device saw the 8 reads once" 8 $((after - before))
delete_all_regions
region=$(iotally create "$VOL" --areas 4 --program-id rep) || bail "iotally create failed"

# Rates: two reports at once, each printing a sample every 4 s. Once both
# have printed their first sample, 16 writes happen: the second sample of
# each must count exactly those, as a rate over its interval.
iotally report --json -o all --interval 4 --count 2 "$VOL" >/tmp/rep1 2>&1 &
p1=$!
iotally report --json -o all --interval 4 --count 2 "$VOL" >/tmp/rep2 2>&1 &
p2=$!
n=0
while [ "$(lines "$(cat /tmp/rep1)")" -lt 1 ] || [ "$(lines "$(cat /tmp/rep2)")" -lt 1 ]; do
	n=$((n + 1))
	[ $n -gt 300 ] && break
	sleep 0.1
done
write_at 2048 4096 16
wait "$p1"
rc1=$?
wait "$p2"
rc2=$?
check_eq "two reports at once both succeed" "0 0" "$rc1 $rc2"
for f in /tmp/rep1 /tmp/rep2; do
	r=$(json_rows region "$(sed -n 2p "$f")")
	check_eq "$f: the first sample (before the writes) has none" 0 "$(json_int w_ios "$(json_rows region "$(sed -n 1p "$f")")")"
	check_eq "$f: the second sample saw exactly the 16 writes" 16 "$(json_int w_ios "$r")"
	check_eq "$f: and no read" 0 "$(json_int r_ios "$r")"
	check_eq "$f: and 15 merges" 15 "$(json_int w_merges "$r")"
	# 16 writes over the time between the two snapshots: 4 s and what the
	# snapshots themselves took (seconds on a loaded TCG guest).
	w_tps=$(json_num w/s "$r")
	el=$(json_num elapsed_s "$r")
	check_eq "$f: the interval measured is at least the 4 s asked for ($el)" yes \
		"$(awk -v e="$el" 'BEGIN { print (e >= 4 && e < 30) ? "yes" : "no" }')"
	check_eq "$f: writes per second is 16 over that interval ($w_tps)" yes \
		"$(awk -v v="$w_tps" -v e="$el" 'BEGIN { d = v * e - 16; print (d < 1e-6 && d > -1e-6) ? "yes" : "no" }')"
	check_eq "$f: MiB written per second is 4 KiB x writes per second" yes \
		"$(awk -v v="$(json_num wMB/s "$r")" -v t="$w_tps" 'BEGIN { d = v - t * 4 / 1024; print (d < 1e-6 && d > -1e-6) ? "yes" : "no" }')"
	check_eq "$f: merges per second is 15/16 of writes per second" yes \
		"$(awk -v v="$(json_num wrqm/s "$r")" -v t="$w_tps" 'BEGIN { d = v - t * 15 / 16; print (d < 1e-6 && d > -1e-6) ? "yes" : "no" }')"
done
check_eq "after both reports the kernel still has every write (16 since the region was made)" 16 \
	"$(dmsetup message "$VOL" 0 @stats_print "$region" | awk '{ s += $6 } END { print s }')"
rm -f /tmp/rep1 /tmp/rep2
delete_all_regions
