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
# nfs-kernel-server: the guest's NFS server (rpc.mountd, exportfs, nfsdcld;
# tests/selftests/lib-nfs.sh). It brings rpcbind and nfs-common; on a host
# with systemd, installing it enables and starts nfs-server (exporting
# nothing) and rpcbind: `systemctl disable --now nfs-server rpcbind`.
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
	libtracefs-dev libtraceevent-dev bpftrace libbpf-dev bpftool \
	libcpp-httplib-dev zlib1g-dev prometheus-node-exporter shellcheck \
	mmdebstrap mdadm nfs-kernel-server linux-perf

# The OTLP receiver of the tests of `iotally serve --otlp`
# (scripts/otlp-receiver.sh): VictoriaMetrics from Debian 13, whose
# /opentelemetry/v1/metrics takes OTLP/HTTP protobuf and whose PromQL
# (MetricsQL) answers the queries. Debian's Prometheus cannot serve: its
# package disables the OTLP write receiver in every release (12's 2.42 is
# older than the receiver, 13's 2.53.3+ds1-2 and unstable's 3.5.3+ds1-6 are
# built without it, Debian bug #1080354). The binary of this package is
# downloaded from the pool of apt's Debian mirror, checked against the sha256 (_SHA) and cached,
# never installed; it runs on Debian 12 (libc 2.36, libzstd 1.5.4).
OTLP_RECEIVER_VERSION := 1.112.0+ds1-2
OTLP_RECEIVER_DEB     := pool/main/v/victoriametrics/victoria-metrics_1.112.0+ds1-2_amd64.deb
OTLP_RECEIVER_SHA     := 1d3717f1a8ab5bf690271095dd286730f6fb0761cc8c09c0fc8f529c9838f346
OTLP_RECEIVER_BINARY  := usr/bin/victoria-metrics

# The Debian releases iotally is packaged for and proven on, each built in
# a clean chroot of its own (scripts/deb.sh: make deb SUITE=...) and tested
# in a guest of its own (tests/debian/run.sh: make check-debian SUITE=...).
# Per release, as <suite>.NAME:
#   NUMBER              Debian's release number: the packages' version gets
#                       "+deb<NUMBER>" (0.1.0+deb12, 0.1.0+deb13)
#   KERNEL_DEB_VERSION  the release's 6.12 kernel packages, pinned exactly:
#   KERNEL_RELEASE      linux-source-6.12 in the build chroot, the guest's
#                       kernel image and headers
#   UPDATE_KERNEL       Debian's second 6.12 flavour, whose image and headers
#                       wait in the guest's apt cache: tests/debian/run.sh
#                       installs them offline, a kernel update that DKMS
#                       builds our dm-mod for
#   RUNTIME             what iotally's packages need installed offline in the
#                       guest: their run-time libraries (they differ by
#                       release), dkms's compiler for the kernel's headers
DEBIAN_SUITES := bookworm trixie
SUITE ?= bookworm

bookworm.NUMBER             := 12
bookworm.KERNEL_DEB_VERSION := $(KERNEL_DEB_VERSION)
bookworm.KERNEL_RELEASE     := $(KERNEL_RELEASE)
bookworm.UPDATE_KERNEL      := 6.12.117+deb12-cloud-amd64
bookworm.RUNTIME := gcc-12 libdevmapper1.02.1 libnl-3-200 libnl-genl-3-200 libfmt9 \
	libstdc++6 libcpp-httplib0.11 libtracefs1 libtraceevent1 libbpf1 adduser

trixie.NUMBER             := 13
trixie.KERNEL_DEB_VERSION := 6.12.117-1
trixie.KERNEL_RELEASE     := 6.12.117+deb13-amd64
trixie.UPDATE_KERNEL      := 6.12.117+deb13-cloud-amd64
trixie.RUNTIME := gcc-14 libdevmapper1.02.1 libnl-3-200 libnl-genl-3-200 libfmt10 \
	libstdc++6 libcpp-httplib0.18 libtracefs1 libtraceevent1 libbpf1 adduser

# The build chroot of make deb (scripts/deb.sh): mmdebstrap's buildd variant
# (build-essential), these, the release's linux-source-6.12 at its pinned
# version and debian/control's Build-Depends; a tarball cached under
# $HOME/.cache/iotally, keyed on all of that.
DEB_BUILD_PACKAGES := fakeroot lintian ccache

# The Debian guest (scripts/debian-image.sh SUITE, tests/debian/): a root
# image built with mmdebstrap from these packages and cached under
# $HOME/.cache/iotally, keyed on this list. It holds what iotally's packages
# need installed offline and what the end-to-end test drives.
DEBIAN_GUEST_PACKAGES = \
	systemd systemd-sysv udev kmod initramfs-tools zstd \
	lvm2 dmsetup cryptsetup-bin thin-provisioning-tools e2fsprogs fio curl \
	linux-image-$($(SUITE).KERNEL_RELEASE)=$($(SUITE).KERNEL_DEB_VERSION) \
	linux-headers-$($(SUITE).KERNEL_RELEASE)=$($(SUITE).KERNEL_DEB_VERSION) \
	dkms make libc6-dev patch $($(SUITE).RUNTIME)

# Guest machine: software emulation only (KVM hangs on this platform).
QEMU_CPUS   := 2
QEMU_MEM    := 1024
QEMU_TIMEOUT := 900
# The debug guest (tests/vm/run.sh --debug: KASAN + lockdep) is slower and
# needs KASAN's shadow memory and quarantine.
DEBUG_GUEST_TIMEOUT := 1800
DEBUG_GUEST_MEM     := 5632
