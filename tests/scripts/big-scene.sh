#!/bin/sh
# SPDX-License-Identifier: MIT
# big-scene.sh - the qphys command sizes its world to the file, with no rebuild:
#   1. seed 004's wall of 8 256 cubes (128 along its base; generated here) runs: `qphys run`
#      reports 8 257 bodies and steps it; its snapshot resumes to the same hash, and a
#      recording of it verifies;
#   2. --max-bodies caps it: the scene is refused at the first body past the cap (exit 2,
#      its line named, counting a level's mesh and heightfield lines), and the snapshot likewise;
#   3. a sensor holding 300 boxes keeps all 300 overlaps (a sensor overlap a shape), none lost.
# Needs build/host/qphys (make). Prints PASS/FAIL lines; exits non-zero on a failure.
set -u
cd "$(dirname "$0")/../.." || exit 2
q=build/host/qphys
out=build/test-big-scene
mkdir -p "$out"
failed=0
fail() { echo "FAIL $*"; failed=1; }

wall=$out/wall128.scene
{
  echo "# wall128: a pyramid wall in the x-y plane with a 128-cube base (8 256 cubes)"
  echo "world gravity 0 -10 0 hz 60 iterations 10 sleep on"
  echo "plane"
  awk 'BEGIN { for (r = 0; r < 128; r++) { n = 128 - r
    for (k = 0; k < n; k++) printf "box half 0.5 0.5 0.5 pos %s %s 0\n", k - (n - 1) / 2, 0.5 + r } }'
} >"$wall"

# 1. It runs, resumes and verifies.
if "$q" run "$wall" --steps 2 --hashes >"$out/run.txt" 2>&1 && "$q" run "$wall" --steps 2 >"$out/summary.txt" 2>&1 &&
   grep -q '8257 bodies (8256 dynamic)' "$out/summary.txt" && [ "$(wc -l <"$out/run.txt")" -eq 2 ]; then
  echo "PASS qphys run of the 8 256-cube wall: $(sed -n 's/^pools *//p' "$out/summary.txt")"
else
  fail "qphys run of the 8 256-cube wall:"; sed 's/^/    /' "$out/run.txt" "$out/summary.txt" | head -10
fi
if "$q" run "$wall" --steps 1 --save "$out/wall.qps" >/dev/null 2>&1 &&
   "$q" run "$out/wall.qps" --steps 1 --hashes >"$out/resumed.txt" 2>&1 &&
   [ "$(cat "$out/resumed.txt")" = "$(sed -n 2p "$out/run.txt")" ]; then
  echo "PASS its snapshot ($(wc -c <"$out/wall.qps") bytes) resumes to step 2's hash"
else
  fail "the wall's snapshot does not resume to step 2's hash:"; sed 's/^/    /' "$out/resumed.txt" | head -5
fi
rm -f "$out/wall.qpr"
if "$q" record "$wall" --steps 2 -o "$out/wall.qpr" >/dev/null 2>&1 && "$q" verify "$out/wall.qpr" >"$out/verify.txt" 2>&1; then
  echo "PASS a recording of it verifies: $(head -n 1 "$out/verify.txt")"
else
  fail "a recording of the wall does not verify:"; sed 's/^/    /' "$out/verify.txt" | head -5
fi

# 2. --max-bodies caps it (the plane is body 1: body 8 001 is the 8 000th cube, on line 8 003).
"$q" run "$wall" --steps 1 --max-bodies 8000 >/dev/null 2>"$out/cap.txt"; rc=$?
if [ $rc -eq 2 ] && grep -q "wall128.scene:8003:1: error: more bodies than --max-bodies" "$out/cap.txt"; then
  echo "PASS --max-bodies 8000 refuses it at body 8 001: $(cat "$out/cap.txt")"
else
  fail "--max-bodies 8000 (exit $rc):"; sed 's/^/    /' "$out/cap.txt" | head -5
fi
# A level's mesh and heightfield lines are bodies too: the third body is the second cube, line 4.
level=$out/level_cap.scene
printf '%s\n' "world sleep on" "heightfield rows 2 cols 2 spacing 4 pos -2 0 -2 heights 0 0 0 0" \
  "box half 0.5 0.5 0.5 pos 0 0.5 0" "box half 0.5 0.5 0.5 pos 0 1.5 0" "box half 0.5 0.5 0.5 pos 0 2.5 0" >"$level"
"$q" run "$level" --steps 1 --max-bodies 2 >/dev/null 2>"$out/cap-level.txt"; rc=$?
if [ $rc -eq 2 ] && grep -q "level_cap.scene:4:1: error: more bodies than --max-bodies" "$out/cap-level.txt"; then
  echo "PASS --max-bodies 2 refuses a terrain's scene at its third body: $(cat "$out/cap-level.txt")"
else
  fail "--max-bodies 2 on a terrain's scene (exit $rc):"; sed 's/^/    /' "$out/cap-level.txt" | head -5
fi
"$q" run "$out/wall.qps" --steps 1 --max-bodies 600 >/dev/null 2>"$out/cap-snap.txt"; rc=$?
if [ $rc -eq 2 ] && grep -q "more than --max-bodies 600" "$out/cap-snap.txt"; then
  echo "PASS --max-bodies 600 refuses its snapshot: $(cat "$out/cap-snap.txt")"
else
  fail "--max-bodies 600 on the snapshot (exit $rc):"; sed 's/^/    /' "$out/cap-snap.txt" | head -5
fi

# 3. 300 boxes at rest inside one sensor: 300 overlaps at once, past the default pool's 64.
sensor=$out/sensor300.scene
{
  echo "world sleep on"
  echo "plane"
  echo "box half 8 2 6 pos 0 1 0 static sensor"
  awk 'BEGIN { for (i = 0; i < 300; i++) printf "box half 0.25 0.25 0.25 pos %.1f 0.25 %.1f\n", 0.6 * (i % 20) - 5.7, 0.6 * int(i / 20) - 4.2 }'
} >"$sensor"
if "$q" run "$sensor" --steps 3 >"$out/sensor.txt" 2>&1 && grep -q '^pools .* 0 overflows$' "$out/sensor.txt"; then
  echo "PASS a sensor holding 300 boxes keeps every overlap: $(sed -n 's/^pools *//p' "$out/sensor.txt")"
else
  fail "a sensor holding 300 boxes loses overlaps:"; sed 's/^/    /' "$out/sensor.txt" | head -5
fi
exit $failed
