#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/scale.sh - the scaling table (make bench; docs/benchmarks.md, "Scaling"): the time of an
# awake step of pyramid 32/64/96/128 and rain 512/2 048/8 192 (bench/scale_scenes.sh, sleep
# off) for qphys, Bullet and Jolt on the same files, one after the other, and for each engine and
# family the exponent k of a least-squares fit of time ~ bodies^k (1: linear).
#
#   sh bench/scale.sh            builds what it needs (bench/run.sh has built the rest), prints the table
#   SCALE_SCENES="pyramid32 ..."  the scenes (default: all seven)
#   SCALE_REPEAT=R               runs per engine and scene, each step its fastest (default 1)
#   JOLT_SRC=DIR                 Jolt beside them (built as make bench builds it)
#   SCALE_JOLT=PROGRAM           or this jolt_bench, built already (bench/run.sh passes its own)
#   SCALE_GOLDEN=write           write bench/golden/pyramid128.hashes anew instead of checking it
#
# Windows: a pyramid's steps 11..70 (the wall up, its contacts made), a rain's 121..180
# (the pile formed: rain8192's contacts reach 22 000 by step 90). qphys: bench_window with pools
# for 8 400 bodies (make -f mk/bench.mk bench-big), restoring a snapshot of step FROM - 1 for
# each run; the peers step from a fresh world and count the same window (--from). Time: the mean
# step in milliseconds. Then the wall's golden hashes (below); exit status 1 if they differ.
# Takes about 2 minutes alone (most of it rain8192 and pyramid128).
set -eu
cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}
scenes=${SCALE_SCENES:-pyramid32 pyramid64 pyramid96 pyramid128 rain512 rain2048 rain8192}
repeat=${SCALE_REPEAT:-1}
say() { printf '%s\n' "$*" >&2; }

$MAKE -s -f mk/bench.mk bench-big build/bench/bullet_bench >&2
jolt=${SCALE_JOLT:-}
if [ -z "$jolt" ] && [ -n "${JOLT_SRC:-}" ] && $MAKE -s -f mk/bench.mk bench-jolt JOLT_SRC="$JOLT_SRC" >&2; then
  jolt=./build/bench/jolt/jolt_bench
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT INT TERM
# shellcheck disable=SC2086
sh bench/scale_scenes.sh "$dir" $scenes

for s in $scenes; do
  f="$dir/$s-awake.scene"
  sed 's/^\(world.*\)sleep on/\1sleep off/' "$dir/$s.scene" > "$f"
  case $s in pyramid*) from=11 to=70 ;; *) from=121 to=180 ;; esac
  bodies=$(grep -c '^box' "$f")
  say "scale: $s ($bodies cubes), steps $from..$to"
  qline=$(./build/bench/big/bench_window "$f" "$from" "$to" "$repeat")
  q=$(echo "$qline" | sed -n 's/.* step_mean=\([0-9.]*\) .*/\1/p')
  qc=$(echo "$qline" | sed -n 's/.* cpu_best=\([0-9.]*\) .*/\1/p')
  b=$(./build/bench/bullet_bench --file "$f" --steps "$to" --from "$from" --time --repeat "$repeat" |
      sed -n 's/.* step_mean=\([0-9.]*\).*/\1/p')
  j=""
  [ -z "$jolt" ] || j=$($jolt "$f" --steps "$to" --from "$from" --time --repeat "$repeat" |
      sed -n 's/.* step_mean=\([0-9.]*\) .*/\1/p')
  echo "$s $bodies $from $to ${q:--} ${b:--} ${j:--} ${qc:--}"
done > "$dir/raw.txt"

# The wall (pyramid128, seed 004's 8 256 cubes) with sleep on, as its file says: its hashes must be
# bench/golden/pyramid128.hashes, the host's (SCALE_GOLDEN=write writes them anew). Here and not in
# make test: its 8 256 bodies need the big pools, and 60 steps take 6 s of a free core.
wall=""
case " $scenes " in *" pyramid128 "*)
  if [ "${SCALE_GOLDEN:-check}" = write ]; then
    ./build/bench-big/qphys run "$dir/pyramid128.scene" --steps 60 --hashes > bench/golden/pyramid128.hashes
    wall="written"
  elif ./build/bench-big/qphys run "$dir/pyramid128.scene" --steps 60 --hashes | cmp -s - bench/golden/pyramid128.hashes; then
    wall="PASS: the wall's hashes of 60 steps (sleep on) are bench/golden/pyramid128.hashes"
  else
    wall="FAIL: the wall's hashes of 60 steps (sleep on) differ from bench/golden/pyramid128.hashes"
  fi ;;
esac

awk -v jolt="${jolt:+yes}" -v wall="$wall" '
function ms(v) { return v == "-" ? "-" : sprintf("%.2f", v / 1000) }
function ratio(a, b) { return (a == "-" || b == "-" || b + 0 == 0) ? "-" : sprintf("%.2f", a / b) }
# The least-squares slope of ln(time) on ln(bodies) over family f, engine column c.
function fit(f, c,    i, n, sx, sy, sxx, sxy, x, y) {
  n = sx = sy = sxx = sxy = 0
  for (i = 1; i <= rows; i++) {
    if (F[i] != f || V[i, c] == "-") continue
    x = log(B[i]); y = log(V[i, c]); n++; sx += x; sy += y; sxx += x * x; sxy += x * y
  }
  return n < 2 ? "-" : sprintf("%.2f", (n * sxy - sx * sy) / (n * sxx - sx * sx))
}
{ rows++; N[rows] = $1; B[rows] = $2; W[rows] = $3 ".." $4; V[rows, 1] = $5; V[rows, 2] = $6; V[rows, 3] = $7
  V[rows, 4] = $8
  F[rows] = $1; sub(/[0-9]+$/, "", F[rows]); if (!(F[rows] in seen)) { seen[F[rows]] = 1; fam[++nf] = F[rows] } }
END {
  printf "== Host: scaling, time per awake step (sleep off) of larger scenes, qphys beside Bullet and Jolt\n"
  printf "   bench/scale_scenes.sh: pyramidB = a wall of B (B + 1) / 2 cubes (pyramid128: seed 004%ss 8 256),\n", "\047"
  printf "   rainN = N cubes fallen into a pile. ms = mean step over the window (pyramids: the wall up;\n"
  printf "   rains: the pile formed), each engine one after the other; exponent = slope of ln(ms) on\n"
  printf "   ln(bodies), least squares over the family (1: linear). q/jolt at most 1: qphys as fast.\n"
  printf "   q_cpu_ms: qphys%ss processor time (bench_window%ss cpu_best), which other processes on a\n", "\047", "\047"
  printf "   loaded machine do not inflate as they do the wall clock.\n"
  if (jolt == "") printf "   Jolt: not built; make bench JOLT_SRC=/path/to/JoltPhysics\n"
  printf "\n%-11s %7s %8s %10s %10s %10s %8s %8s %9s\n", "scene", "bodies", "steps", "qphys_ms", "bullet_ms", "jolt_ms", "q/bt", "q/jolt", "q_cpu_ms"
  for (i = 1; i <= rows; i++)
    printf "%-11s %7d %8s %10s %10s %10s %8s %8s %9s\n", N[i], B[i], W[i], ms(V[i, 1]), ms(V[i, 2]), ms(V[i, 3]), \
           ratio(V[i, 1], V[i, 2]), ratio(V[i, 1], V[i, 3]), ms(V[i, 4])
  for (k = 1; k <= nf; k++)
    printf "%-11s %7s %8s %10s %10s %10s %8s %8s %9s\n", "exponent", fam[k], "", fit(fam[k], 1), fit(fam[k], 2), fit(fam[k], 3), \
           "", "", fit(fam[k], 4)
  if (wall != "") printf "\n   pyramid128 golden: %s\n", wall
}' "$dir/raw.txt"
case $wall in FAIL*) exit 1 ;; esac
