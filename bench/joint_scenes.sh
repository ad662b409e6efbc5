#!/bin/sh
# SPDX-License-Identifier: MIT
# bench/joint_scenes.sh DIR - write the jointed worlds of docs/benchmarks.md ("Joints at scale")
# into DIR, each with `sleep off`:
#   chainsM   M chains of ten box links (0.2 x 0.1 x 0.1 m, 1 kg) side by side, 0.5 m apart,
#             dropped from 0.3 m onto the ground: 10 M bodies, 9 M ball joints (M = 10 20 40 80)
#   groundN   a chain of N such links from a static post 1 m up, released horizontal onto the
#             ground: N ball joints in one tree (N = 25 50 100 200)
set -eu
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
dir=$1
mkdir -p "$dir"
for m in 10 20 40 80; do
  awk -v m="$m" 'BEGIN {
    printf "# chains%d: %d chains of ten box links on the ground (bench/joint_scenes.sh)\n", m, m
    print "world gravity 0 -10 0 hz 60 iterations 10 sleep off"
    print "plane"
    for (c = 0; c < m; c++)
      for (i = 0; i < 10; i++) printf "box half 0.1 0.05 0.05 pos %.2f 0.3 %.2f\n", 0.2 * i, 0.5 * c
    for (c = 0; c < m; c++)
      for (i = 0; i < 9; i++) printf "ball %d %d anchor %.2f 0.3 %.2f\n", 1 + 10 * c + i, 2 + 10 * c + i, 0.1 + 0.2 * i, 0.5 * c
  }' > "$dir/chains$m.scene"
done
for n in 25 50 100 200; do
  awk -v n="$n" 'BEGIN {
    printf "# ground%d: a chain of %d box links released onto the ground (bench/joint_scenes.sh)\n", n, n
    print "world gravity 0 -10 0 hz 60 iterations 10 sleep off"
    print "plane"
    print "box half 0.2 0.2 0.2 pos 0 1.00 0 static"
    for (i = 0; i < n; i++) printf "box half 0.1 0.05 0.05 pos %.2f 1.00 0\n", 0.3 + 0.2 * i
    print "ball 1 2 anchor 0.2 1.00 0"
    for (i = 0; i < n - 1; i++) printf "ball %d %d anchor %.2f 1.00 0\n", 2 + i, 3 + i, 0.4 + 0.2 * i
  }' > "$dir/ground$n.scene"
done
