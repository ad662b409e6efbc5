#!/bin/sh
# make test: every check qphys makes, ending with one line "N passed, M failed".
# A check is a build, a guard, a cmocka test (counted one by one) or a
# cross-target comparison. Logs of failures are shown in full.
set -u
pass=0
fail=0
logdir=build/test-logs
mkdir -p "$logdir"
JOBS=${JOBS:-2}

t_start=$(date +%s)
section() { echo "== $1 (at $(($(date +%s) - t_start)) s)"; }
ok()  { pass=$((pass + 1)); echo "PASS $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

# check NAME CMD...: one pass or one failure, log shown on failure.
check() {
  name=$1; shift
  log="$logdir/$(echo "$name" | tr ' /' '__').log"
  t0=$(date +%s)
  if "$@" >"$log" 2>&1; then rc=0; else rc=1; fi
  # How long it took, when it is long enough to matter for make test's 10 minutes.
  dt=$(($(date +%s) - t0)); took=""; [ "$dt" -ge 2 ] && took=" ($dt s)"
  if [ "$rc" = 0 ]; then ok "$name$took"; else bad "$name$took"; sed 's/^/    /' "$log" | tail -40; fi
  # A target this machine cannot run (or a build-only board) is never silent: its reason is shown.
  grep -E '^(SKIPPED|BUILD ONLY)' "$log" | sed 's/^/    /'
}

# cmocka NAME BIN: counts each cmocka test of one binary (run here, or already run by
# run_all into its log, with its exit status in LOG.rc).
cmocka() {
  name=$1; bin=$2
  log="$logdir/$(echo "$name" | tr ' /' '__').log"
  if [ -f "$log.rc" ]; then rc=$(cat "$log.rc"); rm -f "$log.rc"; else "$bin" >"$log" 2>&1; rc=$?; fi
  p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
  f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
  p=${p:-0}; f=${f:-0}
  if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; fi   # crashed or sanitizer stop
  pass=$((pass + p)); fail=$((fail + f))
  if [ "$f" != 0 ]; then echo "FAIL $name: $f of $((p + f))"; grep -E 'FAILED|ERROR|error|runtime error|Sanitizer' "$log" | head -20 | sed 's/^/    /'
  else echo "PASS $name: $p tests"; fi
}

# The unit tests that run longest (seconds under ASan+UBSan: 26, 15, 9; the rest 5 or less).
slow_units="test_stacking test_sleep test_raycast"

unit_suite() {
  tag=$1; opt=$2
  if ! make -s -j"$JOBS" BUILD_TAG="$tag" HOST_OPT="$opt" unit >"$logdir/build-$tag.log" 2>&1; then
    bad "build unit tests ($tag)"; tail -30 "$logdir/build-$tag.log" | sed 's/^/    /'; return
  fi
  # The binaries run JOBS at a time, the longest first (under ASan+UBSan test_stacking takes
  # about 26 s of the suite's 84: started in its turn, it ran alone at the end); their
  # results are then counted in order.
  for t in $slow_units tests/unit/test_*.c; do
    n=$(basename "$t" .c)
    case " $slow_units " in *" $n "*) [ "$t" = "$n" ] && [ -f "tests/unit/$n.c" ] || continue ;; esac
    echo "build/$tag/unit/$n $logdir/$(echo "$tag/$n" | tr ' /' '__').log"
  done | xargs -P "$JOBS" -n 2 sh -c '"$0" >"$1" 2>&1; echo $? >"$1.rc"'
  for t in tests/unit/test_*.c; do
    n=$(basename "$t" .c)
    cmocka "$tag/$n" "build/$tag/unit/$n"
  done
}

section dependencies
check "deps installed" sh tools/deps.sh

section "host build and guards"
check "host build (gcc -O2, -Werror)" make -s -j"$JOBS" all
check "public API: C++17 -Wpedantic -Werror, links, steps; the README example builds with -Werror" sh tools/test-api.sh
check "a fresh clone builds with one plain make" sh tools/test-fresh-clone.sh
check "qphys as a library: make install + pkg-config, CMake find_package (C++), add_subdirectory give qphys's hashes; make lib CPU=cortex-m4f passes the guard" sh tools/test-install.sh
check "pictures and the viewer as a person uses them: qphys render PNG/GIF, the viewer under Xvfb (screenshots, keys, a mouse throw)" sh tools/test-viewer.sh
check "core guard: no float/double/heap (x86-64 -mgeneral-regs-only)" make -s -j"$JOBS" core-guard

# Tests of tests/pools: a core with the small pools of the Makefile's SMALL_POOLS (low-RAM layout).
pools_suite() {
  tag=$1; opt=$2
  pools=$(make -s print-small-pools)
  for t in tests/pools/test_*.c; do
    n=$(basename "$t" .c)
    if ! make -s -j"$JOBS" BUILD_TAG="$tag" HOST_OPT="$opt" EXTRA_CFLAGS="$pools" "build/$tag/pools/$n" \
         >"$logdir/build-$tag-$n.log" 2>&1; then
      bad "build $tag/$n"; tail -30 "$logdir/build-$tag-$n.log" | sed 's/^/    /'; continue
    fi
    cmocka "$tag/$n" "build/$tag/pools/$n"
  done
}

section "unit tests"
sanitize="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"
unit_suite host "-O2"
unit_suite host-san "$sanitize"
pools_suite host-pools-san "$sanitize"
check "fuzz corpus and past crash inputs replayed under ASan+UBSan (tests/fuzz)" sh tools/test-fuzz-corpus.sh
check "hostile snapshots, input logs and replay files: gcc (ASan+UBSan) and clang (-O2, UBSan) builds give the same answers" sh tests/scripts/fuzz-oracle.sh
check "every scene and bad scene through the qphys command under ASan+UBSan" sh tools/test-ubsan-scenes.sh
check "compounds keep the file's origin in qphys --json; the car squashes its box, not through the wall" sh tools/test-compound-pos.sh
check "soak, short: 10 000 steps of a pile thrown again and again, checked every step, its input log replayed in a twin (make soak: 1 M)" \
  sh -c 'make -s build/host/soak && build/host/soak 10000'

section "cross-target determinism"
if [ -f tools/cross-check.sh ]; then
  check "probe: same hashes on every host build and board" sh tools/cross-check.sh probe
  # Show every target's hash, equal or not.
  grep '^target ' "$logdir/probe:_same_hashes_on_every_host_build_and_board.log" 2>/dev/null | sed 's/^/    /'
fi
for b in $(ls boards | grep -v '^cpu$'); do
  only=""; [ "$(make -s --no-print-directory BOARD="$b" print-board-run)" = none ] && only=" (build only: no QEMU model)"
  check "board $b: builds, fits, passes the nm guard$only" make -s -j"$JOBS" BOARD="$b" all size
done
# After the boards: it reuses their objects (and the host guard's) in its copy.
[ -f tools/test-guards.sh ] && check "guard self-test: planted float and malloc are caught" sh tools/test-guards.sh
check "Cortex-M exit with and without a debugger (semihosting or reset, under QEMU)" sh tools/test-port-exit.sh
check "flash images (.bin/.hex) boot: vector table in place; on QEMU's STM32F405 the Nucleo's images print the probe's hash and stack20's goldens" sh tools/test-board-images.sh
check "stack of a step on the micro:bit's Cortex-M0 within its bound (painted, 3 040 of the 3 136 bytes reserved)" sh tools/test-stack.sh
[ -f tools/scene-check.sh ] && . tools/scene-check.sh
check "snapshots: save and resume with the golden hashes, portable to every target and board, damage refused" sh tools/test-snapshot-cli.sh
check "lockstep demo: UDP peers under loss, delay and reordering end with the reference hash; a one-LSB desync is caught in its frame; a board peer under QEMU agrees" sh tools/test-lockstep.sh

echo "make test took $(($(date +%s) - t_start)) s"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
