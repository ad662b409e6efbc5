#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/fidelity.sh (make fidelity): the fidelity table of the README ("Fidelity at the edges,
# beside Bullet"): the cases of issue 15 (bench/fidelity/cases.txt) run in qphys and in Bullet
# 3.24 on the same scene files (bench/fidelity/*.scene), measured from each engine's per-step
# trace by the same program (bench/fidelity/summary.awk), printed as one markdown table on stdout.
# qphys: build/bench/fidelity_qphys (qp_scene_load, qp_world_step). Bullet: bullet_bench --file,
# the bench's peer, reading the file through qphys's scene reader (bench/fidelity_scene.h), as
# Bullet runs by default and again with its opt-in continuous collision (--ccd) on every body.
# Each scene runs 600 steps (10 s at 60 Hz) unless it says "# fidelity: steps N".
# Takes about half a minute. FIDELITY_RAW=DIR keeps the traces' summaries there.
set -eu
cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}
sh bench/deps.sh >&2
$MAKE -s build/host/libqphys.a >&2
$MAKE -s -f mk/bench.mk build/bench/fidelity_qphys build/bench/bullet_bench >&2

if [ -n "${FIDELITY_RAW:-}" ]; then raw=$FIDELITY_RAW; mkdir -p "$raw"; keep=1; else raw=$(mktemp -d); keep=0; fi
cleanup() { [ "$keep" = 1 ] || rm -rf "$raw"; }
trap cleanup EXIT INT TERM
: > "$raw/summary.txt"

for f in bench/fidelity/*.scene; do
  name=$(basename "$f")
  steps=$(sed -n 's/^# fidelity: steps \([0-9][0-9]*\).*/\1/p' "$f" | head -n 1)
  steps=${steps:-600}
  printf 'fidelity: %s (%s steps)\n' "$name" "$steps" >&2
  if ./build/bench/fidelity_qphys "$f" --steps "$steps" > "$raw/trace"; then
    awk -v engine=qphys -v file="$name" -f bench/fidelity/summary.awk "$raw/trace" >> "$raw/summary.txt"
  else
    printf 'fidelity: qphys could not run %s\n' "$name" >&2
  fi
  for ccd in "" --ccd; do
    if ./build/bench/bullet_bench --file "$f" --steps "$steps" $ccd > "$raw/trace"; then
      awk -v engine="bullet${ccd#--}" -v file="$name" -f bench/fidelity/summary.awk "$raw/trace" >> "$raw/summary.txt"
    else
      printf 'fidelity: Bullet %s could not run %s\n' "$ccd" "$name" >&2
    fi
  done
done
rm -f "$raw/trace"

# The engine measured: the last commit that changed src/ or include/ (and HEAD, if later).
core=$(git log -1 --format=%h -- src include 2>/dev/null || echo '?')
head=$(git rev-parse --short HEAD 2>/dev/null || echo '?')
at="qphys at commit $core"
[ "$core" = "$head" ] || at="$at (the last change to src/ and include/; HEAD $head)"
git diff --quiet HEAD -- src include 2>/dev/null || at="$at with uncommitted changes in src/ or include/"
bullet_v=$(pkg-config --modversion bullet 2>/dev/null || echo '?')
printf 'Measured %s: %s, and Bullet %s (single precision, btSequentialImpulseConstraintSolver),\n' \
  "$(date -u +%Y-%m-%d)" "$at" "$bullet_v"
printf 'at 60 Hz and 10 iterations on the same scene files (bench/fidelity/). Regenerate: make fidelity.\n\n'
awk -v bv="$bullet_v" -f bench/fidelity/table.awk "$raw/summary.txt" bench/fidelity/cases.txt
