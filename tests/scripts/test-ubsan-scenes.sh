#!/bin/sh
# SPDX-License-Identifier: MIT
# test-ubsan-scenes.sh - the qphys command built with ASan + UBSan (stop at the first report)
# runs every scene of tests/scenes (UBSAN_SCENE_STEPS steps, default 120) and reads every bad
# scene of tests/bad_scenes (which must be refused with exit 2, but for those too large for a
# default world only, which qphys sizes its world to and runs: exit 0): the unit tests are not the
# only code that runs under the sanitizers. A scene larger than the default pools is skipped
# with its reason printed. Then tests/scripts/test-replay.sh with the same command, and a render
# of a scene larger than the default pools.
# The runs go JOBS at a time, the replay test beside them; results are reported in order.
set -u
cd "$(dirname "$0")/../.." || exit 2
steps=${UBSAN_SCENE_STEPS:-120}
jobs=${JOBS:-2}
tag=host-san   # the flags of make test's host-san unit build, whose core objects it shares
san="-O1 -g1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"
make -s -j"$jobs" BUILD_TAG=$tag HOST_OPT="$san" QPHYS_RENDER=1 "build/$tag/qphys" || { echo "FAIL build of build/$tag/qphys"; exit 1; }
q=build/$tag/qphys
out=build/ubsan-scenes
rm -rf "$out"
mkdir -p "$out"

# Record and replay (inputs, divergences, damaged files) under the sanitizers too.
sh tests/scripts/test-replay.sh "$q" >"$out/replay.out" 2>&1 &
replay_pid=$!

# One line per run: the file and its steps (a bad scene: 1). Each run leaves NAME.out and
# NAME.rc ("skip" for a scene larger than the build's pools, with the reason in NAME.out).
{ for s in tests/scenes/*.scene; do echo "$s $steps"; done
  for s in tests/bad_scenes/*.scene; do echo "$s 1"; done; } >"$out/runs.txt"
# shellcheck disable=SC2016
Q=$q OUT=$out xargs -r -P "$jobs" -L 1 sh -c '
  n=$(basename "$(dirname "$1")")-$(basename "$1" .scene)
  if [ "$2" != 1 ] && ! "$Q" check "$1" >"$OUT/$n.out" 2>&1; then echo skip >"$OUT/$n.rc"; exit 0; fi
  "$Q" run "$1" --steps "$2" >"$OUT/$n.out" 2>&1; echo $? >"$OUT/$n.rc"' run-one <"$out/runs.txt"

failed=0
for s in tests/scenes/*.scene; do
  o=$out/scenes-$(basename "$s" .scene)
  case $(cat "$o.rc" 2>/dev/null) in
    skip) echo "SKIPPED $s under ASan+UBSan: $(head -1 "$o.out")" ;;
    0) echo "PASS $s: $steps steps, no sanitizer report" ;;
    *) echo "FAIL $s:"; grep -E 'runtime error|ERROR|SUMMARY' "$o.out" | head -5; failed=1 ;;
  esac
done
for s in tests/bad_scenes/*.scene; do
  o=$out/bad_scenes-$(basename "$s" .scene)
  rc=$(cat "$o.rc" 2>/dev/null)
  want=2
  head -n 1 "$s" | grep -q "this world's capacit" && want=0
  if [ "$rc" != $want ] || grep -qE 'runtime error|Sanitizer' "$o.out"; then
    echo "FAIL $s: exit $rc (want $want)"; head -5 "$o.out"; failed=1
  fi
done
[ "$failed" = 0 ] && echo "PASS $(ls tests/bad_scenes/*.scene | wc -l) bad scenes refused with exit 2 (run in a world sized to them: those too large for a default world), no sanitizer report"

# qphys render draws a world larger than the default pools (pyramid64: 2 081 bodies, whose
# islands and sleepers the drawing keeps by body slot) under the sanitizers too.
big=tests/scenes/pyramid64.scene
if "$q" render "$big" --from 0 --to 4 --every 2 -o "$out/pyramid64.gif" >"$out/render.out" 2>&1; then
  echo "PASS qphys render of $big (3 frames, in contact): no sanitizer report"
elif grep -q 'not built into this qphys' "$out/render.out"; then
  echo "SKIPPED qphys render under ASan+UBSan: $(head -1 "$out/render.out") (libpng and giflib headers missing)"
else
  echo "FAIL qphys render of $big:"; grep -E 'runtime error|ERROR|SUMMARY|qphys' "$out/render.out" | head -5; failed=1
fi

if wait "$replay_pid" && ! grep -qE 'runtime error|Sanitizer' "$out/replay.out"; then
  echo "PASS record/replay (tests/scripts/test-replay.sh): no sanitizer report"
else
  echo "FAIL record/replay under ASan+UBSan:"; grep -E 'FAIL|runtime error|ERROR|SUMMARY' "$out/replay.out" | head -5; failed=1
fi
exit $failed
