# SPDX-License-Identifier: GPL-2.0-or-later
#
# iotally: Linux kernel I/O statistics, as a kernel patch set and a C++ CLI.
#
#   make            kernel, out-of-tree modules and user-space tools
#   make deps       install the pinned Debian packages (every target does it)
#   make kernel     the patched kernel (DEBUG=1: the KASAN flavour, KMSAN=1: the KMSAN one)
#   make kunit      our KUnit suites under UML (quick loop; make check runs them in the guest)
#   make modules    dm-mod.ko (our engine) and statistic.ko for the stock kernel
#   make tools      libiotally and the iotally CLI (CMake Release, warnings as errors)
#   make check      every test: ctest, KUnit and the guest suites on both kernels
#   make check-debug  the KASAN + lockdep kernel: KUnit, stress, engine and statistics suites
#   make check-kmsan  the KMSAN kernel (clang): KUnit and the dm-stats suites (not in make check)
#   make check-i386  our KUnit suites on a 32-bit (ARCH=i386, SMP) kernel in qemu-system-i386
#   make demo       watch iotally report live I/O in a guest of Debian's stock kernel with
#                   our modules (KERNEL=patched: our patched kernel, a kernel build first)
#   make bench      A/B benchmarks against the stock kernel
#   make fuzz-dm    dm-stats differential fuzzing, stock engine against ours
#                   (SEED=N or SEED="N M ...", STEPS=N; default: a new seed, 10000 steps;
#                   HZ=100|250|300|1000: both engines on our kernel built at that HZ)
#   make patches    the kernel part as a git-am series in build/patches
#   make deb        iotally and iotally-dkms Debian packages in build/deb/SUITE, built and
#                   lintian-checked in a clean chroot of SUITE (bookworm, the default, or trixie)
#   make check-debian  SUITE's packages (make deb) proven in a Debian guest of SUITE
#   make clean      remove build/ (kernel builds are slow: only when needed)

include versions.mk

TOP   := $(CURDIR)
BUILD := $(TOP)/build
DEBUG ?= 0
KMSAN ?= 0
ifeq ($(KMSAN),1)
# KMSAN needs clang: scripts/kernel-build.sh takes KERNEL_CC
KERNEL_OUT       := $(BUILD)/kernel-kmsan
KERNEL_FRAGMENTS := configs/iotally.config configs/kmsan.config
export KERNEL_CC := clang
else ifeq ($(DEBUG),1)
KERNEL_OUT       := $(BUILD)/kernel-debug
KERNEL_FRAGMENTS := configs/iotally.config configs/debug.config
else
KERNEL_OUT       := $(BUILD)/kernel
KERNEL_FRAGMENTS := configs/iotally.config configs/tracing.config
endif

.PHONY: all deps tree kernel kunit modules tools check check-debug check-kmsan check-i386 demo bench clean help
.PHONY: patches fuzz-dm deb check-debian

all: kernel modules tools

help:
	@sed -n '3,/^$$/{/^$$/!p}' Makefile | sed 's/^# \{0,1\}//'

# Idempotent and quick when everything is installed: every target runs it.
deps:
	@scripts/deps.sh $(DEB_PACKAGES)
	@scripts/otlp-receiver.sh >/dev/null || echo "deps: no OTLP receiver: the OTLP end-to-end test will fail" >&2

tree: deps
	scripts/kernel-tree.sh $(KERNEL_SOURCE_TAR) $(KERNEL_SOURCE_DIR)

kernel: tree
	scripts/kernel-build.sh $(KERNEL_OUT) $(KERNEL_FRAGMENTS)

kunit: tree
	scripts/kunit-uml.sh

modules: deps
	@set -e; ran=0; for s in scripts/modules.sh scripts/statistic-module.sh; do \
		if [ -x $$s ]; then $$s; ran=1; fi; done; \
	[ $$ran = 1 ] || echo "modules: no out-of-tree module in this tree yet"

# TOOLS_TARGET: one CMake target instead of all (the demo builds only the
# iotally command, not the unit tests: a third of a cold build).
TOOLS_TARGET ?=
tools: deps
	@if [ -f tools/iotally/CMakeLists.txt ]; then \
		cmake -S tools/iotally -B $(BUILD)/tools -DCMAKE_BUILD_TYPE=Release -DIOTALLY_WERROR=ON \
			-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache && \
		cmake --build $(BUILD)/tools -j$$(nproc) $(if $(TOOLS_TARGET),--target $(TOOLS_TARGET)); \
	else echo "tools: tools/iotally is not in this tree yet"; fi

check: deps
	scripts/check.sh

check-debug: deps
	scripts/check-debug.sh

check-i386: tree
	scripts/kunit-i386.sh

check-kmsan: deps
	scripts/check-kmsan.sh

# The stock demo needs no kernel build: make modules and make tools only.
KERNEL ?= stock
ifneq ($(filter demo,$(MAKECMDGOALS)),)
ifeq ($(filter stock patched,$(KERNEL)),)
$(error KERNEL=$(KERNEL): make demo takes KERNEL=stock (the default) or KERNEL=patched)
endif
endif
demo: $(if $(filter patched,$(KERNEL)),kernel,modules)
	$(MAKE) --no-print-directory tools TOOLS_TARGET=iotally_bin
	scripts/demo.sh $(KERNEL)

bench: deps
	scripts/bench.sh

SEED  ?= $(shell od -An -N4 -tu4 /dev/urandom)
STEPS ?= 10000
HZ    ?=
fuzz-dm: deps
	scripts/fuzz-dm.sh run "$(strip $(SEED))" $(STEPS) $(HZ)

patches: tree
	scripts/make-patches.sh

deb: deps
	scripts/deb.sh $(SUITE)

check-debian: deb
	tests/debian/run.sh --suite $(SUITE) --name debian-$(SUITE)

clean:
	rm -rf $(BUILD)

# libiotally's iotally, its man page and bash completion (PREFIX, DESTDIR).
.PHONY: install
PREFIX ?= /usr/local
install: tools
	cmake --install $(BUILD)/tools --prefix $(PREFIX)
