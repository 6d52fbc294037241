#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Install iotally as the field installs it and prove it in a real Debian
# 12 (bookworm) or 13 (trixie):
#
#   tests/debian/run.sh [--suite SUITE] [--name NAME] [--timeout SECONDS] [--mem MB]
#
# SUITE: bookworm (default) or trixie (versions.mk DEBIAN_SUITES); NAME:
# debian-SUITE by default. The root file system is scripts/debian-image.sh
# SUITE's cached mmdebstrap image, unpacked into an ext4 disk image. On the
# host, in a chroot of that disk with no network (unshare --net: apt works
# offline), the packages of make deb SUITE=SUITE (build/deb/SUITE) are
# installed, DKMS builds dm-mod for the stock kernel, a kernel update
# rebuilds it, and a kernel without headers and a kernel of another version
# than 6.12 are refused cleanly (suite debian-host). Then the guest boots that disk with
# Debian's kernel and initramfs under QEMU TCG, with a second virtio disk
# for lvm2 (suite debian-installed, tests/debian/guest.sh). The packages
# are purged in the chroot and the guest boots again (debian-removed).
#
# Logs: build/logs/NAME/{host.tap,installed/,removed/,results}; the
# last line printed is "RESULT pass fail skip", as tests/vm/run.sh's.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../../scripts/versions.sh
. "$top/scripts/versions.sh"
# shellcheck source=../vm/qemu-common.sh
. "$top/tests/vm/qemu-common.sh"

name='' suite=bookworm timeout=1200 mem=1536
while (($#)); do
	case $1 in
	--suite) suite=$2; shift 2 ;;
	--name) name=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	-h | --help) sed -n '4,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "debian/run.sh: unknown option $1" >&2; exit 2 ;;
	esac
done

# shellcheck source=../../scripts/debian-suite.sh
. "$top/scripts/debian-suite.sh" "$suite"
name=${name:-debian-$suite}
base=$top/build/logs/$name
work=$top/build/debian-guest/$suite
root=$work/root
disk=$work/root.img
data=$work/data.img
release=$suite_release
version=$deb_version
debs=("$top/build/deb/$suite/iotally_${version}_amd64.deb" "$top/build/deb/$suite/iotally-dkms_${version}_all.deb")
for d in "${debs[@]}"; do
	[[ -f $d ]] || { echo "debian/run.sh: $d missing (make deb SUITE=$suite)" >&2; exit 2; }
done
rm -rf "$base"
mkdir -p "$base" "$work" "$root"

# The chroot: the disk image loop-mounted, with the kernel's file systems.
mounted=0
mount_root() {
	mount -o loop "$disk" "$root"
	mounted=1
	[[ -d $root/proc ]] || return 0 # not unpacked yet
	mount -t proc proc "$root/proc"
	mount -t sysfs sysfs "$root/sys"
	# A devtmpfs of its own, not a bind of the host's /dev: nothing mounted
	# below it can propagate to the host's /dev.
	mount -t devtmpfs devtmpfs "$root/dev"
	mount -t devpts -o newinstance,ptmxmode=0666 devpts "$root/dev/pts"
	mount -t tmpfs tmpfs "$root/run"
	mount -t tmpfs tmpfs "$root/tmp"
	mounted=1
}
umount_root() {
	((mounted)) || return 0
	umount -R "$root"
	mounted=0
}
trap umount_root EXIT
# in_root CMD...: in the chroot, offline, with a clean environment.
in_root() {
	unshare --net chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}

t0=$(date +%s)
image=$("$top/scripts/debian-image.sh" "$suite")
t_image=$(($(date +%s) - t0))
echo "  IMAGE   $image (${t_image}s)"

t1=$(date +%s)
umount -R "$root" 2>/dev/null || true
rm -f "$disk" "$data"
truncate -s 4G "$disk"
mkfs.ext4 -q -F -L iotally-root "$disk"
truncate -s 1G "$data"
mount_root
tar -C "$root" --numeric-owner -xpf "$image"
umount_root
mount_root
echo "/dev/vda / ext4 rw,errors=remount-ro 0 1" >"$root/etc/fstab"
cp "${debs[@]}" "$root/tmp/"
t_unpack=$(($(date +%s) - t1))

# The host's part, in tests/vm/init's protocol (one suite: debian-host).
host_suite() {
	# shellcheck source=../../scripts/host-tap.sh
	. "$top/scripts/host-tap.sh"
	# Debian's 6.12 modules are xz-compressed; DKMS compresses ours the same way.
	local stock=/lib/modules/$release/kernel/drivers/md/dm-mod.ko.xz
	local ours=/lib/modules/$release/updates/dkms/dm-mod.ko.xz
	local installed="iotally/$version, $release, x86_64: installed"
	# dkms 3.2 (Debian 13) adds that the kernel has a dm-mod of its own.
	local own=' (Original modules exist)'
	local headers_deb
	headers_deb=$(cd "$root" && ls var/cache/apt/archives/linux-headers-"${release}"_*.deb)

	# Bad input first: a kernel without its headers.
	check_ok "remove the kernel's headers" in_root apt-get remove -y -q "linux-headers-$release"
	check_ok "apt install iotally-dkms on a kernel without headers" \
		in_root apt-get install -y -q "/tmp/iotally-dkms_${version}_all.deb"
	echo "$out" >"$base/install-no-headers.log"
	# dkms 3.0 (Debian 12) and 3.2 (Debian 13) say it in other words.
	check_match "DKMS says the headers are missing" \
		"headers for this kernel do not seem to be installed|No kernel headers were found" "$out"
	check_eq "no module was built: the stock dm-mod stays" "$stock" \
		"$(in_root modinfo -k "$release" -F filename dm_mod 2>&1)"
	check_ok "apt purge iotally-dkms" in_root apt-get purge -y -q iotally-dkms
	check_ok "reinstall the headers (offline, from apt's cache)" \
		in_root apt-get install -y -q "/$headers_deb"

	# A kernel of another version than 6.12 is installed too, with its
	# headers (a tree DKMS accepts as such) and its own dm-mod: our
	# dm-mod is not for it. 6.1 is Debian 12's first kernel.
	local other=6.1.0-99-iotally-other
	local other_stock=/lib/modules/$other/kernel/drivers/md/dm-mod.ko.xz
	mkdir -p "$root/usr/src/linux-headers-$other/include" "$root${other_stock%/*}"
	cp "$root/lib/modules/$release/build/Makefile" "$root/usr/src/linux-headers-$other/"
	ln -s "/usr/src/linux-headers-$other" "$root/lib/modules/$other/build"
	cp "$root$stock" "$root$other_stock"
	touch "$root/lib/modules/$other/"{modules.order,modules.builtin,modules.builtin.modinfo}
	in_root depmod "$other"

	# The real install: both packages, offline.
	check_ok "apt install ./iotally_*.deb ./iotally-dkms_*.deb (offline)" \
		in_root apt-get install -y -q "/tmp/iotally_${version}_amd64.deb" "/tmp/iotally-dkms_${version}_all.deb"
	echo "$out" >"$base/install.log"
	echo "$err" >>"$base/install.log"
	check_eq "kernel $other: one line from iotally-dkms says it keeps its own dm-mod" \
		"iotally-dkms: kernel $other is not Linux 6.12: it keeps its own dm-mod" \
		"$(tr -d '\r' <"$base/install.log" | grep "iotally-dkms: kernel $other")"
	check_match "kernel $other: DKMS skipped it for the BUILD_EXCLUSIVE of dkms.conf" \
		"BUILD_EXCLUSIVE directive" "$(cat "$base/install.log")"
	check_eq "kernel $other: dkms status has no build of iotally" "" \
		"$(in_root dkms status iotally -k "$other" 2>/dev/null | grep -E 'built|installed')"
	check_eq "kernel $other: modinfo -k dm_mod names its stock module" "$other_stock" \
		"$(in_root modinfo -k "$other" -F filename dm_mod 2>&1)"
	rm -rf "$root/lib/modules/$other" "$root/usr/src/linux-headers-$other" "$root/var/lib/initramfs-tools/$other"
	check_eq "dkms status: built and installed for $release" "$installed" \
		"$(in_root dkms status iotally 2>/dev/null | sed "s/$own\$//")"
	check_eq "modinfo -k $release dm_mod: ours under updates/dkms" "$ours" \
		"$(in_root modinfo -k "$release" -F filename dm_mod 2>&1)"
	check_eq "modinfo: version iotally-$version" "iotally-$version" \
		"$(in_root modinfo -k "$release" -F version dm_mod)"
	check_match "the initramfs holds our dm-mod" "updates/dkms/dm-mod.ko" \
		"$(in_root lsinitramfs "/boot/initrd.img-$release")"
	check_eq "the exporter unit is installed and disabled" disabled \
		"$(in_root systemctl is-enabled iotally-exporter 2>&1)"
	check_ok "the iotally user exists" in_root getent passwd iotally

	# A kernel update: the module is unbuilt for the kernel (as for a new one:
	# still known to DKMS, not built for it), the headers package is
	# installed again and its DKMS hook (dkms autoinstall) rebuilds it.
	# "dkms remove" would forget the module altogether once no kernel has it.
	local before
	before=$(stat -c %Y "$root$ours" 2>&1)
	sleep 1
	check_ok "dkms unbuild for $release" in_root dkms unbuild "iotally/$version" -k "$release"
	check_eq "without the module, the stock dm-mod is back" "$stock" \
		"$(in_root modinfo -k "$release" -F filename dm_mod 2>&1)"
	check_ok "kernel update: reinstall the headers (their hook runs dkms autoinstall)" \
		in_root apt-get install -y -q --reinstall "/$headers_deb"
	check_eq "the update rebuilt our dm-mod" "$ours" "$(in_root modinfo -k "$release" -F filename dm_mod 2>&1)"
	check_cmp "the rebuilt module is new" -gt "$(stat -c %Y "$root$ours" 2>/dev/null || echo 0)" "$before"
	check_ok "dpkg-reconfigure iotally-dkms" in_root dpkg-reconfigure iotally-dkms
	check_eq "dkms status after dpkg-reconfigure: installed" "$installed" \
		"$(in_root dkms status iotally 2>/dev/null | sed "s/$own\$//")"

	# A kernel update to a second flavour: Debian's cloud kernel and its
	# headers, offline from apt's cache. Their hooks run dkms autoinstall
	# for the new kernel, which then boots with our dm-mod.
	local update=$suite_update_kernel update_debs
	update_debs=$(cd "$root" && ls var/cache/apt/archives/linux-image-"${update}"_*.deb \
		var/cache/apt/archives/linux-headers-"${update}"_*.deb | sed 's|^|/|')
	# shellcheck disable=SC2086
	check_ok "kernel update: install linux-image-$update and its headers (offline)" \
		in_root apt-get install -y -q $update_debs
	echo "$out" >"$base/install-update.log"
	check_eq "dkms status: built and installed for $update" \
		"iotally/$version, $update, x86_64: installed" \
		"$(in_root dkms status iotally -k "$update" 2>/dev/null | sed "s/$own\$//")"
	check_eq "modinfo -k $update dm_mod: ours under updates/dkms" \
		"/lib/modules/$update/updates/dkms/dm-mod.ko.xz" \
		"$(in_root modinfo -k "$update" -F filename dm_mod 2>&1)"
	check_match "the new kernel's initramfs holds our dm-mod" "updates/dkms/dm-mod.ko" \
		"$(in_root lsinitramfs "/boot/initrd.img-$update")"
	tap_finish
}

echo "  HOST    $name: install in a chroot (offline)"
t2=$(date +%s)
{
	echo "# iotally-suite-begin debian-host"
	# A failed check is a "not ok" line, never the end of the run.
	rc=0
	(set +e; host_suite) || rc=$?
	echo "# iotally-suite-end debian-host rc=$rc seconds=$(($(date +%s) - t2))"
	echo "# iotally-guest-done"
} >"$base/host.tap" 2>&1
t_host=$(($(date +%s) - t2))

# The guest's test: a service that runs once the system is up.
install -D -m 755 "$top/tests/debian/guest.sh" "$root/usr/local/sbin/iotally-guest-test"
install -D -m 644 "$top/tests/selftests/lib.sh" "$root/usr/local/lib/iotally-test/lib.sh"
install -D -m 644 "$("$top/scripts/kselftest-frame.sh")/tools/testing/selftests/kselftest/ktap_helpers.sh" \
	"$root/usr/local/lib/iotally-test/ktap_helpers.sh"
echo "$version" >"$root/usr/local/lib/iotally-test/version"
cat >"$root/etc/systemd/system/iotally-guest-test.service" <<'UNIT'
[Unit]
Description=iotally's end-to-end test (tests/debian/guest.sh)
After=multi-user.target

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/iotally-guest-test
StandardOutput=journal+console

[Install]
WantedBy=multi-user.target
UNIT
mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
ln -sf /etc/systemd/system/iotally-guest-test.service \
	"$root/etc/systemd/system/multi-user.target.wants/iotally-guest-test.service"
# Nothing the test does not need: timers that would wake apt, the first-boot
# prompts on the console.
for u in apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer \
	e2scrub_reap.service systemd-timesyncd.service systemd-firstboot.service; do
	ln -sf /dev/null "$root/etc/systemd/system/$u"
done

# boot PHASE: the disk as the chroot left it, with Debian's own kernel and
# initramfs; no network device at all.
boot() {
	local phase=$1
	logs=$base/$phase
	mkdir -p "$logs"
	cp "$root/boot/vmlinuz-$release" "$root/boot/initrd.img-$release" "$logs/"
	umount_root
	echo "  BOOT    $name/$phase: Debian $suite_number ($suite), $release, timeout ${timeout}s"
	local start
	start=$(date +%s)
	qemu_boot "$timeout" "$mem" \
		-kernel "$logs/vmlinuz-$release" -initrd "$logs/initrd.img-$release" \
		-append "root=/dev/vda rw console=ttyS0 panic=-1 loglevel=4 iotally.phase=$phase" \
		-drive "file=$disk,if=virtio,format=raw" -drive "file=$data,if=virtio,format=raw"
	echo "  GUEST   $name/$phase: qemu exited rc=$qemu_rc after $(($(date +%s) - start))s"
	boot_fail=0
	qemu_check_exit "$name/$phase" || boot_fail=$((boot_fail + 1))
	qemu_check_cpus "$name/$phase" || boot_fail=$((boot_fail + 1))
	qemu_check_splats "$name/$phase" "$logs/console.log" || boot_fail=$((boot_fail + 1))
	echo "$boot_fail" >"$logs/boot-failures"
	mount_root
}

t3=$(date +%s)
boot installed
t_boot1=$(($(date +%s) - t3))

# Remove both packages, in the chroot of the disk the guest left.
{
	echo "# iotally-suite-begin debian-purge"
	rc=0
	(
		set +e
		# shellcheck source=../../scripts/host-tap.sh
		. "$top/scripts/host-tap.sh"
		check_ok "apt purge iotally iotally-dkms" in_root apt-get purge -y -q iotally iotally-dkms
		echo "$out" >"$base/purge.log"
		check_eq "dkms status: nothing of iotally" "" "$(in_root dkms status iotally 2>/dev/null)"
		# ls -R lists the whole tree: whether any name in it holds dm-mod is all
		# that is asked.
		# shellcheck disable=SC2010
		check_eq "no dm-mod left under updates/" "" "$(cd "$root" && ls "lib/modules/$release/updates" -R 2>/dev/null | grep dm-mod)"
		check_eq "the initramfs holds the stock dm-mod again" "" \
			"$(in_root lsinitramfs "/boot/initrd.img-$release" | grep updates/dkms)"
		check_eq "no unit file or enablement link left" "" \
			"$(cd "$root" && find etc/systemd usr/lib/systemd -name 'iotally-exporter*')"
		tap_finish
	) || rc=$?
	echo "# iotally-suite-end debian-purge rc=$rc seconds=0"
	echo "# iotally-guest-done"
} >"$base/purge.tap" 2>&1

t4=$(date +%s)
boot removed
t_boot2=$(($(date +%s) - t4))
umount_root

pass=0 fail=0 skip=0
count() { # TAPFILE SUITE
	local line
	awk -v name="$name" -v suites="$2" -f "$top/tests/vm/parse-tap.awk" "$1" >"$1.results"
	line=$(tail -n 1 "$1.results")
	read -r _ p f s <<<"$line"
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	head -n -1 "$1.results"
}
count "$base/host.tap" debian-host
count "$base/purge.tap" debian-purge
for phase in installed removed; do
	count "$base/$phase/tap.log" "debian-$phase"
	fail=$((fail + $(cat "$base/$phase/boot-failures")))
done
grep -h '^not ok' "$base/host.tap" "$base/purge.tap" "$base"/*/tap.log 2>/dev/null | head -n 20 || true

echo "# $name: image ${t_image}s, unpack ${t_unpack}s, host install ${t_host}s," \
	"boot installed ${t_boot1}s, boot removed ${t_boot2}s, total $(($(date +%s) - t0))s"
echo "$pass $fail $skip" >"$base/results"
echo "# $name: $pass passed, ${fail} failed, $skip skipped (logs: build/logs/$name)"
echo "RESULT $pass $fail $skip"
((fail == 0))
