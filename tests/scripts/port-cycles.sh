#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/scripts/port-cycles.sh: the Cortex-M port prints cycles per step only from a counter
# that counts cycles. QEMU has no cycle counter, but its virtual clock can be slowed: with
# -icount shift=7 every instruction takes 128 ns, so the micro:bit's SysTick (16 MHz, its
# ARMv6-M cycle counter) moves 2.048 times per instruction, as a real core's clock does at
# least once. Checked: at shift=0 the scene runner says "n/a"; at shift=7 it prints cycles per
# step, at shift=8 twice as many (the count follows the clock), the hashes unchanged; and the
# Cortex-M4, which reads DWT CYCCNT (absent in QEMU), says "n/a" even when its SysTick would pass.
# Prints PASS/FAIL lines.
set -u
cd "$(dirname "$0")/../.." || exit 2
failed=0
fail() { echo "FAIL $*"; failed=1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/qphys-cycles.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
scene=tests/scenes/stack20.scene

# run BOARD SHIFT OUT: the board's scene runner (built by build BOARD) at -icount shift=SHIFT.
build() { make -s BOARD="$1" scene SCENE=$scene STEPS=10 >"$tmp/$1.build" 2>&1 || { fail "$1: scene runner:"; tail -n 5 "$tmp/$1.build"; }; }
run() { sh -c "$(make -s --no-print-directory BOARD="$1" APP=scene print-run | sed "s/shift=0/shift=$2/")" </dev/null >"$3" 2>&1; }

build microbit
run microbit 0 "$tmp/m0"
run microbit 7 "$tmp/m7"
run microbit 8 "$tmp/m8"
if [ "$(tail -n 1 "$tmp/m0")" = "cycles: n/a (counter not running)" ]; then
  echo "PASS microbit, QEMU's clock at 1 ns an instruction: $(tail -n 1 "$tmp/m0")"
else fail "microbit at shift=0: last line '$(tail -n 1 "$tmp/m0")'"; fi
m7=$(sed -n 's/^cycles per step: mean \([0-9]*\), max [0-9]*$/\1/p' "$tmp/m7")
m8=$(sed -n 's/^cycles per step: mean \([0-9]*\), max [0-9]*$/\1/p' "$tmp/m8")
if [ -n "$m7" ] && [ -n "$m8" ] && [ $((m8 - 2 * m7)) -le 20 ] && [ $((2 * m7 - m8)) -le 20 ] &&
   head -n 10 "$tmp/m0" >"$tmp/h0" && head -n 10 "$tmp/m7" | cmp -s "$tmp/h0" -; then
  echo "PASS microbit, a clock slower than its instructions: mean $m7 cycles a step at 128 ns an instruction, $m8 at 256 ns; the same hashes"
else
  fail "microbit at shift=7/8: '$(tail -n 1 "$tmp/m7")', '$(tail -n 1 "$tmp/m8")'"
fi

build qemu-mps2-an386
run qemu-mps2-an386 6 "$tmp/m4"
if [ "$(tail -n 1 "$tmp/m4")" = "cycles: n/a (counter not running)" ]; then
  echo "PASS qemu-mps2-an386 (Cortex-M4: DWT CYCCNT, which QEMU lacks) at 64 ns an instruction: $(tail -n 1 "$tmp/m4")"
else fail "qemu-mps2-an386 at shift=6: last line '$(tail -n 1 "$tmp/m4")'"; fi
exit $failed
