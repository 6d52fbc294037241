# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Sourced after ../lib.sh, whose run() sets $out, $err and $rc: shellcheck
# cannot see that from this file.
# shellcheck disable=SC2154
#
# Honest latencies: regions on a dm-delay device whose every read takes
# $LAT_DELAY ms (dm-stats times an I/O from its arrival on the delay device,
# on both kernels). dm-delay releases a read once `jiffies` has passed its
# arrival plus msecs_to_jiffies($LAT_DELAY), so a read takes at least one
# tick less than the delay: more than 10 ms at any HZ from 100 to 1000
# (unless the guest's jiffies lag and catch up, which a busy host causes).
#
# A region that counts in jiffies can only say how many whole ticks a read
# took: with 1 ms buckets it fills the buckets of the tick's multiples
# (20, 24, 28 ms at HZ=250) and leaves the others empty. A precise region,
# given the same reads, puts them where they fell: mostly in buckets the
# jiffies region leaves empty (a read is released on a tick, but it started
# between ticks). How late a busy host releases a read does not matter.
#
# `iotally create --histogram` without an override must make such a precise
# region; a region asked for in jiffies is marked as such in every report
# format, and create refuses histogram boundaries finer than the tick for it
# (Documentation/iotally.rst, Time resolution).

LAT_DELAY=20 # ms
LAT_DEV=ilat
LAT_READS=32
modprobe dm-delay 2>/dev/null
dmsetup create --noudevsync "$LAT_DEV" --table "0 $DEV_SECTORS delay /dev/ram0 0 $LAT_DELAY" ||
	bail "cannot create a dm-delay device"

# hist_counts JSON: the bucket counts of `iotally -j histogram`, in order.
hist_counts() {
	printf '%s\n' "$1" | grep -o '"count":[0-9]*' | cut -d: -f2 | tr '\n' ' ' | sed 's/ $//'
}
# list_line ID: the @stats_list line of region ID, as the kernel prints it.
list_line() { stats_list "$LAT_DEV" | grep "^$1: "; }

# (a) A histogram without --precise or --no-precise: precise timestamps.
# Boundaries every millisecond up to 64 ms: bucket i is [i ms, i+1 ms).
LAT_BOUNDS=$(seq -s, 1 64)
check_ok "create --histogram, no override" \
	iotally create "$LAT_DEV" --histogram "$(echo "$LAT_BOUNDS" | sed 's/,/ms,/g')ms"
precise=$out
check_match "the kernel's region $precise has precise_timestamps" ' precise_timestamps( |$)' \
	"$(list_line "$precise")"
# What jiffies would show of the same reads: the same buckets, made with
# dmsetup (iotally refuses them without precise timestamps, see below).
ticks=$(dmsetup message "$LAT_DEV" 0 @stats_create - /1 1 "histogram:$LAT_BOUNDS")
check_match "the reference region ${ticks:-?} counts in jiffies, with 1 ms buckets" \
	"^${ticks:-?}: 0\+$DEV_SECTORS $DEV_SECTORS - - histogram:1,2,3,.*,64\$" "$(list_line "${ticks:-?}")"

# (b) Jiffies on request: refused with boundaries finer than the tick (2 ms
# is, at HZ=100, 250 or 300; the guest has no /boot/config, so iotally
# assumes HZ=100) and changing nothing; accepted with whole ticks; and
# without a histogram create keeps upstream's default, jiffies.
before=$(stats_list "$LAT_DEV")
check_error "create --no-precise refuses a boundary finer than the tick" 2 \
	"histogram boundary 2ms is finer than the" \
	iotally create "$LAT_DEV" --histogram 2ms,10ms --no-precise
check_eq "the refused create made no region" "$before" "$(stats_list "$LAT_DEV")"
check_ok "create --no-precise with whole-tick boundaries" \
	iotally create "$LAT_DEV" --histogram 10ms,${LAT_DELAY}ms,40ms --no-precise
coarse=$out
check_ok "create without a histogram" iotally create "$LAT_DEV"
plain=$out
check_eq "neither jiffies region has precise_timestamps in the kernel" "no no" \
	"$(for id in "$coarse" "$plain"; do
		case $(list_line "$id") in *precise_timestamps*) echo yes ;; *) echo no ;; esac
	done | tr '\n' ' ' | sed 's/ $//')"

for s in $(seq 0 $((LAT_READS - 1))); do read_at $((s * 64)) 4096 1 "$LAT_DEV"; done

check_ok "histogram of the precise region" iotally -j histogram "$LAT_DEV" "$precise"
counts=$(hist_counts "$out")
check_eq "precise: $LAT_READS reads counted" "$LAT_READS" "$(json_int total "$out")"
check_eq "precise: the counts are the kernel's" \
	"$(dmsetup message "$LAT_DEV" 0 @stats_print "$precise" | awk '{ print $15 }' | tr ':' ' ')" \
	"$counts"
# Nothing piles up in [0,1ms): reads take the delay. A few may end early
# in real time when the guest's jiffies catch up after its vCPU stalled on
# a busy host (dm-delay releases by jiffies): a quarter below 10 ms at most.
low=$(echo "$counts" | awk '{ for (i = 1; i <= 10; i++) s += $i; print s + 0 }')
check_cmp "precise: the delay shows, $low of $LAT_READS reads below 10 ms" -le "$((low * 4))" "$LAT_READS"
tick_counts=$(dmsetup message "$LAT_DEV" 0 @stats_print "$ticks" | awk '{ print $15 }' | tr ':' ' ')
check_eq "jiffies: the reference region counted the same $LAT_READS reads" "$LAT_READS" \
	"$(echo "$tick_counts" | awk '{ for (i = 1; i <= NF; i++) s += $i; print s + 0 }')"
# Reads the precise region puts in a bucket where whole ticks put none: none
# if it counted in jiffies. A read starts between ticks and ends just after
# one, so it shares a 1 ms bucket with the ticks' multiples only when it
# ends about as long after its tick as it started after its own (about one
# read in four when a busy host makes both random); a quarter is asked.
apart=$(printf '%s\n%s\n' "$counts" "$tick_counts" | awk '
	NR == 1 { for (i = 1; i <= NF; i++) p[i] = $i }
	NR == 2 { for (i = 1; i <= NF; i++) if ($i == 0) s += p[i]; print s + 0 }')
check_cmp "precise: $apart of $LAT_READS reads where whole ticks cannot go (precise $(echo "$counts" | tr ' ' ,); jiffies $(echo "$tick_counts" | tr ' ' ,))" \
	-ge "$((apart * 4))" "$LAT_READS"

check_ok "histogram of the jiffies region" iotally -j histogram "$LAT_DEV" "$coarse"
check_eq "jiffies: every read counts as ${LAT_DELAY} ms or more" "0 0 $LAT_READS" \
	"$(hist_counts "$out" | awk '{ print $1, $2, $3 + $4 }')"

# The reports say which region counts in jiffies.
check_ok "report -j of the three regions" iotally -j report "$LAT_DEV" -o r_await
for id in "$precise" "$coarse" "$plain"; do
	row=$(json_rows region "$out" | grep "\"region_id\":$id,")
	want=jiffies
	[ "$id" = "$precise" ] && want=ns
	check_match "report -j: region $id has time_resolution $want" "\"time_resolution\":\"$want\"" "$row"
done
r_await=$(json_num r_await "$(json_rows region "$out" | grep "\"region_id\":$precise,")")
check_eq "report -j: the precise region's r_await ($r_await ms) lies between 10 and 1000 ms" yes \
	"$(awk -v a="$r_await" 'BEGIN { print (a != "" && a > 10 && a < 1000) ? "yes" : "no" }')"

check_ok "report (text)" iotally report -N "$LAT_DEV" -o r_await
text=$out
# Device  Region  Group  r_await: the value is the last column.
mark() { printf '%s\n' "$text" | awk -v d="$LAT_DEV" -v id="$1" '$1 == d && $2 == id { print $NF }'; }
check_match "text: the jiffies region's r_await is marked ~" '^[0-9.]+~$' "$(mark "$coarse")"
check_match "text: the region without a histogram is marked ~ too" '^[0-9.]+~$' "$(mark "$plain")"
check_match "text: the precise region's r_await is not marked" '^[0-9.]+$' "$(mark "$precise")"
check_match "text: the mark is explained" '^~ counted in whole jiffies' "$text"

check_ok "report --csv" iotally report --csv "$LAT_DEV" -o r_await
# ...,time_resolution,r_await: region is column 10.
check_eq "csv: time_resolution of regions $precise $coarse $plain" "ns jiffies jiffies" \
	"$(for id in "$precise" "$coarse" "$plain"; do
		printf '%s\n' "$out" | awk -F, -v id="$id" '$8 == "region" && $10 == id { print $16 }'
	done | tr '\n' ' ' | sed 's/ $//')"

iotally delete "$LAT_DEV" --all >/dev/null
dmsetup remove --noudevsync "$LAT_DEV"
