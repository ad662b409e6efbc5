# SPDX-License-Identifier: MIT
"""qphys: the deterministic Q16.16 physics engine from Python (ctypes over libqphys.so).

    import qphys
    w = qphys.World.from_scene("tests/scenes/pyramid20.scene")
    w.step(600)
    print(f"{w.hash():08x}")                       # the same bits on every machine
    result = qphys.Replay.load("match.replay").verify()
    assert result.ok, result.report_line

See docs/python.md.
"""
from ._native import LIBRARY_PATH
from .errors import (DivergedError, FileError, QphysError, ReplayError, Result, SceneError, result_str)
from .replay import (DAMAGED, DIVERGED, MATCHED, OTHER_VERSION, Recorder, Replay, VerifyResult, exit_status,
                     find_recordings, junit, read_recording, report, summary, verify_bytes, verify_file,
                     verify_paths)
from .world import (CAPACITY, ONE, Q30_ONE, caps_for, BodyEvent, BodyId, BodyState, ContactEvent, Events, Fix, JointId,
                    Raw, RayHit, SensorEvent, World, box, capsule, default_world_def, plane, sphere, to_fix,
                    to_float, worlds_equal)
from ._native import lib as _lib

__version__: str = _lib.qph_version().decode()

__all__ = [
    "LIBRARY_PATH", "DivergedError", "FileError", "QphysError", "ReplayError", "Result", "SceneError",
    "result_str", "DAMAGED", "DIVERGED", "MATCHED", "OTHER_VERSION", "Recorder", "Replay", "VerifyResult",
    "exit_status", "find_recordings", "junit", "read_recording", "report", "summary", "verify_bytes",
    "verify_file", "verify_paths", "CAPACITY", "caps_for",
    "ONE", "Q30_ONE", "BodyEvent", "BodyId", "BodyState", "ContactEvent", "Events", "Fix", "JointId", "Raw",
    "RayHit", "SensorEvent", "World", "box", "capsule", "default_world_def", "plane", "sphere", "to_fix",
    "to_float", "worlds_equal",
]
