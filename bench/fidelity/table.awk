# SPDX-License-Identifier: MIT
# bench/fidelity/table.awk: the fidelity table in markdown, from the summaries of both engines
# (bench/fidelity/summary.awk) and the rows of bench/fidelity/cases.txt.
# Usage: awk -f table.awk SUMMARIES CASES
function abs(v) { return v < 0 ? -v : v }
function g(e, f, b, k) { return S[e, f, b, k] }
function body(e, f, b) { return b == "last" ? NB[e, f] - 1 : b }
function dyn(e, f, b) { return g(e, f, b, "type") == "dynamic" }
function or8(a, c,    r, bit) { r = 0; for (bit = 1; bit <= 128; bit *= 2) if (int(a / bit) % 2 || int(c / bit) % 2) r += bit; return r }
function flagnames(v,    s) {
  s = ""
  if (int(v / 1) % 2) s = s " speed-clamped"
  if (int(v / 2) % 2) s = s " out-of-bounds"
  if (int(v / 4) % 2) s = s " contacts-lost"
  if (int(v / 8) % 2) s = s " impulse-limit"
  return s == "" ? "none" : substr(s, 2)
}
# Where box b ends against static box s: in or through the floor, inside the box, on it, beside it.
function where(e, f, b, s,    a, o, inside, ax, on, yb) {
  inside = 1
  split("x y z", ax, " ")
  for (a = 1; a <= 3; a++) {
    o = g(e, f, b, "e" ax[a]) + g(e, f, s, "e" ax[a]) - abs(g(e, f, b, ax[a]) - g(e, f, s, ax[a] "0"))
    if (o <= 0.01) inside = 0
    if (a != 2) on = (a == 1) ? (o > 0) : (on && o > 0)
  }
  yb = sprintf(" (centre y %.2f m)", g(e, f, b, "y"))
  if (g(e, f, b, "y") < 0) return "through the floor" yb
  if (g(e, f, b, "bottom") < -0.01) return "in the floor" yb
  if (inside) return "inside the box" yb
  if (on && g(e, f, b, "bottom") >= g(e, f, s, "y0") + g(e, f, s, "ey") - 0.02) return "on top of the box" yb
  if (g(e, f, b, "bottom") < 0.02) return "out, on the floor" yb
  return "out, in the air" yb
}
# One file's value for a row: a number (N[] = 1) or a text.
function value(e, f, kind, b, s,    i, n, k, v, dx, dz) {
  isnum = 1
  if (kind == "loads") { isnum = 0; return ((e, f, "-", "steps") in S) ? "yes" : "no" }
  if (!((e, f, "-", "steps") in S)) { isnum = 0; return "-" }
  b = body(e, f, b)
  if (kind == "drift") { dx = g(e, f, b, "x") - g(e, f, b, "x0"); dz = g(e, f, b, "z") - g(e, f, b, "z0"); return 100 * sqrt(dx * dx + dz * dz) }
  if (kind == "hmove") { dx = g(e, f, b, "x") - g(e, f, b, "x0"); dz = g(e, f, b, "z") - g(e, f, b, "z0"); return 1000 * sqrt(dx * dx + dz * dz) }
  if (kind == "asleep") { v = g(e, f, "-", "first_all_asleep"); return v < 0 ? 1e9 : v }
  if (kind == "drop") return 100 * (g(e, f, b, "y0") - g(e, f, b, "y"))
  if (kind == "dropmm") return 1000 * (g(e, f, b, "y0") - g(e, f, b, "y"))
  if (kind == "energy") return g(e, f, b, "energy0") == 0 ? 0 : 100 * g(e, f, b, "energy") / g(e, f, b, "energy0")
  if (kind == "energy_top" || kind == "energy_top_max")
    return g(e, f, b, "energy0") == 0 ? 0 : 100 * g(e, f, b, kind == "energy_top" ? "energy_top" : "energy_top_max") / g(e, f, b, "energy0")
  if (kind == "apex") return 100 * g(e, f, b, "apex")
  n = NB[e, f]; k = 0; v = 0
  if (kind == "passed") { isnum = 0; for (i = 0; i < n; i++) if (dyn(e, f, i)) { v++; if (g(e, f, i, "x") > 0) k++ }; return k " of " v }
  if (kind == "through") { isnum = 0; for (i = 0; i < n; i++) if (dyn(e, f, i)) { v++; if (g(e, f, i, "deep")) k++ }; return k " of " v }
  if (kind == "inside") { isnum = 0; for (i = 0; i < n; i++) if (dyn(e, f, i)) { v++; if (g(e, f, i, "bottom") < -0.01) k++ }; return k " of " v }
  if (kind == "hspeed") { for (i = 0; i < n; i++) if (dyn(e, f, i) && g(e, f, i, "hspeed") > v) v = g(e, f, i, "hspeed"); return v }
  if (kind == "deepest") { for (i = 0; i < n; i++) if (dyn(e, f, i) && -g(e, f, i, "bottom_min") > v) v = -g(e, f, i, "bottom_min"); return 100 * v }
  if (kind == "lowest") { v = 1e30; for (i = 0; i < n; i++) if (dyn(e, f, i) && g(e, f, i, "bottom") < v) v = g(e, f, i, "bottom"); return 100 * v }
  if (kind == "flags") { isnum = 0; for (i = 0; i < n; i++) if (dyn(e, f, i)) v = or8(v, g(e, f, i, "flags")); return flagnames(v) }
  if (kind == "where") { isnum = 0; return where(e, f, b, s) }
  isnum = 0
  return "?" kind
}
function fmt(kind, v) {
  if (kind == "asleep") return v >= 1e9 ? "never" : sprintf("%d", v)
  if (kind ~ /^energy/ || kind == "hspeed") return sprintf("%.1f", v)
  if (kind == "drop" || kind == "deepest" || kind == "lowest") return sprintf("%.2f", v)
  return sprintf("%.1f", v)
}
# The cell of one engine: the file's value, or the range over the files.
function cell(e, pat, kind, b, s,    f, lo, hi, n, t, v, texts) {
  n = 0; texts = ""
  for (f in FILES) if (f ~ pat) {
    v = value(e, f, kind, b, s)
    if (!isnum) { texts = texts == "" ? v : (index(texts, v) ? texts : texts "; " v); continue }
    if (n == 0 || v < lo) lo = v
    if (n == 0 || v > hi) hi = v
    n++
  }
  if (texts != "") return texts
  if (n == 0) return "-"
  t = fmt(kind, lo)
  return fmt(kind, lo) == fmt(kind, hi) ? t : t " – " fmt(kind, hi)
}
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
NR == FNR {
  S[$1, $2, $3, $4] = $5
  if ($3 != "-" && $3 + 1 > NB[$1, $2]) NB[$1, $2] = $3 + 1
  FILES[$2] = 1
  next
}
/^#/ || NF == 0 { next }
{
  split($0, c, "|")
  pat = trim(c[3]); gsub(/\./, "\\.", pat); gsub(/\*/, ".*", pat); pat = "^" pat "$"
  split(trim(c[4]), m, " ")
  if (!header++) {
    print "| case | measure | qphys | Bullet " bv " | Bullet + CCD | target |"
    print "|---|---|---|---|---|---|"
  }
  printf "| %s | %s | %s | %s | %s | %s |\n", trim(c[1]), trim(c[2]), cell("qphys", pat, m[1], m[2], m[3]), \
         cell("bullet", pat, m[1], m[2], m[3]), cell("bulletccd", pat, m[1], m[2], m[3]), trim(c[5])
}
