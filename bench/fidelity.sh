#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/fidelity.sh (make fidelity): the fidelity table, qphys beside Bullet at the edges: the
# cases of bench/fidelity/cases.txt (tilted stacks, mass ratios, bounces, fast bodies, heavy
# loads, spawned overlaps, a small ball) run in qphys and in Bullet 3.24 on the same scene files
# (bench/fidelity/*.scene), measured from each engine's per-step trace by the same program
# (bench/fidelity/summary.awk), printed as one markdown table on stdout and written into
# docs/benchmarks/fidelity.md (FIDELITY_DOC=FILE elsewhere, "" nowhere), which nobody edits by hand.
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

# The page: the date, the release and whether the core had uncommitted changes; the commit that
# writes the page is the one it measured.
changed=$(git diff --quiet HEAD -- src include 2>/dev/null || echo ', with uncommitted changes to the core')
bullet_v=$(pkg-config --modversion bullet 2>/dev/null || echo '?')
doc=${FIDELITY_DOC-docs/benchmarks/fidelity.md}
{
  printf 'Measured %s: qphys %s%s, and Bullet %s (single precision, btSequentialImpulseConstraintSolver),\n' \
    "$(date -u +%Y-%m-%d)" "$(cat VERSION)" "$changed" "$bullet_v"
  printf 'at 60 Hz and 10 iterations on the same scene files (bench/fidelity/). Regenerate: make fidelity.\n\n'
  awk -v bv="$bullet_v" -f bench/fidelity/table.awk "$raw/summary.txt" bench/fidelity/cases.txt
} >"$raw/table.md"
cat "$raw/table.md"
if [ -n "$doc" ]; then
  mkdir -p "$(dirname "$doc")"
  {
    printf '# make fidelity: the current table\n\n'
    printf '<!-- Written by bench/fidelity.sh (make fidelity); do not edit: run make fidelity again. -->\n\n'
    printf 'What it measures and how: docs/benchmarks.md, "Fidelity at the edges".\n\n'
    cat "$raw/table.md"
  } >"$doc"
  printf 'fidelity: the table is in %s\n' "$doc" >&2
fi
