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

	# The io provider and per-task I/O on Debian's own kernel, which has
	# neither the io trace events nor per-task I/O in taskstats: the
	# installed iotally runs them on its BPF programs. A direct read of the
	# plain LV (LVM on the disk), then a buffered write + sync of a file on
	# the encrypted file system and its read back after drop_caches.
	iotally -v snoop >/run/snoop.out 2>/run/snoop.err &
	snoop_pid=$!
	wait_for 60 grep -q '^iotally: snoop: tracing' /run/snoop.err
	check_match "snoop runs on the bpf backend" "^iotally: snoop: backend bpf " "$(cat /run/snoop.err)"
	dd if=/dev/$vg/spare of=/dev/null bs=64k count=2 iflag=direct status=none
	dd if=/dev/urandom of=/mnt/data/snoop.bin bs=64k count=4 status=none
	sync
	echo 3 >/proc/sys/vm/drop_caches
	cat /mnt/data/snoop.bin >/dev/null
	sleep 2
	kill -INT $snoop_pid
	wait $snoop_pid
	check_eq "snoop ends cleanly on SIGINT" 0 "$?"
	lv=$(basename "$(readlink -f /dev/$vg/spare)")
	crypt=$(basename "$(readlink -f /dev/mapper/secret)")
	check_eq "snoop: the LV's direct read on the LV and on the disk under it, 128 KiB each" \
		"$lv 131072 vdb 131072" \
		"$(awk -v lv="$lv" '$2 == "dd" && $5 == "R" && ($4 == lv || $4 == "vdb") &&
			$8 ~ /spare|dm-/ { b[$4] += $6 } END { printf "%s %d vdb %d", lv, b[lv], b["vdb"] }' /run/snoop.out)"
	check_eq "snoop: the file's write and read on dm-crypt, named, 256 KiB each" "R 262144 W 262144" \
		"$(awk -v d="$crypt" '$4 == d && $8 == "/mnt/data/snoop.bin" { b[$5] += $6 }
			END { printf "R %d W %d", b["R"], b["W"] }' /run/snoop.out)"
	grep -E " ($lv|vdb|$crypt) " /run/snoop.out | grep -E 'snoop.bin|spare|dm-|<' | head -n 30 |
		sed 's/^/# snoop: /'
	# dd's own exec reads (its binary and libraries, cold after the
	# drop_caches above) are its I/O too: a first run brings them in, so
	# that the one measured does its 256 direct reads and nothing else.
	dd if=/dev/$vg/spare of=/dev/null bs=4k count=1 iflag=direct status=none
	iotally -v -j tasks --top -i 6 -n 100 >/run/top.json 2>/run/top.err &
	top_pid=$!
	wait_for 60 grep -q 'bpf program attached' /run/top.err
	dd if=/dev/$vg/spare of=/dev/null bs=4k count=256 iflag=direct status=none &
	dd_pid=$!
	wait $dd_pid
	wait $top_pid
	check_eq "tasks --top exits 0 on the bpf backend" 0 "$?"
	check_match "tasks --top: the exited dd read 1 MiB in 256 ops" \
		"^\\{\"comm\":\"dd\",\"ops\":256,\"read_bytes\":1048576,\"tgid\":$dd_pid," \
		"$(grep -o "{[^{}]*\"tgid\":$dd_pid,[^{}]*}" /run/top.json)"

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
	# Least privilege: exactly CAP_SYS_ADMIN (21), CAP_PERFMON (38) and
	# CAP_BPF (39), effective and bounding; every source up, and with
	# --cgroups (iotally's BPF programs under the unit's sandbox) cgroups too.
	local pid caps=000000c000200000
	pid=$(systemctl show -P MainPID iotally-exporter)
	check_eq "iotally-exporter's CapEff is CAP_SYS_ADMIN, CAP_BPF, CAP_PERFMON" $caps \
		"$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/$pid/status)"
	check_eq "iotally-exporter's CapBnd is the same three" $caps \
		"$(sed -n 's/^CapBnd:[[:space:]]*//p' /proc/$pid/status)"
	check_eq "the unit's scrape: dm and block up" "block=1 dm=1" \
		"$(scrape | sed -n 's/^iotally_source_up{source="\([^"]*\)"} \(.*\)/\1=\2/p' | tr '\n' ' ' | sed 's/ $//')"
	cp /etc/default/iotally /run/default.iotally
	echo 'IOTALLY_SERVE_OPTS="--cgroups"' >/etc/default/iotally
	systemctl restart iotally-exporter
	cgroups_up() { scrape | grep -q '^iotally_source_up{source="cgroups"} 1'; }
	wait_for 60 cgroups_up
	check_eq "the unit with --cgroups: dm, block and cgroups up" "block=1 cgroups=1 dm=1" \
		"$(scrape | sed -n 's/^iotally_source_up{source="\([^"]*\)"} \(.*\)/\1=\2/p' | tr '\n' ' ' | sed 's/ $//')"
	journalctl -u iotally-exporter -o cat _COMM=iotally | tail -n 3 | sed 's/^/# journal: /'
	cp /run/default.iotally /etc/default/iotally
	systemctl restart iotally-exporter
	wait_for 30 scrape
	# The monitoring mixin where the package puts it.
	check_eq "the mixin is installed in /usr/share/iotally" \
		"grafana-iotally.json iotally-alerts.yml iotally-rules.yml" "$(ls /usr/share/iotally | tr '\n' ' ' | sed 's/ $//')"

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
