#!/bin/sh
# SPDX-License-Identifier: MIT
# test-viewer.sh - the pictures and the viewer as a person uses them.
#
# qphys render: a PNG of stack20 is 400x300 and shows the stack where it stands (warm
# awake colours at step 30, the blue sleep tint once it sleeps at step 120, nothing like a
# body beside it); a snapshot of level.scene is refused alone and drawn over its scene with
# --scene, the same PNG as the scene run to that step; a GIF of a step range is a GIF89a
# animation of a sensible size.
# The viewer under Xvfb (a virtual X display), driven by xdotool, seen through xwd -root
# screenshots: stack20 opens with the stack's pixels in the middle of the window; key c
# colours the contact-graph levels (blue at the bottom, red at the top); 70 single steps
# (key .) later the stack sleeps, is drawn with the sleep tint, and the world
# hash the viewer prints equals qphys run's after 70 steps; a right click throws a box, and
# 120 steps later the hash differs from the undisturbed run's and bodies are awake; a cube
# pressed with the left button and pulled to the right follows the cursor. With --car 3 on a
# snapshot of the car demo (step 40, driving), the car's wheels are drawn where its rays touch
# the ground (green), attaching it changes nothing, and 30 steps later its wheels still hold
# the chassis off the ground (one contact: the box's), where without --car it lies on it (two).
# Without Xvfb, xdotool or xwd (or no viewer built) the viewer part prints SKIPPED.
set -u
out=build/host
qphys=$out/qphys
d=$(mktemp -d "${TMPDIR:-/tmp}/qphys-viewer-test.XXXXXX") || exit 2
xpid=""
vpid=""
cleanup() {
  [ -n "$vpid" ] && kill "$vpid" 2>/dev/null
  [ -n "$xpid" ] && kill "$xpid" 2>/dev/null
  rm -rf "$d"
}
trap cleanup EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
ok() { echo "ok: $*"; }

make -s "$qphys" "$out/pixels" "$out/car" || exit 1
pixels=$out/pixels

# count FILE X0 Y0 X1 Y1 KIND: pixels of KIND (warm, cool, other) in the rectangle.
count() {
  "$pixels" "$1" "$2" "$3" "$4" "$5" | awk -v k="$6" '{ for (i = 1; i < NF; i += 2) if ($i == k) print $(i + 1) }'
}

# ---- qphys render --------------------------------------------------------------------------
if ! $qphys render tests/scenes/stack20.scene --steps 30 -o "$d/awake.png" 2>"$d/render.err"; then
  if grep -q "not built" "$d/render.err"; then echo "SKIPPED qphys render: $(cat "$d/render.err")"
  else fail "qphys render: $(cat "$d/render.err")"; fi
else
  $qphys render tests/scenes/stack20.scene --steps 120 -o "$d/asleep.png" 2>/dev/null || fail "render at step 120"
  size=$("$pixels" "$d/awake.png" --size)
  [ "$size" = "400 300" ] && ok "PNG is 400x300" || fail "PNG size '$size', expected 400 300"
  # The stack stands in the middle (framed from the bodies' bounds): a column 20 px wide.
  w=$(count "$d/awake.png" 190 60 210 260 warm)
  s=$(count "$d/asleep.png" 190 60 210 260 cool)
  sw=$(count "$d/asleep.png" 190 60 210 260 warm)
  side=$(($(count "$d/awake.png" 20 60 120 260 warm) + $(count "$d/awake.png" 280 60 380 260 warm)))
  echo "render: awake stack column: $w warm pixels of 4000; asleep: $s blue, $sw warm; beside it: $side warm"
  [ "$w" -gt 2500 ] || fail "the awake stack is not drawn in the middle of the PNG"
  [ "$s" -gt 2500 ] && [ "$sw" -lt 100 ] || fail "the sleeping stack is not drawn with the sleep tint"
  [ "$side" -eq 0 ] || fail "body-coloured pixels beside the stack"
  # A snapshot renders like the world it holds: stack20 saved asleep at step 120.
  $qphys run tests/scenes/stack20.scene --steps 120 --save "$d/s120.qps" >/dev/null || fail "qphys run --save"
  $qphys render "$d/s120.qps" -o "$d/snap.png" 2>/dev/null || fail "render of a snapshot"
  ss=$(count "$d/snap.png" 190 60 210 260 cool)
  [ "$ss" -gt 2500 ] && ok "a snapshot renders ($ss blue pixels in the stack's column)" || fail "snapshot picture: $ss blue pixels"
  # A snapshot of a level world names its heightfield and mesh by checksum: alone it is refused;
  # with --scene it is restored over level.scene and drawn as the scene run to the same step.
  $qphys run tests/scenes/level.scene --steps 60 --save "$d/level.qps" >/dev/null || fail "qphys run --save of level"
  if $qphys render "$d/level.qps" -o "$d/level-alone.png" 2>/dev/null; then fail "a level snapshot rendered without its scene"; fi
  $qphys render "$d/level.qps" --scene tests/scenes/level.scene --title level -o "$d/level-snap.png" 2>/dev/null ||
    fail "render --scene of a level snapshot"
  $qphys render tests/scenes/level.scene --steps 60 --title level -o "$d/level-run.png" 2>/dev/null || fail "render of level"
  cmp -s "$d/level-snap.png" "$d/level-run.png" && ok "a level snapshot drawn over its scene (--scene) is the scene's picture" ||
    fail "a level snapshot drawn with --scene differs from the scene's own picture at that step"
  $qphys render tests/scenes/rain512.scene --from 0 --to 120 --every 20 -o "$d/rain.gif" 2>/dev/null || fail "GIF render"
  gbytes=$(wc -c <"$d/rain.gif")
  [ "$(head -c 6 "$d/rain.gif")" = GIF89a ] && [ "$gbytes" -gt 5000 ] && [ "$gbytes" -lt 400000 ] &&
    ok "GIF89a animation of $gbytes bytes" || fail "GIF: $gbytes bytes, header $(head -c 6 "$d/rain.gif")"
fi

# ---- the viewer under Xvfb -------------------------------------------------------------------
missing=""
for c in Xvfb xdotool xwd; do command -v $c >/dev/null 2>&1 || missing="$missing $c"; done
if [ -n "$missing" ]; then echo "SKIPPED viewer: missing$missing (make deps installs them)"; exit $failed; fi
if [ ! -x "$out/qphys-viewer" ]; then echo "SKIPPED viewer: $out/qphys-viewer not built (SDL2: make deps)"; exit $failed; fi

n=90
while [ -e "/tmp/.X$n-lock" ] && [ $n -lt 120 ]; do n=$((n + 1)); done
export DISPLAY=:$n
Xvfb "$DISPLAY" -screen 0 800x600x24 -nolisten tcp >"$d/xvfb.log" 2>&1 &
xpid=$!
t=0
until xdotool getdisplaygeometry >/dev/null 2>&1; do
  t=$((t + 1))
  if [ $t -gt 50 ] || ! kill -0 "$xpid" 2>/dev/null; then
    echo "SKIPPED viewer: Xvfb does not start here: $(tail -n 1 "$d/xvfb.log")"; exit $failed
  fi
  sleep 0.1
done

# start_viewer ARGS...: the viewer on the X display, its window open, its output in
# viewer.out, its pid in vpid. SDL is told to use X11: otherwise it can fall back to its
# offscreen driver when its first connection fails, and the viewer refuses to run blind. A
# loaded machine can refuse a first connection: up to three starts, a second apart.
start_viewer() {
  tries=0
  while :; do
    tries=$((tries + 1))
    SDL_VIDEODRIVER=x11 "$out/qphys-viewer" "$@" >"$d/viewer.out" 2>&1 &
    vpid=$!
    t=0
    until xdotool search --name "qphys viewer" >/dev/null 2>&1 || [ $t -gt 100 ] || ! kill -0 "$vpid" 2>/dev/null; do
      t=$((t + 1))
      sleep 0.1
    done
    xdotool search --name "qphys viewer" >/dev/null 2>&1 && break
    kill "$vpid" 2>/dev/null
    wait "$vpid" 2>/dev/null
    if [ $tries -ge 3 ]; then fail "the viewer window did not open (3 starts): $(cat "$d/viewer.out")"; exit 1; fi
    echo "viewer: start $tries did not open a window: $(tail -n 1 "$d/viewer.out")"
    sleep 1
  done
  sleep 0.5
}

start_viewer tests/scenes/stack20.scene --size 640x480 --paused

# shot NAME: the screen as an X window dump.
shot() { xwd -root -silent >"$d/$1.xwd"; }
# hud KIND: the last "viewer: KIND: ..." line's field after WORD (hash, awake, ...).
field() { grep "^viewer: $1" "$d/viewer.out" | tail -n 1 | awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }
# wait_line PATTERN N: wait (up to 20 s) until the viewer has printed more than N lines
# matching PATTERN.
wait_line() {
  t=0
  while [ "$(grep -c "$1" "$d/viewer.out")" -le "$2" ] && [ $t -lt 200 ]; do t=$((t + 1)); sleep 0.1; done
}
# keys N KEY: press KEY N times, then ask for the heads-up line (i) and wait for it.
keys() {
  k=""
  i=0
  while [ $i -lt "$1" ]; do k="$k $2"; i=$((i + 1)); done
  before=$(grep -c "^viewer: at" "$d/viewer.out")
  xdotool key --delay 5 $k i
  wait_line "^viewer: at" "$before"
  sleep 0.3   # the frame drawn after those keys reaches the screen
}

# The window can reach the screen before its first frame does (a loaded machine): the shot is
# retaken every 0.2 s until something warm is drawn in the column or beside it (up to 10 s).
t=0
while :; do
  shot start
  w=$(count "$d/start.xwd" 308 100 332 380 warm)
  side=$(($(count "$d/start.xwd" 60 100 200 380 warm) + $(count "$d/start.xwd" 440 100 580 380 warm)))
  [ $((w + side)) -eq 0 ] && [ $t -lt 50 ] || break
  t=$((t + 1)); sleep 0.2
done
echo "viewer: stack column at start: $w warm pixels of 6720; beside it: $side"
[ "$w" -gt 5000 ] && [ "$side" -eq 0 ] || fail "the stack is not drawn where it stands in the viewer"

# Key c twice: contact-graph levels, blue at the bottom of the stack to red at its top
# (one step first: levels are the last step's); c again: back to state colours.
xdotool key c c
keys 1 period
shot levels
top=$(count "$d/levels.xwd" 308 60 332 130 warm)
bottom=$(count "$d/levels.xwd" 308 330 332 390 cool)
echo "viewer: levels: $top warm pixels at the top of the stack of 1680, $bottom blue at its bottom of 1440"
[ "$top" -gt 1000 ] && [ "$bottom" -gt 900 ] || fail "contact-graph levels are not drawn blue to red up the stack"
xdotool key c
keys 69 period
h70=$(field at hash)
want=$($qphys run tests/scenes/stack20.scene --steps 70 | awk '/^hash/ { print $2 }')
[ "$h70" = "$want" ] && ok "after 70 single steps the viewer's hash is qphys run's ($h70)" ||
  fail "viewer hash after 70 steps '$h70', qphys run says '$want'"
[ "$(field at asleep)" = 20 ] || fail "stack20 not asleep after 70 steps: $(grep '^viewer: at' "$d/viewer.out" | tail -n 1)"
shot asleep
s=$(count "$d/asleep.xwd" 308 100 332 380 cool)
sw=$(count "$d/asleep.xwd" 308 100 332 380 warm)
echo "viewer: stack column asleep: $s blue pixels, $sw warm"
[ "$s" -gt 5000 ] && [ "$sw" -lt 200 ] || fail "the sleeping stack is not drawn with the sleep tint"

# A right click throws a box from the eye toward the cursor, at the stack's upper half.
xdotool mousemove 320 150 click 3
wait_line "^viewer: threw" 0
grep -q "^viewer: threw a box" "$d/viewer.out" || fail "no throw after a right click: $(tail -n 2 "$d/viewer.out")"
keys 120 period
h190=$(field at hash)
plain=$($qphys run tests/scenes/stack20.scene --steps 190 | awk '/^hash/ { print $2 }')
awake=$(field at awake)
echo "viewer: after the throw and 120 steps: hash $h190 (undisturbed $plain), $awake awake"
[ -n "$h190" ] && [ "$h190" != "$plain" ] || fail "the throw did not change the world hash"
[ "${awake:-0}" -gt 1 ] || fail "the thrown box woke nothing"
shot hit
[ -n "${KEEP_SHOTS:-}" ] && for s in start asleep hit; do "$pixels" "$d/$s.xwd" --png "$KEEP_SHOTS-$s.png"; done

xdotool key q
t=0
while kill -0 "$vpid" 2>/dev/null; do
  t=$((t + 1))
  [ $t -gt 50 ] && { fail "the viewer did not quit on q"; break; }
  sleep 0.1
done
grep -q "^viewer: quit" "$d/viewer.out" || fail "no quit line"
vpid=""

# The viewer opens a snapshot where it was saved.
if [ -f "$d/s120.qps" ]; then
  start_viewer "$d/s120.qps" --size 320x240 --paused
  xdotool key q
  wait "$vpid"
  vpid=""
  h120=$($qphys run tests/scenes/stack20.scene --steps 120 | awk '/^hash/ { print $2 }')
  [ "$(field start hash)" = "$h120" ] && [ "$(field start step)" = 120 ] && ok "the viewer opens a snapshot at its step and hash" ||
    fail "the viewer on a snapshot: $(cat "$d/viewer.out")"
fi

# Pull a body: press the left button on a cube of the sleeping stack, move the cursor to the
# right and step: the cube follows the cursor out of the stack.
start_viewer tests/scenes/stack20.scene --size 640x480 --steps 70 --paused
shot pull0
at_cursor0=$(count "$d/pull0.xwd" 430 270 490 330 warm)
xdotool mousemove 320 300 mousedown 1 sleep 0.2 mousemove 380 300 sleep 0.2 mousemove 460 300 sleep 0.3
keys 40 period
xdotool mouseup 1
shot pull
at_cursor=$(count "$d/pull.xwd" 430 270 490 330 warm)
echo "viewer: awake pixels at the cursor before the pull $at_cursor0, after 40 steps of pulling $at_cursor"
[ "$at_cursor0" -eq 0 ] && [ "$at_cursor" -gt 150 ] || fail "the pulled cube did not follow the cursor"
[ "$(field at hash)" != "$want" ] || fail "pulling did not change the world hash"
[ -n "${KEEP_SHOTS:-}" ] && "$pixels" "$d/pull.xwd" --png "$KEEP_SHOTS-pull.png"
xdotool key q
t=0
while kill -0 "$vpid" 2>/dev/null && [ $t -lt 50 ]; do t=$((t + 1)); sleep 0.1; done
vpid=""

# The car: the same snapshot with and without --car 3, a shot at once and 30 steps on.
"$out/car" 40 --save "$d/car.qps" >/dev/null || fail "the car demo did not save its snapshot"
for mode in plain car; do
  if [ $mode = car ]; then start_viewer "$d/car.qps" --size 640x480 --paused --car 3
  else start_viewer "$d/car.qps" --size 640x480 --paused; fi
  shot "$mode-0"
  keys 30 period
  shot "$mode-30"
  eval "${mode}_start=\$(field start hash) ${mode}_contacts=\$(field at contacts)"
  eval "${mode}_green0=\$(count "$d/$mode-0.xwd" 0 0 640 480 green) ${mode}_green30=\$(count "$d/$mode-30.xwd" 0 0 640 480 green)"
  xdotool key q
  wait "$vpid"
  vpid=""
done
echo "viewer: car: touching wheel rays $car_green0 then $car_green30 green pixels (none drawn: $plain_green0, $plain_green30);" \
  "contacts after 30 steps $car_contacts (without the wheels $plain_contacts)"
[ "$car_green0" -gt 15 ] && [ "$car_green30" -gt 15 ] && [ "$plain_green0" -eq 0 ] && [ "$plain_green30" -eq 0 ] ||
  fail "the car's wheels and suspension rays are not drawn (or drawn without --car)"
[ -n "$car_start" ] && [ "$car_start" = "$plain_start" ] || fail "attaching the car changed the world: $car_start, $plain_start"
[ "$car_contacts" = 1 ] && [ "$plain_contacts" = 2 ] || fail "the wheels do not hold the chassis off the ground"
[ -n "${KEEP_SHOTS:-}" ] && "$pixels" "$d/car-30.xwd" --png "$KEEP_SHOTS-car.png"
exit $failed
