#!/bin/sh
# SPDX-License-Identifier: MIT
# The vsim program under valgrind memcheck, for the end-to-end tests: `make
# valgrind-e2e` sets VSIM_BIN to this script and VSIM_REAL_BIN to the
# program.  A memory error, or a definitely or indirectly lost block, makes
# the run exit 99, which the tests report with valgrind's account on stderr.
# Memory that HDF5, libyaml or the OpenMP runtime still hold at exit is not
# a leak of ours; tests/valgrind.supp lists the few third-party losses that
# valgrind does count (each one explained there).
here=$(dirname "$0")
exec valgrind -q --error-exitcode=99 --leak-check=full \
  --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
  --suppressions="$here/valgrind.supp" "${VSIM_REAL_BIN:?set VSIM_REAL_BIN to the vsim program}" "$@"
