#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/scripts/board-movie.sh: what a board computed, drawn and checked on the host. The
# micro:bit (QEMU, its Cortex-M0 and 16 KB low-RAM pools) runs 60 steps of stack20 and streams
# every step's poses (make BOARD=microbit movie); the host must draw them into a GIF and find
# every frame equal to its own run. Then the checks must catch what they are for: the board's
# hashes equal the golden file's, a damaged line is refused by its CRC, and a frame whose pose
# or hash differs (its CRC redone, as a board that computed otherwise would send it) fails.
# The mps2-an386 (Cortex-M4) draws 30 steps of level.scene the same way, its ramp mesh read from
# the image. Prints PASS/FAIL lines.
set -u
cd "$(dirname "$0")/../.." || exit 2
failed=0
fail() { echo "FAIL $*"; failed=1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/qphys-movie.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
board=microbit
scene=tests/scenes/stack20.scene
steps=60
poses=build/$board/movie.poses

if make -s BOARD=$board movie SCENE=$scene STEPS=$steps MOVIE="$tmp/movie.gif" >"$tmp/make.log" 2>&1 &&
   grep -q "all $((steps + 1)) board frames (steps 0 .. $steps) equal the host's" "$tmp/make.log"; then
  echo "PASS $board: $(grep 'frames drawn' "$tmp/make.log" | sed 's/^render: [^ ]* //')"
else
  fail "make BOARD=$board movie:"; sed 's/^/    /' "$tmp/make.log" | tail -n 10
fi
# A mesh scene too: the Cortex-M4 reads level.scene's ramp from the OBJ text built into its
# image (tools/embed-scene.sh) and its frames must still equal the host's.
mesh_board=qemu-mps2-an386
if make -s BOARD=$mesh_board movie SCENE=tests/scenes/level.scene STEPS=30 MOVIE="$tmp/level.gif" \
     >"$tmp/level.log" 2>&1 &&
   grep -q "all 31 board frames (steps 0 .. 30) equal the host's" "$tmp/level.log"; then
  echo "PASS $mesh_board, level.scene (a ramp mesh and a heightfield): $(grep 'frames drawn' "$tmp/level.log" | sed 's/^render: [^ ]* //')"
else
  fail "make BOARD=$mesh_board movie SCENE=tests/scenes/level.scene:"; sed 's/^/    /' "$tmp/level.log" | tail -n 10
fi

# A GIF: its signature and more than one image in it.
if [ "$(head -c 6 "$tmp/movie.gif" 2>/dev/null)" = GIF89a ] && [ "$(wc -c <"$tmp/movie.gif")" -gt 2000 ]; then
  echo "PASS the GIF is written ($(wc -c <"$tmp/movie.gif") bytes)"
else
  fail "no GIF at $tmp/movie.gif"
fi

# The board's frame hashes against the golden file, read directly (not through qphys).
awk '$1 == "F" && $2 > 0 { print $2, $3 }' "$poses" >"$tmp/board.hashes"
if head -n $steps tests/scenes/golden/stack20.hashes | cmp -s - "$tmp/board.hashes"; then
  echo "PASS the board's $steps frame hashes equal tests/scenes/golden/stack20.hashes"
else
  fail "the board's frame hashes differ from the golden file:"
  head -n $steps tests/scenes/golden/stack20.hashes | diff - "$tmp/board.hashes" | head -n 4
fi

# render SCENE --poses FILE: exit status and message.
render() { build/host/qphys render $scene --poses "$1" -o "$tmp/x.gif" >"$tmp/render.log" 2>&1; echo $?; }

# One digit of a pose damaged on the way: the CRC refuses the line (exit 2).
awk '$1 == "F" && $2 == 30 { $6 = substr($6, 1, 20) (substr($6, 21, 1) == "0" ? "1" : "0") substr($6, 22) } { print }' \
  "$poses" >"$tmp/damaged.poses"
rc=$(render "$tmp/damaged.poses")
if [ "$rc" = 2 ] && grep -q "CRC mismatch" "$tmp/render.log"; then echo "PASS a damaged line is refused: $(cat "$tmp/render.log")"
else fail "a damaged line: exit $rc (want 2, CRC mismatch): $(cat "$tmp/render.log")"; fi

# Frame 30 as a board that computed otherwise sends it, its CRC redone: one body's y 1 LSB
# higher, or another hash. Both must fail (exit 1) at step 30, and the GIF is still written.
alter() { /usr/bin/python3 -c '
import sys, zlib
what = sys.argv[1]
for line in sys.stdin:
    f = line.split()
    if f[:2] == ["F", "30"]:
        if what == "pose":
            y = (int(f[5][8:16], 16) + 1) & 0xFFFFFFFF
            f[5] = f[5][:8] + "%08x" % y + f[5][16:]
        else:
            f[2] = "%08x" % (int(f[2], 16) ^ 1)
        body = " ".join(f[:-1]) + " "
        line = body + "*%08x\n" % zlib.crc32(body.encode())
    sys.stdout.write(line)' "$1"; }
for what in pose hash; do
  alter $what <"$poses" >"$tmp/$what.poses"
  rc=$(render "$tmp/$what.poses")
  if [ "$rc" = 1 ] && grep -q "step 30: the board's" "$tmp/render.log" && [ -s "$tmp/x.gif" ]; then
    echo "PASS a board frame with another $what is caught at its step: $(head -n 1 "$tmp/render.log")"
  else
    fail "a board frame with another $what: exit $rc (want 1 at step 30): $(cat "$tmp/render.log")"
  fi
done
exit $failed
