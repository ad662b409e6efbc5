#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/scripts/firmware-example.sh: examples/firmware, the Nucleo-F411RE firmware a developer
# copies, builds with arm-none-eabi-gcc against `make lib CPU=cortex-m4f` and fits the
# STM32F411RE (512 KB flash, 128 KB RAM with its 8 KB stack); no heap and no soft-float helper
# is linked in; and on QEMU's netduinoplus2 (STM32F405, the same USART2) it prints a line a
# second whose hashes equal the host's run of the same scene code. Needs `make` first
# (build/host/libqphys.a). Prints PASS/FAIL lines.
set -u
cd "$(dirname "$0")/../.." || exit 2
failed=0
fail() { echo "FAIL $*"; failed=1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/qphys-firmware.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
dir=examples/firmware
elf=$dir/build/firmware.elf

if make -s -C $dir >"$tmp/build.log" 2>&1; then
  echo "PASS $dir builds: $(grep '^check-core-symbols' "$tmp/build.log")"
else
  fail "$dir: build:"; tail -n 20 "$tmp/build.log" | sed 's/^/    /'; exit 1
fi

# Flash: text and data; RAM: data, bss and the stack the linker script keeps.
arm-none-eabi-size -A "$elf" | awk -v stack=8192 '
  $1 == ".isr_vector" || $1 == ".text" || $1 == ".ARM.exidx" { text += $2 }
  $1 == ".data" { data += $2 } $1 == ".bss" { bss += $2 }
  END { flash = text + data; ram = data + bss + stack
        printf "flash %d of %d bytes, RAM %d of %d bytes (stack %d)\n", flash, 512 * 1024, ram, 128 * 1024, stack
        exit !(flash <= 512 * 1024 && ram <= 128 * 1024) }' >"$tmp/size.txt"
if [ $? = 0 ]; then echo "PASS fits the STM32F411RE: $(cat "$tmp/size.txt")"; else fail "too big: $(cat "$tmp/size.txt")"; fi

# Whatever the firmware defines: no heap, no soft-float helper (the guard of make lib covers
# qphys's objects; this covers the whole image, the example's code and the C library's).
bad=$(arm-none-eabi-nm "$elf" | awk '{ print $NF }' |
      grep -E '^(_?malloc(_r)?|_?calloc(_r)?|_?realloc(_r)?|_?free(_r)?|_?sbrk(_r)?|__aeabi_[fd][a-z0-9]*|__aeabi_[iul]+2[fd]|__[a-z]*[sd]f[0-9]?)$')
if [ -z "$bad" ]; then echo "PASS the image links no heap and no soft-float helper"
else fail "the image links: $bad"; fi

# The same scene code on the host: the hash at each second.
cat >"$tmp/host.c" <<'C'
#include <stdio.h>
#include "scene.h"
static qp_world world;
int main(void)
{
    if (scene_build(&world) != QP_OK) return 1;
    for (int s = 1; s <= 180; s++) {
        qp_world_step(&world);
        if (s % 60 == 0) printf("%d %08lx\n", s, (unsigned long)qp_world_hash(&world));
    }
    return 0;
}
C
fix=$(make -s --no-print-directory print-fixmath-dir)
if cc -std=c11 -O2 -Iinclude -I"$fix" -DFIXMATH_NO_CACHE -I$dir "$tmp/host.c" $dir/scene.c \
     build/host/libqphys.a -o "$tmp/host" 2>"$tmp/cc.log" && "$tmp/host" >"$tmp/host.txt"; then :
else fail "host build of $dir/scene.c:"; sed 's/^/    /' "$tmp/cc.log"; fi

if command -v qemu-system-arm >/dev/null 2>&1; then
  make -s -C $dir qemu >"$tmp/qemu.out" 2>&1
  rc=$?
  tr -d '\r' <"$tmp/qemu.out" | awk '$1 == "t" { print $5, $7 }' >"$tmp/board.txt"
  if [ $rc = 0 ] && [ -s "$tmp/host.txt" ] && cmp -s "$tmp/host.txt" "$tmp/board.txt" &&
     grep -q 'cycles/step n/a' "$tmp/qemu.out"; then
    echo "PASS on QEMU's netduinoplus2: 3 lines, a second apart, hashes equal to the host's ($(tr '\n' ' ' <"$tmp/board.txt"))"
  else
    fail "on QEMU's netduinoplus2 (exit $rc):"; sed 's/^/    /' "$tmp/qemu.out" | tail -n 6
    echo "    host:"; sed 's/^/    /' "$tmp/host.txt"
  fi
else
  echo "SKIPPED QEMU run: qemu-system-arm missing"
fi
exit $failed
