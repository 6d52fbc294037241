# SPDX-License-Identifier: GPL-2.0-or-later
#
# The one place where iotally pins what it builds against and runs on.
# Everything else (Makefile, scripts/, tests/) reads these variables.

# The kernel: Debian 12's 6.12 LTS. The patched kernel is built from the
# source package, the stock kernel (image, modules, headers) is the reference.
KERNEL_DEB_VERSION := 6.12.117-1~deb12u1
KERNEL_RELEASE     := 6.12.117+deb12-amd64
KERNEL_SOURCE_PKG  := linux-source-6.12
KERNEL_SOURCE_TAR  := /usr/src/linux-source-6.12.tar.xz
KERNEL_SOURCE_DIR  := linux-source-6.12

# Debian packages, as name or name=version. Kernel packages are pinned exactly;
# the rest follow bookworm, which only takes security and bug fixes.
DEB_PACKAGES := \
	$(KERNEL_SOURCE_PKG)=$(KERNEL_DEB_VERSION) \
	linux-image-$(KERNEL_RELEASE)=$(KERNEL_DEB_VERSION) \
	linux-headers-$(KERNEL_RELEASE)=$(KERNEL_DEB_VERSION) \
	build-essential bc bison flex libelf-dev libssl-dev dwarves \
	cpio xz-utils zstd kmod rsync patch quilt ccache sparse python3 \
	qemu-system-x86 busybox-static dmsetup fio coreutils util-linux tmux \
	cmake pkg-config clang lld libclang-rt-14-dev clang-format \
	libdevmapper-dev libnl-3-dev libnl-genl-3-dev libcli11-dev libfmt-dev \
	nlohmann-json3-dev libgtest-dev libgmock-dev googletest libbenchmark-dev \
	prometheus python3-prometheus-client e2fsprogs sysstat \
	libtracefs-dev libtraceevent-dev bpftrace \
	libcpp-httplib-dev zlib1g-dev prometheus-node-exporter \
	mmdebstrap debhelper dh-dkms lintian fakeroot

# The Debian 12 guest (scripts/debian-image.sh, tests/debian/): a root image
# built with mmdebstrap from these packages and cached under $HOME/.cache,
# keyed on this list. It holds what iotally's packages need installed
# offline (their run-time libraries, dkms and the compiler for the stock
# kernel's headers) and what the end-to-end test drives.
DEBIAN_GUEST_PACKAGES := \
	systemd systemd-sysv udev kmod initramfs-tools zstd \
	lvm2 dmsetup cryptsetup-bin thin-provisioning-tools e2fsprogs fio curl \
	linux-image-$(KERNEL_RELEASE)=$(KERNEL_DEB_VERSION) \
	linux-headers-$(KERNEL_RELEASE)=$(KERNEL_DEB_VERSION) \
	dkms gcc-12 make libc6-dev patch \
	libdevmapper1.02.1 libnl-3-200 libnl-genl-3-200 libfmt9 libstdc++6 \
	libcpp-httplib0.11 libtracefs1 libtraceevent1 adduser

# The Debian guest's "kernel update": Debian's second 6.12 flavour, whose
# image and headers wait in the guest's apt cache, installed offline by
# tests/debian/run.sh so that DKMS builds our dm-mod for a new kernel.
DEBIAN_GUEST_UPDATE_KERNEL := 6.12.117+deb12-cloud-amd64

# Guest machine: software emulation only (KVM hangs on this platform).
QEMU_CPUS   := 2
QEMU_MEM    := 1024
QEMU_TIMEOUT := 900
