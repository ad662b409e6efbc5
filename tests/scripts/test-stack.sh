#!/bin/sh
# SPDX-License-Identifier: MIT
# test-stack.sh - the deepest stack of loading a scene and stepping it, measured on the
# Cortex-M0 of the micro:bit (QEMU -M microbit) and bounded: fails above STACK_BOUND bytes.
#
# The board's scene runner (tests/target/scene_main.c, built with -DSCENE_STACK_REPORT)
# paints its free stack, loads the scene, steps it and reports the lowest painted word it
# finds overwritten. Every scene that fits the board's pools runs STACK_STEPS steps.
#
# The bound: 3 040 bytes, the 3 136 the linker script reserves (boards/microbit/linker.ld)
# less 96 for the port's exception frame and its fault report. The deepest use is 3 000 bytes
# at -Os (terrain8.scene, a box on a heightfield's triangle; docs/memory.md): a change that adds
# more than ~120 bytes to the deepest path fails here before it can overflow the board.
#
#   sh tests/scripts/test-stack.sh        Environment: STACK_BOUND [3040], STACK_STEPS [120]
set -u
cd "$(dirname "$0")/../.." || exit 2
bound=${STACK_BOUND:-3040}
steps=${STACK_STEPS:-120}
board=microbit
command -v qemu-system-arm >/dev/null 2>&1 || { echo "SKIPPED no qemu-system-arm (make deps installs it)"; exit 0; }
gen=build/$board/stack-gen
out=build/$board/stack
mkdir -p "$gen" "$out"
failed=0
worst=0
scenes="stack20 slope bounce mixed door rope platform spawn fastshots tumble terrain8"
# The images build one after another (one board folder; only the app's object changes), then
# QEMU runs them JOBS at a time.
: >"$out/runs.txt"
for n in $scenes; do
  rm -f "$out/$n.rc"
  sh tools/embed-scene.sh "tests/scenes/$n.scene" "$steps" "$gen/scene_data.h" || exit 2
  make -s -j"${JOBS:-2}" BOARD=$board APP=scene APP_SRCS_scene=tests/target/scene_main.c \
    APP_CFLAGS_scene="-I$gen -DSCENE_STACK_REPORT" board >"$out/$n.build" 2>&1 || continue
  cp "build/$board/scene.elf" "$out/$n.elf"
  make -s --no-print-directory BOARD=$board APP=scene APP_SRCS_scene=tests/target/scene_main.c \
    APP_CFLAGS_scene="-I$gen -DSCENE_STACK_REPORT" RUN_ELF="$out/$n.elf" print-run >"$out/$n.cmd"
  echo "$out/$n" >>"$out/runs.txt"
done
# shellcheck disable=SC2016
xargs -r -P "${JOBS:-2}" -L 1 sh -c 'sh -c "$(cat "$1.cmd")" </dev/null >"$1.out" 2>&1; echo $? >"$1.rc"' run-one <"$out/runs.txt"
for n in $scenes; do
  if [ ! -f "$out/$n.rc" ]; then echo "FAIL $n: build"; tail -20 "$out/$n.build"; failed=1; continue; fi
  rc=$(cat "$out/$n.rc")
  if [ "$rc" = 3 ]; then echo "SKIP $n: does not fit the board's pools"; continue; fi
  used=$(sed -n 's/^stack \([0-9]*\) of \([0-9]*\) bytes.*/\1/p' "$out/$n.out" | tr -d '\r')
  if [ "$rc" != 0 ] || [ -z "$used" ]; then
    echo "FAIL $n: exit $rc, no stack report"; tail -5 "$out/$n.out"; failed=1; continue
  fi
  [ "$used" -gt "$worst" ] && worst=$used
  if [ "$used" -gt "$bound" ]; then
    echo "FAIL $n: $steps steps used $used bytes of stack on the Cortex-M0, above the bound of $bound"; failed=1
  else
    echo "PASS $n: $steps steps used $used bytes of stack on the Cortex-M0 (bound $bound)"
  fi
done
echo "deepest: $worst bytes (bound $bound)"
exit $failed
