# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Sourced after ../lib.sh, whose run() sets $out, $err and $rc: shellcheck
# cannot see that from this file.
# shellcheck disable=SC2154
#
# iotally export --openmetrics --textfile-dir: a valid exposition, the values
# the kernel counted, written by rename (a reader sees the old file or the new
# one, never a part), and nothing written when it fails. Labels name the
# device as node_exporter does (dm-N) with its dm name and major:minor.

delete_all_regions
minor=$(dmsetup info -c --noheadings -o minor "$VOL" | tr -d ' ')
major=$(dmsetup info -c --noheadings -o major "$VOL" | tr -d ' ')
L="device=\"dm-$minor\",dm_name=\"$VOL\",dm_uuid=\"\",major=\"$major\",minor=\"$minor\""
region=$(iotally create "$VOL" --program-id exp --histogram 1s --no-precise) || bail "iotally create failed"
write_at 0 4096 8
tf=$(mktemp -d)

check_ok "export --openmetrics --textfile-dir" iotally export --openmetrics --textfile-dir "$tf" "$VOL"
check_eq "export prints nothing with --textfile-dir" "" "$out"
check_eq "the directory holds exactly iotally.prom" "iotally.prom" "$(ls -A "$tf")"
f=$tf/iotally.prom
check_eq "the file ends with the one # EOF line" "# EOF" "$(tail -n 1 "$f")"
check_eq "# EOF appears once" 1 "$(grep -c '^# EOF$' "$f")"
check_eq "the file is readable by node_exporter (0644)" "644" "$(stat -c %a "$f")"
check_eq "bytes written are the kernel's" \
	"iotally_region_written_bytes_total{$L,region_id=\"$region\",program_id=\"exp\"} 32768" \
	"$(grep '^iotally_region_written_bytes_total' "$f")"
check_eq "writes are the kernel's" \
	"iotally_region_writes_completed_total{$L,region_id=\"$region\",program_id=\"exp\"} 8" \
	"$(grep '^iotally_region_writes_completed_total' "$f")"
check_eq "the histogram counts every write below 1 s" \
	"iotally_region_io_latency_seconds_bucket{$L,region_id=\"$region\",program_id=\"exp\",le=\"1\"} 8" \
	"$(grep '^iotally_region_io_latency_seconds_bucket.*le="1"' "$f")"
check_eq "the histogram's count" \
	"iotally_region_io_latency_seconds_count{$L,region_id=\"$region\",program_id=\"exp\"} 8" \
	"$(grep '^iotally_region_io_latency_seconds_count' "$f")"

# The grammar of OpenMetrics text: metadata lines for each family before its
# samples, samples as name{labels} value, and the # EOF terminator last.
bad=$(awk '
	/^# TYPE [a-zA-Z_:][a-zA-Z0-9_:]* (counter|gauge|histogram)$/ { fam[$3] = $4; next }
	/^# (HELP|UNIT) [a-zA-Z_:][a-zA-Z0-9_:]* / { if (!($3 in fam)) print "metadata before TYPE: " $0; next }
	/^# EOF$/ { eof = NR; next }
	/^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? -?[0-9.e+Inf]+$/ {
		name = $0; sub(/[{ ].*/, "", name); base = name
		sub(/_(total|bucket|count|sum)$/, "", base)
		if (!(base in fam) && !(name in fam)) print "sample of an undeclared family: " $0
		if (fam[base] == "counter" && name !~ /_total$/) print "counter sample without _total: " $0
		next
	}
	{ print "not OpenMetrics: " $0 }
	END { if (eof != NR) print "# EOF is not the last line" }' "$f")
check_eq "every line of the file is valid OpenMetrics" "" "$bad"

# Atomic replacement: a second export renames a new file over the old one, so
# a reader holding the old file keeps a complete copy.
ino1=$(stat -c %i "$f")
exec 7<"$f"
write_at 0 4096 1
check_ok "export again" iotally export --openmetrics --textfile-dir "$tf" "$VOL"
check_cmp "the new file is a new inode (written beside, then renamed)" -ne "$(stat -c %i "$f")" "$ino1"
check_match "the old file, still open, is whole and unchanged" \
	"iotally_region_writes_completed_total\{[^}]*\} 8" "$(cat <&7)"
exec 7<&-
check_match "the new file has the new count" "iotally_region_writes_completed_total\{[^}]*\} 9" "$(cat "$f")"
check_eq "no temporary file is left behind" "iotally.prom" "$(ls -A "$tf")"

check_ok "export --prometheus to stdout" iotally export --prometheus "$VOL"
check_match "Prometheus text has the writes" "^iotally_region_writes_completed_total\{$L,region_id=\"$region\",program_id=\"exp\"\} 9\$" "$out"
check_eq "Prometheus text has no # EOF" 0 "$(printf '%s\n' "$out" | grep -c '^# EOF')"
check_ok "export --textfile-dir without a format flag" iotally export --textfile-dir "$tf" "$VOL"
check_eq "writes text 0.0.4, which node_exporter reads: no # EOF" 0 "$(grep -c '^# EOF' "$f")"
check_eq "with # HELP before every # TYPE" "$(grep -c '^# TYPE' "$f")" "$(grep -c '^# HELP' "$f")"

before=$(cat "$f")
check_error "export into a file that is not a directory fails" 2 "is not a directory" \
	iotally export --textfile-dir "$f" "$VOL"
check_error "export into a missing directory fails" 1 "$tf/missing" \
	iotally export --textfile-dir "$tf/missing" "$VOL"
check_eq "a failed export leaves the file as it was" "$before" "$(cat "$f")"
check_eq "and leaves no temporary file" "iotally.prom" "$(ls -A "$tf")"
rm -rf "$tf"
delete_all_regions
