#!/bin/sh
# SPDX-License-Identifier: MIT
# pictures.sh - make pictures: an animation of every scene of tests/scenes in docs/pictures/
# (<scene>.gif, 400x300), drawn by `qphys render` with no display, in a world sized to each
# scene (pyramid64's 2081 bodies included). Run it again after adding a scene.
#
# Frames: steps 0..180 every 6 (3 s at 60 Hz) unless the scene is listed below; rain512 runs
# until it has all fallen asleep (step 508), so the sleep tint spreads over the pile.
set -eu
out=docs/pictures
mkdir -p "$out"
qphys=build/host/qphys

# range SCENE: "FROM TO EVERY" for this scene.
range() {
  case $1 in
    rain512) echo "0 516 12" ;;
    pyramid64) echo "0 120 12" ;;   # 0.1 s a step on the host
    drawbridge) echo "0 240 8" ;;   # the deck takes 3.3 s to rise
    level) echo "0 240 8" ;;        # the balls take 4 s to roll down the ramp and settle
    *) echo "0 180 6" ;;
  esac
}

for scene in tests/scenes/*.scene; do
  name=$(basename "$scene" .scene)
  $qphys check "$scene" >/dev/null || exit 1   # says what is wrong
  set -- $(range "$name")
  $qphys render "$scene" --from "$1" --to "$2" --every "$3" -o "$out/$name.gif"
  echo "pictures: $out/$name.gif ($(wc -c <"$out/$name.gif") bytes)"
done

# The demos that are programs, not scene files: the ragdolls (examples/ragdolls.c) from a
# snapshot taken once they are all in the air, animated on; the car (examples/car.c) pressing
# the box against the wall, a still (its wheels are the program's, not the world's: --car 3
# names its chassis, whose wheels and suspension rays are drawn as qp_car_update finds them).
make -s build/host/ragdolls build/host/car
snap=$(mktemp -d "${TMPDIR:-/tmp}/qphys-pictures.XXXXXX")
trap 'rm -rf "$snap"' EXIT
build/host/ragdolls --save "$snap/ragdolls.qps" >/dev/null || true   # its exit status is about sleep
$qphys render "$snap/ragdolls.qps" --from 0 --to 180 --every 6 -o "$out/ragdolls.gif"
echo "pictures: $out/ragdolls.gif ($(wc -c <"$out/ragdolls.gif") bytes)"
build/host/car 170 --save "$snap/car.qps" >/dev/null
$qphys render "$snap/car.qps" --steps 0 --yaw -100 --car 3 -o "$out/car.png"
echo "pictures: $out/car.png ($(wc -c <"$out/car.png") bytes)"

# The car driven over level.scene (examples/level_drive.c): a snapshot every 6 steps, each drawn
# over the scene (its ground's geometry) with the car's wheels, the frames joined into a looping
# GIF by Pillow (Debian's python3-pil; skipped with a message without it).
make -s build/host/level_drive
mkdir "$snap/drive"
build/host/level_drive --frames "$snap/drive" 6 >/dev/null
for f in "$snap"/drive/*.qps; do
  $qphys render "$f" --scene tests/scenes/level.scene --steps 0 --yaw -60 --car 17 --title level_drive \
    -o "${f%.qps}.png" >/dev/null 2>"$snap/render.log" || { cat "$snap/render.log" >&2; exit 1; }
done
if /usr/bin/python3 -c 'import PIL' 2>/dev/null; then
  /usr/bin/python3 - "$snap/drive" "$out/level-drive.gif" <<'PY'
import glob, sys
from PIL import Image
frames = [Image.open(p).convert("RGB") for p in sorted(glob.glob(sys.argv[1] + "/*.png"))]
# One palette for every frame (the first's, adaptive), 6 steps at 60 Hz = 100 ms a frame.
pal = frames[0].quantize(colors=255, method=Image.Quantize.MEDIANCUT)
frames = [f.quantize(palette=pal, dither=Image.Dither.NONE) for f in frames]
frames[0].save(sys.argv[2], save_all=True, append_images=frames[1:], duration=100, loop=0, optimize=True)
PY
  echo "pictures: $out/level-drive.gif ($(wc -c <"$out/level-drive.gif") bytes)"
else
  echo "pictures: $out/level-drive.gif not made: it needs Debian's python3-pil" >&2
fi
