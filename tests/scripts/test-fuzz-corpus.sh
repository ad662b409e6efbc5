#!/bin/sh
# SPDX-License-Identifier: MIT
# test-fuzz-corpus.sh - every fuzz target (tests/fuzz/fuzz_*.c) run by gcc under ASan + UBSan
# on its checked-in corpus (tests/fuzz/corpus/<target>/: inputs that reach new code, and every
# input that once crashed), so a finding fixed once stays fixed. `make fuzz` finds new ones.
# The targets build in one make and replay JOBS at a time (one after the other they took a
# tenth of make test); results are reported in order.
set -u
cd "$(dirname "$0")/../.." || exit 2
jobs=${JOBS:-2}
targets=$(for src in tests/fuzz/fuzz_*.c; do basename "$src" .c | sed 's/^fuzz_//'; done)
bins=$(for t in $targets; do echo "build/fuzz/replay_$t"; done)
# One make for all (any failure is attributed below, target by target).
# shellcheck disable=SC2086
make -s -j"$jobs" $bins >build/fuzz-replay-all.log 2>&1
for t in $targets; do
  [ -x "build/fuzz/replay_$t" ] && make -s -q "build/fuzz/replay_$t" 2>/dev/null && continue
  make -s -j"$jobs" "build/fuzz/replay_$t" >"build/fuzz-replay-$t.log" 2>&1 || rm -f "build/fuzz/replay_$t"
done
# xargs: the corpus in batches; any sanitizer report or failed promise stops with status != 0.
for t in $targets; do
  [ -x "build/fuzz/replay_$t" ] && echo "$t"
done | xargs -r -P "$jobs" -n 1 sh -c \
  'ls -d "tests/fuzz/corpus/$0"/* | xargs "build/fuzz/replay_$0" >"build/fuzz-replay-$0.out" 2>&1; echo $? >"build/fuzz-replay-$0.rc"'
failed=0
for t in $targets; do
  if [ ! -x "build/fuzz/replay_$t" ]; then
    echo "FAIL fuzz target $t: build"; tail -20 "build/fuzz-replay-$t.log"; failed=1; continue
  fi
  n=$(ls "tests/fuzz/corpus/$t" | wc -l)
  if [ "$(cat "build/fuzz-replay-$t.rc" 2>/dev/null)" = 0 ]; then
    echo "PASS fuzz target $t: $n corpus inputs replayed, no sanitizer report, every promise held"
  else
    echo "FAIL fuzz target $t:"; grep -E 'ERROR|runtime error|SUMMARY|Abort|abort' "build/fuzz-replay-$t.out" | head -10; failed=1
  fi
done
exit $failed
