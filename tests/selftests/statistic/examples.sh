# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Sourced after ../lib.sh, whose run() sets $out, $err and $rc: shellcheck
# cannot see that from this file.
# shellcheck disable=SC2154
#
# The spec's example outputs, from known inputs.

# "Reading statistic output from the data file"
ctl "interface example" "create example foo bytes/incidents" \
	"create example bar slots/incidents"
def example "name=foo type=list entries_max=256"
check_eq "example: type=list needs only entries_max" 0 "$rc"
def example "name=bar type=range"
def example "on=1"
ctl "add example foo 0x1000 1 4" "add example foo 0x2000 1" \
	"add example foo 0x5000 2"
range_feed example bar 961 1 42.000 128
check_eq "spec: data file example (list foo, range bar)" "foo 0x1000 4
foo 0x2000 1
foo 0x5000 2
bar 961 1 42.000 128" "$(data example)"

# "Each line contains one entry of a statistic, tagged with its name"
ctl "interface example-lun" "create example-lun request_sizes_scsi_write bytes/incidents" \
	"define example-lun request_sizes_scsi_write list 0 0x7fffffff 256" \
	"start example-lun request_sizes_scsi_write" \
	"add example-lun request_sizes_scsi_write 0x1000 34"
check_eq "spec: one list entry" "request_sizes_scsi_write 0x1000 34" "$(data example-lun)"

# "Sample Output", per adapter: value, history of ranges, range, values.
# The sample's clock puts the reset where the spec's history starts.
A=zfcp-0.0.50d4
ctl "interface $A" "clock $A" "time 3097300211992000" \
	"create $A occurrence_qdio_outb_full incidents/incidents" \
	"create $A util_qdio_outb slots-occupied/incidents" \
	"create $A util_qdio_inb slots-occupied/incidents" \
	"create $A occurrence_low_mem_scsi incidents/incidents" \
	"create $A occurrence_erp incidents/incidents" \
	"define $A util_qdio_outb history 0 128 128 1000000 range" \
	"define $A util_qdio_inb range 0 128"
def $A "on=1"
ctl "inc $A occurrence_qdio_outb_full 0 57"
feed_second() { # SECOND_AFTER_RESET N MIN AVG MAX
	ctl "time $((3097300211992000 + $1 * 1000000000 + 500000000))"
	range_feed $A util_qdio_outb "$2" "$3" "$4" "$5"
}
feed_second 93 865 1 1.052 5
feed_second 94 737 1 4.558 125
feed_second 95 396 1 11.765 77
feed_second 96 270 1 12.863 128
feed_second 97 765 1 7.271 26
feed_second 98 577 1 4.036 27
range_feed $A util_qdio_inb 118706 1 1.017 31
ctl "time $((3097300211992000 + 98 * 1000000000 + 700000000))"
want="occurrence_qdio_outb_full 57"
k=0
while [ $k -lt 93 ]; do
	want="$want
util_qdio_outb [$((3097301 + k)).211992] 0 0 0.000 0"
	k=$((k + 1))
done
# The spec's sample output ends with the last six seconds and the other
# statistics; before them, 93 seconds with no I/O.
sample_end="util_qdio_outb [3097394.211992] 865 1 1.052 5
util_qdio_outb [3097395.211992] 737 1 4.558 125
util_qdio_outb [3097396.211992] 396 1 11.765 77
util_qdio_outb [3097397.211992] 270 1 12.863 128
util_qdio_outb [3097398.211992] 765 1 7.271 26
util_qdio_outb [3097399.211992] 577 1 4.036 27
util_qdio_inb 118706 1 1.017 31
occurrence_low_mem_scsi 0
occurrence_erp 0"
want="$want
$sample_end"
got=$(data $A)
check_eq "adapter sample: exact data" "$want" "$got"
check_subsequence "spec: adapter sample output" "occurrence_qdio_outb_full 57
util_qdio_outb [3097301.211992] 0 0 0.000 0
$sample_end" "$got"

# "Sample Output", per LUN: lists, a value, log2 arrays, ranges.
L=zfcp-0.0.50d4-lun0
ctl "interface $L"
for s in request_sizes_scsi_write request_sizes_scsi_read; do
	ctl "create $L $s bytes/incidents" "define $L $s list 0 0x7fffffff 256"
done
ctl "create $L request_sizes_scsi_nodata bytes/incidents"
for s in latencies_scsi_write latencies_scsi_read latencies_scsi_nodata; do
	# bounds 0, 1, 2, 4 ... 1024 need range_max in 1024..2047; the spec's
	# ">1024" line is not empty, so range_max is above 1024
	ctl "create $L $s milliseconds/incidents" "define $L $s array 0 2047 1 log2"
done
for s in pending_scsi_write pending_scsi_read; do
	ctl "create $L $s commands/incidents" "define $L $s range 0 4096"
done
def $L "on=1"
W="add $L request_sizes_scsi_write"
R="add $L request_sizes_scsi_read"
ctl "$W 0x64000 1 13" "$W 0x65000 11" "$W 0x67000 9" "$W 0x73000 8" \
	"$W 0x74000 6" "$W 0x7b000 5" \
	"$R 0x1000 44163" "$R 0x2000 9281" "$R 0x3000 4860" "$R 0x8000 4682" \
	"$R 0x6000 3001" "$R 0x4000 2976"
W="add $L latencies_scsi_write"
R="add $L latencies_scsi_read"
ctl "$W 3 174" "$W 8 872" "$W 9 2555" "$W 32 2483" "$W 50 2000" \
	"$W 100 1990" "$W 256 1950" "$W 300 1900" "$W 1024 1872" "$W 2047 1637" \
	"$R 4 57265" "$R 5 13610" "$R 16 1082" "$R 17 319" "$R 64 63" "$R 65 10"
range_feed $L pending_scsi_write 17121 1 28.502 32
range_feed $L pending_scsi_read 72348 3 3.002 5
bounds="0 1 2 4 8 16 32 64 128 256 512 1024"
lat_lines() { # NAME TOTALS...
	_n=$1
	shift
	for _b in $bounds; do
		echo "$_n <=$_b $1"
		shift
	done
	echo "$_n >1024 $1"
}
want="request_sizes_scsi_write 0x64000 13
request_sizes_scsi_write 0x65000 11
request_sizes_scsi_write 0x67000 9
request_sizes_scsi_write 0x73000 8
request_sizes_scsi_write 0x74000 6
request_sizes_scsi_write 0x7b000 5
request_sizes_scsi_read 0x1000 44163
request_sizes_scsi_read 0x2000 9281
request_sizes_scsi_read 0x3000 4860
request_sizes_scsi_read 0x8000 4682
request_sizes_scsi_read 0x6000 3001
request_sizes_scsi_read 0x4000 2976
request_sizes_scsi_nodata 0
$(lat_lines latencies_scsi_write 0 0 0 174 872 2555 2483 2000 1990 1950 1900 1872 1637)
$(lat_lines latencies_scsi_read 0 0 0 57265 13610 1082 319 63 10 0 0 0 0)
$(lat_lines latencies_scsi_nodata 0 0 0 0 0 0 0 0 0 0 0 0 0)
pending_scsi_write 17121 1 28.502 32
pending_scsi_read 72348 3 3.002 5"
got=$(data $L)
check_eq "LUN sample: exact data" "$want" "$got"
check_subsequence "spec: LUN sample output" "request_sizes_scsi_write 0x64000 13
request_sizes_scsi_write 0x67000 9
request_sizes_scsi_write 0x73000 8
request_sizes_scsi_write 0x7b000 5
request_sizes_scsi_read 0x1000 44163
request_sizes_scsi_read 0x2000 9281
request_sizes_scsi_read 0x3000 4860
request_sizes_scsi_read 0x8000 4682
request_sizes_scsi_read 0x4000 2976
request_sizes_scsi_nodata 0
latencies_scsi_write <=0 0
latencies_scsi_write <=1 0
latencies_scsi_write <=2 0
latencies_scsi_write <=4 174
latencies_scsi_write <=8 872
latencies_scsi_write <=16 2555
latencies_scsi_write <=32 2483
latencies_scsi_write <=1024 1872
latencies_scsi_write >1024 1637
latencies_scsi_read <=0 0
latencies_scsi_read <=1 0
latencies_scsi_read <=2 0
latencies_scsi_read <=4 57265
latencies_scsi_read <=8 13610
latencies_scsi_read <=16 1082
latencies_scsi_read <=32 319
latencies_scsi_read <=64 63
latencies_scsi_read >1024 0
latencies_scsi_nodata <=0 0
latencies_scsi_nodata >1024 0
pending_scsi_write 17121 1 28.502 32
pending_scsi_read 72348 3 3.002 5" "$got"
check_eq "LUN sample: arrays have nothing out of range" 0 \
	"$(attr $L latencies_scsi_write hits_out_of_range)"
# The spec: hits_out_of_range counts X below range_min or above range_max,
# for arrays too; such pairs change no interval.
ctl "$W -1 5" "$W 2048 6" "$W 5000 7"
check_eq "array: X out of range counts in hits_out_of_range" 3 \
	"$(attr $L latencies_scsi_write hits_out_of_range)"
check_eq "array: X out of range changes no interval" \
	"$(echo "$want" | grep '^latencies_scsi_write ')" \
	"$(data $L | grep '^latencies_scsi_write ')"
check_eq "LUN sample: array definition" "base_interval=1 scale=log2" \
	"$(def_line $L latencies_scsi_write | grep -o 'base_interval=[^ ]* scale=[^ ]*')"

# The definition file example: a history of ranges. The spec shows on=0
# with started later than stopped, which no sequence of start and stop can
# give; started later than stopped means on=1.
D=zfcp-def
ctl "interface $D" "clock $D" "time 2417020832398000" \
	"create $D util_qdio_outb slots-occupied/incidents" \
	"define $D util_qdio_outb history 0 127 128 1000000 range" \
	"time 2417044149675000" "start $D util_qdio_outb"
expected_def="name=util_qdio_outb on=1 type=history range_min=0 range_max=127 entries_max=128"
expected_def="$expected_def mode=range period=1000000 hits_out_of_range=0"
expected_def="$expected_def data=[2417020.832398] started=[2417044.149675]"
expected_def="$expected_def stopped=[2417020.832398] units=slots-occupied/incidents"
check_eq "spec: definition file example" "$expected_def" \
	"$(definition $D)"
