#!/bin/sh
# SPDX-License-Identifier: MIT
# scene-check.sh - cross-target scene hashes: every scene of tests/scenes, run on
# every target, must print the per-step hash sequence of its golden file
# tests/scenes/golden/<scene>.hashes ("step hash" lines, written by tools/golden.sh).
#
#   sh tests/scripts/scene-check.sh            run alone: PASS/FAIL lines and a count, exit 0 if all pass
#   . tests/scripts/scene-check.sh             sourced by tests/run.sh: uses its check/pass/fail
#
# Host-side targets (each a build of the qphys tool through the Makefile, mk/tools.mk; compilers
# and flags in tools/targets.sh):
#   host        gcc -O2 (the default build, build/host/qphys)
#   host-O0     gcc -O0              host-Os     gcc -Os            host-clang  clang -O2
#   host-lowram gcc -O2 -DQP_CFG_LOW_RAM=1 (the micro:bit's layout: derived data recomputed on use)
#   i386        gcc -O2 -m32         aarch64, riscv64, s390x (big-endian): Debian's cross gccs, static
#   wasm32      clang wasm32-wasi, run by node
# A target this machine cannot execute runs under its emulator (qemu-i386 where the kernel has no
# IA-32 support, qemu-aarch64/-riscv64/-s390x, node), or is printed SKIPPED with the reason.
# Scenes larger than a world of the default capacities (pyramid64: 2081 bodies > QP_CFG_MAX_BODIES
# = 600) run on the same builds, whose qphys sizes its world to the file (the goldens are the
# default qphys's): on gcc -O2, i386 and low-RAM only, for SCENE_BIG_STEPS steps (~0.02 s a step
# at gcc -O2, ~1 s a step emulated). A build with other compile-time capacities giving the goldens' bits is
# shown by the boards' and the small-pool builds.
# Boards: tests/target/scene_main.c under QEMU for every scene on every board (a scene's mesh
# files built into the image beside it, tools/embed-scene.sh); a scene larger than a board's
# pools (BOARD_POOLS) prints SKIP and is skipped on that board only (so is a scene whose
# heightfields' heights or meshes do not fit the board's RAM, or whose text and OBJ files do not
# fit its flash: the image does not link); a board whose app does not build is reported as a
# failure of that board only. A board with no QEMU model (BOARD_RUN = none in its board.mk) is
# "build only": its scene runner must build and fit (one check), and it is never run nor
# counted as a failure.
#
# Environment (defaults in brackets):
#   SCENE_STEPS [300]                 steps per scene
#   SCENE_SLOW_STEPS [rain512=120]    fewer steps for these scenes on emulated targets and boards
#   SCENE_BIG_STEPS [60]              steps for scenes larger than the default capacities
#   SCENE_TARGETS [host host-O0 host-Os host-clang i386 host-lowram aarch64 riscv64 s390x wasm32] ("" for none)
#   SCENE_BOARDS [every board]         boards to run scenes on ("" for none)
#   SCENE_BOARD_SCENES [every scene]
#   SCENE_FILTER                      only scenes whose name contains this
#   SCENE_GOLDEN_DIR [tests/scenes/golden]
#   JOBS [2]                          parallel runs
# Outputs are kept in build/scene-check/<target>/<scene>.hashes.

# Everything here is prefixed sc_ so that sourcing it leaves run-tests.sh's variables alone.
sc_root=$(pwd)
sc_out=build/scene-check
sc_steps=${SCENE_STEPS:-300}
# Scenes trimmed on emulated targets only (qemu-user, node, the QEMU boards), where a step
# costs 10-50x the host's: "scene=steps ..." (rain512's 512 tumbling cubes are the slow one;
# its first 120 steps hold the fall and the first impacts of the pile).
sc_slow=${SCENE_SLOW_STEPS-rain512=120}
# sc_steps_on SCENE EMULATED(0/1): the steps SCENE runs on such a target.
sc_steps_on() {
  if [ "$2" = 1 ]; then
    for sc_kv in $sc_slow; do
      [ "${sc_kv%%=*}" = "$1" ] && { echo "${sc_kv#*=}"; return; }
    done
  fi
  echo "$sc_steps"
}
sc_big_steps=${SCENE_BIG_STEPS:-60}
sc_default_bodies=$(sed -n 's/^#define QP_CFG_MAX_BODIES \([0-9]*\)$/\1/p' include/qphys/config.h)
sc_targets=${SCENE_TARGETS-host host-O0 host-Os host-clang i386 host-lowram aarch64 riscv64 s390x wasm32}
sc_boards=${SCENE_BOARDS-$(ls boards | grep -v '^cpu$' | tr '\n' ' ')}
sc_board_scenes=${SCENE_BOARD_SCENES:-$(for sc_f in tests/scenes/*.scene; do sc_f=${sc_f##*/}; printf '%s ' "${sc_f%.scene}"; done)}
sc_jobs=${JOBS:-2}

# Standalone: the counters and check() of tests/run.sh.
sc_alone=0
if ! type check 2>/dev/null | grep -q function; then
  sc_alone=1
  pass=0
  fail=0
  logdir=build/test-logs
  mkdir -p "$logdir"
  check() {
    sc_ck_name=$1; shift
    sc_ck_log="$logdir/$(echo "$sc_ck_name" | tr ' /' '__').log"
    if "$@" >"$sc_ck_log" 2>&1; then pass=$((pass + 1)); echo "PASS $sc_ck_name"
    else fail=$((fail + 1)); echo "FAIL $sc_ck_name"; sed 's/^/    /' "$sc_ck_log" | tail -40; fi
  }
fi

. tools/targets.sh

# sc_build TAG TARGET [EXTRA_CFLAGS]: make build/TAG/qphys for TARGET (the table of
# tools/targets.sh; host-lowram is the host build in the micro:bit's layout, QP_CFG_LOW_RAM=1).
sc_build() {
  sc_extra=${3:-}
  case $2 in
    host-lowram) qp_target host; sc_extra="$sc_extra -DQP_CFG_LOW_RAM=1" ;;
    *) qp_target "$2" || { echo "scene-check: unknown target $2" >&2; return 1; } ;;
  esac
  rm -f "$sc_out/$1.built"
  make -s -j"$sc_jobs" BUILD_TAG="$1" HOST_OPT="$qt_opt" HOST_CC="$qt_cc" AR="$qt_ar" EXTRA_CFLAGS="$sc_extra" \
    "build/$1/qphys" && touch "$sc_out/$1.built"
}

# sc_compare SCENE TARGET OUT STEPS: OUT against the golden file's first STEPS lines. With no
# process but the comparing awk: make test compares about 700 scenes and targets.
sc_compare() {
  sc_name=${1##*/}; sc_name=${sc_name%.scene}
  sc_gold=${SCENE_GOLDEN_DIR:-tests/scenes/golden}/$sc_name.hashes
  if [ ! -f "$3.rc" ]; then echo "scene $sc_name, target $2: not run"; return 1; fi
  read -r sc_rc <"$3.rc" || sc_rc=
  if [ "$sc_rc" != 0 ]; then
    echo "scene $sc_name, target $2: qphys exited with $sc_rc"; cat "$3.err"; return 1
  fi
  if [ ! -f "$sc_gold" ]; then
    echo "scene $sc_name, target $2: no golden file $sc_gold (make golden writes it)"; return 1
  fi
  awk -v scene="$sc_name" -v target="$2" -v got="$3" -v n="$4" -v gold="$sc_gold" '
    NR <= n { want[NR] = $0 }
    END {
      if (NR < n) { printf "scene %s: %s has fewer than %d steps (make golden SCENE_STEPS=%d)\n", scene, gold, n, n; exit 1 }
      i = 0
      while ((getline line < got) > 0) {
        i++
        if (i > n) break
        if (line != want[i]) {
          split(want[i], w, " "); split(line, g, " ")
          printf "scene %s, target %s: first differing step %d: hash %s, golden %s\n", scene, target, i, g[2], w[2]
          exit 1
        }
      }
      if (i < n) { printf "scene %s, target %s: only %d of %d steps\n", scene, target, i, n; exit 1 }
      printf "scene %s, target %s: %d steps equal to the golden file\n", scene, target, n
    }' "$sc_gold"
}

# sc_replay_selftest QPHYS: record a scene with inputs, replay it (must match), then replay
# altered copies: divergences must name the step and body (exit 1), damage must be refused
# (exit 2) and never reported as a divergence (tests/scripts/test-replay.sh).
sc_replay_selftest() {
  sh tests/scripts/test-replay.sh "$1"
}

# sc_board_copy BOARD: the images build in a board folder of the scene check's own
# (build/scene-check/BOARD/board), so that other checks can build in build/BOARD meanwhile. It
# starts from a fresh copy of build/BOARD's core objects and their flags (times kept: make then
# compiles only the port and the app); a copy is never reused, as its dependency files name
# build/BOARD. Without build/BOARD, make builds the core there itself.
sc_board_copy() {
  sc_bdir=$sc_out/$1/board
  rm -rf "$sc_bdir/core" "$sc_bdir/fixmath" "$sc_bdir/core-flags.txt"
  mkdir -p "$sc_bdir"
  if [ -f "build/$1/core-flags.txt" ]; then
    cp -Rp "build/$1/core" "build/$1/fixmath" "build/$1/core-flags.txt" "$sc_bdir/"
  fi
}

# sc_board_build BOARD SCENE STEPS OUT: build tests/target/scene_main.c with the scene for BOARD
# in its folder (sc_board_copy first) and keep the image as OUT.elf and its QEMU command line
# as OUT.cmd (run later, in parallel).
sc_board_build() {
  sc_bdir=$sc_out/$1/board
  sc_gen=$sc_bdir/scene-gen
  sh tools/embed-scene.sh "$2" "$3" "$sc_gen/scene_data.h" || return 1
  make -s BOARD="$1" BOARD_DIR="$sc_bdir" APP=scene APP_CFLAGS_scene="-I$sc_gen -Itools" board || return 1
  cp "$sc_bdir/scene.elf" "$4.elf" || return 1
  make -s --no-print-directory BOARD="$1" BOARD_DIR="$sc_bdir" APP=scene APP_CFLAGS_scene="-I$sc_gen -Itools" \
    RUN_ELF="$4.elf" print-run >"$4.cmd"
}

# ---- run ----------------------------------------------------------------------------------
echo "== scene hashes (tests/scenes, $sc_steps steps; goldens in tests/scenes/golden)"
[ -z "$sc_slow" ] || echo "NOTE on emulated targets and boards these scenes run fewer steps: $sc_slow"
mkdir -p "$sc_out"
sc_t0=$(date +%s)

# 1-3. Host-side targets, when there are any (with none, nothing here is touched: the boards
# may be checked at the same time by another run, as make test does).
sc_ref=""
if [ -n "$sc_targets" ]; then
  # 1. Builds.
  sc_built=""
  for sc_t in $sc_targets; do
    rm -f "$sc_out/$sc_t.runner"
    # Natively where this machine runs the target's programs, else under its emulator
    # (qemu-user, node); SKIPPED with the reason when nothing here can run them.
    case $sc_t in host-lowram) qp_target host ;; *) qp_target "$sc_t" ;; esac
    # shellcheck disable=SC2086
    if ! sc_r=$(qp_runner $qt_cc $qt_opt); then echo "SKIPPED target $sc_t: $sc_r"; continue; fi
    [ -z "$sc_r" ] || { echo "NOTE $sc_t runs under $sc_r"
      echo "$sc_r" >"$sc_out/$sc_t.runner"; }
    # (check's status is not the command's: sc_build leaves a mark when make succeeded)
    check "build qphys ($sc_t)" sc_build "$sc_t" "$sc_t"
    [ -f "$sc_out/$sc_t.built" ] && sc_built="$sc_built $sc_t"
  done
  # The builds that run the scenes larger than the default capacities.
  sc_big_built=""
  for sc_t in host i386 host-lowram; do
    case " $sc_built " in *" $sc_t "*) sc_big_built="$sc_big_built $sc_t" ;; esac
  done

  # 2. Runs, JOBS at a time: one line per (runner, binary, scene, steps, output) for xargs;
  # the runner is an emulator prefix, or "-" for a target this machine runs natively.
  sc_runner() { if [ -f "$sc_out/$1.runner" ]; then read -r sc_line <"$sc_out/$1.runner"; echo "$sc_line"; else echo -; fi; }
  sc_list=$sc_out/runs.txt
  : >"$sc_list"
  # The reference build (pool checks, the bad-scene and replay checks): the first that runs natively.
  sc_ref=""
  for sc_t in $sc_built; do [ -f "$sc_out/$sc_t.runner" ] || { sc_ref=$sc_t; break; }; done
  for sc_s in tests/scenes/*.scene; do
    sc_n=$(basename "$sc_s" .scene)
    case $sc_n in *"${SCENE_FILTER:-}"*) ;; *) continue ;; esac
    # A scene larger than a world of the default capacities (qphys sizes its world to it)
    # runs on fewer builds, for fewer steps.
    if [ -n "$sc_ref" ] && "build/$sc_ref/qphys" check "$sc_s" >"$sc_out/check.txt" 2>&1 &&
       [ "$(sed -n 's/.*: ok: \([0-9]*\) bodies.*/\1/p' "$sc_out/check.txt")" -gt "$sc_default_bodies" ]; then
      for sc_t in $sc_big_built; do
        mkdir -p "$sc_out/$sc_t"
        echo "$(sc_runner "$sc_t") build/$sc_t/qphys $sc_s $sc_big_steps $sc_out/$sc_t/$sc_n.hashes" >>"$sc_list"
      done
    else
      for sc_t in $sc_built; do
        mkdir -p "$sc_out/$sc_t"
        sc_r=$(sc_runner "$sc_t")
        echo "$sc_r build/$sc_t/qphys $sc_s $(sc_steps_on "$sc_n" "$([ "$sc_r" = - ] && echo 0 || echo 1)") $sc_out/$sc_t/$sc_n.hashes" >>"$sc_list"
      done
    fi
  done
  for sc_t in $sc_built; do rm -f "$sc_out/$sc_t"/*.rc; done
  # xargs runs a tiny sh per line (the function is not visible to it).
  xargs -r -P "$sc_jobs" -L 1 sh -c 'r=$1; [ "$r" = - ] && r=; $r "$2" run "$3" --hashes --steps "$4" >"$5" 2>"$5.err"; echo $? >"$5.rc"' run-one <"$sc_list"

  # 3. Comparisons, one check per scene and target.
  while read -r sc_run sc_bin sc_s sc_n sc_o; do
    sc_t=${sc_bin%/*}; sc_t=${sc_t##*/}
    sc_sn=${sc_s##*/}
    check "scene ${sc_sn%.scene} on $sc_t ($sc_n steps)" sc_compare "$sc_s" "$sc_t" "$sc_o" "$sc_n" </dev/null
  done <"$sc_list"
  if [ -n "$sc_ref" ]; then
    check "qphys: bad scenes exit 2 naming FILE:LINE:COLUMN (tests/scripts/bad-scenes.sh)" sh tests/scripts/bad-scenes.sh "build/$sc_ref/qphys"
    check "qphys: record, replay --verify, divergence reports" sc_replay_selftest "build/$sc_ref/qphys"
  fi
  echo "scene hashes on the host: $(($(date +%s) - sc_t0)) s"
fi
sc_t1=$(date +%s)

# 4. Boards (QEMU): every image built first (one board folder at a time, only the scene's
# object changes), then the emulators run JOBS at a time, then the comparisons.
if [ -n "$sc_boards" ] && command -v qemu-system-arm >/dev/null 2>&1; then
  sc_run_boards=""
  for sc_b in $sc_boards; do
    if [ "$(make -s --no-print-directory BOARD="$sc_b" print-board-run)" = none ]; then
      echo "BUILD ONLY $sc_b: no QEMU model (BOARD_RUN = none); its scene runner is built, not run"
      sc_board_copy "$sc_b"
      check "scene runner on $sc_b builds and fits its RAM (build only)" \
        sc_board_build "$sc_b" tests/scenes/stack20.scene 1 "$sc_out/$sc_b-build-only"
      continue
    fi
    sc_run_boards="$sc_run_boards $sc_b"
  done
  # Each board's images in its own folder, so boards build side by side, JOBS at a time.
  # (The waits name their processes: sourced by tests/run.sh, this shell has others.)
  sc_nb=0
  sc_pids=""
  for sc_b in $sc_run_boards; do
    (
      mkdir -p "$sc_out/$sc_b"
      : >"$sc_out/$sc_b/runs.txt"
      sc_board_copy "$sc_b"
      for sc_n in $sc_board_scenes; do
        case $sc_n in *"${SCENE_FILTER:-}"*) ;; *) continue ;; esac
        sc_o=$sc_out/$sc_b/$sc_n.hashes
        rm -f "$sc_o.rc" "$sc_o.cmd"
        if sc_board_build "$sc_b" "tests/scenes/$sc_n.scene" "$(sc_steps_on "$sc_n" 1)" "$sc_o" >"$sc_out/$sc_b/$sc_n.build.log" 2>&1; then
          echo "$sc_o" >>"$sc_out/$sc_b/runs.txt"
        elif grep -q '^ *\(heightfield\|mesh\) ' "tests/scenes/$sc_n.scene" && grep -q "region .RAM. overflowed" "$sc_out/$sc_b/$sc_n.build.log"; then
          # The runner holds the heightfields' heights and the meshes' vertices, triangles and
          # trees in RAM: a board without room skips the scene.
          echo "SKIP $sc_n: its level geometry (heights, mesh vertices, triangles and trees) does not fit this board's RAM ($(grep -o 'overflowed by [0-9]* bytes' "$sc_out/$sc_b/$sc_n.build.log" | head -1))" >"$sc_o"
          echo 3 >"$sc_o.rc"
        elif grep -q "region .FLASH. overflowed" "$sc_out/$sc_b/$sc_n.build.log"; then
          # The runner embeds the scene's text (and its OBJ files') in flash: a scene too large
          # for it is skipped there.
          echo "SKIP $sc_n: its text and the engine do not fit this board's flash ($(grep -o 'overflowed by [0-9]* bytes' "$sc_out/$sc_b/$sc_n.build.log" | head -1))" >"$sc_o"
          echo 3 >"$sc_o.rc"
        else
          echo "board build failed" >"$sc_o.err"; echo 2 >"$sc_o.rc"; cat "$sc_out/$sc_b/$sc_n.build.log" >>"$sc_o.err"
        fi
      done
    ) &
    sc_pids="$sc_pids $!"
    sc_nb=$((sc_nb + 1))
    # shellcheck disable=SC2086
    [ $((sc_nb % sc_jobs)) = 0 ] && { wait $sc_pids; sc_pids=""; }
  done
  # shellcheck disable=SC2086
  [ -z "$sc_pids" ] || wait $sc_pids
  # (Each board's list apart: another run may check other boards at the same time.)
  for sc_b in $sc_run_boards; do cat "$sc_out/$sc_b/runs.txt"; done |
    xargs -r -P "$sc_jobs" -L 1 sh -c 'sh -c "$(cat "$1.cmd")" </dev/null >"$1" 2>"$1.err"; echo $? >"$1.rc"' run-one
  for sc_b in $sc_run_boards; do
    for sc_n in $sc_board_scenes; do
      case $sc_n in *"${SCENE_FILTER:-}"*) ;; *) continue ;; esac
      sc_o=$sc_out/$sc_b/$sc_n.hashes
      read -r sc_rc <"$sc_o.rc" || sc_rc=
      if [ "$sc_rc" = 3 ] && grep -q '^SKIP' "$sc_o"; then
        # The scene is larger than this board's pools: skipped on this board only.
        echo "SKIP scene $sc_n on $sc_b: $(sed -n 's/^SKIP [^:]*: //p' "$sc_o")"
        continue
      fi
      sc_bn=$(sc_steps_on "$sc_n" 1)
      check "scene $sc_n on $sc_b ($sc_bn steps)" sc_compare "tests/scenes/$sc_n.scene" "$sc_b" "$sc_o" "$sc_bn"
    done
  done
  echo "scene hashes on the boards: $(($(date +%s) - sc_t1)) s"
elif [ -n "$sc_boards" ]; then
  echo "SKIPPED scenes on the boards ($sc_boards): qemu-system-arm is not installed (make deps)"
fi

if [ "$sc_alone" = 1 ]; then
  echo "scene-check: $pass passed, $fail failed"
  [ "$fail" = 0 ]
  exit $?
fi
