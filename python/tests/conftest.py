# SPDX-License-Identifier: MIT
"""Shared fixtures: the repository, the qphys command of the same build, recordings."""
from __future__ import annotations

import os
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# The package of this checkout (and its build's libqphys.so), unless told to test the
# installed one (QPHYS_TEST_INSTALLED=1, after pip install).
if not os.environ.get("QPHYS_TEST_INSTALLED"):
    sys.path.insert(0, str(ROOT / "python"))
else:
    import qphys as _installed
    assert not Path(_installed.__file__).resolve().is_relative_to(ROOT / "python"), \
        f"QPHYS_TEST_INSTALLED: {_installed.__file__} is the checkout's package, not the installed one"
QPHYS = os.environ.get("QPHYS", str(ROOT / "build" / "host" / "qphys"))
SCENES = ROOT / "tests" / "scenes"


def qphys(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    """Run the qphys command; its output as text."""
    r = subprocess.run([QPHYS, *map(str, args)], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise AssertionError(f"qphys {' '.join(map(str, args))}: exit {r.returncode}: {r.stderr}")
    return r


def resign(data: bytes) -> bytes:
    """A replay file's bytes with their check line recomputed."""
    body = data[:data.rindex(b"check ")]
    return body + f"check {len(body)} {zlib.crc32(body):08x}\n".encode()


@pytest.fixture(scope="session")
def slope_replay(tmp_path_factory) -> Path:
    """slope.scene recorded by qphys record: 120 steps, inputs of every kind, poses."""
    out = tmp_path_factory.mktemp("rec") / "slope.replay"
    qphys("record", SCENES / "slope.scene", "--steps", "120", "--inputs", "7", "--poses", "-o", out)
    return out


def golden(name: str) -> dict:
    """tests/scenes/golden/NAME.hashes as {step: hash}."""
    out = {}
    for line in (SCENES / "golden" / f"{name}.hashes").read_text().split("\n"):
        if line.strip():
            s, h = line.split()
            out[int(s)] = int(h, 16)
    return out
