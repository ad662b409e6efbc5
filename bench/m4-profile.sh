#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/m4-profile.sh: where an emulated Cortex-M4 spends its instructions, by function and
# by source line (the M4 has no callgrind; make bench gives stage totals only).
#
#   sh bench/m4-profile.sh [-l] [-0] [-a AT] [-n N] SCENE STEPS
#     -l    the low-RAM layout (QP_CFG_LOW_RAM=1, the micro:bit's)
#     -0    Cortex-M0 code (ARMv6-M, -mcpu=cortex-m0), run unchanged on the Cortex-M3 model
#           (qemu-mps2-an385, 4 MB of RAM where the micro:bit has 16 KB): the M0's instructions
#     -a AT start from step AT: the host's qphys runs the scene AT steps and saves a snapshot,
#           which the board resumes (a later window than the first steps, which collide anew)
#     -n N  print the N largest functions and lines (default 30)
#
# Builds the board scene runner (tests/target/scene_main.c) for qemu-mps2-an386 with SCENE
# compiled in, runs it under qemu-system-arm -singlestep -d exec,nochain and counts every
# executed address (bench/m4prof.c) and the branches taken there. Counts are exact
# instructions, as make bench's, of loading the scene (or snapshot), STEPS steps and a hash
# after each step: keep STEPS small (each step of pyramid20 is about 20 M instructions, which
# QEMU takes about a minute to log), and read the core's functions. Only the code's addresses
# change with -g (checked: the same instructions), so the lines are those of the benchmarked
# build. Output in build/m4prof*/: profile.pcs (address, count, branches taken there),
# functions.txt, lines.txt (the innermost inlined line).
set -eu
cd "$(dirname "$0")/.."
lowram=0
m0=0
top=30
at=0
usage="usage: $0 [-l] [-0] [-a AT] [-n N] SCENE STEPS"
while getopts l0a:n: opt; do
  case $opt in
    l) lowram=1 ;;
    0) m0=1 ;;
    a) at=$OPTARG ;;
    n) top=$OPTARG ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# = 2 ] || { echo "$usage" >&2; exit 2; }
scene=$1 steps=$2
[ -r "$scene" ] || scene=tests/scenes/$1.scene
[ -r "$scene" ] || { echo "m4-profile: no scene $1" >&2; exit 2; }
name=$(basename "$scene" .scene)
case $at$steps in *[!0-9]*) echo "$usage" >&2; exit 2 ;; esac
for t in qemu-system-arm arm-none-eabi-gcc arm-none-eabi-nm arm-none-eabi-addr2line; do
  command -v $t >/dev/null 2>&1 || { echo "m4-profile: $t is missing (make deps)" >&2; exit 2; }
done

if [ $lowram = 1 ]; then dir=build/m4prof-lowram; pools="-DQP_CFG_LOW_RAM=1 -g"
else dir=build/m4prof; pools="-g"; fi
board=qemu-mps2-an386 cpu=""
if [ $m0 = 1 ]; then dir=$dir-m0 board=qemu-mps2-an385 cpu="-mthumb -mcpu=cortex-m0 -mfloat-abi=soft"; fi
gen=$dir/gen
mkdir -p "$gen"
if [ "$at" -gt 0 ]; then
  ${MAKE:-make} -s build/host/qphys >&2
  build/host/qphys run "$scene" --steps "$at" --save "$gen/at.qps" >/dev/null
  scene=$gen/at.qps
fi
sh tools/embed-scene.sh "$scene" "$steps" "$gen/scene_data.h"
set -- BOARD=$board BOARD_DIR="$dir" BOARD_POOLS="$pools" APP=scene \
  APP_SRCS_scene=tests/target/scene_main.c APP_CFLAGS_scene="-I$gen"
[ -z "$cpu" ] || set -- "$@" CPU_FLAGS="$cpu"
${MAKE:-make} -s "$@" >&2
${CC:-cc} -O2 -o "$dir/m4prof" bench/m4prof.c
run=$(${MAKE:-make} -s --no-print-directory "$@" RUN_TIMEOUT=3600 print-run | sed 's/-icount shift=0//')
echo "m4-profile: running $name from step $at, $steps steps, under QEMU with every instruction logged" >&2
# QEMU's log goes to stderr (-D /dev/stderr) and through the counter; the app's output is dropped.
sh -c "$run -singlestep -d exec,nochain -D /dev/stderr" 2>&1 >/dev/null </dev/null | "$dir/m4prof" > "$dir/profile.pcs"

# By function: nm's text symbols with sizes, in address order, against the sorted addresses.
arm-none-eabi-nm -S -n "$dir/scene.elf" > "$dir/symbols.txt"
"$dir/m4prof" -f "$dir/symbols.txt" < "$dir/profile.pcs" | sort -rn > "$dir/functions.txt"
# By source line: the innermost line of each address (addr2line, one call for all).
cut -d' ' -f1 "$dir/profile.pcs" | sed 's/^/0x/' | arm-none-eabi-addr2line -e "$dir/scene.elf" |
  sed "s/ (discriminator.*//; s#^$(pwd)/##" | paste -d' ' - "$dir/profile.pcs" |
  awk '{ by[$1] += $3; total += $3 } END { for (l in by) printf "%14d %6.2f%% %s\n", by[l], 100 * by[l] / total, l }' |
  sort -rn > "$dir/lines.txt"
echo "== functions (instructions, share)"
head -n "$top" "$dir/functions.txt"
echo "== source lines (innermost inlined line)"
head -n "$top" "$dir/lines.txt"
