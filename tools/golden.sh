#!/bin/sh
# SPDX-License-Identifier: MIT
# golden.sh - regenerate the golden hash sequences of every scene, deliberately
# (make golden): tests/scenes/golden/<scene>.hashes = `qphys run SCENE --hashes
# --steps N` of the reference build (gcc -O2, build/host/qphys), whose world is sized to
# each scene (pyramid64's 2081 bodies included).
# Run it only when the engine's dynamics change on purpose, then commit the
# files with the change; tests/scripts/scene-check.sh compares every target with them.
#
#   sh tools/golden.sh [SCENE_NAME ...]     (default: every tests/scenes/*.scene)
# Environment: SCENE_STEPS [300], JOBS [2],
#   SCENE_GOLDEN_DIR [tests/scenes/golden] (another folder for trying things out).
set -eu
steps=${SCENE_STEPS:-300}
jobs=${JOBS:-2}
mk=""
grep -q 'mk/tools.mk' Makefile || mk="-f Makefile -f mk/tools.mk"
make $mk -s -j"$jobs" build/host/qphys
gold=${SCENE_GOLDEN_DIR:-tests/scenes/golden}
mkdir -p "$gold"

if [ $# -gt 0 ]; then scenes=$(for n in "$@"; do echo "tests/scenes/$n.scene"; done)
else scenes=$(ls tests/scenes/*.scene); fi
for s in $scenes; do
  n=$(basename "$s" .scene)
  out=$gold/$n.hashes
  bin=build/host/qphys
  "$bin" check "$s" >/dev/null || exit 2   # says what is wrong
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
