# SPDX-License-Identifier: MIT
# bench/fidelity/summary.awk: what the fidelity table measures, from one engine's trace of one
# scene (the format of bench/fidelity_scene.h). The same program reads qphys's and Bullet's
# traces. Prints "ENGINE FILE BODY KEY VALUE" lines (BODY "-" for the whole scene):
#   first_all_asleep  first step at which every dynamic body is asleep, -1 if never
#   per body: type; x0 y0 z0 (start) x y z (end); bottom (lowest point's y at the end) and
#   bottom_min (over the run); hspeed (|v| in x-z at the end); vy_min (fastest fall);
#   energy0 / energy (m (v^2/2 - g.p) at the start / end, p with its lowest point for y: what
#   it can give up before it rests on a ground at y = 0); energy_top / energy_top_max (at the
#   last top of a bounce, where vy turns down, and the most at any top: there semi-implicit
#   Euler's ripple of about m g |v| dt is nearly nil); apex (the bottom's highest point
#   between the first and the second bounce, -1 if it never bounced); flags (OR over the run);
#   ex ey ez (half sizes of its world bounding box at the end, boxes and spheres);
#   deep (a dynamic body whose body before it in the file is static, its target in a lane of
#   case d: 1 if its centre was ever inside that target shrunk by half its thinnest half-size,
#   deep enough that it went through, not just dug in; else 0).
# Usage: awk -v engine=E -v file=F -f summary.awk TRACE
function abs(v) { return v < 0 ? -v : v }
# The rotation matrix of quaternion (w, x, y, z), into R[i, j].
function rot(w, x, y, z) {
  R[0, 0] = 1 - 2 * (y * y + z * z); R[0, 1] = 2 * (x * y - w * z); R[0, 2] = 2 * (x * z + w * y)
  R[1, 0] = 2 * (x * y + w * z); R[1, 1] = 1 - 2 * (x * x + z * z); R[1, 2] = 2 * (y * z - w * x)
  R[2, 0] = 2 * (x * z - w * y); R[2, 1] = 2 * (y * z + w * x); R[2, 2] = 1 - 2 * (x * x + y * y)
}
# Is the point (x, y, z) inside static body t (at its pose Tp, Tq), shrunk by half its thinnest
# half-size? Uses R.
function deep_in(t, x, y, z,    d0, d1, d2, l0, l1, l2, c, hy) {
  rot(Tq[t, 0], Tq[t, 1], Tq[t, 2], Tq[t, 3])
  d0 = x - Tp[t, 0]; d1 = y - Tp[t, 1]; d2 = z - Tp[t, 2]
  l0 = R[0, 0] * d0 + R[1, 0] * d1 + R[2, 0] * d2
  l1 = R[0, 1] * d0 + R[1, 1] * d1 + R[2, 1] * d2
  l2 = R[0, 2] * d0 + R[1, 2] * d1 + R[2, 2] * d2
  if (shape[t] == "sphere") { c = size[t, 0] / 2; return l0 * l0 + l1 * l1 + l2 * l2 < c * c }
  if (shape[t] == "capsule") { c = size[t, 0] / 2; hy = l1 > size[t, 1] ? size[t, 1] : (l1 < -size[t, 1] ? -size[t, 1] : l1)
    return l0 * l0 + (l1 - hy) * (l1 - hy) + l2 * l2 < c * c }
  if (shape[t] == "box") { c = size[t, 0]; if (size[t, 1] < c) c = size[t, 1]; if (size[t, 2] < c) c = size[t, 2]; c /= 2
    return abs(l0) < size[t, 0] - c && abs(l1) < size[t, 1] - c && abs(l2) < size[t, 2] - c }
  return 0
}
# Half size of body i along world axis a, with R set.
function ext(i, a) {
  if (shape[i] == "sphere") return size[i, 0]
  if (shape[i] == "capsule") return abs(R[a, 1]) * size[i, 1] + size[i, 0]
  if (shape[i] == "box") return abs(R[a, 0]) * size[i, 0] + abs(R[a, 1]) * size[i, 1] + abs(R[a, 2]) * size[i, 2]
  return 0
}
$1 == "world" { gx = $2; gy = $3; gz = $4; n = $8; next }
$1 == "body" {
  i = $2; type[i] = $3; shape[i] = $4; mass[i] = $5
  for (k = 6; k <= NF; k++) size[i, k - 6] = $k
  if (type[i] == "dynamic") ndyn++
  state[i] = 0; apex[i] = -1; bmin[i] = 1e30; vymin[i] = 0; fl[i] = 0
  next
}
$1 == "s" {
  step = $2; i = $3
  if (step != last_step) { if (last_step != "" && ndyn > 0 && asleep == ndyn && first_all < 0) first_all = last_step; asleep = 0; last_step = step }
  x = $4; y = $5; z = $6; vx = $11; vy = $12; vz = $13
  if (type[i] == "dynamic") asleep += $17
  if (type[i] == "static") { Tp[i, 0] = x; Tp[i, 1] = y; Tp[i, 2] = z; Tq[i, 0] = $7; Tq[i, 1] = $8; Tq[i, 2] = $9; Tq[i, 3] = $10 }
  if (type[i] == "dynamic" && i > 0 && type[i - 1] == "static" && ((i - 1, 0) in Tp) && deep_in(i - 1, x, y, z)) deep[i] = 1
  rot($7, $8, $9, $10)
  ex = ext(i, 0); ey = ext(i, 1); ez = ext(i, 2)
  b = y - ey
  if (b < bmin[i]) bmin[i] = b
  if (vy < vymin[i]) vymin[i] = vy
  fl[i] = or_flags(fl[i], $18)
  e = mass[i] * ((vx * vx + vy * vy + vz * vz) / 2 - (gx * x + gy * b + gz * z))
  if (step == 0) { x0[i] = x; y0[i] = y; z0[i] = z; e0[i] = e; elast[i] = e; emax[i] = e }
  # at the top of each bounce (vy turns from up to down) the integrator's ripple is smallest
  if (step > 0 && pvy[i] > 0 && vy <= 0) { elast[i] = e; if (e > emax[i]) emax[i] = e }
  pvy[i] = vy
  # rebound: 0 falling, 1 going up after the first bounce, 2 coming down again, 3 done
  if (state[i] == 0 && vy > 0 && step > 0) state[i] = 1
  else if (state[i] == 1 && vy < 0) state[i] = 2
  else if (state[i] == 2 && vy > 0) state[i] = 3
  if ((state[i] == 1 || state[i] == 2) && b > apex[i]) apex[i] = b
  X[i] = x; Y[i] = y; Z[i] = z; B[i] = b; H[i] = sqrt(vx * vx + vz * vz); E[i] = e
  EX[i] = ex; EY[i] = ey; EZ[i] = ez
  next
}
# Flags are small bit sets: OR them without gawk's or().
function or_flags(a, c,    r, bit) {
  r = 0
  for (bit = 1; bit <= 128; bit *= 2) if (int(a / bit) % 2 || int(c / bit) % 2) r += bit
  return r
}
BEGIN { first_all = -1; last_step = ""; ndyn = 0 }
END {
  if (ndyn > 0 && asleep == ndyn && first_all < 0) first_all = last_step
  p = engine " " file
  print p, "-", "first_all_asleep", first_all
  print p, "-", "steps", last_step
  for (i = 0; i < n; i++) {
    print p, i, "type", type[i]
    print p, i, "shape", shape[i]
    printf "%s %d x0 %.9g\n%s %d y0 %.9g\n%s %d z0 %.9g\n", p, i, x0[i], p, i, y0[i], p, i, z0[i]
    printf "%s %d x %.9g\n%s %d y %.9g\n%s %d z %.9g\n", p, i, X[i], p, i, Y[i], p, i, Z[i]
    printf "%s %d bottom %.9g\n%s %d bottom_min %.9g\n", p, i, B[i], p, i, bmin[i]
    printf "%s %d hspeed %.9g\n%s %d vy_min %.9g\n", p, i, H[i], p, i, vymin[i]
    printf "%s %d energy0 %.9g\n%s %d energy %.9g\n", p, i, e0[i], p, i, E[i]
    printf "%s %d energy_top %.9g\n%s %d energy_top_max %.9g\n", p, i, elast[i], p, i, emax[i]
    printf "%s %d apex %.9g\n%s %d flags %d\n", p, i, apex[i], p, i, fl[i]
    printf "%s %d ex %.9g\n%s %d ey %.9g\n%s %d ez %.9g\n", p, i, EX[i], p, i, EY[i], p, i, EZ[i]
    printf "%s %d deep %d\n", p, i, deep[i] + 0
  }
}
