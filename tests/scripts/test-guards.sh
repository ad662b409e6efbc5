#!/bin/sh
# SPDX-License-Identifier: MIT
# test-guards.sh - test the "no float, no heap" guards themselves.
#
# Copies the project (src/ include/ mk/ Makefile port/ boards/ tools/ tests/probe/) into a scratch
# folder, then shows that:
#   - the unmodified copy passes the host guard (make core-guard: -mgeneral-regs-only)
#     and the ARM guard (make BOARD=qemu-mps2-an386 check-core: nm on soft-float objects);
#   - a float operation planted in src/ fails both guards, the ARM one saying why, and the FPU
#     scan of the hard-float library (make lib CPU=cortex-m4f);
#   - a malloc call planted in src/ fails the ARM guard, saying why.
# Prints PASS guard: / FAIL guard: per check; exits 0 only if every check passes.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
board=${GUARD_BOARD:-qemu-mps2-an386}
fixsrc=${LIBFIXMATH_SRC:-$root/build/deps/libfixmath}
case $fixsrc in /*) ;; *) fixsrc=$root/$fixsrc ;; esac
if [ ! -f "$fixsrc/libfixmath/fix16.c" ]; then
  echo "test-guards: libfixmath source not found in $fixsrc (run: make deps)" >&2; exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/qphys-guards.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
# Times kept (cp -p), and the objects the project already built for these guards copied with
# them: make then compiles only what a plant adds (each guard compiled the whole core again,
# a twentieth of make test). Without them (a first build) the copy builds them itself.
for d in src include mk port boards tools; do cp -Rp "$root/$d" "$tmp/$d"; done
cp -p "$root/Makefile" "$root/VERSION" "$tmp/"
mkdir -p "$tmp/tests" && cp -Rp "$root/tests/probe" "$tmp/tests/probe"
mkdir -p "$tmp/build/lib"
for d in guard "$board" lib/cortex-m4f; do [ -d "$root/build/$d" ] && cp -Rp "$root/build/$d" "$tmp/build/$d"; done
# libfixmath where the project has it (the objects' dependencies name that path), else where given.
fixarg="LIBFIXMATH_SRC=$fixsrc"
if [ "$fixsrc" = "$root/build/deps/libfixmath" ]; then ln -s "$root/build/deps" "$tmp/build/deps"; fixarg=; fi
log=$tmp/build/guard.log

fails=0
pass() { echo "PASS guard: $1"; if [ -n "${GUARD_VERBOSE:-}" ]; then sed "s/^/    | /" "$log"; fi; }
fail() { echo "FAIL guard: $1"; sed 's/^/    | /' "$log" | tail -n 15; fails=$((fails + 1)); }
# The host guard and the ARM guard, run in the copy. Output goes to $log.
host_guard() { (cd "$tmp" && make -s -j"${JOBS:-2}" $fixarg core-guard) >"$log" 2>&1; }
# Incremental: make rebuilds only what a planted file changes, and the guard lists the objects
# of the sources present, so a removed plant is no longer checked.
arm_guard() {
  (cd "$tmp" && make -s -j"${JOBS:-2}" $fixarg BOARD="$board" check-core) >"$log" 2>&1
}
says() { grep -q "$1" "$log"; }

# 1. The unmodified copy passes.
if host_guard; then pass "unmodified core passes the host guard (make core-guard)"
else fail "unmodified core fails the host guard (make core-guard)"; fi
if arm_guard; then pass "unmodified core passes the ARM guard (make BOARD=$board check-core)"
else fail "unmodified core fails the ARM guard (make BOARD=$board check-core)"; fi

# 2. A float operation in the core.
cat > "$tmp/src/zz_guard_float.c" <<'C'
/* Planted by tests/scripts/test-guards.sh: a run-time float operation. */
int qp_guard_float(int x);
int qp_guard_float(int x)
{
    volatile float f = (float)x;
    return (int)(f * 1.5f);
}
C
if host_guard; then fail "float in src/ passes the host guard (make core-guard)"
else pass "float in src/ fails the host guard (make core-guard)"; fi
if arm_guard; then fail "float in src/ passes the ARM guard (make BOARD=$board check-core)"
elif says 'zz_guard_float.o calls __aeabi_.*floating point'; then
  pass "float in src/ fails the ARM guard, naming the object, the helper and why"
else fail "float in src/ fails the ARM guard but without a message naming object, helper and reason"; fi
# The hard-float library (make lib CPU=cortex-m4f): there a float is an FPU instruction, no helper.
if (cd "$tmp" && make -s -j"${JOBS:-2}" $fixarg lib CPU=cortex-m4f) >"$log" 2>&1; then
  fail "float in src/ passes the hard-float library's guard (make lib CPU=cortex-m4f)"
elif says 'zz_guard_float.o computes with the FPU'; then
  pass "float in src/ fails the hard-float library's guard (make lib CPU=cortex-m4f), naming the FPU instructions"
else fail "float in src/ fails make lib CPU=cortex-m4f but not by its guard's FPU scan"; fi
rm -f "$tmp/src/zz_guard_float.c"

# 3. A heap call in the core.
cat > "$tmp/src/zz_guard_heap.c" <<'C'
/* Planted by tests/scripts/test-guards.sh: a heap allocation. */
#include <stdlib.h>
void *qp_guard_heap(unsigned n);
void *qp_guard_heap(unsigned n)
{
    return malloc(n);
}
C
if arm_guard; then fail "malloc in src/ passes the ARM guard (make BOARD=$board check-core)"
elif says 'zz_guard_heap.o calls malloc.*heap'; then
  pass "malloc in src/ fails the ARM guard, naming the object, malloc and why"
else fail "malloc in src/ fails the ARM guard but without a message naming object, symbol and reason"; fi
rm -f "$tmp/src/zz_guard_heap.c"

# 4. And the build itself (make BOARD=x) refuses a core that fails the ARM guard.
cat > "$tmp/src/zz_guard_float.c" <<'C'
int qp_guard_double(int x);
int qp_guard_double(int x)
{
    volatile double d = x;
    return (int)(d / 3.0);
}
C
if (cd "$tmp" && make -s -j"${JOBS:-2}" $fixarg BOARD="$board") >"$log" 2>&1; then
  fail "make BOARD=$board builds although the core uses double"
elif says '__aeabi_d.*floating point'; then pass "make BOARD=$board refuses to build a core that uses double"
else fail "make BOARD=$board fails for a core using double, but not through the guard"; fi

if [ $fails -ne 0 ]; then echo "test-guards: $fails check(s) failed"; exit 1; fi
echo "test-guards: all guard checks passed"
