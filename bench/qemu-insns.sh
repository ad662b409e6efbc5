#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/qemu-insns.sh: guest instructions per step of a target emulated by qemu-user, exact
# (tools/qemu_insns.c, a QEMU plugin, counts every instruction executed), per named scene:
# the emulated counterpart of bench/callgrind.sh.
#
#   sh bench/qemu-insns.sh [scene ...]    default: stack20 pyramid20 rain512
#   QI_TARGET=T  the target of tools/targets.sh (default aarch64), built as build/T/qphys
#   QI_QPHYS=P   count the qphys program P instead (another build of the same target)
#   QI_STEPS=N   steps per run (default 60; rain512 120)
#
# Runs qphys with N steps and with 0 steps under the target's qemu and prints
# (insns(N) - insns(0)) / N: the instructions of one step without loading the scene.
set -eu
cd "$(dirname "$0")/.."
. tools/targets.sh
T=${QI_TARGET:-aarch64}
qp_target "$T" || { echo "bench/qemu-insns.sh: unknown target $T" >&2; exit 2; }
QPHYS=${QI_QPHYS:-build/$T/qphys}
if [ -z "${QI_QPHYS:-}" ]; then
  ${MAKE:-make} -s BUILD_TAG="$T" HOST_OPT="$qt_opt" HOST_CC="$qt_cc" AR="$qt_ar" "build/$T/qphys" >&2
fi
runner=$(qp_runner $qt_cc $qt_opt) || { echo "bench/qemu-insns.sh: $runner" >&2; exit 2; }
case $runner in
  qemu-*) ;;
  *) echo "bench/qemu-insns.sh: target $T does not run under qemu-user here (${runner:-natively})" >&2; exit 2 ;;
esac
mkdir -p build
gcc -shared -fPIC -O2 tools/qemu_insns.c -o build/qemu_insns.so
insns() {  # scene steps -> instructions
  "$runner" -plugin build/qemu_insns.so -d plugin "$QPHYS" run "tests/scenes/$1.scene" --steps "$2" 2>&1 >/dev/null |
    sed -n 's/^insns //p'
}
[ $# -gt 0 ] || set -- stack20 pyramid20 rain512
printf '%-10s %6s %16s\n' scene steps instr_per_step
for s in "$@"; do
  STEPS=${QI_STEPS:-60}
  [ -n "${QI_STEPS:-}" ] || [ "$s" != rain512 ] || STEPS=120
  base=$(insns "$s" 0)
  all=$(insns "$s" "$STEPS")
  printf '%-10s %6s %16s\n' "$s" "$STEPS" $(( (all - base) / STEPS ))
done
