#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/scale_profile.sh - where a body costs more in a big world (docs/benchmarks.md,
# "Scaling"): for each scene, the instructions of each stage of an awake step per body, and
# the data cache misses per body of a first-level cache of 48 KB and a second of 1 MB (this
# machine's per-core caches), under callgrind's cache simulation. A stage whose instructions
# per body grow with the scene does more work per body (more sweeps, a longer walk); one
# whose misses per body grow waits on memory.
#
#   sh bench/scale_profile.sh [SCENE...]   default: pyramid32 pyramid128 (bench/scale_scenes.sh names)
#   PROFILE_STEPS=N   steps profiled from the window's first (bench/scale.sh's: 11 for a
#                     pyramid, 121 for a rain), default 3
#
# Runs build/bench/big/bench_window (make -f mk/bench.mk bench-big) on the scene with sleep off
# under valgrind --tool=callgrind --cache-sim=yes, instrumented and counting from its restore
# of the window's snapshot (bench_window starts the instrumentation there when built with
# valgrind's headers; --zero-before), so the loading and the steps before are left out.
# Needs valgrind.
set -eu
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null 2>&1 || { echo "$0: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
steps=${PROFILE_STEPS:-3}
[ $# -gt 0 ] || set -- pyramid32 pyramid128
${MAKE:-make} -s -f mk/bench.mk bench-big >&2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT INT TERM
sh bench/scale_scenes.sh "$dir" "$@"
# The stage functions and their names (spaces as underscores), as src/stages.h lists them.
sed -n 's|^void \(qp__[a-z_]*\)(.*/\* \([a-z ]*\):.*|\1=\2|p' src/stages.h | tr ' ' '_' > "$dir/stages"

for s in "$@"; do
  case $s in pyramid*) from=11 ;; *) from=121 ;; esac
  f="$dir/$s-awake.scene"
  sed 's/^\(world.*\)sleep on/\1sleep off/' "$dir/$s.scene" > "$f"
  bodies=$(grep -c '^box' "$f")
  echo "scale_profile: $s ($bodies cubes), steps $from..$((from + steps - 1)) under callgrind" >&2
  valgrind --tool=callgrind --cache-sim=yes --D1=49152,12,64 --LL=1048576,16,64 --instr-atstart=no \
    --zero-before=qp_world_restore_checked --callgrind-out-file="$dir/$s.out" \
    ./build/bench/big/bench_window "$f" "$from" "$((from + steps - 1))" 1 >/dev/null 2>"$dir/$s.log" ||
    { cat "$dir/$s.log" >&2; exit 1; }
  # Inclusive counts of each stage function: Ir, D1 misses (read, write), LL misses (read, write).
  callgrind_annotate --inclusive=yes --threshold=100 --show=Ir,D1mr,D1mw,DLmr,DLmw "$dir/$s.out" 2>/dev/null |
    awk -v scene="$s" -v bodies="$bodies" -v steps="$steps" -v list="$dir/stages" '
    BEGIN { while ((getline line < list) > 0) { split(line, p, "="); name[p[1]] = p[2]; order[++n] = p[1] } }
    {
      gsub(/,/, ""); gsub(/\([^)]*\)/, "")
      if (NF < 6 || $6 !~ /:qp__/) next
      fn = $6
      sub(/^.*:/, "", fn)
      if (!(fn in name)) next
      ir[fn] = $1; d1[fn] = $2 + $3; ll[fn] = $4 + $5
    }
    END {
      k = bodies * steps
      for (j = 1; j <= n; j++) {
        fn = order[j]
        if (!(fn in ir)) continue
        t_ir += ir[fn]; t_d1 += d1[fn]; t_ll += ll[fn]
        if (ir[fn] / k >= 100) printf "%-11s %7d %-15s %10.0f %8.1f %8.1f\n", scene, bodies, name[fn], ir[fn] / k, d1[fn] / k, ll[fn] / k
      }
      printf "%-11s %7d %-15s %10.0f %8.1f %8.1f\n", scene, bodies, "(the step)", t_ir / k, t_d1 / k, t_ll / k
    }' >> "$dir/rows"
done
printf '== Host: per body and step, by stage, of an awake step (sleep off): instructions, and data misses\n'
printf '   of a 48 KB first-level and a 1 MB second-level cache (callgrind --cache-sim, %s steps)\n\n' "$steps"
printf '%-11s %7s %-15s %10s %8s %8s\n' scene bodies stage instr d1_miss l2_miss
cat "$dir/rows"
