#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Generic statistics layer: every example of the spec
# (statistics-infrastructure.txt) reproduced from known (X, Y) sequences fed
# through the sample exploiter, the definition file's semantics, interface-
# wide on/off/reset, permissions and streaming of big statistics.
. ../lib.sh
. ./common.sh

modprobe statistic_sample || bail "cannot load statistic_sample"
[ -w "$CTL" ] || bail "no $CTL"

. ./examples.sh
. ./timed.sh
. ./definition.sh
. ./lifecycle.sh

tap_finish
