#!/bin/sh
# SPDX-License-Identifier: MIT
# test-port-exit.sh - the Cortex-M port ends a program cleanly with and without a debugger,
# under QEMU both ways, on an ARMv6-M (microbit) and an ARMv7E-M (qemu-mps2-an386) board.
# The program is the scene runner on a scene larger than the board's pools (a row of 700 small
# balls, generated: more than any board's bodies, in little flash), which prints a SKIP line and
# exits with status 3:
#   PORT_EXIT=semihost  reports the status to the debugger (QEMU): status 3;
#   PORT_EXIT=auto      QEMU shows no debugger in DHCSR (and an M0 cannot read it), so the
#                       port requests a system reset instead of a semihosting breakpoint
#                       (which would hard-fault on a board with no debugger); QEMU with
#                       -no-reboot then stops with status 0, the line printed, no fault.
set -u
cd "$(dirname "$0")/../.." || exit 2
# exit_board B: both exits of the scene runner on board B, in a folder of its own.
exit_board() {
  b=$1
  failed=0
  # The board's own core objects (make test built them just before), times kept: with the
  # same flags make compiles only the port and the app here, not the core again. Copied afresh
  # each time: their dependency files name build/$b, so a kept copy would miss header changes.
  d=build/exit-$b
  rm -rf "$d/core" "$d/fixmath" "$d/core-flags.txt"
  mkdir -p "$d"
  if [ -f "build/$b/core-flags.txt" ]; then
    cp -Rp "build/$b/core" "build/$b/fixmath" "build/$b/core-flags.txt" "$d/"
  fi
  awk 'BEGIN { print "plane"; for (i = 0; i < 700; i++) printf "sphere radius 0.1 pos %d 0.1 0\n", i }' >"$d/over_pools.scene"
  for mode in semihost auto; do
    # One folder per board: the second mode recompiles the port only (mk/board.mk's signatures).
    sh tools/embed-scene.sh "$d/over_pools.scene" 5 "$d/scene-gen/scene_data.h" || exit 2
    vars="BOARD=$b APP=scene PORT_EXIT=$mode BOARD_DIR=$d APP_CFLAGS_scene=-I$d/scene-gen"
    # shellcheck disable=SC2086
    if ! make -s -j"${JOBS:-2}" $vars board >"$d-$mode.log" 2>&1; then echo "FAIL $b $mode: build"; cat "$d-$mode.log"; failed=1; continue; fi
    # shellcheck disable=SC2086
    cmd=$(make -s --no-print-directory $vars print-run)
    sh -c "$cmd -no-reboot" </dev/null >"$d-$mode.out" 2>&1
    rc=$?
    want=3; [ "$mode" = auto ] && want=0
    if [ "$rc" = "$want" ] && grep -q '^SKIP over_pools' "$d-$mode.out" && ! grep -q 'fault' "$d-$mode.out"; then
      echo "PASS $b PORT_EXIT=$mode: exit status $rc, no fault"
    else
      echo "FAIL $b PORT_EXIT=$mode: exit status $rc (want $want):"; sed 's/^/    /' "$d-$mode.out" | tail -5; failed=1
    fi
  done
  return $failed
}

# A board's flash image (FLASH_EXIT in its board.mk, netduinoplus2: auto) is what runs with no
# debugger: it must print everything and end with a reset, no fault; QEMU -no-reboot stops there.
flash_image() {
  failed=0
  b=netduinoplus2
  if make -s -j"${JOBS:-2}" BOARD=$b >build/exit-$b-flash.log 2>&1; then
    cmd=$(make -s --no-print-directory BOARD=$b RUN_ELF=build/$b/probe-flash.elf print-run)
    sh -c "$cmd -no-reboot" </dev/null >build/exit-$b-flash.out 2>&1
    rc=$?
    if [ "$rc" = 0 ] && grep -q '^probe [0-9a-f]\{8\}$' build/exit-$b-flash.out && ! grep -q fault build/exit-$b-flash.out; then
      echo "PASS $b flash image (FLASH_EXIT=auto): $(tail -n 1 build/exit-$b-flash.out), exit status 0, no fault"
    else
      echo "FAIL $b flash image: exit status $rc:"; sed 's/^/    /' build/exit-$b-flash.out | tail -5; failed=1
    fi
  else
    echo "FAIL $b flash image: build"; cat build/exit-$b-flash.log; failed=1
  fi
  return $failed
}

# The three run side by side (each builds, then runs QEMU, one thing at a time); their
# reports are shown in order.
( exit_board microbit >build/exit-microbit.report 2>&1; echo $? >build/exit-microbit.rc ) &
( exit_board qemu-mps2-an386 >build/exit-qemu-mps2-an386.report 2>&1; echo $? >build/exit-qemu-mps2-an386.rc ) &
( flash_image >build/exit-netduinoplus2-flash.report 2>&1; echo $? >build/exit-netduinoplus2-flash.rc ) &
wait
failed=0
for r in microbit qemu-mps2-an386 netduinoplus2-flash; do
  cat "build/exit-$r.report"
  [ "$(cat "build/exit-$r.rc")" = 0 ] || failed=1
done
exit $failed
