#!/bin/sh
# test-ubsan-scenes.sh - the qphys command built with ASan + UBSan (stop at the first report)
# runs every scene of tests/scenes (UBSAN_SCENE_STEPS steps, default 120) and reads every bad
# scene of tests/bad_scenes (which must be refused with exit 2): the unit tests are not the
# only code that runs under the sanitizers. A scene larger than the default pools is skipped
# with its reason printed. Then tests/scripts/test-replay.sh with the same command.
set -u
cd "$(dirname "$0")/../.." || exit 2
steps=${UBSAN_SCENE_STEPS:-120}
tag=host-san   # the flags of make test's host-san unit build, whose core objects it shares
san="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"
make -s -j"${JOBS:-2}" BUILD_TAG=$tag HOST_OPT="$san" "build/$tag/qphys" || { echo "FAIL build of build/$tag/qphys"; exit 1; }
q=build/$tag/qphys
failed=0
for s in tests/scenes/*.scene; do
  if ! "$q" check "$s" >/dev/null 2>&1; then echo "SKIPPED $s under ASan+UBSan: $("$q" check "$s" 2>&1 | head -1)"; continue; fi
  if "$q" run "$s" --steps "$steps" >build/ubsan-scene.out 2>&1; then echo "PASS $s: $steps steps, no sanitizer report"
  else echo "FAIL $s:"; grep -E 'runtime error|ERROR|SUMMARY' build/ubsan-scene.out | head -5; failed=1; fi
done
for s in tests/bad_scenes/*.scene; do
  "$q" run "$s" --steps 1 >build/ubsan-scene.out 2>&1
  rc=$?
  if [ "$rc" != 2 ] || grep -qE 'runtime error|Sanitizer' build/ubsan-scene.out; then
    echo "FAIL $s: exit $rc (want 2)"; head -5 build/ubsan-scene.out; failed=1
  fi
done
[ "$failed" = 0 ] && echo "PASS $(ls tests/bad_scenes/*.scene | wc -l) bad scenes refused with exit 2, no sanitizer report"
# Record and replay (inputs, divergences, damaged files) under the sanitizers too.
if sh tests/scripts/test-replay.sh "$q" >build/ubsan-replay.out 2>&1 && ! grep -qE 'runtime error|Sanitizer' build/ubsan-replay.out; then
  echo "PASS record/replay (tests/scripts/test-replay.sh): no sanitizer report"
else
  echo "FAIL record/replay under ASan+UBSan:"; grep -E 'FAIL|runtime error|ERROR|SUMMARY' build/ubsan-replay.out | head -5; failed=1
fi
exit $failed
