#!/bin/sh
# SPDX-License-Identifier: MIT
# generated-scenes.sh - the scene files of tests/generated (random, over every keyword of the
# format: tests/generated/generate.py) through the qphys command, each:
#   1. loads (qphys check);
#   2. runs STEPS steps (default 240) on the host's -O2 build, and the same steps under ASan +
#      UBSan with no report and the same final hash;
#   3. a snapshot taken at step 97 resumes to the same final hash;
#   4. a recording of 120 steps with an input every 11 (impulses, poses, bodies and ropes made and
#      removed: qphys record --inputs) verifies.
# Runs JOBS at a time. Needs build/host/qphys (make); builds the sanitized one as
# tests/scripts/test-ubsan-scenes.sh does. Prints PASS/FAIL per scene; exits non-zero on a failure.
# GENERATED_DIR=DIR takes the scenes of DIR instead (fresh seeds of generate.py, say).
set -u
cd "$(dirname "$0")/../.." || exit 2
steps=${GENERATED_STEPS:-240}
jobs=${JOBS:-2}
src=${GENERATED_DIR:-tests/generated}
san="-O1 -g1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"
make -s -j"$jobs" BUILD_TAG=host-san HOST_OPT="$san" QPHYS_RENDER=1 build/host-san/qphys ||
  { echo "FAIL build of build/host-san/qphys"; exit 1; }
out=build/test-generated
rm -rf "$out"
mkdir -p "$out"
# The recordings lie beside copies of the scenes: a recording reads its meshes from its folder.
cp "$src"/*.scene "$src"/*.obj "$out/" 2>/dev/null

# One scene: its verdict in NAME.txt, "PASS ..." or "FAIL ...".
# shellcheck disable=SC2016
ls "$out"/*.scene | STEPS=$steps xargs -r -P "$jobs" -n 1 sh -c '
  f=$1; n=${f%.scene}; q=build/host/qphys
  hash() { sed -n "s/.*\"hash\": \"\([0-9a-f]*\)\".*/\1/p"; }
  fail() { echo "FAIL $(basename "$f"): $*" >"$n.txt"; exit 0; }
  $q check "$f" >"$n.check" 2>&1 || fail "does not load: $(head -n 1 "$n.check")"
  want=$($q run "$f" --steps "$STEPS" --json 2>"$n.err" | hash)
  [ -n "$want" ] || fail "qphys run: $(head -n 1 "$n.err")"
  got=$(build/host-san/qphys run "$f" --steps "$STEPS" --json 2>"$n.san" | hash)
  [ "$got" = "$want" ] || fail "under ASan+UBSan: hash ${got:-none}, want $want: $(grep -m 1 -E "runtime error|ERROR" "$n.san")"
  $q run "$f" --steps 97 --save "$n.qps" >/dev/null 2>"$n.err" || fail "--save: $(head -n 1 "$n.err")"
  got=$($q run "$n.qps" --scene "$f" --steps $((STEPS - 97)) --json 2>"$n.err" | hash)
  [ "$got" = "$want" ] || fail "its snapshot of step 97 resumes to ${got:-nothing} ($(head -n 1 "$n.err")), want $want"
  seed=$(basename "$n" | tr -dc 0-9)
  $q record "$f" --steps 120 --inputs 11 --seed "$seed" -o "$n.qpr" >"$n.err" 2>&1 || fail "record: $(head -n 1 "$n.err")"
  $q verify "$n.qpr" >"$n.err" 2>&1 || fail "its recording: $(head -n 1 "$n.err")"
  echo "PASS $(basename "$f"): $STEPS steps, ASan+UBSan the same ($want), snapshot resumed, recording verified" >"$n.txt"
' run-one

failed=0
count=0
for f in "$out"/*.scene; do
  count=$((count + 1))
  if [ -f "${f%.scene}.txt" ]; then cat "${f%.scene}.txt"; else echo "FAIL $(basename "$f"): no verdict"; fi
  grep -q '^PASS' "${f%.scene}.txt" 2>/dev/null || failed=1
done
if [ -z "${GENERATED_DIR:-}" ]; then
  [ "$count" -ge 24 ] || { echo "FAIL only $count generated scenes (want 24)"; failed=1; }
fi
exit $failed
