#!/bin/sh
# SPDX-License-Identifier: MIT
# fuzz-oracle.sh - hostile inputs give one answer on every compiler: the same bytes run by a gcc
# build (-O0, ASan + UBSan) and a clang build (-O2, UBSan) of tests/fuzz/hostile_run.c must print
# the same lines (refused with the same code, or the same calls' results and the same world hash
# after every step), and neither may report undefined behaviour or a broken promise.
#
# Inputs: the checked-in corpora (tests/fuzz/corpus/state and inputlog: edit scripts of a live
# world and of its input log; restore: snapshot files, as they are and re-signed; replay: replay
# files, as they are and with their check line recomputed), ORACLE_RANDOM scripts of each kind
# drawn from ORACLE_SEED, and any KIND:DIR given (make fuzz passes what the fuzzers found).
#
#   sh tests/scripts/fuzz-oracle.sh [KIND:DIR]...   Environment: ORACLE_RANDOM [300], ORACLE_SEED [1]
set -u
cd "$(dirname "$0")/../.." || exit 2
random=${ORACLE_RANDOM:-300}
seed=${ORACLE_SEED:-1}
out=build/fuzz-oracle
mkdir -p "$out"
if ! make -s -j"${JOBS:-2}" build/fuzz/hostile_run_gcc build/fuzz/hostile_run_clang >"$out/build.log" 2>&1; then
  echo "FAIL oracle: build"; tail -20 "$out/build.log"; exit 1
fi
failed=0
total=0

# compare LABEL ARGS...: both builds on the same arguments, line by line.
compare() {
  label=$1; shift
  build/fuzz/hostile_run_gcc "$@" >"$out/gcc.out" 2>"$out/gcc.err"; g=$?
  build/fuzz/hostile_run_clang "$@" >"$out/clang.out" 2>"$out/clang.err"; c=$?
  n=$(wc -l <"$out/gcc.out")
  total=$((total + n))
  if [ "$g" = 0 ] && [ "$c" = 0 ] && cmp -s "$out/gcc.out" "$out/clang.out"; then
    # Refused: a snapshot or file as a whole, or (input logs) an entry, QP_ERR_BUFFER = 5.
    refused=$(grep -cE '^refused|^calls( -?[0-9]+)* 5( |$)' "$out/gcc.out")
    echo "PASS oracle $label: $n answers, gcc = clang ($refused refused, whole or an entry)"
  else
    echo "FAIL oracle $label: gcc exit $g, clang exit $c"
    grep -hE 'runtime error|ERROR|Abort' "$out/gcc.err" "$out/clang.err" | head -5
    diff "$out/gcc.out" "$out/clang.out" | head -6
    failed=1
  fi
}

# files KIND DIR: every file of DIR, in a fixed order.
files() {
  [ -d "$2" ] || return 0
  n=$(ls "$2" | wc -l)
  [ "$n" -gt 0 ] || return 0
  # shellcheck disable=SC2046
  compare "$1 $2" "$1" $(ls -d "$2"/* | LC_ALL=C sort)
}

files state tests/fuzz/corpus/state
files inputlog tests/fuzz/corpus/inputlog
files snapshot tests/fuzz/corpus/restore
files replay tests/fuzz/corpus/replay
for arg in "$@"; do files "${arg%%:*}" "${arg#*:}"; done
if [ "$random" -gt 0 ]; then
  compare "$random random state scripts (seed $seed)" random state "$seed" "$random"
  compare "$random random input log scripts (seed $seed)" random inputlog "$seed" "$random"
fi
echo "oracle: $total answers compared"
exit $failed
