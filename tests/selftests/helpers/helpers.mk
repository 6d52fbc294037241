# SPDX-License-Identifier: GPL-2.0
#
# The programs the suites run, built from this folder into the suite's own:
# a suite names the ones it needs in TEST_GEN_PROGS_EXTENDED (so kselftest
# builds and installs them) and includes this file after ../../lib.mk. The
# host's scripts/test-helpers.sh builds them all with this file too, for the
# benchmarks and the fuzzer's host side.

HELPERS_DIR ?= $(selfdir)/iotally/helpers
HELPERS_CXXFLAGS := -std=c++20 -O2 -Wall -Wextra -Werror
HELPERS_CFLAGS := -O2 -Wall -Werror

$(OUTPUT)/%: $(HELPERS_DIR)/%.cpp $(wildcard $(HELPERS_DIR)/*.hpp)
	$(CXX) $(HELPERS_CXXFLAGS) $(CXXFLAGS) -o $@ $<

$(OUTPUT)/%: $(HELPERS_DIR)/%.c
	$(CC) $(HELPERS_CFLAGS) $(CFLAGS) -pthread -o $@ $<
