#!/bin/sh
# test-fuzz-corpus.sh - every fuzz target (tests/fuzz/fuzz_*.c) run by gcc under ASan + UBSan
# on its checked-in corpus (tests/fuzz/corpus/<target>/: inputs that reach new code, and every
# input that once crashed), so a finding fixed once stays fixed. `make fuzz` finds new ones.
set -u
cd "$(dirname "$0")/.." || exit 2
failed=0
for src in tests/fuzz/fuzz_*.c; do
  t=$(basename "$src" .c | sed 's/^fuzz_//')
  bin=build/fuzz/replay_$t
  if ! make -s -j"${JOBS:-2}" "$bin" >"build/fuzz-replay-$t.log" 2>&1; then
    echo "FAIL fuzz target $t: build"; tail -20 "build/fuzz-replay-$t.log"; failed=1; continue
  fi
  n=$(ls "tests/fuzz/corpus/$t" | wc -l)
  # xargs: the corpus in batches; any sanitizer report or failed promise stops with status != 0.
  if ls -d "tests/fuzz/corpus/$t"/* | xargs "$bin" >"build/fuzz-replay-$t.out" 2>&1; then
    echo "PASS fuzz target $t: $n corpus inputs replayed, no sanitizer report, every promise held"
  else
    echo "FAIL fuzz target $t:"; grep -E 'ERROR|runtime error|SUMMARY|Abort|abort' "build/fuzz-replay-$t.out" | head -10; failed=1
  fi
done
exit $failed
