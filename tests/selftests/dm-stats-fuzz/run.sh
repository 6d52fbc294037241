#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# dm-stats differential fuzzing, the guest half: replays each script the host
# generated (/data/dm-stats-fuzz/seed-SEED.script, see scripts/fuzz-dm.sh)
# with dm-stats-fuzz on fresh devices (dm-linear, dm-striped, dm-zero,
# dm-error over brd), and writes its transcript to the TAP log as lines
# prefixed "fuzz| " (not TAP, so never shown as a failure's diagnostics) between
# "# dm-stats-fuzz-transcript-begin SEED" and "# dm-stats-fuzz-transcript-end SEED".
# The host compares the transcripts of the stock engine and of ours.
# Without scripts (a guest booted by hand), it replays seed 1, 1000 steps.
. ../lib.sh

modprobe brd rd_nr=2 rd_size=8192 max_part=0 || bail "cannot load brd"
modprobe dm-zero 2>/dev/null

scripts=$(ls /data/dm-stats-fuzz/seed-*.script 2>/dev/null)
if [ -z "$scripts" ]; then
	./dm-stats-fuzz gen 1 1000 >/tmp/seed-1.script || bail "dm-stats-fuzz gen failed"
	scripts=/tmp/seed-1.script
fi

for script in $scripts; do
	seed=${script##*/seed-}
	seed=${seed%.script}
	dmsetup create --noudevsync fz_linear --table "0 16384 linear /dev/ram0 0" &&
		dmsetup create --noudevsync fz_striped \
			--table "0 16384 striped 2 8 /dev/ram0 0 /dev/ram1 0" &&
		dmsetup create --noudevsync fz_zero --table "0 16384 zero" &&
		dmsetup create --noudevsync fz_error --table "0 16384 error" ||
		bail "cannot create the fuzzing devices"
	steps=$(grep -c . "$script")
	./dm-stats-fuzz run <"$script" >/tmp/transcript 2>/tmp/fuzz.err
	rc=$?
	check_eq "seed $seed: $steps steps replayed" \
		"0 $steps" "$rc $(grep -c '^#' /tmp/transcript)"
	[ $rc = 0 ] || sed 's/^/# /' /tmp/fuzz.err
	echo "# dm-stats-fuzz-transcript-begin $seed"
	sed 's/^/fuzz| /' /tmp/transcript
	echo "# dm-stats-fuzz-transcript-end $seed"
	for d in fz_linear fz_striped fz_zero fz_error; do dmsetup remove --noudevsync $d; done
done
rmmod brd
tap_finish
