#!/bin/sh
# SPDX-License-Identifier: MIT
# The test runner: every check qphys makes, ending with one line "N passed, M failed".
# A check is a build, a guard, a cmocka test (counted one by one) or a
# cross-target comparison. Logs of failures are shown in full; every log is in build/test-logs.
#
#   sh tests/run.sh [full]   make test: the whole matrix (every target, board and sanitizer)
#   sh tests/run.sh quick    make check: the edit loop's tier (host build, core guard, unit tests,
#                            scenes against their goldens and the bad scenes, all on the host)
set -u
cd "$(dirname "$0")/.." || exit 2
tier=${1:-full}
case $tier in quick|full) ;; *) echo "usage: sh tests/run.sh [quick|full]" >&2; exit 2 ;; esac
pass=0
fail=0
logdir=build/test-logs
mkdir -p "$logdir"
JOBS=${JOBS:-2}
# Line tables only in the boards' images, make lib and the sanitized builds (mk/common.mk): the
# same code as with -g, a third less compiling.
export DEBUG_INFO=-g1

# now: sets now_s to the whole seconds of a clock that only goes forward (only differences of it
# are printed): /proc/uptime, read with no process started, else date.
now() {
  if [ -r /proc/uptime ]; then read -r now_s _ </proc/uptime; now_s=${now_s%%.*}; else now_s=$(date +%s); fi
}
# log_of NAME: sets log to NAME's log file, its spaces and slashes made underscores, with no
# process started (make test names about 1 000 logs, and starting one costs milliseconds here).
log_of() {
  lo_rest=$1; lo_name=
  while :; do
    case $lo_rest in
      *[\ /]*) lo_head=${lo_rest%%[\ /]*}; lo_name=$lo_name${lo_head}_; lo_rest=${lo_rest#"$lo_head"?} ;;
      *) lo_name=$lo_name$lo_rest; break ;;
    esac
  done
  log="$logdir/$lo_name.log"
}

now; t_start=$now_s
# cpu: sets cpu_s to the processor seconds of everything this shell (a lane) has run and waited
# for so far (the shell's `times`: its children's user + system time; called in this shell, not in
# a subshell). Two cores bound make test: its wall time is about its processor time over two, so
# each check's share is printed beside its seconds.
lane=host
cpu() {
  times >"$logdir/times-$lane"
  # Its second line, "1m2.345678s 0m0.123456s", read with no process started (whole seconds).
  { read -r _ _; read -r cpu_u cpu_y; } <"$logdir/times-$lane"
  cpu_u=${cpu_u%%.*}; cpu_y=${cpu_y%%.*}
  cpu_s=$((${cpu_u%%m*} * 60 + ${cpu_u#*m} + ${cpu_y%%m*} * 60 + ${cpu_y#*m}))
}
section() { cpu; now; echo "== $1 (at $((now_s - t_start)) s, $cpu_s s CPU in this lane)"; }
ok()  { pass=$((pass + 1)); echo "PASS $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

# check NAME CMD...: one pass or one failure, log shown on failure.
check() {
  name=$1; shift
  log_of "$name"
  now; t0=$now_s; cpu; c0=$cpu_s
  if "$@" >"$log" 2>&1; then rc=0; else rc=1; fi
  # How long it took, and its processor time, when they matter for make test's 10 minutes.
  now; dt=$((now_s - t0)); cpu; dc=$((cpu_s - c0)); took=""
  [ "$dt" -ge 2 ] || [ "$dc" -ge 2 ] && took=" ($dt s, $dc s CPU)"
  if [ "$rc" = 0 ]; then ok "$name$took"; else bad "$name$took"; sed 's/^/    /' "$log" | tail -40; fi
  # A target this machine cannot run (or a build-only board) is never silent: its reason is shown.
  grep -E '^(SKIPPED|BUILD ONLY)' "$log" | sed 's/^/    /'
}

# cmocka NAME BIN: counts each cmocka test of one binary (run here, or already run by
# unit_suite into its log, with its exit status in LOG.rc).
cmocka() {
  name=$1; bin=$2
  log_of "$name"
  if [ -f "$log.rc" ]; then rc=$(cat "$log.rc"); rm -f "$log.rc"; else "$bin" >"$log" 2>&1; rc=$?; fi
  p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
  f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
  p=${p:-0}; f=${f:-0}
  if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; fi   # crashed or sanitizer stop
  pass=$((pass + p)); fail=$((fail + f))
  if [ "$f" != 0 ]; then echo "FAIL $name: $f of $((p + f))"; grep -E 'FAILED|ERROR|error|runtime error|Sanitizer' "$log" | head -20 | sed 's/^/    /'
  else echo "PASS $name: $p tests"; fi
}

# The unit tests that run longest, longest first (seconds under ASan+UBSan during a make test on
# a busy machine: joint_tree 82, sleep 76, level 72, stacking 61, snapshot 31, impacts 28, caps 23;
# the rest 13 or less).
slow_units="test_joint_tree test_sleep test_level test_stacking test_snapshot test_impacts test_caps"

unit_suite() {
  tag=$1; opt=$2
  now; u0=$now_s; cpu; uc0=$cpu_s
  if ! make -s -j"$JOBS" BUILD_TAG="$tag" HOST_OPT="$opt" unit >"$logdir/build-$tag.log" 2>&1; then
    bad "build unit tests ($tag)"; tail -30 "$logdir/build-$tag.log" | sed 's/^/    /'; return
  fi
  # The binaries run JOBS at a time, the longest first (started in its turn, a long one runs
  # alone at the end); their results are then counted in order.
  for t in $slow_units tests/unit/test_*.c; do
    n=$(basename "$t" .c)
    case " $slow_units " in *" $n "*) [ "$t" = "$n" ] && [ -f "tests/unit/$n.c" ] || continue ;; esac
    log_of "$tag/$n"
    echo "build/$tag/unit/$n $log"
  done | xargs -r -P "$JOBS" -n 2 sh -c '"$1" >"$2" 2>&1; echo $? >"$2.rc"' run-one
  for t in tests/unit/test_*.c; do
    n=$(basename "$t" .c)
    cmocka "$tag/$n" "build/$tag/unit/$n"
  done
  cpu; now; echo "unit tests ($tag) built and run: $((now_s - u0)) s, $((cpu_s - uc0)) s CPU"
}

# finish: the time and the count, and the exit status.
finish() {
  cpu; now; echo "make $1 took $((now_s - t_start)) s, $cpu_s s CPU"
  echo "$pass passed, $fail failed"
  [ "$fail" = 0 ]
  exit $?
}

if [ "$tier" = quick ]; then
  section "host build and guard"
  check "host build (gcc -O2, -Werror)" make -s -j"$JOBS" all
  check "core guard: no float/double/heap (x86-64 -mgeneral-regs-only)" make -s -j"$JOBS" core-guard
  check "module boundaries: the geometry layer sees no world, the replayer calls the public API, no scratch in public headers" sh tests/scripts/module-deps.sh
  check "every source file carries its SPDX-License-Identifier line" sh tools/spdx.sh --check
  section "unit tests"
  unit_suite host "-O2"
  # The scene check on the host's gcc -O2 build alone: every scene against its golden
  # hashes, the bad scenes and the record/replay self-test.
  SCENE_TARGETS=host
  SCENE_BOARDS=
  . tests/scripts/scene-check.sh
  finish check
fi

# ---- make test -------------------------------------------------------------------------------
# Two lanes run side by side, each JOBS wide, so that one's serial stretches (emulators, links,
# cmake, the viewer's pauses) overlap the other's builds. A lane owns the build folders it
# writes: the host lane build/host* and the other tools' folders, the target lane the other
# targets' and the boards'. A check that reads what the other lane builds waits for its mark.
# A new check goes in the lane whose folders it writes.

# mark NAME / await NAME: the target lane says a stage is done; the host lane waits for it
# (or for the end of the target lane, should it stop early).
mark() { touch "$logdir/mark-$1"; }
await() { while [ ! -f "$logdir/mark-$1" ] && kill -0 "$targets_pid" 2>/dev/null; do sleep 1; done; }

# board_scenes: the scene check on the boards, shared by the two lanes at their ends: each lane
# takes the next board that no one has taken (mkdir is atomic), so neither waits while the other
# works. In reverse order, the QEMU machines whose runs take longest come first.
board_scenes() {
  for b in $(ls -r boards | grep -v '^cpu$'); do
    mkdir "$logdir/claim-$b" 2>/dev/null || continue
    SCENE_TARGETS=
    SCENE_BOARDS=$b
    . tests/scripts/scene-check.sh
  done
}

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

host_lane() {
  section "host: the core guard and the library as users take it"
  check "core guard: no float/double/heap (x86-64 -mgeneral-regs-only)" make -s -j"$JOBS" core-guard
  check "public API: C++17 -Wpedantic -Werror, links, steps; the README example builds with -Werror" sh tests/scripts/test-api.sh
  check "qphys as a library: make install + pkg-config, CMake find_package (C++), add_subdirectory give qphys's hashes; make lib CPU=cortex-m4f passes the guard" sh tests/scripts/test-install.sh
  check "pictures and the viewer as a person uses them: qphys render PNG/GIF, the viewer under Xvfb (screenshots, keys, a mouse throw)" sh tests/scripts/test-viewer.sh
  check "a fresh clone builds with one plain make" sh tests/scripts/test-fresh-clone.sh
  check "the C examples of docs/guide.md build with -Werror and run; the docs' scene examples pass qphys check" sh tests/scripts/guide-examples.sh
  check "one version: VERSION, qphys --version, qphys/version.h and CHANGELOG.md agree" sh tests/scripts/version.sh
  check "every source file carries its SPDX-License-Identifier line" sh tools/spdx.sh --check
  check "module boundaries: the geometry layer sees no world, the replayer calls the public API, no scratch in public headers" sh tests/scripts/module-deps.sh
  check "examples/firmware (Nucleo-F411RE against make lib CPU=cortex-m4f): builds, fits 512 KB/128 KB, no heap or float helper; on QEMU's STM32F405 its lines carry the host's hashes" sh tests/scripts/firmware-example.sh

  section "host: unit tests"
  # (-g1: the sanitizers' reports need line tables only)
  sanitize="-O1 -g1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"
  # The unit tests run once, under the sanitizers: the same tests and assertions as on the -O2
  # build (make check's), every operation checked besides; that -O2 computes the same bits is
  # the probe's and the scene check's (every host build, every board).
  unit_suite host-san "$sanitize"
  # The small-pool tests run in a fraction of a second: their core, unoptimised, compiles in 40 %
  # of the time, still checked by both sanitizers.
  pools_suite host-pools-san "-O0 ${sanitize#-O1 }"
  check "fuzz corpus and past crash inputs replayed under ASan+UBSan (tests/fuzz)" sh tests/scripts/test-fuzz-corpus.sh
  check "hostile snapshots, input logs and replay files: gcc (ASan+UBSan) and clang (-O2, UBSan) builds give the same answers" sh tests/scripts/fuzz-oracle.sh
  check "every scene and bad scene through the qphys command under ASan+UBSan" sh tests/scripts/test-ubsan-scenes.sh
  check "24 generated scenes over every keyword (tests/generated): load, the same hash under ASan+UBSan, snapshots resume, recordings verify" sh tests/scripts/generated-scenes.sh
  check "compounds keep the file's origin in qphys --json; the car squashes its box, not through the wall" sh tests/scripts/test-compound-pos.sh
  check "the car drives level.scene's hills and ramp for 10 s: no flip, no fall through, 3 or more wheels down on average; ASan+UBSan ends at the same hash" sh tests/scripts/level-drive.sh "$sanitize"
  check "qphys sizes its world to the file: the 8 256-cube wall runs, resumes and verifies without a rebuild; --max-bodies caps it" sh tests/scripts/big-scene.sh
  check "soak, short: 10 000 steps of a pile thrown again and again, checked every step, its input log replayed in a twin (make soak: 1 M)" \
    sh -c 'make -s build/host/soak && build/host/soak 10000'

  section "host: replay testing at scale"
  check "python package: the pytest suite (python/tests) over libqphys.so; pip install --no-build-isolation into a venv, then the suite against the installed package" sh tests/scripts/python.sh
  check "qphys verify over a generated corpus of 200 recordings (some damaged, diverged, of another version on purpose): each verdict as planted, -j1 and -j2 the same report and JUnit" sh tests/scripts/verify_corpus.sh
  check "examples/dask/verify.py: a scheduler and two workers on 127.0.0.1 verify the corpus; report and JUnit equal qphys verify's" sh tests/scripts/dask_verify.sh

  # These copy the boards' objects (and the host guard's, and make lib's), each into a folder
  # of its own: after the boards.
  await boards
  section "host: guards, exits and scenes on copies of the boards' objects"
  check "guard self-test: planted float and malloc are caught" sh tests/scripts/test-guards.sh
  check "Cortex-M exit with and without a debugger (semihosting or reset, under QEMU)" sh tests/scripts/test-port-exit.sh
  board_scenes
}

target_lane() {
  section "targets: cross-target determinism"
  check "probe: same hashes on every host build and board" sh tests/scripts/cross-check.sh probe
  check "SIMD row kernels on aarch64 (NEON, qemu-aarch64) and wasm32 (SIMD128, node): 200 000 random rows a kernel, the scalar kernels' bits" sh tests/scripts/rows-simd-cross.sh
  # Show every target's hash, equal or not.
  grep '^target ' "$logdir/probe:_same_hashes_on_every_host_build_and_board.log" 2>/dev/null | sed 's/^/    /'
  for b in $(ls boards | grep -v '^cpu$'); do
    only=""; [ "$(make -s --no-print-directory BOARD="$b" print-board-run)" = none ] && only=" (build only: no QEMU model)"
    check "board $b: builds, fits, passes the nm guard$only" make -s -j"$JOBS" BOARD="$b" all size
  done
  mark boards
  check "flash images (.bin/.hex) boot: vector table in place; on QEMU's STM32F405 the Nucleo's images print the probe's hash and stack20's goldens" sh tests/scripts/test-board-images.sh
  check "stack of a step on the micro:bit's Cortex-M0 within its bound (painted, 3 040 of the 3 136 bytes reserved)" sh tests/scripts/test-stack.sh
  check "cycles per step only from a counter that counts: n/a on QEMU's clock, counted and doubling when QEMU's clock is slowed (micro:bit SysTick), n/a on the M4 without DWT" sh tests/scripts/port-cycles.sh
  check "what the board computed: make BOARD=microbit movie draws stack20's 60 steps from the board's poses (the M4 level.scene's 30, its mesh read from the image), every frame equal to the host's; damage and divergence caught" sh tests/scripts/board-movie.sh
  # The scene check's host-side targets (its boards: board_scenes).
  SCENE_BOARDS=
  . tests/scripts/scene-check.sh
  check "24 generated scenes over every keyword (tests/generated) on every host-side target: the host's hash after 240 steps" sh tests/scripts/generated-targets.sh
  check "snapshots: save and resume with the golden hashes, portable to every target and board, damage refused" sh tests/scripts/test-snapshot-cli.sh
  check "lockstep demo: UDP peers under loss, delay and reordering end with the reference hash; a one-LSB desync is caught in its frame; a board peer under QEMU agrees" sh tests/scripts/test-lockstep.sh
  board_scenes
}

section dependencies
check "deps installed" sh tools/deps.sh
section "host build"
# Through ccache when installed, as make run builds it: the fresh-clone check's build compiles the
# same sources with the same flags and takes its objects (tools/with-ccache.sh).
check "host build (gcc -O2, -Werror)" sh tools/with-ccache.sh make -s -j"$JOBS" all

# The target lane in the background (its output in a file, its counts in another); the host
# lane here; then the target lane's output, followed as it comes, and its counts.
rm -rf "$logdir"/mark-* "$logdir"/claim-*
( pass=0; fail=0; lane=targets; target_lane; echo "$pass $fail" >"$logdir/lane-targets.count" ) >"$logdir/lane-targets.out" 2>&1 &
targets_pid=$!
host_lane
now; echo "== targets: the lane's output (since $((now_s - t_start)) s, so far and as it comes)"
tail -n +1 -f --pid="$targets_pid" "$logdir/lane-targets.out"
wait "$targets_pid"
read -r lane_pass lane_fail <"$logdir/lane-targets.count" || { lane_pass=0; lane_fail=1; echo "FAIL the target lane did not finish"; }
pass=$((pass + lane_pass)); fail=$((fail + lane_fail))

finish test
