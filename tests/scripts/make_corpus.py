#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""make_corpus.py DIR [--count N] [--steps S] [--seed K] [--qphys PATH] [--bad]

Writes a corpus of N recordings into DIR for `qphys verify` and its Dask twin
(examples/dask/verify.py): random scenes (a ground plane and 3 to 12 boxes, spheres and
capsules dropped on it) recorded by `qphys record` for S steps with inputs every 5 to 40
steps from a per-file seed; one in eight is a snapshot-plus-inputs pair (NAME.qpin beside
NAME.qps, recorded from a snapshot taken 20 steps into the scene). Files go into ten
subdirectories, so that verifiers walk a tree.

With --bad, some are altered on purpose after recording (one in 25 of each kind, by the
file's number): a byte changed in place (damaged), the file cut in half (damaged), a world
hash changed and the file re-signed (diverged at that step), a body hash at step 0 changed
and re-signed (diverged at its first step, that body), the format line of another version
(re-signed), the version line of another qphys (still matches, and says so), and a pair's
snapshot swapped for another's (one pair in five: damaged). What was done to which file is written to
DIR/manifest.txt.

Deterministic: the same arguments write the same bytes.
"""
from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import zlib


def scene_text(rng: random.Random) -> str:
    lines = ["world gravity 0 -10 0 hz 60 iterations 10 sleep on", "plane"]
    for k in range(rng.randint(3, 12)):
        x = (k % 4) * 1.5 - 2.25 + rng.uniform(-0.3, 0.3)
        z = (k // 4) * 1.5 - 1.5 + rng.uniform(-0.3, 0.3)
        y = rng.uniform(0.6, 4.0)
        pos = f"pos {x:.3f} {y:.3f} {z:.3f}"
        kind = rng.choice(["box", "sphere", "capsule"])
        if kind == "box":
            h = [rng.uniform(0.15, 0.5) for _ in range(3)]
            body = f"box half {h[0]:.3f} {h[1]:.3f} {h[2]:.3f} {pos} rot 0 1 0 {rng.randint(0, 89)}"
        elif kind == "sphere":
            body = f"sphere radius {rng.uniform(0.15, 0.5):.3f} {pos}"
        else:
            body = f"capsule radius {rng.uniform(0.1, 0.3):.3f} half_height {rng.uniform(0.1, 0.4):.3f} {pos}"
        if rng.random() < 0.3:
            body += f" vel {rng.uniform(-2, 2):.2f} 0 {rng.uniform(-2, 2):.2f}"
        lines.append(body)
    return "\n".join(lines) + "\n"


def resign(data: bytes) -> bytes:
    """data with its check line recomputed (length and CRC-32 of what precedes it)."""
    body = data[:data.rindex(b"check ")]
    return body + f"check {len(body)} {zlib.crc32(body):08x}\n".encode()


def run(cmd: list) -> None:
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if r.returncode != 0:
        sys.exit(f"make_corpus: {' '.join(cmd)} failed: {r.stderr.decode()}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--steps", type=int, default=120)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--qphys", default=os.environ.get("QPHYS", "build/host/qphys"))
    ap.add_argument("--bad", action="store_true", help="alter some files on purpose (manifest.txt says which)")
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    rng = random.Random(a.seed)
    manifest = []
    pairs = []
    for n in range(a.count):
        sub = os.path.join(a.dir, f"set{n % 10}")
        os.makedirs(sub, exist_ok=True)
        scene = os.path.join(sub, f"m{n:04d}.scene")
        with open(scene, "w") as f:
            f.write(scene_text(rng))
        every = str(rng.randint(5, 40))
        seed = str(rng.randint(1, 10000000))
        if n % 8 == 7:
            snap = os.path.join(sub, f"m{n:04d}.start.qps")
            run([a.qphys, "run", scene, "--steps", "20", "--save", snap])
            out = os.path.join(sub, f"m{n:04d}.qpin")
            run([a.qphys, "record", snap, "--steps", str(a.steps), "--inputs", every, "--seed", seed, "-o", out])
            os.remove(snap)
            pairs.append(out)
        else:
            out = os.path.join(sub, f"m{n:04d}.replay")
            run([a.qphys, "record", scene, "--steps", str(a.steps), "--inputs", every, "--seed", seed, "-o", out])
        os.remove(scene)
        if not a.bad:
            continue
        with open(out, "rb") as f:
            data = f.read()
        what = None
        kind = n % 25
        if out.endswith(".qpin") and (n // 8) % 5 == 2 and len(pairs) > 1:
            # A pair whose snapshot is another pair's.
            with open(pairs[-2][:-5] + ".qps", "rb") as f:
                other = f.read()
            with open(out[:-5] + ".qps", "wb") as f:
                f.write(other)
            what = "damaged: snapshot swapped"
        elif kind == 3:
            at = len(data) // 3
            data = data[:at] + bytes([data[at] ^ 0x04]) + data[at + 1:]
            what = "damaged: one byte changed"
        elif kind == 6:
            data = data[:len(data) // 2]
            what = "damaged: cut in half"
        elif kind == 9:
            step = a.steps // 2 + rng.randint(0, a.steps // 4)
            data = resign(re.sub(rb"(?m)^s (%d) [0-9a-f]{8}" % step, rb"s \1 0badf00d", data))
            what = f"diverged: world hash of step {step} changed"
        elif kind == 12:
            first = int(re.search(rb"(?m)^s (\d+) ", data).group(1))
            data = resign(re.sub(rb"(?m)^(s %d [0-9a-f]{8} 1:)[0-9a-f]{8}" % first, rb"\g<1>12345678", data))
            what = f"diverged: body 1's hash at step {first} changed"
        elif kind == 15:
            data = resign(data.replace(b"qphys-replay 4\n", b"qphys-replay 3\n", 1))
            what = "other version: format line 'qphys-replay 3'"
        elif kind == 18:
            data = resign(re.sub(rb"(?m)^version .*$", b"version 0.0.1", data, count=1))
            what = "matched: version line 0.0.1"
        if what:
            with open(out, "wb") as f:
                f.write(data)
            manifest.append(f"{out}: {what}\n")
    with open(os.path.join(a.dir, "manifest.txt"), "w") as f:
        f.writelines(manifest)
    print(f"make_corpus: {a.count} recordings of {a.steps} steps in {a.dir} ({len(pairs)} pairs, "
          f"{len(manifest)} altered)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
