# SPDX-License-Identifier: GPL-2.0
#
# The programs the suites run, built from this folder into the suite's own:
# a suite names the ones it needs in TEST_GEN_PROGS_EXTENDED (so kselftest
# builds and installs them) and includes this file after ../../lib.mk. The
# host's scripts/test-helpers.sh builds them all with this file too, for the
# benchmarks and the fuzzer's host side.
#
# fd.hpp and dm_target_msg.hpp are iotally's own (tools/iotally/src/util and
# src/dm-stats in its repository), copied here as they are: they need libc
# and the kernel's uapi headers only.

HELPERS_DIR ?= $(selfdir)/iotally/helpers
HELPERS_CXXFLAGS := -std=c++20 -O2 -Wall -Wextra -Werror
HELPERS_CFLAGS := -O2 -Wall -Werror

$(OUTPUT)/%: $(HELPERS_DIR)/%.cpp $(wildcard $(HELPERS_DIR)/*.hpp)
	$(CXX) $(HELPERS_CXXFLAGS) $(CXXFLAGS) -o $@ $<

$(OUTPUT)/%: $(HELPERS_DIR)/%.c
	$(CC) $(HELPERS_CFLAGS) $(CFLAGS) -pthread -o $@ $<
