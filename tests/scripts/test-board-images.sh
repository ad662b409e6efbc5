#!/bin/sh
# SPDX-License-Identifier: MIT
# test-board-images.sh - the flash images (board.mk FLASH_IMAGES) are what the chip boots:
#   - for every board with images, make BOARD=x writes <app>.bin and <app>.hex, the two hold
#     the same bytes (the .hex converted back equals the .bin), the .hex starts at FLASH_ORIGIN,
#     and the vector table at its start holds an initial stack pointer inside the board's RAM
#     and a Thumb reset address inside its flash;
#   - nucleo-f411re has no QEMU model, but its chip's USART2, RCC, GPIO and memory map are
#     those of the STM32F405 that QEMU's netduinoplus2 models (USART2 is that machine's second
#     serial port): its flash image runs there, prints the probe's hashes through its own
#     console driver and ends with a reset (no debugger), with no fault; and its scene runner
#     steps stack20 there to the golden hashes.
# Needs `make` first (build/host/probe). Prints PASS/FAIL lines.
set -u
cd "$(dirname "$0")/../.." || exit 2
failed=0
fail() { echo "FAIL $*"; failed=1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/qphys-images.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

for mk in boards/*/board.mk; do
  b=$(basename "$(dirname "$mk")")
  # flash_origin, flash_kb, ram_origin, ram_kb, images (mk/board.mk print-board-map)
  # shellcheck disable=SC2154
  eval "$(make -s --no-print-directory BOARD="$b" print-board-map)"
  [ -n "$images" ] || continue
  if ! make -s -j"${JOBS:-2}" BOARD="$b" >"$tmp/$b.log" 2>&1; then fail "$b: build"; tail -20 "$tmp/$b.log"; continue; fi
  bin=build/$b/probe.bin hex=build/$b/probe.hex
  [ -f "$bin" ] && [ -f "$hex" ] || { fail "$b: no $bin or $hex"; continue; }
  arm-none-eabi-objcopy -I ihex -O binary "$hex" "$tmp/$b.bin"
  cmp -s "$bin" "$tmp/$b.bin" || { fail "$b: $hex and $bin differ"; continue; }
  # The .hex's first data record's address (with its extended linear address, if any).
  start=$(awk '/^:02000004/ { hi = substr($0, 10, 4) } /^:..(....)00/ { printf "0x%s%s\n", (hi == "" ? "0000" : hi), substr($0, 4, 4); exit }' "$hex")
  [ $((start)) = $((flash_origin)) ] || { fail "$b: $hex starts at $start, not FLASH_ORIGIN $flash_origin"; continue; }
  # shellcheck disable=SC2046
  set -- $(od -An -tx4 -N8 --endian=little "$bin")
  sp=$((0x$1)) reset=$((0x$2))
  if [ $sp -gt $((ram_origin)) ] && [ $sp -le $((ram_origin + ram_kb * 1024)) ] &&
     [ $((reset & 1)) = 1 ] && [ $reset -gt $((flash_origin)) ] && [ $reset -lt $((flash_origin + flash_kb * 1024)) ]; then
    echo "PASS $b: probe.bin ($(wc -c <"$bin") bytes) and probe.hex hold the same image at $flash_origin; initial SP 0x$1 in RAM, reset 0x$2 in flash"
  else
    fail "$b: vector table: initial SP 0x$1, reset 0x$2: not in RAM $ram_origin+${ram_kb}K / Thumb in flash $flash_origin+${flash_kb}K"
  fi
done

# The Nucleo's image on QEMU's STM32F405.
want=$(build/host/probe | tail -n 1)
out=$tmp/nucleo.out
timeout 120 qemu-system-arm -M netduinoplus2 -display none -monitor none -serial null -serial stdio \
  -icount shift=0 -no-reboot -kernel build/nucleo-f411re/probe.elf </dev/null >"$out" 2>&1
rc=$?
if [ "$rc" = 0 ] && [ "$(tail -n 1 "$out")" = "$want" ] && ! grep -q fault "$out"; then
  echo "PASS nucleo-f411re's image on QEMU's STM32F405: its USART2 driver prints '$want' (the host's), then a reset"
else
  fail "nucleo-f411re on QEMU's STM32F405: exit $rc, last line '$(tail -n 1 "$out")', host '$want'"
fi
# ... and its scene runner steps stack20 there to the golden hashes.
gold=tests/scenes/golden/stack20.hashes
if make -s -j"${JOBS:-2}" BOARD=nucleo-f411re scene SCENE=tests/scenes/stack20.scene STEPS=120 >"$tmp/scene.log" 2>&1; then
  timeout 300 qemu-system-arm -M netduinoplus2 -display none -monitor none -serial null -serial stdio \
    -icount shift=0 -no-reboot -kernel build/nucleo-f411re/scene.elf </dev/null >"$out" 2>&1
  head -n 120 "$out" >"$out.hashes"
  # The hash lines, then the cycles line: QEMU models no cycle counter, so the port says so.
  if head -n 120 "$gold" | cmp -s - "$out.hashes" && sed -n '121p' "$out" | grep -qx 'cycles: n/a (counter not running)'; then
    echo "PASS nucleo-f411re's scene runner on QEMU's STM32F405: stack20, 120 steps equal to $gold; cycles n/a"
  else
    fail "nucleo-f411re's scene runner on QEMU's STM32F405: stack20 differs from $gold:"
    head -n 120 "$gold" | diff - "$out" | head -5
    sed -n '121p' "$out"
  fi
else
  fail "nucleo-f411re: scene runner build"; tail -20 "$tmp/scene.log"
fi
exit $failed
