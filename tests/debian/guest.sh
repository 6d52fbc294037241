#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The Debian guest's side of tests/debian/run.sh: a systemd service
# (iotally-guest-test.service) runs this once the system is up, writes TAP
# on the second serial port in tests/vm/init's protocol and powers off.
#
# The kernel command line's iotally.phase= says what the host did before
# this boot:
#   installed  both packages installed (DKMS built our dm-mod): our module
#              runs, lvm2, dm-thin, dm-crypt, dmstats and the exporter work
#   removed    both packages purged: the stock dm-mod runs, the unit and the
#              user are gone, the volume group of the first boot still works
set -uo pipefail
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
phase=$(sed -n 's/.*iotally\.phase=\([a-z]*\).*/\1/p' /proc/cmdline)
out=/dev/ttyS1
stty -F "$out" raw -echo 2>/dev/null
export KTAP_HELPERS=/usr/local/lib/iotally-test/ktap_helpers.sh
# shellcheck source=../selftests/lib.sh
. /usr/local/lib/iotally-test/lib.sh

release=$(uname -r)
version=$(cat /usr/local/lib/iotally-test/version)
vg=iotally_vg
data=/dev/vdb

# wait_for SECONDS CMD... (lib.sh): until CMD succeeds, as udev and systemd
# settle in the background.

# The exporter as shipped: its default address (iotally serve --help).
scrape() {
	local addr
	addr=$(iotally serve --help 2>/dev/null | grep -o '127\.0\.0\.1:[0-9]*' | head -n 1)
	curl -sf --max-time 20 "http://$addr/metrics"
}

installed() {
	# Our dm-mod, from DKMS, is the module that runs.
	# Debian's 6.12 modules are xz-compressed; DKMS compresses ours the same way.
	check_eq "modinfo dm_mod: DKMS's module under updates/dkms" \
		"/lib/modules/$release/updates/dkms/dm-mod.ko.xz" "$(modinfo -F filename dm_mod)"
	check_eq "modinfo dm_mod: version iotally-$version" "iotally-$version" "$(modinfo -F version dm_mod)"
	check_eq "the running dm_mod is ours (/sys/module/dm_mod/version)" "iotally-$version" \
		"$(cat /sys/module/dm_mod/version 2>&1)"
	check_eq "the running dm_mod is the file modinfo names (srcversion)" \
		"$(modinfo -F srcversion dm_mod)" "$(cat /sys/module/dm_mod/srcversion 2>&1)"

	# lvm2 on the second disk: a thin pool, a thin LV encrypted with dm-crypt, ext4.
	check_ok "pvcreate + vgcreate on the second virtio disk" \
		sh -c "pvcreate -q $data && vgcreate -q $vg $data"
	check_ok "lvcreate a thin pool and a thin LV" \
		sh -c "lvcreate -q -L 400m -T $vg/pool && lvcreate -q -V 300m -T $vg/pool -n thin"
	check_ok "lvcreate a plain LV to remove under the exporter" lvcreate -q -L 64m -n spare $vg
	# PBKDF2 with few iterations: argon2's memory-hard KDF costs minutes under TCG.
	printf 'iotally-test-key' >/run/key
	check_ok "cryptsetup luksFormat + open on the thin LV" sh -c \
		"cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 \
			--key-file /run/key /dev/$vg/thin && \
		 cryptsetup open --key-file /run/key /dev/$vg/thin secret"
	check_ok "mkfs.ext4 + mount on the dm-crypt device" \
		sh -c "mkfs.ext4 -q /dev/mapper/secret && mkdir -p /mnt/data && mount /dev/mapper/secret /mnt/data"
	check_match "stock dm-thin and dm-crypt run on our dm-mod" \
		'^dm_mod .*(dm_thin_pool.*dm_crypt|dm_crypt.*dm_thin_pool)' \
		"$(awk '$1 == "dm_mod" { print $1, $4 }' /proc/modules)"

	# fio in the background on a file of the encrypted file system.
	check_ok "fio lays out its file" fio --name=layout --filename=/mnt/data/fio.dat --size=64m \
		--rw=write --bs=1m --direct=1 --output=/dev/null
	fio --name=bg --filename=/mnt/data/fio.dat --size=64m --rw=randrw --bs=16k --direct=1 \
		--time_based --runtime=600 --ioengine=psync --eta=never --output=/dev/null &
	fio_pid=$!
	check_ok "dmstats create --filemap on the file fio is writing" \
		dmstats create --filemap --nomonitor /mnt/data/fio.dat
	check_ok "dmstats list shows the file map's group" dmstats list --group
	check_match "dmstats list names the file" "fio.dat" "$out"
	check_ok "dmstats create on the thin LV" dmstats create $vg/thin
	sleep 2
	check_ok "dmstats report on the file map and the thin LV" dmstats report
	check_match "dmstats report shows I/O on the file map" "fio.dat" "$out"
	check_eq "fio is still running" 0 "$(kill -0 $fio_pid 2>/dev/null; echo $?)"
	kill $fio_pid
	wait $fio_pid 2>/dev/null

	# The same interval in both: a region on the plain LV (nothing else
	# writes there), a fixed direct-I/O workload, then iotally (a
	# non-destructive @stats_print) and dmstats (@stats_print_clear) read
	# the same counters one after the other, with nothing in between.
	check_ok "dmstats create a region on the plain LV" dmstats create $vg/spare
	fio --name=fixed --filename=/dev/$vg/spare --size=8m --rw=write --bs=64k \
		--direct=1 --ioengine=psync --eta=never --output=/dev/null
	# udev probes a block device written and closed: let that finish first.
	udevadm settle
	run iotally report $vg-spare --level region -o r_ios,w_ios,r_sectors,w_sectors --csv
	iot=$(tail -n 1 <<<"$out" | awk -F, '{ print $(NF-3), $(NF-2), $(NF-1), $NF }')
	run dmstats report $vg/spare -o read_count,write_count,read_sector_count,write_sector_count \
		--noheadings --separator ,
	dms=$(tr -d ' ' <<<"$out" | awk -F, '{ print $1, $2, $3, $4 }')
	check_match "iotally report counts the 128 writes of 64 KiB (16384 sectors)" \
		'^[0-9]+ 128 [0-9]+ 16384$' "$iot"
	check_eq "iotally report agrees with dmstats report over the same interval" "$dms" "$iot"

	# The exporter service.
	check_eq "iotally-exporter is installed disabled" disabled \
		"$(systemctl is-enabled iotally-exporter 2>&1)"
	check_ok "systemctl enable --now iotally-exporter" systemctl enable --now iotally-exporter
	wait_for 30 scrape
	check_eq "iotally-exporter is active" active "$(systemctl is-active iotally-exporter)"
	check_ok "a scrape answers" scrape
	check_match "the scrape shows the thin LV's region" "lv=\"thin\"" "$out"
	systemctl status --no-pager iotally-exporter 2>&1 | sed 's/^/# status: /'
	check_ok "systemctl restart iotally-exporter" systemctl restart iotally-exporter
	wait_for 30 scrape
	check_ok "a scrape answers after the restart" scrape
	check_ok "dmstats delete + create under the exporter" \
		sh -c "dmstats delete $vg/thin --allregions && dmstats create $vg/thin"
	check_ok "a scrape answers after dmstats delete/create" scrape
	check_ok "lvremove an LV with a region while the exporter runs" lvremove -qy $vg/spare
	check_ok "a scrape answers after the LV went away" scrape
	check_eq "iotally-exporter is still active" active "$(systemctl is-active iotally-exporter)"
	check_eq "iotally-exporter runs as the iotally user" iotally \
		"$(stat -c %U "/proc/$(systemctl show -P MainPID iotally-exporter)")"

	# A malformed configuration: refused, one line in the journal.
	# The running exporter is stopped first: its "stopping" line is not
	# part of what the malformed start says.
	systemctl stop iotally-exporter
	cp /etc/default/iotally /run/default.iotally
	echo 'IOTALLY_SERVE_OPTS="--no-such-option"' >/etc/default/iotally
	sleep 1
	since=$(date '+%Y-%m-%d %H:%M:%S')
	systemctl start iotally-exporter
	wait_for 20 sh -c '[ "$(systemctl is-active iotally-exporter)" = failed ]'
	check_eq "a malformed /etc/default/iotally: the service fails" failed \
		"$(systemctl is-active iotally-exporter)"
	msgs=$(journalctl -u iotally-exporter --since "$since" -o cat _COMM=iotally)
	check_eq "... with one line in the journal" 1 "$(grep -c . <<<"$msgs")"
	echo "# journal: $msgs"
	cp /run/default.iotally /etc/default/iotally
	check_ok "the fixed configuration starts again" systemctl restart iotally-exporter
	wait_for 30 scrape
	check_ok "a scrape answers again" scrape

	umount /mnt/data
	cryptsetup close secret
	vgchange -q -an $vg >/dev/null
}

removed() {
	modprobe dm_mod
	check_eq "modinfo dm_mod: the kernel's own module again" \
		"/lib/modules/$release/kernel/drivers/md/dm-mod.ko.xz" "$(modinfo -F filename dm_mod)"
	check_eq "the running dm_mod is the stock one (no version)" "" \
		"$(cat /sys/module/dm_mod/version 2>/dev/null)"
	# Debian builds no srcversion into modules without a version: neither has one.
	check_eq "the running dm_mod is the file modinfo names (no srcversion)" \
		"$(modinfo -F srcversion dm_mod)" "$(cat /sys/module/dm_mod/srcversion 2>/dev/null)"
	check_fails "the iotally-exporter unit is gone" "No files found" systemctl cat iotally-exporter
	check_eq "the iotally user is gone" "" "$(getent passwd iotally)"
	check_eq "/dev/mapper/control is root's again" "root:root 600" \
		"$(stat -c '%U:%G %a' /dev/mapper/control)"
	check_ok "the volume group of the first boot activates on the stock module" vgchange -q -ay $vg
	check_ok "the encrypted thin LV opens and mounts" sh -c \
		"cryptsetup open --key-file /run/key /dev/$vg/thin secret && mkdir -p /mnt/data && \
		 mount /dev/mapper/secret /mnt/data && test -s /mnt/data/fio.dat"
	umount /mnt/data
	cryptsetup close secret
	vgchange -q -an $vg >/dev/null
}

{
	echo "# iotally-guest kernel=$release cpus=$(nproc) phase=$phase"
	echo "# iotally-suite-begin debian-$phase"
	t0=$(cut -d. -f1 /proc/uptime)
	printf 'iotally-test-key' >/run/key
	wait_for 60 test -e /dev/vdb
	case $phase in
	installed) installed ;;
	removed) removed ;;
	*) bail "unknown iotally.phase=$phase" ;;
	esac
	tap_finish
	rc=$?
	echo "# iotally-suite-end debian-$phase rc=$rc seconds=$(($(cut -d. -f1 /proc/uptime) - t0))"
	echo "# iotally-guest-done"
} >"$out" 2>&1
sync
systemctl poweroff
