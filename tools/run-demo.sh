#!/bin/sh
# SPDX-License-Identifier: MIT
# run-demo.sh OUT SCENE - make run: the viewer on SCENE when there is a display (DISPLAY or
# WAYLAND_DISPLAY) and the viewer is built; otherwise (or when it cannot open a window) the
# qphys command runs SCENE for 600 steps, prints its summary and hash, and draws the run as
# an animation, saying where it is.
out=$1
scene=$2
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -x "$out/qphys-viewer" ]; then
  echo "run: the viewer on $scene (h for help, q to quit)"
  "$out/qphys-viewer" "$scene" && exit 0
  echo "run: the viewer could not open a window; running without it"
fi
"$out/qphys" run "$scene" --steps 600 || exit 1
gif=$out/$(basename "$scene" .scene).gif
if "$out/qphys" render "$scene" --from 0 --to 600 --every 10 -o "$gif" 2>/dev/null; then
  echo "animation: $gif (steps 0..600, every 10th)"
else
  echo "animation: not drawn (qphys render needs libpng and giflib: make deps)"
fi
