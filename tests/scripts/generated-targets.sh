#!/bin/sh
# SPDX-License-Identifier: MIT
# generated-targets.sh - the generated scenes (tests/generated, over every keyword of the
# format) on every host-side target of the scene check: each target's qphys runs each scene
# STEPS steps (default 240) and must end at the hash of the host's gcc -O2 build. These scenes
# have no golden files: the host's run is the reference. The low-RAM layout refuses a scene
# with more distinct materials than its palette holds (a capacity: exit 2 and that message);
# such a scene is counted as refused, not compared. Needs build/host/qphys and
# build/TARGET/qphys (the scene check builds them); a target that is not built, or that this
# machine cannot run, is SKIPPED with the reason. Runs JOBS at a time. Prints a PASS, FAIL or
# SKIPPED line per target; exits non-zero on a failure. GENERATED_DIR=DIR takes the scenes of
# DIR instead.
set -u
cd "$(dirname "$0")/../.." || exit 2
. tools/targets.sh
steps=${GENERATED_STEPS:-240}
jobs=${JOBS:-2}
src=${GENERATED_DIR:-tests/generated}
targets=${GENERATED_TARGETS-host-O0 host-Os host-clang i386 host-lowram aarch64 riscv64 s390x wasm32}
out=build/test-generated-targets
rm -rf "$out"
mkdir -p "$out"
# Relative paths under the checkout: node's WASI runner opens files there only.
cp "$src"/*.scene "$src"/*.obj "$out/" 2>/dev/null
export steps out

# The reference: the host's final hash of each scene, in NAME.host.
# shellcheck disable=SC2016
ls "$out"/*.scene | xargs -r -P "$jobs" -n 1 sh -c '
  build/host/qphys run "$1" --steps "$steps" --json 2>"${1%.scene}.host.err" |
    sed -n "s/.*\"hash\": \"\([0-9a-f]*\)\".*/\1/p" >"${1%.scene}.host"' ref

failed=0
for t in $targets; do
  case $t in
    host-lowram) qp_target host ;;
    *) qp_target "$t" || { echo "FAIL unknown target $t"; failed=1; continue; } ;;
  esac
  if [ ! -x "build/$t/qphys" ]; then echo "SKIPPED target $t: build/$t/qphys is not built (the scene check builds it)"; continue; fi
  if ! runner=$(qp_runner $qt_cc $qt_opt); then echo "SKIPPED target $t: $runner"; continue; fi
  export t runner
  # One verdict a scene in NAME.T: "same", "refused" (low-RAM's palette) or what differs.
  # shellcheck disable=SC2016
  ls "$out"/*.scene | xargs -r -P "$jobs" -n 1 sh -c '
    n=${1%.scene}
    got=$($runner "build/$t/qphys" run "$1" --steps "$steps" --json 2>"$n.$t.err" |
          sed -n "s/.*\"hash\": \"\([0-9a-f]*\)\".*/\1/p")
    want=$(cat "$n.host")
    if [ -n "$want" ] && [ "$got" = "$want" ]; then echo same >"$n.$t"
    elif [ "$t" = host-lowram ] && [ -z "$got" ] && grep -q "too many distinct materials" "$n.$t.err"; then echo refused >"$n.$t"
    else echo "$(basename "$1"): ${got:-no hash} ($(head -n 1 "$n.$t.err")), host ${want:-no hash}" >"$n.$t"; fi' one
  same=$(cat "$out"/*."$t" | grep -c '^same$')
  refused=$(cat "$out"/*."$t" | grep -c '^refused$')
  total=$(ls "$out"/*.scene | wc -l)
  if [ $((same + refused)) -eq "$total" ]; then
    note=""
    [ "$refused" -gt 0 ] && note="; $refused refused by its material palette"
    echo "PASS target $t: $same of $total generated scenes end at the host's hash after $steps steps$note"
  else
    echo "FAIL target $t: $same of $total end at the host's hash:"
    cat "$out"/*."$t" | grep -v '^same$' | grep -v '^refused$' | sed 's/^/    /'
    failed=1
  fi
done
exit $failed
