#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Random valid scene files over every keyword of docs/scene-format.md, for
tests/scripts/generated-scenes.sh: scenes nobody wrote by hand, where the bugs that
hand-written scenes miss are (joints beside a mesh or heightfield, a body of the least
mass, joints whose rows fight each other).

    python3 tests/generated/generate.py DIR FIRST COUNT [normal|extreme|big]

writes DIR/gN.scene for seeds FIRST .. FIRST + COUNT - 1 (and DIR/gN.obj where the
ground is a mesh). A seed gives the same file in every Python 3: only random() is drawn.
The files of this folder were made by

    python3 tests/generated/generate.py tests/generated 1 8 normal
    python3 tests/generated/generate.py tests/generated 101 8 extreme
    python3 tests/generated/generate.py tests/generated 201 8 big
"""
import os
import random
import sys


class Draws:
    """Draws from random() alone: its sequence for a seed is the same in every Python 3."""

    def __init__(self, seed):
        self.r = random.Random(seed)

    def random(self):
        return self.r.random()

    def uniform(self, a, b):
        return a + (b - a) * self.r.random()

    def int(self, a, b):
        return a + min(int(self.r.random() * (b - a + 1)), b - a)

    def pick(self, seq):
        return seq[self.int(0, len(seq) - 1)]


def num(x, digits=3):
    """x as the scene reader's decimals: no exponent, no trailing zeros, no '-0'."""
    s = ("%%.%df" % digits) % x
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def vec(*xs):
    return " ".join(num(x) for x in xs)


def ground(R, seed, out):
    kind = R.pick(["plane", "plane", "tilted", "heightfield", "mesh", "box"])
    if kind == "plane":
        return "plane friction %s" % num(R.uniform(0, 1))
    if kind == "tilted":
        return "plane normal %s 1 %s offset %s" % (num(R.uniform(-0.5, 0.5)), num(R.uniform(-0.5, 0.5)),
                                                   num(R.uniform(-1, 1)))
    if kind == "heightfield":
        rows, cols, sp = R.int(2, 12), R.int(2, 12), R.uniform(0.3, 3)
        heights = " ".join(num(R.uniform(-1, 1)) for _ in range(rows * cols))
        return "heightfield rows %d cols %d spacing %s pos %s 0 %s heights %s" % (
            rows, cols, num(sp), num(-(cols - 1) * sp / 2), num(-(rows - 1) * sp / 2), heights)
    if kind == "mesh":
        m, sp = R.int(2, 6), R.uniform(1, 4)
        lines = []
        for i in range(m + 1):
            for j in range(m + 1):
                lines.append("v %s" % vec((j - m / 2) * sp, R.uniform(-0.3, 0.3), (i - m / 2) * sp))
        for i in range(m):
            for j in range(m):
                a = i * (m + 1) + j + 1
                if R.random() < 0.5:
                    lines.append("f %d %d %d %d" % (a, a + m + 1, a + m + 2, a + 1))
                else:
                    lines.append("f %d %d %d\nf %d %d %d" % (a, a + m + 1, a + m + 2, a, a + m + 2, a + 1))
        with open(os.path.join(out, "g%d.obj" % seed), "w") as f:
            f.write("\n".join(lines) + "\n")
        turn = " rot 0 1 0 %d" % R.int(0, 90) if R.random() < 0.5 else ""
        return "mesh file g%d.obj pos 0 0 0%s" % (seed, turn)
    return "box half 20 0.5 20 pos 0 -0.5 0 static"


def body(R, extreme, hulls):
    """One body line (a compound: its lines), and whether it is dynamic; hulls: whether
    it may hold a hull (more than 16, the default world's, take a world sized to the file)."""
    x, y, z = R.uniform(-4, 4), R.uniform(0.5, 8), R.uniform(-4, 4)
    lo, hi = (0.02, 3) if extreme else (0.1, 1)
    opts = []
    if R.random() < 0.5:
        opts.append("rot %s %d" % (vec(R.uniform(-1, 1), R.uniform(0.1, 1), R.uniform(-1, 1)), R.int(-180, 180)))
    mode, dynamic, size = R.random(), False, hi
    if mode < 0.07:
        opts.append("static")
    elif mode < 0.14:
        opts.append("kinematic vel %s" % vec(R.uniform(-2, 2), R.uniform(-1, 1), R.uniform(-2, 2)))
        if R.random() < 0.5:
            opts.append("spin 0 %s 0" % num(R.uniform(-3, 3)))
    else:
        dynamic = True
        if R.random() < 0.3:
            sp = 55 if extreme else 8
            opts.append("vel %s" % vec(R.uniform(-sp, sp), R.uniform(-sp, sp), R.uniform(-sp, sp)))
        if R.random() < 0.3:
            sw = 28 if extreme else 10
            opts.append("spin %s" % vec(R.uniform(-sw, sw), R.uniform(-sw, sw), R.uniform(-sw, sw)))
    shape = R.random()
    if shape < 0.3:
        h = [R.uniform(lo, hi) for _ in range(3)]
        line = "box half %s pos %s" % (vec(*h), vec(x, y, z))
        size = max(h)
    elif shape < 0.5:
        size = R.uniform(lo, hi)
        line = "sphere radius %s pos %s" % (num(size), vec(x, y, z))
    elif shape < 0.65:
        r, h = R.uniform(lo, hi / 2), R.uniform(lo, hi)
        line = "capsule radius %s half_height %s pos %s" % (num(r), num(h), vec(x, y, z))
        size = r + h
    elif shape < 0.82 and not hulls:
        h = [R.uniform(lo, hi) for _ in range(3)]
        line = "box half %s pos %s" % (vec(*h), vec(x, y, z))
        size = max(h)
    elif shape < 0.82:
        pts = [vec(R.uniform(-hi, hi), R.uniform(-hi, hi), R.uniform(-hi, hi)) for _ in range(R.int(4, 20))]
        pts += [vec(hi, 0, 0), vec(0, hi, 0), vec(0, 0, hi), vec(-hi, -hi, -hi)]
        line = "hull points %s pos %s" % (" ".join(pts), vec(x, y, z))
        size = 1.8 * hi
    else:
        line = "compound pos %s" % vec(x, y, z)
        parts, hull = [], False
        for _ in range(R.int(1, 8)):   # a compound holds up to 8 parts
            at = "at %s" % vec(R.uniform(-1, 1), R.uniform(-1, 1), R.uniform(-1, 1))
            t = R.random()
            if t < 0.4:
                parts.append("part box half %s %s" % (vec(*[R.uniform(0.1, 0.6) for _ in range(3)]), at))
            elif t < 0.6:
                parts.append("part sphere radius %s %s" % (num(R.uniform(0.1, 0.5)), at))
            elif t < 0.8 or hull or not hulls:
                parts.append("part capsule radius %s half_height %s %s rot 1 0 0 %d" % (
                    num(R.uniform(0.05, 0.3)), num(R.uniform(0.1, 0.5)), at, R.int(0, 90)))
            else:
                hull = True
                parts.append("part hull points 0.3 0 0 0 0.3 0 0 0 0.3 -0.3 -0.3 -0.3 0.2 0.2 -0.2 %s" % at)
        size = 2
    if dynamic:
        m = R.random()
        # Inertia stays below 32000 kg m^2: about m (2 size)^2 for these shapes at most.
        most = min(10 ** (4 if extreme else 2), 30000 / (4 * size * size))
        if m < 0.05 and extreme:
            opts.append("mass 0.01")   # the least a body may have
        elif m < 0.3:
            opts.append("mass %s" % num(max(0.01, most * 10 ** R.uniform(-4 if extreme else -2, 0)), 2))
        elif m < 0.4 or line.startswith("compound"):
            # Within the mass and inertia bounds for a body filling its (2 size)^3 box.
            fill = 8 * size ** 3
            opts.append("density %s" % num(min(10 ** R.uniform(1, 2.5), min(1e4, 24000 / size ** 2) / fill)))
        if R.random() < 0.1:
            opts.append("asleep")
    if R.random() < 0.3:
        opts.append("friction %s" % num(R.uniform(0, 2)))
    if R.random() < 0.3:
        opts.append("restitution %s" % num(R.uniform(0, 1)))
    if R.random() < 0.1:
        opts.append("filter %d %d %d" % (R.int(0, 65535), R.int(0, 65535), R.int(-3, 3)))
    if R.random() < 0.05:
        opts.append("sensor")
    lines = [line + " " + " ".join(opts)]
    if line.startswith("compound"):
        lines += parts + ["end"]
    return lines, dynamic


def joint(R, a, b):
    anchor = "anchor %s" % vec(R.uniform(-3, 3), R.uniform(0, 5), R.uniform(-3, 3))
    axis = "axis %s" % vec(R.uniform(-1, 1), R.uniform(0.2, 1), R.uniform(-1, 1))
    kind = R.pick(["ball", "hinge", "distance", "fixed", "slider", "cone"])
    if kind == "ball":
        s = "ball %d %d %s" % (a, b, anchor)
    elif kind == "hinge":
        s = "hinge %d %d %s %s" % (a, b, anchor, axis)
        if R.random() < 0.5:
            lo = R.int(-180, 0)
            s += " limit %d %d" % (lo, R.int(lo, 180))
        if R.random() < 0.3:
            s += " motor %s %s" % (num(R.uniform(-5, 5)), num(R.uniform(0, 100)))
        if R.random() < 0.3:
            s += " spring %s %s" % (num(R.uniform(0.1, 10)), num(R.uniform(0, 2)))
        if R.random() < 0.3:
            s += " friction %s" % num(R.uniform(0, 10))
    elif kind == "distance":
        most = R.uniform(0.5, 4)
        s = "distance %d %d %s anchor %s max %s" % (a, b, anchor, vec(R.uniform(-3, 3), R.uniform(0, 5),
                                                                     R.uniform(-3, 3)), num(most))
        if R.random() < 0.4:
            s += " min %s" % num(R.uniform(0, most))
        if R.random() < 0.3:
            s += " spring %s %s" % (num(R.uniform(0.1, 10)), num(R.uniform(0, 2)))
    elif kind == "fixed":
        s = "fixed %d %d" % (a, b) + (" " + anchor if R.random() < 0.5 else "")
    elif kind == "slider":
        s = "slider %d %d %s %s" % (a, b, anchor, axis)
        if R.random() < 0.5:
            lo = R.uniform(-2, 0)
            s += " limit %s %s" % (num(lo), num(R.uniform(lo, 2)))
        if R.random() < 0.3:
            s += " motor %s %s" % (num(R.uniform(-2, 2)), num(R.uniform(0, 100)))
        if R.random() < 0.3:
            s += " spring %s %s" % (num(R.uniform(0.1, 10)), num(R.uniform(0, 2)))
    else:
        s = "cone %d %d %s %s swing %d" % (a, b, anchor, axis, R.int(0, 170))
        if R.random() < 0.5:
            lo = R.int(-180, 0)
            s += " twist %d %d" % (lo, R.int(lo, 180))
        if R.random() < 0.3:
            s += " friction %s" % num(R.uniform(0, 10))
    if R.random() < 0.2:
        s += " break %s" % num(R.uniform(0.1, 50))
    return s


def scene(seed, out, kind):
    R = Draws(seed)
    extreme = kind == "extreme"
    g = (0, -10, 0)
    if R.random() < 0.2:
        g = (R.uniform(-30, 30), R.uniform(-100, 5), R.uniform(-30, 30))
    hz = R.pick([60, 60, 60, 30, 120, 240, 10, 1000] if extreme else [60, 60, 120, 30])
    iterations = R.pick([10, 10, 1, 4, 20, 100]) if extreme else 10
    world = "world gravity %s hz %d iterations %d sleep %s" % (vec(*g), hz, iterations, R.pick(["on", "off"]))
    for option in ("gyroscopic", "joint_tree"):
        if R.random() < 0.4:
            world += " %s %s" % (option, R.pick(["on", "off"]))
    lines = ["# g%d: generated by tests/generated/generate.py (%s)" % (seed, kind), world, ground(R, seed, out)]
    dynamic = [False]
    for _ in range(R.int(2, 80 if kind == "big" else 25)):
        more, moves = body(R, extreme, sum("hull" in line for line in lines) < 40)
        lines += more
        dynamic.append(moves)
    n = len(dynamic)
    for _ in range(R.int(0, 20 if kind == "big" else 6)):
        a, b = R.int(0, n - 1), R.int(0, n - 1)
        if a != b and (dynamic[a] or dynamic[b]):
            lines.append(joint(R, a, b))
    with open(os.path.join(out, "g%d.scene" % seed), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5) or (len(sys.argv) == 5 and sys.argv[4] not in ("normal", "extreme", "big")):
        sys.exit("usage: generate.py DIR FIRST COUNT [normal|extreme|big]")
    out, first, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    os.makedirs(out, exist_ok=True)
    for seed in range(first, first + count):
        scene(seed, out, sys.argv[4] if len(sys.argv) == 5 else "normal")
