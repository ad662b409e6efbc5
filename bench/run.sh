#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/run.sh (make bench): build the benchmarks, run qphys, ODE and Bullet (and Jolt, given
# JOLT_SRC) on the host in the same run, print them side by side, then the emulated Cortex-M4's
# instruction counts. Prints tables on stdout, and a full run (no part skipped, the default
# steps and repeats) writes the same tables as markdown into docs/benchmarks/bench.md, the
# page's current figures, which nobody edits by hand; the fidelity table goes likewise into
# docs/benchmarks/fidelity.md (bench/fidelity.sh). Besides those, only the build is written
# (build/host, build/bench, build/qemu-mps2-an386); the raw key=value lines go to a temporary
# folder, or to $BENCH_RAW if set (kept).
#
#   BENCH_STEPS=N    host steps per run (default 600, as docs/design.md §9)
#   BENCH_REPEAT=R   host runs per scene; each step counts its fastest run (default 2)
#   BENCH_TARGET=0   skip the Cortex-M4 part (both layouts)
#   BENCH_LOWRAM=0   skip the Cortex-M4 run of the low-RAM layout (QP_CFG_LOW_RAM, the micro:bit's)
#   BENCH_COUNT=0    skip the Cortex-M4 run of the counting variant (rows per pass, QP_BENCH_COUNT)
#   BENCH_HOST=0     skip the host part
#   BENCH_SCALE=0    skip the scaling table (bench/scale.sh: pyramid 32..128 and rain 512..8192, qphys,
#                    Bullet and Jolt; about 2 minutes)
#   BENCH_FIDELITY=0 skip the fidelity table at the end (bench/fidelity.sh, make fidelity; ~15 s)
#   BENCH_DOC=FILE   where the markdown tables go (default docs/benchmarks/bench.md on a full run,
#                    none on a partial one; "": none)
#   BENCH_TURNS=N    rounds of qphys and Bullet in turn on each scene, sleep off (default 3; 0: none)
#   BENCH_RAIN_TURNS="M ..."  rain512 with its cubes turned by (M n) mod 360 degrees instead of (37 n),
#                    sleep off, qphys, Bullet and Jolt on each over its first BENCH_WINDOW steps
#                    (default 20 multipliers, 37 the file's; "": none)
#   BENCH_WINDOW=N   the steps from the start that the files of the Jolt table and the rain turns are
#                    timed over (default 300: the fall and the impacts, where a frame budget is set)
#   JOLT_SRC=DIR     a JoltPhysics source tree: Jolt is built from it once into build/bench/jolt/
#                    (mk/bench.mk bench-jolt; cmake, Release, one thread) and timed on the scene files
#                    beside qphys and Bullet (bench/peers/jolt_bench.cpp). Without it, the Jolt table
#                    says how to get one.
#   JOLT_DETERMINISTIC=1  Jolt's cross-platform deterministic build instead (build/bench/jolt-deterministic/)
# Takes about 5.5 minutes on 2 cores (most of it rain512, its 13 turns about a minute, the scaling
# table about 2 and QEMU).
# qphys runs three variants: sleep off, sleep on (three-point, the default policy)
# and sleep on with the energy policy; the peers run sleep off and on.
set -eu
cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}
STEPS=${BENCH_STEPS:-600}
REPEAT=${BENCH_REPEAT:-2}
BOARD_NAME=qemu-mps2-an386
APP_SRCS="bench/bench_target.c bench/scenes.c"
APP_CFLAGS="-Isrc -Ibench"
LOWRAM="BOARD_DIR=build/$BOARD_NAME-lowram BOARD_POOLS=-DQP_CFG_LOW_RAM=1"
COUNT="BOARD_DIR=build/$BOARD_NAME-count BOARD_POOLS=-DQP_BENCH_COUNT=1"

if [ -n "${BENCH_RAW:-}" ]; then raw=$BENCH_RAW; mkdir -p "$raw"; keep=1; else raw=$(mktemp -d); keep=0; fi
cleanup() { [ "$keep" = 1 ] || rm -rf "$raw"; }
trap cleanup EXIT INT TERM

say() { printf '%s\n' "$*" >&2; }

# ---- dependencies and builds (build output on stderr, tables on stdout) -------------
if [ ! -f build/deps/libfixmath/libfixmath/fix16.c ] && [ -z "${LIBFIXMATH_SRC:-}" ] || \
   ! command -v arm-none-eabi-gcc >/dev/null 2>&1 || ! command -v qemu-system-arm >/dev/null 2>&1; then
  sh tools/deps.sh >&2
fi
sh bench/deps.sh >&2
say "bench: building"
$MAKE -s build/host/libqphys.a >&2
$MAKE -s -j2 -f mk/bench.mk bench-build >&2
jolt=""
jolt_v=""
jolt_det="determinism off"
jolt_dir=build/bench/jolt
if [ "${JOLT_DETERMINISTIC:-0}" = 1 ]; then jolt_det="determinism on"; jolt_dir=build/bench/jolt-deterministic; fi
if [ -n "${JOLT_SRC:-}" ]; then
  say "bench: building Jolt from $JOLT_SRC (once: it takes minutes the first time)"
  if $MAKE -s -f mk/bench.mk bench-jolt JOLT_SRC="$JOLT_SRC" JOLT_DETERMINISTIC="${JOLT_DETERMINISTIC:-0}" >&2; then
    jolt=./$jolt_dir/jolt_bench
    jolt_v=$(sed -n 's/^project(JoltPhysics VERSION \([0-9.]*\).*/\1/p' "$JOLT_SRC/Build/CMakeLists.txt")
  else
    say "bench: the Jolt build failed; the Jolt columns stay empty"
  fi
fi
if [ "${BENCH_TARGET:-1}" != 0 ]; then
  $MAKE -s BOARD=$BOARD_NAME APP=bench APP_SRCS_bench="$APP_SRCS" APP_CFLAGS_bench="$APP_CFLAGS" >&2
  if [ "${BENCH_LOWRAM:-1}" != 0 ]; then
    $MAKE -s BOARD=$BOARD_NAME $LOWRAM APP=bench APP_SRCS_bench="$APP_SRCS" APP_CFLAGS_bench="$APP_CFLAGS" >&2
  fi
  if [ "${BENCH_COUNT:-1}" != 0 ]; then
    $MAKE -s BOARD=$BOARD_NAME $COUNT APP=bench APP_SRCS_bench="$APP_SRCS" APP_CFLAGS_bench="$APP_CFLAGS" >&2
  fi
  # The micro:bit (16 KB of RAM) running stack20: its RAM as the linker lays it out.
  sh tools/embed-scene.sh tests/scenes/stack20.scene 300 build/microbit/scene-gen/scene_data.h
  $MAKE -s BOARD=microbit APP=scene size > "$raw/microbit.txt" || say "bench: stack20 does not fit the micro:bit"
fi
# Each board's bytes per body, contact, shape and pair in its layout and pools (bench/bytes.c, compiled
# with the board's compiler and flags and read from the assembly): "board layout body contact shape pair world",
# then the state the world hash reads of a body, a contact and a shape (bench/bytes.h).
fix=$($MAKE -s --no-print-directory print-fixmath-dir)
: >"$raw/boards.txt"
for bd in boards/*/board.mk; do
  bn=$(basename "$(dirname "$bd")")
  [ "$bn" = cpu ] && continue
  # shellcheck disable=SC2046
  set -- $($MAKE -s --no-print-directory BOARD="$bn" print-board-cflags 2>/dev/null)
  [ $# -gt 0 ] && command -v "$1" >/dev/null 2>&1 || continue
  case " $* " in *" -DQP_CFG_LOW_RAM=1 "*) layout=low-RAM ;; *) layout=default ;; esac
  "$@" -Iinclude -Isrc -I"$fix" -S -o - bench/bytes.c 2>/dev/null |
    awk -v b="$bn" -v l="$layout" '/^qpb_[a-z]*_[a-z]*:/ { k = $1 } /\.word/ && k != "" { v[k] = $2; k = "" }
      END { if (v["qpb_bytes_world:"] != "") print b, l, v["qpb_bytes_body:"], v["qpb_bytes_contact:"], v["qpb_bytes_shape:"], v["qpb_bytes_pair:"], v["qpb_bytes_world:"],
                                                  v["qpb_state_body:"], v["qpb_state_contact:"], v["qpb_state_shape:"] }' \
    >>"$raw/boards.txt"
done

# ---- host runs, one after the other (never two timed programs at once) ---------------
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
load0=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
if [ "${BENCH_HOST:-1}" != 0 ]; then
  say "bench: qphys on the host ($STEPS steps, $REPEAT runs per scene)"
  ./build/bench/bench_host --steps "$STEPS" --repeat "$REPEAT" > "$raw/qphys.txt"
  say "bench: qphys level geometry (ray casts on a 100 352-triangle mesh, heightfield and mesh contacts)"
  ./build/bench/bench_level --repeat "$((REPEAT + 3))" > "$raw/level.txt"
  say "bench: ODE"
  ./build/bench/ode_bench --steps "$STEPS" --repeat "$REPEAT" > "$raw/ode.txt"
  say "bench: Bullet"
  ./build/bench/bullet_bench --steps "$STEPS" --repeat "$REPEAT" > "$raw/bullet.txt"
  # The runs above are minutes apart, and a shared machine's speed drifts between them (rain512's
  # ratio to Bullet read 0.87 in one make bench and 1.27-1.38 in runs taken in turn): the ratio to
  # quote comes from rounds that run qphys and then Bullet on the same scene, back to back.
  turns=${BENCH_TURNS:-3}
  if [ "$turns" -gt 0 ]; then
    say "bench: qphys and Bullet in turn ($turns rounds a scene, sleep off)"
    for s in $(sed -n 's/^qphys scene=\([^ ]*\) sleep=off .*/\1/p' "$raw/qphys.txt"); do
      r=1
      while [ "$r" -le "$turns" ]; do
        # The median step and the 99th percentile (the seventh slowest of 600: a frame budget).
        q=$(./build/bench/bench_host --steps "$STEPS" --repeat "$REPEAT" --scene "$s" --no-stages --no-energy |
            sed -n 's/^qphys scene=[^ ]* sleep=off .* us_median=\([0-9.]*\) .* us_p99=\([0-9.]*\) .*/q=\1 qp=\2/p')
        b=$(./build/bench/bullet_bench --steps "$STEPS" --repeat "$REPEAT" --scene "$s" |
            sed -n 's/^bullet scene=[^ ]* sleep=off .* us_median=\([0-9.]*\) .* us_p99=\([0-9.]*\) .*/b=\1 bp=\2/p')
        echo "turn scene=$s sleep=off round=$r ${q:-q=-} ${b:-b=-}" >> "$raw/turns.txt"
        r=$((r + 1))
      done
    done
  fi
  # rain512 is chaotic: how long its pile takes to settle, and so qphys's median step, moves by a
  # tenth or more with a turn of its cubes, where Bullet's step hardly moves. The same pile turned
  # other ways, each file run by qphys (bench_window over all its steps) and then by Bullet.
  # A scene file's first $window steps, sleep off, timed by qphys (bench_window), Bullet and Jolt back to
  # back: "q=MEAN qp=P99 b=.. bp=.. j=.. jp=.." (microseconds, each step its fastest of $REPEAT runs).
  window=${BENCH_WINDOW:-300}
  three() {
    q=$(./build/bench/bench_window "$1" 1 "$window" "$REPEAT" |
        sed -n 's/.* step_p99=\([0-9.]*\) step_mean=\([0-9.]*\) .*/q=\2 qp=\1/p')
    b=$(./build/bench/bullet_bench --file "$1" --steps "$window" --time --repeat "$REPEAT" |
        sed -n 's/.* step_p99=\([0-9.]*\) step_mean=\([0-9.]*\).*/b=\2 bp=\1/p')
    j=""
    [ -z "$jolt" ] || j=$($jolt "$1" --steps "$window" --time --repeat "$REPEAT" |
        sed -n 's/.* step_mean=\([0-9.]*\) step_median=[0-9.]* step_p99=\([0-9.]*\) .*/j=\1 jp=\2/p')
    echo "${q:-q=- qp=-} ${b:-b=- bp=-} ${j:-j=- jp=-}"
  }
  mkdir -p "$raw/files"
  # The named scenes as their files say, with sleep off: Jolt beside qphys and Bullet.
  if [ -n "$jolt" ] && [ "$turns" -gt 0 ]; then
    say "bench: qphys, Bullet and Jolt in turn on the scene files ($turns rounds, first $window steps, sleep off)"
    for s in stack20 pyramid20 rain512; do
      f="$raw/files/$s.scene"
      sed 's/^\(world.*\)sleep on/\1sleep off/' "tests/scenes/$s.scene" > "$f"
      r=1
      while [ "$r" -le "$turns" ]; do
        echo "jturn scene=$s round=$r $(three "$f")" >> "$raw/turns.txt"
        r=$((r + 1))
      done
    done
  fi
  rain_turns=${BENCH_RAIN_TURNS-29 31 37 41 43 47 53 59 61 67 71 73 79 83 89 97 101 103 107 109}
  if [ -n "$rain_turns" ]; then
    say "bench: rain512 turned $(echo $rain_turns | wc -w) ways, qphys, Bullet${jolt:+ and Jolt} in turn (first $window steps)"
    mkdir -p "$raw/rain"
    for m in $rain_turns; do
      f="$raw/rain/rain512_turn$m.scene"
      # The file's cube n (its line order) is turned by (37 n) mod 360 degrees: here by (m n).
      awk -v m="$m" '/^world/ { sub(/sleep on/, "sleep off") } /^box/ { $NF = (m * n++) % 360 } { print }' \
        tests/scenes/rain512.scene > "$f"
      echo "rainturn scene=rain512 sleep=off turn=$m $(three "$f")" >> "$raw/turns.txt"
    done
  fi
  # The scaling table (bench/scale.sh): larger scenes, qphys, Bullet and Jolt in turn.
  if [ "${BENCH_SCALE:-1}" != 0 ]; then
    say "bench: scaling (pyramid 32 to 128, rain 512 to 8192; about 2 minutes)"
    SCALE_JOLT=$jolt sh bench/scale.sh > "$raw/scale.txt" || say "bench: the scaling table failed"
  fi
fi
load1=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
if [ "${BENCH_TARGET:-1}" != 0 ]; then
  say "bench: Cortex-M4 under QEMU"
  run=$($MAKE -s BOARD=$BOARD_NAME APP=bench APP_SRCS_bench="$APP_SRCS" APP_CFLAGS_bench="$APP_CFLAGS" \
        RUN_TIMEOUT=900 print-run)
  rc=0
  sh -c "$run" < /dev/null > "$raw/m4.txt" || rc=$?
  [ "$rc" = 0 ] || say "bench: the Cortex-M4 app exited with code $rc"
  if [ "${BENCH_LOWRAM:-1}" != 0 ]; then
    say "bench: Cortex-M4 under QEMU, low-RAM layout"
    run=$($MAKE -s BOARD=$BOARD_NAME $LOWRAM APP=bench APP_SRCS_bench="$APP_SRCS" APP_CFLAGS_bench="$APP_CFLAGS" \
          RUN_TIMEOUT=900 print-run)
    rc=0
    sh -c "$run" < /dev/null >> "$raw/m4.txt" || rc=$?
    [ "$rc" = 0 ] || say "bench: the low-RAM Cortex-M4 app exited with code $rc"
  fi
  if [ "${BENCH_COUNT:-1}" != 0 ]; then
    say "bench: Cortex-M4 under QEMU, counting rows"
    run=$($MAKE -s BOARD=$BOARD_NAME $COUNT APP=bench APP_SRCS_bench="$APP_SRCS" APP_CFLAGS_bench="$APP_CFLAGS" \
          RUN_TIMEOUT=900 print-run)
    rc=0
    sh -c "$run" < /dev/null >> "$raw/m4.txt" || rc=$?
    [ "$rc" = 0 ] || say "bench: the counting Cortex-M4 app exited with code $rc"
  fi
fi

# ---- tables -------------------------------------------------------------------------
# A run with a part skipped or fewer steps is not the page's figures: it writes no page unless
# BENCH_DOC names one.
full=1
for knob in "${BENCH_HOST:-1}" "${BENCH_TARGET:-1}" "${BENCH_LOWRAM:-1}" "${BENCH_COUNT:-1}" "${BENCH_SCALE:-1}"; do
  [ "$knob" != 0 ] || full=0
done
[ "$STEPS" = 600 ] && [ "$REPEAT" = 2 ] && [ "${BENCH_TURNS:-3}" = 3 ] && [ -z "${BENCH_RAIN_TURNS+set}" ] &&
  [ -z "${BENCH_WINDOW+set}" ] || full=0
if [ -n "${BENCH_DOC+set}" ]; then doc=$BENCH_DOC; elif [ "$full" = 1 ]; then doc=docs/benchmarks/bench.md; else doc=""; fi
ode_v=$(pkg-config --modversion ode 2>/dev/null || echo '?')
bullet_v=$(pkg-config --modversion bullet 2>/dev/null || echo '?')
cc_v=$(gcc -dumpfullversion 2>/dev/null || echo '?')
touch "$raw/qphys.txt" "$raw/ode.txt" "$raw/bullet.txt" "$raw/turns.txt" "$raw/m4.txt" "$raw/microbit.txt" "$raw/boards.txt" "$raw/scale.txt"
mb_ram=$(sed -n 's/^size microbit scene: RAM *//p' "$raw/microbit.txt")
tables() {

awk -v cpu="$cpu" -v load0="$load0" -v load1="$load1" -v odev="$ode_v" -v bulletv="$bullet_v" -v ccv="$cc_v" \
    -v repeat="$REPEAT" -v do_host="${BENCH_HOST:-1}" -v do_target="${BENCH_TARGET:-1}" -v mb_ram="$mb_ram" -v boards="$raw/boards.txt" \
    -v joltv="$jolt_v" -v joltdet="$jolt_det" -v window="${BENCH_WINDOW:-300}" '
function kv(line,    n, i, a, p) {
  delete F
  n = split(line, a, " ")
  F["_engine"] = a[1]
  for (i = 2; i <= n; i++) { p = index(a[i], "="); if (p) F[substr(a[i], 1, p - 1)] = substr(a[i], p + 1) }
}
function get(e, s, z, k) { return ((e SUBSEP s SUBSEP z SUBSEP k) in D) ? D[e, s, z, k] : "-" }
function ratio(a, b) { return (a == "-" || b == "-" || b + 0 == 0) ? "-" : sprintf("%.2f", a / b) }
function num(v, f) { return (v == "-" || v == "") ? "-" : sprintf(f, v) }
function mv(e, s, z) { return get(e, s, z, (s ~ /^stack/) ? "drift_cm" : "maxmove_cm") }
function pct(v) { return (v == "-" || v == "") ? "-" : sprintf("%.1f%%", v * 100) }
function cv(s, k) { return get("m4cnt", s, "off", k "_x10") / 10 }
function zl(z) { return z == "on" ? "3-point" : z }
# The median of X[s, 1..n] (sorted into a scratch copy; n is a few rounds).
function med(X, s, n,    i, j, t, v) {
  for (i = 1; i <= n; i++) v[i] = X[s, i] + 0
  for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j] < v[j - 1]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
  return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
function abbrev(n) { if (n == "check_sleepers") return "chk_sleep"; if (n == "penetration") return "penetr"; \
  if (n == "collisions") return "collis"; if (n == "contacts") return "contact"; if (n == "integrate") return "integr"; return n }
{
  kv($0)
  e = F["_engine"]; s = F["scene"]; z = F["sleep"]
  if (e == "rainturn") {
    if (F["q"] != "-" && F["b"] != "-") {
      nr++; RT[nr] = F["turn"]; RQ[nr] = F["q"]; RB[nr] = F["b"]; RQP[nr] = F["qp"]; RBP[nr] = F["bp"]
      RJ[nr] = F["j"]; RJP[nr] = F["jp"]; if (F["j"] != "-") nrj++
    }
    next
  }
  if (e == "jturn") {
    if (F["q"] != "-" && F["j"] != "-") {
      if (!(s in jseen)) { jseen[s] = 1; jorder[++njs] = s }
      k = ++nj[s]; JQ[s, k] = F["q"]; JQP[s, k] = F["qp"]; JB[s, k] = F["b"]; JBP[s, k] = F["bp"]; JJ[s, k] = F["j"]; JJP[s, k] = F["jp"]
    }
    next
  }
  if (e == "turn") {
    if (F["q"] != "-" && F["b"] != "-") {
      nt[s]++; turns++; TQ[s, nt[s]] = F["q"]; TB[s, nt[s]] = F["b"]; TQP[s, nt[s]] = F["qp"]; TBP[s, nt[s]] = F["bp"]
    }
    next
  }
  if (s == "" ) { if (e == "m4") for (k in F) M[k] = F[k]; if (e == "m4lr") for (k in F) L[k] = F[k]; \
                  if (e == "m4cnt") for (k in F) C[k] = F[k]; next }
  if (!((s) in seen)) { seen[s] = 1; order[++ns] = s }
  for (k in F) D[e, s, z, k] = F[k]
}
END {
  if (do_host != 0) {
    printf "== Host: time per step, qphys vs ODE %s (QuickStep) and Bullet %s (SI solver)\n", odev, bulletv
    printf "   %s; gcc %s -O2; load average %s at the start, %s at the end (shared machine)\n", cpu, ccv, load0, load1
    printf "   10 iterations, 60 Hz, unit cubes 1 kg, friction 0.5, no bounce. us = microseconds per step: each step timed\n"
    printf "   in %s identical runs, its fastest kept, then the median over the steps (qphys: through qp_world_step).\n", repeat
    printf "   ratio = qphys median / peer median (below 1: qphys faster). qphys sleep on = its default policy\n"
    printf "   (three-point); the energy policy is in the sleep-policy table below. With sleep\n"
    printf "   on the median is an asleep step once the scene sleeps before mid-run; the mean counts the whole run.\n"
    printf "   stands: stacks = top cube drift < 5 cm and |sag| < 2 cm at the end; pyramid = every cube moved < 5 cm.\n"
    printf "   moved: stacks = horizontal drift of the top cube, others = largest displacement of any cube.\n\n"
    printf "%-10s %-5s %5s %10s %10s %10s %7s %8s  %-22s  %-16s %s\n", "scene", "sleep", "steps", "qphys_us", "ode_us", "bullet_us", \
           "q/ode", "q/bullet", "mean us q/ode/bt", "stands q/ode/bt", "moved cm q/ode/bt"
    for (i = 1; i <= ns; i++) for (zi = 0; zi < 2; zi++) {
      s = order[i]; z = zi ? "on" : "off"
      if (get("qphys", s, z, "steps") == "-" && get("ode", s, z, "steps") == "-") continue
      q = get("qphys", s, z, "us_median"); o = get("ode", s, z, "us_median"); b = get("bullet", s, z, "us_median")
      printf "%-10s %-5s %5s %10s %10s %10s %7s %8s  %-22s  %-16s %s\n", s, z, get("qphys", s, z, "steps"), num(q, "%.1f"), num(o, "%.1f"), \
             num(b, "%.1f"), ratio(q, o), ratio(q, b), \
             num(get("qphys", s, z, "us_mean"), "%.0f") "/" num(get("ode", s, z, "us_mean"), "%.0f") "/" num(get("bullet", s, z, "us_mean"), "%.0f"), \
             get("qphys", s, z, "stands") "/" get("ode", s, z, "stands") "/" get("bullet", s, z, "stands"), \
             num(mv("qphys", s, z), "%.2f") "/" num(mv("ode", s, z), "%.1f") "/" num(mv("bullet", s, z), "%.1f")
    }

    if (turns > 0) {
      printf "\n== Host: qphys and Bullet in turn, sleep off: each round runs qphys, then Bullet, on the same scene back\n"
      printf "   to back, so that both see the machine as it is then; ratio = qphys / Bullet within a round. The\n"
      printf "   median ratio is the one to quote: the table above runs qphys, ODE and Bullet minutes apart.\n"
      printf "   p99 = the 99th percentile step (of 600 steps the seventh slowest; each step the fastest of its runs):\n"
      printf "   the frame a game must budget for, which the median does not show (medians of the rounds).\n\n"
      printf "%-10s %6s %12s %12s   %-24s %10s %10s %9s\n", "scene", "rounds", "qphys_us", "bullet_us", "ratio min / median / max", \
             "q_p99_us", "bt_p99_us", "p99 q/bt"
      for (i = 1; i <= ns; i++) {
        s = order[i]; n = nt[s]
        if (n == 0) continue
        lo = hi = TQ[s, 1] / TB[s, 1]
        for (r = 1; r <= n; r++) { R[s, r] = TQ[s, r] / TB[s, r]; if (R[s, r] < lo) lo = R[s, r]; if (R[s, r] > hi) hi = R[s, r] }
        for (r = 1; r <= n; r++) RP[s, r] = TBP[s, r] > 0 ? TQP[s, r] / TBP[s, r] : 0
        printf "%-10s %6d %12.1f %12.1f   %-24s %10.1f %10.1f %9.2f\n", s, n, med(TQ, s, n), med(TB, s, n), \
               sprintf("%.2f / %.2f / %.2f", lo, med(R, s, n), hi), med(TQP, s, n), med(TBP, s, n), med(RP, s, n)
      }
    }

    printf "\n== Host: qphys beside Bullet %s and Jolt%s on the scene files, first %s steps, sleep off\n", bulletv, \
           (joltv == "" ? "" : " " joltv), window
    if (joltv == "") {
      printf "   Jolt: not built; make bench JOLT_SRC=/path/to/JoltPhysics\n"
    } else {
      printf "   Each round: tests/scenes/NAME.scene with sleep off, timed by qphys (bench_window), Bullet (bullet_bench\n"
      printf "   --file --time) and Jolt (jolt_bench --time) back to back, %s runs each from a fresh world, each step\n", repeat
      printf "   its fastest run; mean and p99 (99th percentile) step in us, medians of the rounds. rain512 turns: the\n"
      printf "   turned files of the next table, means over the turns. Jolt: Release, its default CPU features and\n"
      printf "   link-time optimisation, one thread (JobSystemSingleThreaded), 10 velocity and 2 position steps (its\n"
      printf "   default), no damping, cross-platform %s. q/jolt = qphys / Jolt (at most 1: qphys as fast).\n\n", joltdet
      printf "%-16s %6s %9s %9s %9s %7s %9s %9s %9s %7s\n", "scene", "rounds", "q_mean", "bt_mean", "jolt_mean", "q/jolt", \
             "q_p99", "bt_p99", "jolt_p99", "q/jolt"
      for (i = 1; i <= njs; i++) {
        s = jorder[i]; n = nj[s]
        printf "%-16s %6d %9.1f %9.1f %9.1f %7.2f %9.1f %9.1f %9.1f %7.2f\n", s, n, med(JQ, s, n), med(JB, s, n), med(JJ, s, n), \
               med(JQ, s, n) / med(JJ, s, n), med(JQP, s, n), med(JBP, s, n), med(JJP, s, n), med(JQP, s, n) / med(JJP, s, n)
      }
      if (nrj > 0) {
        sq = sb = sj = sqp = sbp = sjp = 0
        for (r = 1; r <= nr; r++) if (RJ[r] != "-") { sq += RQ[r]; sb += RB[r]; sj += RJ[r]; sqp += RQP[r]; sbp += RBP[r]; sjp += RJP[r] }
        printf "%-16s %6d %9.1f %9.1f %9.1f %7.2f %9.1f %9.1f %9.1f %7.2f\n", "rain512 turns", nrj, sq / nrj, sb / nrj, sj / nrj, \
               sq / sj, sqp / nrj, sbp / nrj, sjp / nrj, sqp / sjp
      }
    }

    if (nr > 0) {
      printf "\n== Host: rain512 turned other ways, sleep off, first %s steps: cube n turned by (M n) mod 360 degrees\n", window
      printf "   about (1, 1, 1) (the file: M = 37). The pile is chaotic: how it falls and settles, and so qphys'"'"'s\n"
      printf "   steps, move with M; the ratio of the means is the general case, the file one draw. Each: qphys\n"
      printf "   (bench_window), then Bullet (--file --time)%s; mean and p99 step in us.\n\n", (joltv == "" ? "" : ", then Jolt (--time)")
      printf "%-6s %9s %9s %7s %9s %7s %9s %9s %7s %9s %7s\n", "M", "q_mean", "bt_mean", "q/bt", "jolt_mean", "q/jolt", \
             "q_p99", "bt_p99", "q/bt", "jolt_p99", "q/jolt"
      sq = sb = sqp = sbp = sj = sjp = 0
      for (r = 1; r <= nr; r++) {
        sq += RQ[r]; sb += RB[r]; sqp += RQP[r]; sbp += RBP[r]; if (RJ[r] != "-") { sj += RJ[r]; sjp += RJP[r] }
        printf "%-6s %9.1f %9.1f %7.2f %9s %7s %9.1f %9.1f %7.2f %9s %7s\n", RT[r], RQ[r], RB[r], RQ[r] / RB[r], \
               num(RJ[r], "%.1f"), ratio(RQ[r], RJ[r]), RQP[r], RBP[r], (RBP[r] > 0 ? RQP[r] / RBP[r] : 0), \
               num(RJP[r], "%.1f"), ratio(RQP[r], RJP[r])
      }
      jm = nrj == nr ? sj / nr : "-"; jpm = nrj == nr ? sjp / nr : "-"
      printf "%-6s %9.1f %9.1f %7.2f %9s %7s %9.1f %9.1f %7.2f %9s %7s\n", "mean", sq / nr, sb / nr, sq / sb, \
             num(jm, "%.1f"), ratio(sq / nr, jm), sqp / nr, sbp / nr, sqp / sbp, num(jpm, "%.1f"), ratio(sqp / nr, jpm)
      printf "       (means over the turns; ratios of the means)\n"
    }

    printf "\n== Host: sleep (sleep on). first all-asleep step; asleep = median us of %s fully asleep steps, and as a\n", "300"
    printf "   fraction of the sleep-off median step. never<=N: not all asleep within N steps.\n\n"
    printf "%-10s %-22s %-22s %-22s\n", "scene", "qphys first/us/frac", "ode first/us/frac", "bullet first/us/frac"
    for (i = 1; i <= ns; i++) {
      s = order[i]
      line = sprintf("%-10s", s)
      split("qphys ode bullet", E, " ")
      for (j = 1; j <= 3; j++) {
        e = E[j]
        cell = get(e, s, "on", "first_asleep") "/" get(e, s, "on", "asleep_us") "/" get(e, s, "on", "asleep_frac")
        line = line sprintf(" %-22s", cell)
      }
      print line
    }

    printf "\n== Host: qphys sleep policies (three-point = default, energy). first = first step at which every body\n"
    printf "   sleeps (searched up to 4 x steps); asleep at = bodies asleep after steps 60/120/180/300/600 (of n);\n"
    printf "   asleep us = median of 300 fully asleep steps, frac = / sleep-off median (goal < 0.05); (woke) = a body\n"
    printf "   woke during those 300 steps; stands/moved as above, at the end of the run.\n\n"
    printf "%-10s %-11s %-11s %-28s %4s %14s %8s %7s %s\n", "scene", "policy", "first", "asleep at 60/120/180/300/600", "of", \
           "asleep_us", "frac", "stands", "moved cm"
    for (i = 1; i <= ns; i++) for (zi = 1; zi < 3; zi++) {
      s = order[i]; z = zi == 1 ? "on" : "energy"
      if (get("qphys", s, z, "steps") == "-") continue
      ser = get("qphys", s, z, "asleep_at"); gsub(/[0-9]+:/, "", ser); gsub(/,/, "/", ser)
      printf "%-10s %-11s %-11s %-28s %4s %14s %8s %7s %s\n", s, get("qphys", s, z, "policy"), get("qphys", s, z, "first_asleep"), \
             ser, get("qphys", s, z, "bodies"), get("qphys", s, z, "asleep_us"), get("qphys", s, z, "asleep_frac"), \
             get("qphys", s, z, "stands"), num(mv("qphys", s, z), "%.2f")
    }

    printf "\n== Host: qphys per step (means over the run): pairs from the broad phase, contact manifolds and points,\n"
    printf "   collision detection (broad + narrow phase) in us and as a share of the step (stage-by-stage run,\n"
    printf "   steps disturbed by other processes left out); peers: touching pairs and contact points.\n\n"
    printf "%-10s %-7s %8s %9s %8s %11s %8s %10s %10s %10s %10s %6s\n", "scene", "sleep", "pairs", "contacts", "points", \
           "collide_us", "collide", "ode_pairs", "ode_pts", "bt_pairs", "bt_pts", "staged"
    for (i = 1; i <= ns; i++) for (zi = 0; zi < 3; zi++) {
      s = order[i]; z = zi == 0 ? "off" : zi == 1 ? "on" : "energy"
      if (get("qphys", s, z, "steps") == "-") continue
      printf "%-10s %-7s %8s %9s %8s %11s %8s %10s %10s %10s %10s %6s\n", s, zl(z), get("qphys", s, z, "pairs"), \
             get("qphys", s, z, "contacts"), get("qphys", s, z, "points"), get("qphys", s, z, "collide_us"), \
             (get("qphys", s, z, "collide_share") == "-" ? "-" : get("qphys", s, z, "collide_share") "%"), \
             get("ode", s, z, "contacts"), get("ode", s, z, "points"), get("bullet", s, z, "contacts"), \
             get("bullet", s, z, "points"), get("qphys", s, z, "staged")
    }

    printf "\n== Host: qphys stage shares (%% of the step, each stage of qp__step_stages timed)\n\n"
    nst = 0
    for (i = 1; i <= ns && nst == 0; i++) for (zi = 0; zi < 3 && nst == 0; zi++) {
      z = zi == 0 ? "off" : zi == 1 ? "on" : "energy"
      if (get("qphys-stages", order[i], z, "names") != "-") nst = split(get("qphys-stages", order[i], z, "names"), S, ",")
    }
    hdr = sprintf("%-10s %-7s %9s", "scene", "sleep", "step_us")
    for (j = 1; j <= nst; j++) hdr = hdr sprintf(" %8s", abbrev(S[j]))
    print hdr
    for (i = 1; i <= ns; i++) for (zi = 0; zi < 3; zi++) {
      s = order[i]; z = zi == 0 ? "off" : zi == 1 ? "on" : "energy"
      if (get("qphys-stages", s, z, "total_us") == "-") continue
      line = sprintf("%-10s %-7s %9s", s, zl(z), get("qphys-stages", s, z, "total_us"))
      for (j = 1; j <= nst; j++) line = line sprintf(" %8s", get("qphys-stages", s, z, "stage_" S[j]))
      print line
    }
    if (get("qphys", "stack20", "on", "file") != "-")
      printf "\n   Scenes built through the API equal tests/scenes/*.scene (world hash): %s %s %s %s\n", \
             "stack20=" get("qphys", "stack20", "on", "file"), "stack50=" get("qphys", "stack50", "on", "file"), \
             "pyramid20=" get("qphys", "pyramid20", "on", "file"), "rain512=" get("qphys", "rain512", "on", "file")
  }

  if (do_target != 0) {
    printf "\n== Cortex-M4 (QEMU mps2-an386, -icount shift=0): instructions per step (SysTick ticks x 40), not cycles\n"
    printf "   qphys world %s bytes (QP_CFG_MAX_BODIES %s); staged step = qp_world_step: %s\n", M["world_bytes"], M["max_bodies"], M["staged"]
    printf "   collide = broad + narrow phase. asleep@ = first all-asleep step, at 60/120 = bodies asleep after those steps,\n"
    printf "   asleep_ins = mean instructions of 60 fully asleep steps, frac = / sleep-off mean. 3-point = sleep on (default).\n\n"
    printf "%-10s %-7s %5s %13s %13s %12s %8s %7s %9s %9s %12s %7s\n", "scene", "sleep", "steps", "instr_mean", "instr_median", \
           "collide", "share", "stands", "asleep@", "at60/120", "asleep_ins", "frac"
    for (i = 1; i <= ns; i++) for (zi = 0; zi < 3; zi++) {
      s = order[i]; z = zi == 0 ? "off" : zi == 1 ? "on" : "energy"
      if (get("m4", s, z, "steps") == "-") { if (get("m4", s, z, "error") != "-") printf "%-10s %-5s error: %s\n", s, z, get("m4", s, z, "error"); continue }
      ser = get("m4", s, z, "asleep_at"); gsub(/[0-9]+:/, "", ser); gsub(/,/, "/", ser)
      printf "%-10s %-7s %5s %13s %13s %12s %8s %7s %9s %9s %12s %7s\n", s, zl(z), get("m4", s, z, "steps"), get("m4", s, z, "instr_mean"), \
             get("m4", s, z, "instr_median"), get("m4", s, z, "collide_instr"), pct(get("m4", s, z, "collide_share")), \
             get("m4", s, z, "stands"), get("m4", s, z, "first_asleep"), ser, get("m4", s, z, "asleep_instr"), get("m4", s, z, "asleep_frac")
    }
    if (M["status"] != "done" && !(("m4", "stack20", "off", "steps") in D)) print "   (no output from the Cortex-M4 run)"
    if (L["status"] == "done") {
      printf "\n== Cortex-M4: the low-RAM layout (QP_CFG_LOW_RAM=1, as on the micro:bit: solver rows, tangents, rotation\n"
      printf "   matrices and world inertia recomputed on use; same hashes) against the default, sleep off, same pools.\n"
      printf "   world %s bytes low-RAM vs %s default (QP_CFG_MAX_BODIES %s).\n\n", L["world_bytes"], M["world_bytes"], L["max_bodies"]
      printf "%-10s %5s %16s %16s %7s\n", "scene", "steps", "default_instr", "lowram_instr", "ratio"
      for (i = 1; i <= ns; i++) {
        s = order[i]
        if (get("m4lr", s, "off", "steps") == "-") continue
        printf "%-10s %5s %16s %16s %7s\n", s, get("m4lr", s, "off", "steps"), get("m4", s, "off", "instr_mean"), \
               get("m4lr", s, "off", "instr_mean"), ratio(get("m4lr", s, "off", "instr_mean"), get("m4", s, "off", "instr_mean"))
      }
    }
    if (C["status"] == "done") {
      printf "\n== Cortex-M4: where an awake step goes (sleep off, means per step over the run). rows = solver rows\n"
      printf "   visited (QP_BENCH_COUNT build: a manifold point is a normal row, the friction of a manifold 3 rows:\n"
      printf "   two tangents and the twist); instr = instructions of the stage in the normal build; instr/row.\n"
      printf "   elastic = collision pass; warm = warm start (in the contact stage); shock sweeps of shock levels x\n"
      printf "   shock_iterations possible; penetration: points past the slop + anchor rows of sticking contacts.\n\n"
      printf "%-10s %-12s %10s %10s %10s %12s %8s  %s\n", "scene", "pass", "sweeps", "normal", "friction", "instr", "instr/row", "note"
      for (i = 1; i <= ns; i++) {
        s = order[i]
        if (get("m4cnt", s, "off", "steps") == "-") continue
        split("collisions contacts shock penetration narrow", P, " ")
        for (j = 1; j <= 5; j++) {
          p = P[j]; ins = get("m4", s, "off", "stage_" p)
          if (p == "collisions") { sw = sprintf("%.1f", cv(s, "collide_sweeps")); nr = cv(s, "collide_rows"); fr = 0; note = "+ the rows of every contact prepared" }
          if (p == "contacts") { sw = sprintf("%.1f", cv(s, "contact_sweeps")); nr = cv(s, "contact_normal"); \
                                 fr = cv(s, "contact_friction"); note = sprintf("+ warm start %.0f rows; %.0f quiet visits skipped", cv(s, "warm_rows"), cv(s, "contact_skipped")) }
          if (p == "shock") { sw = sprintf("%.1f", cv(s, "shock_sweeps")); nr = cv(s, "shock_normal"); fr = cv(s, "shock_friction"); \
                              note = sprintf("%.1f levels", cv(s, "shock_levels")) }
          if (p == "penetration") { sw = sprintf("%.1f", cv(s, "pen_sweeps")); nr = cv(s, "pen_normal"); fr = cv(s, "pen_anchor"); note = "" }
          if (p == "narrow") { sw = "-"; nr = cv(s, "narrow_calls"); fr = 0; \
                               note = sprintf("pairs collided; %.1f touching; %.1f manifolds kept; isqrt %.0f calls/step (all stages)", cv(s, "narrow_touching"), cv(s, "narrow_kept"), cv(s, "isqrt")) }
          rows = nr + fr
          printf "%-10s %-12s %10s %10.0f %10.0f %12s %8s  %s\n", s, p, sw, nr, fr, ins, \
                 (ins == "-" || rows == 0) ? "-" : sprintf("%.0f", ins / rows), note
        }
      }
    }
    if (M["bytes_body"] != "") {
      printf "\n== Memory (bytes): what each body, contact (with its solver rows when kept), shape slot and pair adds to\n"
      printf "   qp_world in each layout (every array indexed by it), and the world with the default pools; in\n"
      printf "   brackets the state the world hash reads, which a layout with the same bits keeps (docs/memory.md).\n\n"
      printf "%-9s %10s %10s %9s %5s %12s\n", "layout", "body", "contact", "shape", "pair", "world"
      printf "%-9s %10s %10s %9s %5s %12s\n", "default", M["bytes_body"] " (" M["state_body"] ")", M["bytes_contact"] " (" M["state_contact"] ")", \
             M["bytes_shape"] " (" M["state_shape"] ")", M["bytes_pair"], M["world_bytes"]
      if (L["bytes_body"] != "")
        printf "%-9s %10s %10s %9s %5s %12s\n", "low-RAM", L["bytes_body"] " (" L["state_body"] ")", L["bytes_contact"] " (" L["state_contact"] ")", \
               L["bytes_shape"] " (" L["state_shape"] ")", L["bytes_pair"], L["world_bytes"]
      nb = 0
      while ((getline line < boards) > 0) {
        if (nb++ == 0) {
          printf "\n   Each board in its own layout and pools (boards/*/board.mk; bench/bytes.c compiled for it):\n\n"
          printf "%-16s %-8s %10s %10s %9s %5s %12s\n", "board", "layout", "body", "contact", "shape", "pair", "world"
        }
        split(line, B, " ")
        printf "%-16s %-8s %10s %10s %9s %5s %12s\n", B[1], B[2], B[3] " (" B[8] ")", B[4] " (" B[9] ")", B[5] " (" B[10] ")", B[6], B[7]
      }
      if (mb_ram != "") printf "\n   micro:bit (16 KB) running stack20 (boards/microbit pools, low-RAM layout): RAM %s\n", mb_ram
    }
  }
}' "$raw/qphys.txt" "$raw/ode.txt" "$raw/bullet.txt" "$raw/turns.txt" "$raw/m4.txt"

# Snapshots (bench_host's qphys-snapshot lines): take and restore an awake 211-body world.
if grep -q '^qphys-snapshot' "$raw/qphys.txt"; then
  printf '\n== Host: snapshot and restore of pyramid20 (211 bodies, sleep off) against one awake step, µs\n\n'
  printf '%-10s %5s %7s %9s %11s %10s %6s\n' scene step bytes step_us snapshot_us restore_us ratio
  awk '/^qphys-snapshot/ { delete F; for (i = 2; i <= NF; i++) { p = index($i, "="); F[substr($i, 1, p - 1)] = substr($i, p + 1) }
       printf "%-10s %5s %7s %9s %11s %10s %6s\n", F["scene"], F["step"], F["bytes"], F["step_us"], F["snapshot_us"], F["restore_us"], F["ratio"] }' \
    "$raw/qphys.txt"
fi

# Ray casts (bench_host's qphys-rays lines): every shape cast against the broad phase's pruning.
if grep -q '^qphys-rays' "$raw/qphys.txt"; then
  printf '\n== Host: ray casts on rain512 (sleep on), microseconds per ray: brute = every shape cast (qp_world_raycast\n'
  printf '   before it used the broad phase), pruned = qp_world_raycast now; same = every answer the same bits.\n'
  printf '   2000 rays per step (down, at a body, any direction; 0.5-32 m), each time the fastest of %s passes.\n\n' "$((REPEAT + 1))"
  printf '%-10s %5s %6s %6s %10s %10s %8s %5s\n' scene step rays hits brute_us pruned_us speedup same
  awk '/^qphys-rays/ { delete F; for (i = 2; i <= NF; i++) { p = index($i, "="); F[substr($i, 1, p - 1)] = substr($i, p + 1) }
       printf "%-10s %5s %6s %6s %10s %10s %8s %5s\n", F["scene"], F["step"], F["rays"], F["hits"], F["brute_us"], F["pruned_us"], F["speedup"], F["same"] }' \
    "$raw/qphys.txt"
fi

# Level geometry (bench_level's lines): rays on a large mesh, a contact on a heightfield and a mesh.
if grep -q '^qphys-level-rays' "$raw/level.txt" 2>/dev/null; then
  printf '\n== Host: ray casts on a mesh of 100 352 triangles (112 m square), microseconds per ray\n'
  printf '   Each ray timed alone, its fastest of %s runs; a third down, a third slanted 10-60 m, a third missing.\n' "$((REPEAT + 3))"
  printf '   shape = qp_level_raycast, world = qp_world_raycast on a world holding the mesh; brute = testing every\n'
  printf '   triangle; same = every shape answer (hit, distance, triangle) equal to the brute force one.\n\n'
  printf '%7s %6s %5s %11s %10s %11s %10s %9s %5s\n' tris rays hits shape_mean shape_max world_mean world_max brute same
  awk '/^qphys-level-rays/ { delete F; for (i = 2; i <= NF; i++) { p = index($i, "="); F[substr($i, 1, p - 1)] = substr($i, p + 1) }
       printf "%7s %6s %5s %11s %10s %11s %10s %9s %5s\n", F["tris"], F["rays"], F["hits"], F["shape_mean_us"], F["shape_max_us"],
              F["world_mean_us"], F["world_max_us"], F["brute_mean_us"], F["same"] }' "$raw/level.txt"
  printf '\n== Host: a contact on a 10 000-cell heightfield against a mesh of the same 20 000 triangles\n'
  printf '   200 boxes and spheres dropped on rolling waves (sleep off); each step its fastest of %s runs;\n' "$((REPEAT + 3))"
  printf '   us_per_contact = the step time over its contact manifolds (the same bodies and solver in both).\n\n'
  printf '%-12s %6s %6s %6s %9s %9s %8s %15s\n' shape cells tris steps us_step contacts points us_per_contact
  awk '/^qphys-level-contacts/ { delete F; for (i = 2; i <= NF; i++) { p = index($i, "="); F[substr($i, 1, p - 1)] = substr($i, p + 1) }
       printf "%-12s %6s %6s %6s %9s %9s %8s %15s\n", F["shape"], F["cells"], F["tris"], F["steps"], F["us_step"], F["contacts"],
              F["points"], F["us_per_contact"] }' "$raw/level.txt"
fi

if [ -s "$raw/scale.txt" ]; then
  printf '\n'
  cat "$raw/scale.txt"
fi

}
tables | tee "$raw/tables.txt"

# The page: each "== title" of the tables becomes a heading, the text under it a fixed-width block.
if [ -n "$doc" ]; then
  mkdir -p "$(dirname "$doc")"
  changed=$(git diff --quiet HEAD -- src include 2>/dev/null || echo ', with uncommitted changes to the core')
  {
    printf '# make bench: the current tables\n\n'
    printf '<!-- Written by bench/run.sh (make bench); do not edit: run make bench again. -->\n\n'
    printf 'Measured %s on %s: qphys %s%s, gcc %s, ODE %s, Bullet %s, Jolt %s.\n' "$(date -u +%Y-%m-%d)" \
      "${cpu:-an unknown CPU}" "$(cat VERSION)" "$changed" "$cc_v" "$ode_v" "$bullet_v" "${jolt_v:-not built}${jolt_v:+, cross-platform $jolt_det}"
    printf 'What each table measures and how: docs/benchmarks.md. The fidelity table: docs/benchmarks/fidelity.md.\n'
    awk '/^== / { if (open) print "```"; sub(/^== /, ""); printf "\n## %s\n\n```text\n", $0; open = 1; started = 0; blank = 0; next }
         !open { next }
         /^$/ { if (started) blank++; next }
         { for (; blank > 0; blank--) print ""; started = 1; print }
         END { if (open) print "```" }' "$raw/tables.txt"
  } >"$doc"
  say "bench: the tables are in $doc"
fi

# The fidelity table (bench/fidelity.sh): qphys beside Bullet on the same edge cases.
if [ "${BENCH_HOST:-1}" != 0 ] && [ "${BENCH_FIDELITY:-1}" != 0 ]; then
  printf '\n== Fidelity at the edges, qphys beside Bullet on the same scene files (make fidelity)\n\n'
  sh bench/fidelity.sh || say "bench: the fidelity table failed"
fi
