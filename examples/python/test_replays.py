# SPDX-License-Identifier: MIT
"""Replay tests for a game built on qphys: copy this file into your test suite.

Every recorded match in a folder must still verify, bit for bit, with the engine you build
today. When one does not, the test names the first step and body that differ, so a change of
behaviour is caught the day it is made.

    QPHYS_REPLAYS=path/to/replays /usr/bin/python3 -m pytest test_replays.py

The folder (default: replays/ beside this file) holds *.replay files and *.qpin/*.qps pairs,
in subfolders if you like. When it holds none, a match is recorded into it first
(record_match: your game's code goes there), so the file runs as it is.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

import qphys

HERE = Path(__file__).resolve().parent
REPLAYS = Path(os.environ.get("QPHYS_REPLAYS", HERE / "replays"))
# The arena a match is played in: a scene file of your game.
SCENE = Path(os.environ.get("QPHYS_SCENE", HERE.parents[1] / "tests" / "scenes" / "slope.scene"))


def record_match(path: Path, seconds: int = 4) -> str:
    """Play a short match in SCENE and record it: each second every dynamic body is kicked,
    a ball is thrown in, and one is taken out again. Returns the final hash."""
    rec = qphys.Recorder(qphys.World.from_scene(str(SCENE)))
    w = rec.world
    thrown = []
    for second in range(seconds):
        for body in w.bodies():
            if w.body_type(body) == "dynamic":
                w.apply_impulse(body, (0.5 * (second % 3 - 1), 2, 0), qphys.Raw(w.center(body)))
        thrown.append(w.create_body(qphys.sphere(0.2), position=(second - 1.5, 4, 0), velocity=(0, -1, 0)))
        if second >= 2:
            w.destroy_body(thrown.pop(0))
        rec.step(60)
    rec.save(path)
    return f"{w.hash():08x}"


REPLAYS.mkdir(parents=True, exist_ok=True)
if not qphys.find_recordings([REPLAYS]):
    record_match(REPLAYS / "match-001.replay")


def test_a_match_recorded_now_verifies(tmp_path):
    final = record_match(tmp_path / "now.replay")
    result = qphys.Replay.load(tmp_path / "now.replay").verify()
    assert result.ok, result.report_line
    assert f"{result.world_hash:08x}" == final


@pytest.mark.parametrize("path", qphys.find_recordings([REPLAYS]), ids=lambda p: os.path.relpath(p, REPLAYS))
def test_replay_still_verifies(path):
    result = qphys.Replay.load(path).verify()
    assert result.ok, result.report_line
