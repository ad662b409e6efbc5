#!/bin/sh
# SPDX-License-Identifier: MIT
# test-replay.sh [QPHYS] - qphys record / replay --verify tell a damaged file from a divergence.
#
# Records tests/scenes/slope.scene for 120 steps with inputs of every kind (--inputs 7) and
# the bodies' states (--poses); the recording must replay. Then:
#   divergences (exit 1, naming the step, the body and the recorded and computed values):
#     a world hash changed, a body hash changed, an input removed, an input that fails now, a
#     joint create that returns another id (each re-signed: its check line recomputed, so only
#     the content differs);
#   damage (exit 2, saying what is wrong, never "DIVERGED"): the check line removed, the file
#     cut short, 300 single-byte changes all over the file, a bad scene line and a malformed
#     input entry in re-signed files.
set -u
cd "$(dirname "$0")/../.." || exit 2
q=${1:-build/host/qphys}
[ -x "$q" ] || make -s "$q" || exit 2
# A folder per build of the command, so that two builds can be tested side by side.
d=build/test-replay/$(basename "$(dirname "$q")")
rm -rf "$d"
mkdir -p "$d"
failed=0

# resign IN OUT: OUT = IN without its check line, plus a check line of its own (length and
# CRC-32, read from gzip's trailer, which holds the CRC-32 of the input, least byte first).
resign() {
  grep -v '^check ' "$1" >"$2.body"
  n=$(wc -c <"$2.body" | tr -d ' ')
  crc=$(gzip -c <"$2.body" | tail -c 8 | head -c 4 | od -An -tx1 | awk '{ print $4 $3 $2 $1 }')
  { cat "$2.body"; echo "check $n $crc"; } >"$2"
  rm -f "$2.body"
}

# expect NAME RC TEXT: replay $d/NAME.replay, want exit RC and TEXT in its output.
expect() {
  "$q" replay "$d/$1.replay" --verify >"$d/$1.out" 2>&1
  rc=$?
  if [ "$rc" = "$2" ] && grep -q -- "$3" "$d/$1.out"; then
    echo "PASS $1: exit $rc: $(grep -m1 -- "$3" "$d/$1.out")"
  else
    echo "FAIL $1: want exit $2 and '$3', got exit $rc:"; sed 's/^/    /' "$d/$1.out"; failed=1
  fi
  if [ "$2" = 2 ] && grep -q DIVERGED "$d/$1.out"; then echo "FAIL $1: damage reported as a divergence"; failed=1; fi
}

"$q" record tests/scenes/slope.scene --steps 120 --inputs 7 --poses -o "$d/a.replay" || exit 1
expect a 0 "matched: 120 steps"
[ "$(grep -c '^i ' "$d/a.replay")" -ge 10 ] || { echo "FAIL: fewer than 10 inputs recorded"; failed=1; }
# Joint create (kind 0x20) and destroy (0x21) and a shape filter (0x0b) are among them.
for k in 20 21 0b; do
  grep -q "^i [0-9]* $k" "$d/a.replay" || { echo "FAIL: no input entry of kind 0x$k recorded"; failed=1; }
done

# Divergences.
sed 's/^s 60 [0-9a-f]*/s 60 00000000/' "$d/a.replay" >"$d/x" && resign "$d/x" "$d/world.replay"
expect world 1 "DIVERGED at step 60: world hash"
awk '/^s 0 /{ sub(/ 3:[0-9a-f]*/, " 3:12345678") } 1' "$d/a.replay" >"$d/x" && resign "$d/x" "$d/body.replay"
expect body 1 "first diverging body: slot 3 (scene body 2, defined at"
first=$(grep -m1 '^i ' "$d/a.replay" | cut -d' ' -f2)
awk -v s="$first" '$1 == "i" && $2 == s { next } 1' "$d/a.replay" >"$d/x" && resign "$d/x" "$d/input.replay"
expect input 1 "DIVERGED at step $first"
grep -q "recorded: centre" "$d/input.out" && grep -q "computed: centre" "$d/input.out" ||
  { echo "FAIL input: the recorded and computed states are not both printed"; failed=1; }
# An impulse on slot 2 recorded at step 1, before anything else: slot 2 is the static ramp,
# so the call fails now (static bodies take no impulse).
awk '/^s 1 /{ print "i 1 080100000002000100000000000000000000000000000000000000000000000000" } 1' "$d/a.replay" >"$d/x" &&
  resign "$d/x" "$d/refused.replay"
expect refused 1 "DIVERGED at step 1: the recorded input 'apply impulse' on body 2:1 failed now"

# A joint create that recorded generation 2: the replayed call returns joint 1:1, named.
awk '$1 == "i" && substr($3, 1, 2) == "20" { $3 = substr($3, 1, 14) "0200" substr($3, 19) } 1' "$d/a.replay" >"$d/x" &&
  resign "$d/x" "$d/joint.replay"
expect joint 1 "the recorded input 'create joint' on joint 1:2 created joint 1:1 now"

# Damage.
grep -v '^check ' "$d/a.replay" >"$d/nocheck.replay"
expect nocheck 2 "truncated or damaged"
size=$(wc -c <"$d/a.replay" | tr -d ' ')
head -c $((size / 2)) "$d/a.replay" >"$d/half.replay"
expect half 2 "truncated or damaged"
head -c $((size - 1)) "$d/a.replay" >"$d/short.replay"
expect short 2 "truncated or damaged"
{ cat "$d/a.replay"; echo "s 121 00000000"; } >"$d/longer.replay"
expect longer 2 "truncated or damaged"
sed 's/^| plane$/| plane glow/' "$d/a.replay" >"$d/x" && resign "$d/x" "$d/scene.replay"
expect scene 2 "scene.replay:[0-9]*:7: error: unknown option"
awk '$1 == "i" && !done { $3 = "ff" substr($3, 3); done = 1 } 1' "$d/a.replay" >"$d/x" && resign "$d/x" "$d/entry.replay"
expect entry 2 "is not a well-formed entry"
# 300 single-byte changes spread over the file (header, scene, inputs, hashes, check line).
i=0; bad=0
while [ $i -lt 300 ]; do
  at=$(( (i * 7919 + i / 3) % size ))
  byte=$(od -An -tu1 -j "$at" -N1 "$d/a.replay" | tr -d ' ')
  new=$(( (byte + 1 + i % 7) % 256 ))
  { head -c "$at" "$d/a.replay"; printf "\\$(printf %03o "$new")"; tail -c +$((at + 2)) "$d/a.replay"; } >"$d/flip.replay"
  "$q" replay "$d/flip.replay" >"$d/flip.out" 2>&1
  rc=$?
  if [ "$rc" != 2 ] || grep -q DIVERGED "$d/flip.out"; then
    echo "FAIL byte $at changed ($byte -> $new): exit $rc"; sed 's/^/    /' "$d/flip.out" | head -5; bad=1
  fi
  i=$((i + 1))
done
[ $bad = 0 ] && echo "PASS 300 single-byte changes: each exit 2 (damaged), none reported as a divergence"
[ $bad = 0 ] || failed=1
exit $failed
