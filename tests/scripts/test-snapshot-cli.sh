#!/bin/sh
# SPDX-License-Identifier: MIT
# test-snapshot-cli.sh - snapshots as a user of the qphys command and the boards meets them:
#   1. `qphys run SCENE --steps K --save F`, then `qphys run F --steps N-K --hashes`: the resumed
#      run prints steps K+1..N with the golden file's hashes, for every scene the build holds;
#   2. the host's snapshot resumes with the same hashes on the other instruction sets (their
#      qphys builds from tests/scripts/scene-check.sh, under their emulators) and on boards under QEMU
#      (`make BOARD=x scene SCENE=F`), big-endian s390x included: the bytes are portable;
#   3. 100 single-bit flips and a set of truncations of a snapshot: each refused with exit 2
#      and a message, never a crash.
# Needs build/host/qphys (make). Prints PASS/FAIL/SKIPPED lines; exits non-zero on a failure.
set -u
cd "$(dirname "$0")/../.." || exit 2
. tools/targets.sh
q=build/host/qphys
out=build/test-snapshot
mkdir -p "$out"
failed=0
fail() { echo "FAIL $*"; failed=1; }

# 1. Resume equals the uninterrupted run (golden hashes).
for s in tests/scenes/*.scene; do
  n=$(basename "$s" .scene)
  "$q" check "$s" >/dev/null 2>&1 || { echo "SKIPPED resume of $n: larger than this build's pools"; continue; }
  k=100; total=300
  [ "$n" = rain512 ] && k=60 && total=120
  "$q" run "$s" --steps $k --save "$out/$n.qps" >/dev/null || { fail "$n: --save"; continue; }
  # A world with meshes or heightfields resumes over its scene (the snapshot references them).
  level=""
  grep -qE '^(mesh|heightfield) ' "$s" && level="--scene $s"
  # shellcheck disable=SC2086
  "$q" run "$out/$n.qps" --steps $((total - k)) --hashes $level >"$out/$n.resumed" || { fail "$n: resume"; continue; }
  if sed -n "$((k + 1)),${total}p" "tests/scenes/golden/$n.hashes" | cmp -s - "$out/$n.resumed"; then
    echo "PASS $n: saved at step $k ($(wc -c <"$out/$n.qps") bytes), resumed to $total: the golden hashes"
  else fail "$n: resumed hashes differ from the golden file"; fi
done

# 2. The same bytes elsewhere: every target and board side by side (emulators, one thread
# each), reported in order.
want=$out/stack20.resumed
rm -f "$out"/on-*.report
for t in i386 aarch64 riscv64 s390x wasm32; do
  [ -x "build/$t/qphys" ] || { echo "SKIPPED resume on $t: build/$t/qphys not built (tests/scripts/scene-check.sh builds it)" >"$out/on-$t.report"; continue; }
  qp_target "$t"
  # shellcheck disable=SC2086
  if ! r=$(qp_runner $qt_cc $qt_opt); then echo "SKIPPED resume on $t: $r" >"$out/on-$t.report"; continue; fi
  ( if $r "build/$t/qphys" run "$out/stack20.qps" --steps 200 --hashes 2>&1 | cmp -s - "$want"; then
      echo "PASS stack20 snapshot from the host resumes on $t with the same hashes"
    else echo "FAIL stack20 snapshot resumed on $t: hashes differ"; fi >"$out/on-$t.report" ) &
done
for b in qemu-mps2-an386 microbit qemu-virt-rv32; do
  ( if make -s -j1 --no-print-directory BOARD=$b scene SCENE="$out/stack20.qps" STEPS=200 2>/dev/null | \
         grep -v -e '^check-core' -e '^cycles' | cmp -s - "$want"; then
      echo "PASS stack20 snapshot from the host resumes on $b (QEMU) with the same hashes"
    else echo "FAIL stack20 snapshot resumed on board $b: hashes differ"; fi >"$out/on-$b.report" ) &
done
wait
for w in i386 aarch64 riscv64 s390x wasm32 qemu-mps2-an386 microbit qemu-virt-rv32; do
  cat "$out/on-$w.report"
  grep -q '^FAIL' "$out/on-$w.report" && failed=1
done

# 3. Damaged snapshots: refused, exit 2, a message, no crash.
f=$out/stack20.qps
size=$(wc -c <"$f")
bad=0
for i in $(awk -v n="$size" 'BEGIN { s = 7; for (i = 0; i < 100; i++) { s = (s * 1103515245 + 12345) % 2147483648; print s % (n * 8) } }'); do
  byte=$((i / 8)) bit=$((i % 8))
  cp "$f" "$out/flip.qps"
  v=$(od -An -t u1 -j "$byte" -N 1 "$f" | tr -d ' ')
  printf "$(printf '\\%03o' $((v ^ (1 << bit))))" | dd of="$out/flip.qps" bs=1 seek="$byte" conv=notrunc 2>/dev/null
  "$q" run "$out/flip.qps" --steps 5 >"$out/flip.out" 2>&1
  rc=$?
  if [ "$rc" != 2 ] || ! grep -q 'not a valid snapshot' "$out/flip.out"; then
    bad=$((bad + 1)); echo "    bit $i: exit $rc"; head -2 "$out/flip.out"
  fi
done
[ "$bad" = 0 ] && echo "PASS 100 single-bit flips of a snapshot: all refused with exit 2" || fail "$bad of 100 bit flips not refused"
for len in 3 4 16 23 24 100 $((size / 2)) $((size - 1)); do
  head -c "$len" "$f" >"$out/cut.qps"
  "$q" run "$out/cut.qps" --steps 5 >"$out/cut.out" 2>&1
  rc=$?
  # Shorter than the magic, it reads as a scene file, and "QPS" is not one: exit 2 too.
  [ "$rc" = 2 ] || { fail "snapshot cut to $len bytes: exit $rc"; }
done
[ "$failed" = 0 ] && echo "PASS truncated snapshots refused with exit 2"
exit $failed
