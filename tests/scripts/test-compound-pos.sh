#!/bin/sh
# SPDX-License-Identifier: MIT
# test-compound-pos.sh - `qphys run --json` reports each body's pos as the origin written in the
# scene file, compounds included (their centre of mass lies elsewhere), and the demo car
# squashes its box against the wall within 1 cm (exit status of build/host/car).
#
#   sh tests/scripts/test-compound-pos.sh [QPHYS]      (default build/host/qphys)
set -eu
qphys=${1:-build/host/qphys}
[ -x "$qphys" ] || { echo "test-compound-pos: $qphys not built" >&2; exit 2; }
scene=build/compound_pos.scene
mkdir -p build
cat > "$scene" <<'SCENE'
plane
compound pos 1.25 2.5 -3 rot 1 2 3 40
  part box half 0.8 0.05 0.8 at 0 0.45 0
  part sphere radius 0.3 at 0.7 -0.2 0.1
  part capsule radius 0.1 half_height 0.3 at -0.5 0 0.5 rot 0 0 1 90
end
box half 0.5 0.5 0.5 pos 4 0.5 0 kinematic vel 0 0.5 0
compound pos -2 0.4 7
  part box half 0.8 0.05 0.8 at 0 0.45 0
  part box half 0.05 0.4 0.05 at 0.7 0 0.7
end
SCENE
json=$("$qphys" run "$scene" --steps 0 --json)
want="[0, 0, 0] [1.25, 2.5, -3] [4, 0.5, 0] [-2, 0.399993896484375, 7]"
got=$(printf '%s\n' "$json" | sed -n 's/.*"pos": \(\[[^]]*\]\).*/\1/p' | tr '\n' ' ' | sed 's/ $//')
# 0.4 reads as 26214/65536 = 0.399993896484375 exactly; compared as numbers by awk.
ok=$(printf '%s\n%s\n' "$want" "$got" | awk 'NR == 1 { gsub(/[][,]/, ""); n = split($0, a, " ") }
  NR == 2 { gsub(/[][,]/, ""); m = split($0, b, " ") }
  END { if (n != m) { print "no"; exit } for (i = 1; i <= n; i++) if (a[i] + 0 != b[i] + 0) { print "no"; exit } print "yes" }')
if [ "$ok" != yes ]; then
  echo "test-compound-pos: --json pos $got, want $want" >&2
  exit 1
fi
printf '%s\n' "$json" | grep -q '"kinematic": true' || { echo "test-compound-pos: no \"kinematic\": true" >&2; exit 1; }
echo "test-compound-pos: --json pos is the file's origin for 2 compounds, a kinematic box and the ground"
car=$(dirname "$qphys")/car
if [ -x "$car" ]; then
  "$car" > build/car.txt || { tail -3 build/car.txt >&2; echo "test-compound-pos: the car pushed the box through the wall" >&2; exit 1; }
  tail -2 build/car.txt | head -1
fi
