#!/bin/sh
# SPDX-License-Identifier: MIT
# rows-simd-cross.sh - the SIMD row kernels' unit test (tests/unit/test_rows_simd.c) built for
# the targets whose builds have SIMD kernels besides the host's (default aarch64: NEON, and
# wasm32-simd: SIMD128) and run there, natively or under its emulator (tools/targets.sh).
# Debian has no cmocka for them, so tests/unit/cross/cmocka.h stands in. Each target must run
# all seven tests, none skipped (its build has the kernels), none failed; a target nothing here
# can run is printed as SKIPPED with the reason.
#
#   sh tests/scripts/rows-simd-cross.sh [TARGET ...]
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
. tools/targets.sh

fix_dir=$(make -s --no-print-directory print-fixmath-dir 2>/dev/null)
[ -n "$fix_dir" ] || fix_dir=build/deps/libfixmath/libfixmath
out=build/cross-simd
mkdir -p "$out"
[ $# -gt 0 ] || set -- aarch64 wasm32-simd
status=0
for t in "$@"; do
  qp_target "$t" || { echo "FAIL target $t: unknown"; status=1; continue; }
  if ! runner=$(qp_runner $qt_cc $qt_opt); then echo "SKIPPED target $t: $runner"; continue; fi
  # shellcheck disable=SC2086 # qt_cc and qt_opt are word lists
  if ! $qt_cc $qt_opt -std=gnu11 -Wall -Wextra -Werror -Itests/unit/cross -Iinclude -I"$fix_dir" -Iport \
      tests/unit/test_rows_simd.c -o "$out/test_rows_simd.$t" >"$out/build.$t.log" 2>&1; then
    echo "FAIL target $t: the test does not build:"; cat "$out/build.$t.log"; status=1; continue
  fi
  $runner "$out/test_rows_simd.$t" >"$out/run.$t.out" 2>&1
  rc=$?
  cat "$out/run.$t.out"
  if [ $rc -ne 0 ] || ! grep -q '^\[  PASSED  \] 7 test(s); 0 skipped, 0 failed\.$' "$out/run.$t.out"; then
    echo "FAIL target $t: the kernels differ from the scalar ones, or this build has none (exit $rc)"; status=1
  else
    echo "PASS target $t: ${runner:-native}"
  fi
done
exit $status
