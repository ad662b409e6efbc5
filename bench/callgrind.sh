#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/callgrind.sh: host instructions per awake step under callgrind (exact and
# repeatable, unlike wall time on a shared machine), per named scene.
#
#   sh bench/callgrind.sh [scene ...]     default: stack20 stack50 pyramid20 rain512
#   CG_STEPS=N   steps per run (default 60, every named scene still all awake then; rain512
#                120, as on the Cortex-M4: the fall and the first impacts)
#   CG_TOP=K     also print the K functions with the most instructions of their own
#   CG_QPHYS=P   time the qphys program P instead (another build, e.g. build/host-sse/qphys)
#
# Runs build/host/qphys (host -O2, the default layout), or CG_QPHYS, with N steps and with 0
# steps, and prints (Ir(N) - Ir(0)) / N: the instructions of one step without loading the scene.
# The profiles are kept in build/callgrind/<scene>.out for callgrind_annotate / kcachegrind.
set -eu
cd "$(dirname "$0")/.."
TOP=${CG_TOP:-0}
command -v valgrind >/dev/null 2>&1 || { echo "bench/callgrind.sh: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
QPHYS=${CG_QPHYS:-build/host/qphys}
[ -n "${CG_QPHYS:-}" ] || ${MAKE:-make} -s build/host/qphys >&2
out=build/callgrind
mkdir -p "$out"
ir() {  # scene steps file -> total Ir
  valgrind --tool=callgrind --callgrind-out-file="$3" "$QPHYS" run "tests/scenes/$1.scene" \
    --steps "$2" >/dev/null 2>&1
  sed -n 's/^summary: *//p' "$3"
}
[ $# -gt 0 ] || set -- stack20 stack50 pyramid20 rain512
printf '%-10s %6s %16s\n' scene steps instr_per_step
for s in "$@"; do
  STEPS=${CG_STEPS:-60}
  [ -n "${CG_STEPS:-}" ] || [ "$s" != rain512 ] || STEPS=120
  base=$(ir "$s" 0 "$out/$s.load.out")
  all=$(ir "$s" "$STEPS" "$out/$s.out")
  printf '%-10s %6s %16s\n' "$s" "$STEPS" $(( (all - base) / STEPS ))
  if [ "$TOP" -gt 0 ]; then
    callgrind_annotate "$out/$s.out" 2>/dev/null | sed -n '/^Ir/,$p' | sed -n "3,$((TOP + 2))p"
  fi
done
