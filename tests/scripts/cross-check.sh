#!/bin/sh
# SPDX-License-Identifier: MIT
# cross-check.sh - the determinism harness: build and run one app on every target and
# require byte-identical output from all of them.
#
#   sh tests/scripts/cross-check.sh [-a APP] [-b "BOARD ..."] [-n] [-O "-O2 -Os"] [APP]
#     -a APP    the app (default probe; also accepted as the last argument); its sources are
#               APP_SRCS_<APP> in mk/board.mk or the Makefile
#     -b LIST   boards to run (default: every boards/*/board.mk)
#     -n        host targets only (no QEMU)
#     -O LIST   optimisation levels for the boards (default: BOARD_OPT's default, -O2)
#
# Host-side targets (tools/targets.sh; CROSS_HOST_TARGETS to choose): host-O0, host (gcc -O2),
# host-Os, host-clang (clang -O2), i386, aarch64, riscv64, s390x (big-endian) and wasm32, each run
# natively or under its emulator (qemu-user, node), or printed as SKIPPED with the reason if
# nothing here can run it. The probe is built through the Makefile in build/<target> (shared with
# tests/scripts/scene-check.sh); another app is compiled directly with the pinned FIXMATH_FLAGS: src/ and
# libfixmath into an archive, then the app + port/host + port/qp_fmt.c.
# Boards: make BOARD=<b> APP=<app>, then QEMU (-icount shift=0); they build beside the host
# targets. Each target runs as soon as it is built, beside the next builds. A board with no QEMU
# model (BOARD_RUN = none) is built and printed as "BUILD ONLY", never run or failed.
# The whole output of each target is kept in build/cross/<app>/<target>.out and compared
# with the first target's; any difference, build failure or non-zero exit is a failure.
# Prints "target <name>: <last line>" per target, then PASS or FAIL.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2

app=probe
boards=
host_only=0
board_opts=
while getopts a:b:nO: opt; do
  case $opt in
    a) app=$OPTARG ;;
    b) boards=$OPTARG ;;
    n) host_only=1 ;;
    O) board_opts=$OPTARG ;;
    *) echo "usage: $0 [-a APP] [-b \"BOARD ...\"] [-n] [-O \"-O2 -Os\"] [APP]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] && app=$1

out=build/cross/$app
rm -rf "$out"
mkdir -p "$out"

# What the app is made of, as the build system knows it (any board will do for the query).
any_board=$(ls boards/*/board.mk | head -n 1 | sed 's#boards/\(.*\)/board.mk#\1#')
info=$(make -s --no-print-directory BOARD="$any_board" APP="$app" print-app 2>&1) || {
  echo "cross-check: cannot get the sources of app '$app':" >&2; echo "$info" >&2; exit 2; }
get() { echo "$info" | sed -n "s/^$1=//p"; }
app_srcs=$(get APP_SRCS)
app_cflags=$(get APP_CFLAGS)
fix_dir=$(get FIXMATH_DIR)
fix_flags=$(get FIXMATH_FLAGS)
fix_srcs=$(get FIXMATH_SRCS)
[ -n "$boards" ] || boards=$(get KNOWN_BOARDS)
if [ ! -f "$fix_dir/fix16.c" ]; then
  echo "cross-check: libfixmath source missing in $fix_dir (run: make deps)" >&2; exit 2
fi
port_srcs="port/host/*.c"
[ -f port/qp_fmt.c ] && port_srcs="$port_srcs port/qp_fmt.c"

targets=""   # in order; the first one is the reference
# start_run NAME: run a built target in the background at once, so that the emulators (the
# micro:bit's takes ~20 s) run while the next targets compile; compared after the last build.
start_run() {
  targets="$targets $1"
  rdir=$out/$1
  ( if [ -f "$rdir/$app" ]; then timeout "${RUN_TIMEOUT:-300}" $(cat "$rdir/cmd"); else sh -c "$(cat "$rdir/cmd")"; fi \
      > "$out/$1.out" 2> "$rdir/run.err" < /dev/null
    echo $? > "$rdir/exit" ) &
}
failed=0
note() { echo "cross-check: $*"; }

# ---- board builds -----------------------------------------------------------------
# They build beside the host targets (other folders, other compilers), in a subshell whose
# output, started targets and failure are read back after it ends, so the log keeps its order.
# share_core BOARD: a board whose core flags equal an earlier board's (the same CPU, options and
# pools: the Nucleo's and the Netduino's) starts from a copy of that board's core objects, times
# kept and their dependency files renamed, so make compiles only its port and app. Only a board
# folder without core objects is seeded; the copy is what make would have compiled.
share_core() {
  [ -d "build/$1/core" ] && return
  make -s --no-print-directory BOARD="$1" print-board-run >/dev/null 2>&1   # writes its core-flags.txt
  for p in $shared_from; do
    [ -d "build/$p/core" ] && cmp -s "build/$p/core-flags.txt" "build/$1/core-flags.txt" || continue
    cp -Rp "build/$p/core" "build/$p/fixmath" "build/$1/" &&
      for f in "build/$1"/core/*.d "build/$1"/fixmath/*.d; do
        [ -f "$f" ] && sed "s#build/$p/#build/$1/#g" "$f" >"$f.tmp" && mv "$f.tmp" "$f"
      done &&
      cp -p "build/$p/core-flags.txt" "build/$1/core-flags.txt" &&
      echo "board $1: the core objects of $p, compiled with the same flags"
    return
  done
}
shared_from=""

board_builds() {
  if [ $host_only -eq 0 ]; then
    command -v arm-none-eabi-gcc >/dev/null 2>&1 && command -v qemu-system-arm >/dev/null 2>&1 || {
      note "boards: arm-none-eabi-gcc or qemu-system-arm missing (run: make deps)"; failed=1; boards=""; }
    for b in $boards; do
      for o in ${board_opts:-default}; do
        if [ "$o" = default ]; then name=$b; optarg=""; else name=$b$o; optarg="BOARD_OPT=$o"; fi
        dir=$out/$name
        mkdir -p "$dir"
        [ -n "$optarg" ] || share_core "$b"
        # shellcheck disable=SC2086
        if make -s -j"${JOBS:-2}" --no-print-directory BOARD="$b" APP="$app" $optarg >"$dir/build.log" 2>&1; then
          [ -n "$optarg" ] || shared_from="$shared_from $b"
          if [ "$(make -s --no-print-directory BOARD="$b" print-board-run)" = none ]; then
            echo "BUILD ONLY board $name: built, not run (no QEMU model: BOARD_RUN = none)"
            continue
          fi
          cp "build/$b/$app.elf" "$dir/$app.elf"
          # shellcheck disable=SC2086
          make -s --no-print-directory BOARD="$b" APP="$app" $optarg RUN_ELF="$dir/$app.elf" print-run > "$dir/cmd"
          start_run "$name"
        else
          note "$name: build failed:"; sed 's/^/    | /' "$dir/build.log" | tail -n 20
          failed=1
        fi
      done
    done
  fi
  wait
  echo "$targets" >"$out/board-targets"
  echo "$failed" >"$out/board-failed"
}
( targets=""; board_builds ) >"$out/boards.log" 2>&1 &

# ---- host builds -----------------------------------------------------------------
. tools/targets.sh
host_runner=""   # the emulator prefix of the next host_build ("" = runs natively)
host_build() { # name cc opt...: core + libfixmath into an archive (only what the app uses is linked)
  name=$1; cc=$2; shift 2
  dir=$out/$name
  mkdir -p "$dir/obj"
  if [ "$app" = probe ]; then
    # Through the Makefile, in the build folder the scene check uses for the same target
    # (BUILD_TAG = the target's name), so the two share one build of the core.
    # shellcheck disable=SC2086
    if make -s -j"${JOBS:-2}" BUILD_TAG="$name" HOST_CC="$qt_cc" HOST_OPT="$qt_opt" AR="$qt_ar" \
         "build/$name/probe" >"$dir/build.log" 2>&1 && cp "build/$name/probe" "$dir/$app"; then
      echo "$host_runner $dir/$app" > "$dir/cmd"
      start_run "$name"
    else
      note "$name: build failed:"; sed 's/^/    | /' "$dir/build.log" | tail -n 20
      failed=1
    fi
    return
  fi
  ok=1
  for src in src/*.c $fix_srcs; do
    [ -f "$src" ] || continue
    obj=$dir/obj/$(echo "$src" | tr '/' '_' | sed 's/\.c$/.o/')
    # shellcheck disable=SC2086
    $cc "$@" -std=c11 -Iinclude -I"$fix_dir" $fix_flags -c "$src" -o "$obj" >>"$dir/build.log" 2>&1 || ok=0
  done
  # shellcheck disable=SC2086
  if [ $ok = 1 ] && $qt_ar rcs "$dir/libqphys.a" "$dir"/obj/*.o >>"$dir/build.log" 2>&1 &&
     $cc "$@" -std=c11 -Iinclude -Iport -I"$fix_dir" $fix_flags $app_cflags \
       $app_srcs $port_srcs "$dir/libqphys.a" -o "$dir/$app" >>"$dir/build.log" 2>&1; then
    echo "$host_runner $dir/$app" > "$dir/cmd"
    start_run "$name"
  else
    note "$name: build failed:"; sed 's/^/    | /' "$dir/build.log" | tail -n 20
    failed=1
  fi
}

# Every host-side target of tools/targets.sh: natively where this machine runs its programs,
# else under its emulator; SKIPPED with the reason when nothing here can run them.
for t in ${CROSS_HOST_TARGETS:-host-O0 host host-Os host-clang i386 aarch64 riscv64 s390x wasm32}; do
  qp_target "$t" || { note "unknown target $t"; failed=1; continue; }
  # shellcheck disable=SC2086
  if host_runner=$(qp_runner $qt_cc $qt_opt); then host_build "$t" $qt_cc $qt_opt
  else echo "SKIPPED target $t: $host_runner"; fi
done
host_runner=""

# ---- wait for the runs started as each target was built ------------------------------------
wait
cat "$out/boards.log"
targets="$targets $(cat "$out/board-targets" 2>/dev/null)"
[ "$(cat "$out/board-failed" 2>/dev/null)" = 0 ] || failed=1

# ---- compare -------------------------------------------------------------------------------
ref=""
for t in $targets; do
  o=$out/$t.out
  rc=$(cat "$out/$t/exit")
  last=$(tail -n 1 "$o")
  echo "target $t: ${last:-(no output)}"
  if [ "$rc" != 0 ]; then
    if [ "$rc" = 124 ]; then why="timed out"; else why="exited with code $rc"; fi
    note "$t $why"; sed 's/^/    | /' "$out/$t/run.err" | tail -n 10
    failed=1
  fi
  if [ -z "$ref" ]; then ref=$t; continue; fi
  if ! cmp -s "$out/$ref.out" "$o"; then
    failed=1
    awk -v ref="$ref" -v t="$t" '
      NR == FNR { a[FNR] = $0; na = FNR; next }
      { b[FNR] = $0; nb = FNR }
      END {
        n = na > nb ? na : nb
        for (i = 1; i <= n; i++) {
          x = (i <= na) ? a[i] : "(end of output)"; y = (i <= nb) ? b[i] : "(end of output)"
          if (x != y || (i > na) != (i > nb)) {
            printf "cross-check: %s disagrees with %s at line %d:\n    %s: %s\n    %s: %s\n", t, ref, i, ref, x, t, y
            exit
          }
        }
      }' "$out/$ref.out" "$o"
  fi
done
if [ -z "$targets" ]; then failed=1; fi
if [ $failed -ne 0 ]; then echo "FAIL"; exit 1; fi
echo "PASS ($(echo $targets | wc -w) targets agree on $(wc -l < "$out/$ref.out") lines of $app output)"
