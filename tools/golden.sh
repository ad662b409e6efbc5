#!/bin/sh
# SPDX-License-Identifier: MIT
# golden.sh - regenerate the golden hash sequences of every scene, deliberately
# (make golden): tests/scenes/golden/<scene>.hashes = `qphys run SCENE --hashes
# --steps N` of the reference build (gcc -O2, build/host/qphys). Scenes larger
# than the default pools use a big-pool build (QP_CFG_MAX_BODIES=$SCENE_BIG_BODIES).
# Run it only when the engine's dynamics change on purpose, then commit the
# files with the change; tests/scripts/scene-check.sh compares every target with them.
#
#   sh tools/golden.sh [SCENE_NAME ...]     (default: every tests/scenes/*.scene)
# Environment: SCENE_STEPS [300], SCENE_BIG_BODIES [2200], JOBS [2],
#   SCENE_GOLDEN_DIR [tests/scenes/golden] (another folder for trying things out).
set -eu
steps=${SCENE_STEPS:-300}
big=${SCENE_BIG_BODIES:-2200}
jobs=${JOBS:-2}
mk=""
grep -q 'mk/tools.mk' Makefile || mk="-f Makefile -f mk/tools.mk"
make $mk -s -j"$jobs" build/host/qphys
make $mk -s -j"$jobs" BUILD_TAG=host-big EXTRA_CFLAGS="-DQP_CFG_MAX_BODIES=$big" build/host-big/qphys
gold=${SCENE_GOLDEN_DIR:-tests/scenes/golden}
mkdir -p "$gold"

if [ $# -gt 0 ]; then scenes=$(for n in "$@"; do echo "tests/scenes/$n.scene"; done)
else scenes=$(ls tests/scenes/*.scene); fi
for s in $scenes; do
  n=$(basename "$s" .scene)
  out=$gold/$n.hashes
  bin=build/host/qphys
  if ! "$bin" check "$s" >/dev/null 2>build/golden-check.txt; then
    if grep -q "too many bodies" build/golden-check.txt; then bin=build/host-big/qphys
    else cat build/golden-check.txt >&2; exit 2; fi
  fi
  t0=$(date +%s)
  "$bin" run "$s" --hashes --steps "$steps" >"$out.tmp"
  if [ -f "$out" ] && cmp -s "$out" "$out.tmp"; then what=unchanged
  elif [ -f "$out" ]; then
    first=$(paste -d' ' "$out" "$out.tmp" | awk '$2 != $4 { print $1; exit }')
    what="CHANGED from step ${first:-?}"
  else what=new; fi
  mv "$out.tmp" "$out"
  echo "golden $n: $steps steps, final $(tail -n 1 "$out" | cut -d' ' -f2), $what ($(($(date +%s) - t0)) s, $bin)"
done
