#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/fidelity/generate.sh: write the generated scenes of the fidelity table (make fidelity):
# the tilted stacks of case a and the lanes of fast bodies of case d. Tilted stacks: cubes each turned up to 1 degree about a random axis and shifted up to 1 cm
# sideways, placed with 1 mm gaps (between the cubes' vertical extents, and above the ground),
# as a level designer or a drop leaves them. Seeds 1..5; 20 high with sleep off and on (the
# same layouts), 40 high with sleep on. The random numbers are a Park-Miller generator in awk
# (exact in doubles), so every awk writes the same files. The files are committed; run this
# only to change them:  sh bench/fidelity/generate.sh
set -eu
cd "$(dirname "$0")"
stack() {   # stack HEIGHT SLEEP SEED FILE
  awk -v n="$1" -v sleep="$2" -v seed="$3" 'function rnd() { x = (x * 16807) % 2147483647; return x / 2147483647 }
  function abs(v) { return v < 0 ? -v : v }
  BEGIN {
    x = seed * 7919 + 12345
    for (i = 0; i < 5; i++) rnd()
    pi = atan2(0, -1)
    printf "# fidelity (a): %d unit cubes of 1 kg, each turned up to 1 deg about a random axis and shifted\n", n
    printf "# up to 1 cm, with 1 mm gaps; seed %d (bench/fidelity/generate.sh). Measured: the top cube.\n", seed
    printf "world gravity 0 -10 0 hz 60 iterations 10 sleep %s\n", sleep
    printf "plane\n"
    bottom = 0.001
    for (i = 0; i < n; i++) {
      z = 2 * rnd() - 1; phi = 2 * pi * rnd(); s = sqrt(1 - z * z)
      kx = s * cos(phi); ky = z; kz = s * sin(phi)
      deg = rnd(); th = deg * pi / 180; c = cos(th); sn = sin(th)
      r = 0.01 * sqrt(rnd()); a = 2 * pi * rnd()
      # row y of the rotation: the cube reaches 0.5 (|R10| + |R11| + |R12|) above and below its centre
      ext = 0.5 * (abs(kx * ky * (1 - c) + kz * sn) + abs(c + ky * ky * (1 - c)) + abs(ky * kz * (1 - c) - kx * sn))
      y = bottom + ext
      printf "box half 0.5 0.5 0.5 pos %.6f %.6f %.6f rot %.6f %.6f %.6f %.6f\n", r * cos(a), y, r * sin(a), kx, ky, kz, deg
      bottom = y + ext + 0.001
    }
  }' > "$4"
}
for seed in 1 2 3 4 5; do
  stack 20 off "$seed" "stack20_off_s$seed.scene"
  stack 20 on "$seed" "stack20_on_s$seed.scene"
  stack 40 on "$seed" "stack40_on_s$seed.scene"
done

# Fast bodies (case d), no gravity: 16 lanes 3 m apart, in each a static target at x = 0 and a
# projectile flying +x from 3 m before it, its start moved back by k/16 of one step's travel in
# lane k, so the 16 lanes sample every phase of the 60 Hz steps. Measured: how many end at x > 0.
# Off-centre lanes add the projectile's offset OFF (m, along y) and its own OPTIONS (a turn, a mass).
lanes() {   # lanes SPEED TARGET PROJECTILE TITLE FILE [OFF OPTIONS]
  awk -v v="$1" -v target="$2" -v proj="$3" -v title="$4" -v off="${6:-0}" -v opts="${7:-}" 'BEGIN {
    printf "# fidelity (d): %s at %d m/s, 16 start phases (bench/fidelity/generate.sh)\n", title, v
    printf "# fidelity: steps 60\n"
    printf "world gravity 0 0 0 hz 60 iterations 10 sleep off\n"
    for (k = 0; k < 16; k++) {
      printf "%s pos 0 0 %d static\n", target, 3 * k
      printf "%s pos %.6f %s %d vel %d 0 0%s\n", proj, -3 - k / 16 * v / 60, off, 3 * k, v, opts == "" ? "" : " " opts
    }
  }' > "$5"
}
lanes 60 "box half 0.5 0.5 0.5" "sphere radius 0.25" "a sphere of radius 0.25 m at a static unit box" fast_sphere60.scene
lanes 100 "box half 0.5 0.5 0.5" "sphere radius 0.25" "a sphere of radius 0.25 m at a static unit box" fast_sphere100.scene
lanes 40 "box half 0.1 1 1" "sphere radius 0.15" "a sphere of radius 0.15 m at a static wall 0.2 m thick" fast_wall40.scene
lanes 80 "box half 0.5 0.5 0.5" "box half 0.5 0.5 0.5" "a unit box at a static unit box" fast_box80.scene
lanes 15 "sphere radius 0.5" "box half 0.1 0.1 0.1" "a 0.2 m box, 1 cm off the centre line of a static ball of radius 0.5 m," \
  fast_box_ball15.scene 0.01 "mass 1"
lanes 100 "sphere radius 0.5" "box half 0.05 0.05 0.05" "a 0.1 m box, 2 cm off the centre line of a static ball of radius 0.5 m," \
  fast_box_ball100.scene 0.02 "mass 1"
lanes 80 "capsule radius 0.4 half_height 0.9 rot 1 0 0 90" "capsule radius 0.07 half_height 0.15" \
  "a capsule 0.14 m thick, turned, 1 cm off the centre line of a static capsule 0.8 m thick," fast_capsule80.scene 0.01 \
  "rot 1 2 3 50 mass 1"
lanes 64 "box half 0.25 0.25 0.25 rot 1 1 0 30" "box half 0.1 0.07 0.12" \
  "a turned box of 0.14-0.24 m, 1 cm off the centre line of a static turned box of 0.5 m," fast_turned_box64.scene 0.01 \
  "rot 0.3 1 0.2 40 mass 1"
