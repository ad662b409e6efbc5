#!/bin/sh
# SPDX-License-Identifier: MIT
# test-lockstep.sh - the lockstep demo (examples/lockstep, docs/lockstep.md) keeps its promise:
#   1. two peers over UDP, 600 frames, 10% loss, delay 3 frames, reordering: 0 desyncs, some
#      rollbacks (so prediction and rollback were exercised), and the final hash of the
#      reference run (the same inputs in one world, no network): rollback changed nothing;
#   2. 20% loss and 10% of the packets corrupted in flight: each damaged packet refused, 0 desyncs;
#   3. one peer nudges a body by 1/65536 m at frame 300: both peers report the desync at frame
#      300 itself, and the program exits 1;
#   4. peer 1 on a board (qemu-mps2-an386 under QEMU, over its UART as a TCP socket), 200 frames:
#      0 desyncs and the reference hash; then a nudge at frame 100, caught at frame 100 on both
#      sides (SKIPPED, with the reason, when QEMU or the Arm cross compiler is missing).
# Needs build/host/lockstep (make). Prints PASS/FAIL/SKIPPED lines; exits non-zero on a failure.
set -u
cd "$(dirname "$0")/../.." || exit 2
ls=build/host/lockstep
out=build/test-lockstep
mkdir -p "$out"
failed=0
fail() { echo "FAIL $*"; sed 's/^/    /' "$log" | tail -12; failed=1; }
[ -x "$ls" ] || { echo "FAIL $ls not built (make)"; exit 1; }

# reference N: the final hash of N frames played in one world.
reference() { "$ls" --reference --frames "$1" | sed -n 's/^reference: .* final hash \([0-9a-f]*\)$/\1/p'; }
# final_hash LOG: the hash both peers ended with.
final_hash() { sed -n 's/^final hash \([0-9a-f]*\) at frame .* on both peers$/\1/p' "$1"; }
rollbacks() { sed -n 's/^[0-9]* frames, \([0-9]*\) rollbacks, [0-9]* desyncs$/\1/p' "$1"; }

ref600=$(reference 600)
ref200=$(reference 200)

# 1. Loss, delay, reordering.
log=$out/udp.log
"$ls" --frames 600 --loss 10 --delay 3 --reorder >"$log" 2>&1
rc=$?
r=$(rollbacks "$log")
if [ "$rc" = 0 ] && tail -1 "$log" | grep -qE '^600 frames, [0-9]+ rollbacks, 0 desyncs$' && [ "${r:-0}" -gt 0 ] &&
   [ "$(final_hash "$log")" = "$ref600" ]; then
  echo "PASS UDP, 10% loss, delay 3, reordering: $(tail -1 "$log"), final hash $ref600 as without a network"
else fail "UDP, 10% loss, delay 3, reordering (exit $rc; reference hash $ref600)"; fi

# 2. Heavier loss and corrupted packets.
log=$out/corrupt.log
"$ls" --frames 300 --loss 20 --delay 2 --reorder --corrupt 10 --seed 7 >"$log" 2>&1
rc=$?
bad=$(sed -n 's/.* \([0-9]*\) undecodable, \([0-9]*\) refused$/\1 \2/p' "$log" | awk '{ u += $1; r += $2 } END { print u + 0, r + 0 }')
if [ "$rc" = 0 ] && tail -1 "$log" | grep -qE '^300 frames, [0-9]+ rollbacks, 0 desyncs$' &&
   [ "${bad% *}" -gt 0 ] && [ "${bad#* }" = 0 ]; then
  echo "PASS UDP, 20% loss, 10% corrupted: ${bad% *} damaged packets refused by the CRC, $(tail -1 "$log")"
else fail "UDP, 20% loss, 10% corrupted (exit $rc; undecodable and refused: $bad)"; fi

# 3. A deliberate desync.
log=$out/desync.log
"$ls" --frames 600 --loss 10 --delay 3 --reorder --desync-at 300 >"$log" 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -q '^peer 0: DESYNC at frame 300:' "$log" && grep -q '^peer 1: DESYNC at frame 300:' "$log" &&
   tail -1 "$log" | grep -qE '^[0-9]+ frames, [0-9]+ rollbacks, [1-9][0-9]* desyncs$'; then
  echo "PASS a one-LSB nudge at frame 300 is caught at frame 300 by both peers, exit 1"
else fail "nudge at frame 300 (exit $rc)"; fi

# 4. A board.
elf=build/qemu-mps2-an386/lockstep.elf
if ! command -v qemu-system-arm >/dev/null 2>&1; then
  echo "SKIPPED board peer: qemu-system-arm not installed (make deps)"
elif ! command -v arm-none-eabi-gcc >/dev/null 2>&1; then
  echo "SKIPPED board peer: arm-none-eabi-gcc not installed (make deps)"
elif ! make -s -j"${JOBS:-2}" BOARD=qemu-mps2-an386 APP=lockstep >"$out/board-build.log" 2>&1; then
  log=$out/board-build.log; fail "board peer: make BOARD=qemu-mps2-an386 APP=lockstep"
else
  log=$out/board.log
  "$ls" --board "$elf" --frames 200 >"$log" 2>&1
  rc=$?
  if [ "$rc" = 0 ] && tail -1 "$log" | grep -qE '^200 frames, [0-9]+ rollbacks, 0 desyncs$' &&
     grep -q "^board: final hash $ref200 at frame 199, every frame equal" "$log" && [ "$(final_hash "$log")" = "$ref200" ]; then
    echo "PASS board (qemu-mps2-an386) against the host over its UART: $(tail -1 "$log"), final hash $ref200 on both"
  else fail "board against the host (exit $rc; reference hash $ref200)"; fi
  log=$out/board-desync.log
  "$ls" --board "$elf" --frames 200 --desync-at 100 >"$log" 2>&1
  rc=$?
  if [ "$rc" = 1 ] && grep -q '^board: DESYNC at frame 100:' "$log" && grep -q '^peer 0: DESYNC at frame 100:' "$log"; then
    echo "PASS a nudge at frame 100 against the board is caught at frame 100 on both sides, exit 1"
  else fail "board, nudge at frame 100 (exit $rc)"; fi
fi
exit $failed
