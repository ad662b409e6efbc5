# SPDX-License-Identifier: MIT
"""Replay files: verifying them one by one or a corpus at a time, and recording them.

A recording is a replay file (NAME.replay: the scene, every step's inputs and hashes;
docs/scene-format.md "Replay files") or a snapshot-plus-inputs pair (NAME.qpin beside the
snapshot NAME.qps it starts from). Verification runs in libqphys.so (tools/verify.c), the
very code of ``qphys verify``, so both give the same verdicts and the same report lines.
"""
from __future__ import annotations

import ctypes
import os
import zlib
from ctypes import byref
from dataclasses import dataclass
from typing import Iterable, List, Optional, Sequence, Union

import numpy as np

from . import _native as N
from ._native import lib
from .errors import QphysError, ReplayError, Result
from .world import World

MATCHED, DIVERGED, DAMAGED, OTHER_VERSION = "matched", "diverged", "damaged", "other version"
_STATUS = (MATCHED, DIVERGED, DAMAGED, OTHER_VERSION)
MAGIC = "qphys-replay 4"

PathLike = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class VerifyResult:
    """One recording's verdict.

    status: "matched", "diverged", "damaged" or "other version". For a divergence, step is the
    first step that differs and body the first body slot whose hash differs there (0: none
    does; the contacts or the world do). report_line is the line ``qphys verify`` prints."""
    path: str
    status: str
    step: int
    body: int
    steps: int
    world_hash: int
    recorded_hash: int
    line: int
    column: int
    version: str
    message: str
    report_line: str

    @property
    def ok(self) -> bool:
        """Whether every step matched."""
        return self.status == MATCHED

    @classmethod
    def _from_c(cls, path: str, r: N.VerifyResultC) -> "VerifyResult":
        buf = ctypes.create_string_buffer(1024)
        lib.verify_line(byref(r), os.fsencode(path), buf, len(buf))
        status = _STATUS[r.status] if 0 <= r.status < len(_STATUS) else DAMAGED
        return cls(path, status, r.step, r.body, r.steps, r.world_hash, r.recorded_hash, r.line, r.column,
                   r.version.decode("utf-8", "replace"), r.message.decode("utf-8", "replace"),
                   os.fsdecode(buf.value))


def verify_file(path: PathLike) -> VerifyResult:
    """Verify one recording; never raises for a bad file (it is reported damaged)."""
    p = os.fspath(path)
    r = N.VerifyResultC()
    lib.verify_file(None, os.fsencode(p), byref(r))   # in this thread's world sized to the file
    return VerifyResult._from_c(p, r)


def verify_bytes(path: PathLike, data: bytes, snapshot: Optional[bytes] = None) -> VerifyResult:
    """Verify a recording's bytes read elsewhere (path names it, and says whether it is a pair's
    NAME.qpin; snapshot is then NAME.qps's bytes, None when it could not be read). Never
    raises for bad bytes; the verdict is verify_file's for the same files."""
    p = os.fspath(path)
    r = N.VerifyResultC()
    data = bytes(data)
    lib.verify_data(None, os.fsencode(p), data, len(data), snapshot,   # this thread's world, sized
                    len(snapshot) if snapshot is not None else 0, 1 if p.endswith(".qpin") else 0, byref(r))
    return VerifyResult._from_c(p, r)


def read_recording(path: PathLike) -> "tuple[bytes, Optional[bytes]]":
    """A recording's bytes and, for a NAME.qpin, NAME.qps's (None when unreadable), to send to
    verify_bytes on another machine. OSError when the recording itself cannot be read."""
    p = os.fspath(path)
    with open(p, "rb") as f:
        data = f.read()
    snap = None
    if p.endswith(".qpin"):
        try:
            with open(p[:-5] + ".qps", "rb") as f:
                snap = f.read()
        except OSError:
            snap = None
    return data, snap


def _is_recording(name: str) -> bool:
    return name.endswith(".replay") and len(name) > 7 or name.endswith(".qpin") and len(name) > 5


def find_recordings(paths: Iterable[PathLike]) -> List[str]:
    """Every regular file named *.replay or *.qpin under paths (directories walked recursively,
    links to directories not followed; files named directly taken whatever their name), sorted
    by bytes, without duplicates: the list and order of ``qphys verify``."""
    found = set()
    for path in paths:
        p = os.fspath(path)
        if os.path.isdir(p):
            for top, dirs, files in os.walk(p):
                for name in files:
                    full = os.path.join(top, name)
                    if _is_recording(full) and os.path.isfile(full):
                        found.add(full)
        elif os.path.exists(p):
            found.add(p)
        else:
            raise FileNotFoundError(p)
    return sorted(found, key=os.fsencode)


def verify_paths(paths: Iterable[PathLike]) -> List[VerifyResult]:
    """Verify every recording under paths, in find_recordings' order, in this process."""
    return [verify_file(p) for p in find_recordings(paths)]


def summary(results: Sequence[VerifyResult]) -> str:
    """The report's last line: "N files: A matched, B diverged, C damaged, D of another version"."""
    count = {s: 0 for s in _STATUS}
    for r in results:
        count[r.status] += 1
    return (f"{len(results)} files: {count[MATCHED]} matched, {count[DIVERGED]} diverged, {count[DAMAGED]} damaged, "
            f"{count[OTHER_VERSION]} of another version")


def report(results: Sequence[VerifyResult]) -> str:
    """What ``qphys verify`` prints on stdout for these results."""
    return "".join(r.report_line + "\n" for r in results) + summary(results) + "\n"


def exit_status(results: Sequence[VerifyResult]) -> int:
    """qphys verify's exit status: 2 if one is damaged or of another version, 1 if one
    diverged, else 0."""
    if any(r.status in (DAMAGED, OTHER_VERSION) for r in results):
        return 2
    return 1 if any(r.status == DIVERGED for r in results) else 0


def _xml(s: str) -> str:
    out = []
    for ch in s:
        if ch == "&":
            out.append("&amp;")
        elif ch == "<":
            out.append("&lt;")
        elif ch == ">":
            out.append("&gt;")
        elif ch == '"':
            out.append("&quot;")
        elif ord(ch) < 0x20 and ch != "\t":
            out.append("?")
        else:
            out.append(ch)
    return "".join(out)


def junit(results: Sequence[VerifyResult]) -> str:
    """JUnit XML, byte for byte what ``qphys verify --junit`` writes: a divergence is a failure,
    damage or another version an error; no times."""
    failures = sum(r.status == DIVERGED for r in results)
    errors = sum(r.status in (DAMAGED, OTHER_VERSION) for r in results)
    n = len(results)
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n',
           f'<testsuites tests="{n}" failures="{failures}" errors="{errors}">\n',
           f'  <testsuite name="qphys verify" tests="{n}" failures="{failures}" errors="{errors}">\n']
    for r in results:
        out.append(f'    <testcase classname="qphys.verify" name="{_xml(r.path)}')
        if r.ok:
            out.append('"/>\n')
            continue
        tag = "failure" if r.status == DIVERGED else "error"
        out.append(f'">\n      <{tag} type="{r.status}" message="{_xml(r.report_line)}"/>\n    </testcase>\n')
    out.append("  </testsuite>\n</testsuites>\n")
    return "".join(out)


class Replay:
    """A recording read into memory: ``Replay.load(path).verify()``."""

    def __init__(self, path: str, data: bytes, snapshot: Optional[bytes]) -> None:
        self.path = path
        self.data = data
        self.snapshot = snapshot      #: a pair's NAME.qps bytes; None for a replay file

    @classmethod
    def load(cls, path: PathLike) -> "Replay":
        """Read and check a recording. ReplayError (FILE:LINE:COLUMN: message) when it is
        damaged, truncated or malformed, or of another qphys version (other_version True)."""
        p = os.fspath(path)
        try:
            with open(p, "rb") as f:
                data = f.read()
        except OSError as e:
            raise ReplayError(Result.ERR_PARAM, p, 0, 0, f"cannot read: {e.strerror}") from None
        snap = None
        if p.endswith(".qpin"):
            sp = p[:-5] + ".qps"
            try:
                with open(sp, "rb") as f:
                    snap = f.read()
            except OSError as e:
                raise ReplayError(Result.ERR_PARAM, p, 0, 0, f"its snapshot {sp} cannot be read: {e.strerror}") \
                    from None
        line = ctypes.c_int(0)
        msg = ctypes.create_string_buffer(320)
        status = lib.qph_replay_check(data, len(data), byref(line), msg, len(msg))
        if status != 0:
            raise ReplayError(Result.ERR_PARSE, p, line.value, 1 if line.value else 0, msg.value.decode(),
                              other_version=status == 3)
        return cls(p, data, snap)

    def verify(self) -> VerifyResult:
        """Run the recording again and compare every step: the result says matched, or the
        first diverging step and body. ReplayError when the content is damaged in a way only
        running it shows (a scene error, a malformed input entry, a snapshot that does not
        match)."""
        r = N.VerifyResultC()
        snap = self.snapshot
        lib.verify_data(None, os.fsencode(self.path), self.data, len(self.data), snap,
                        len(snap) if snap is not None else 0, 1 if self.path.endswith(".qpin") else 0, byref(r))
        result = VerifyResult._from_c(self.path, r)
        if result.status in (DAMAGED, OTHER_VERSION):
            raise ReplayError(Result.ERR_PARSE, self.path, result.line, result.column, result.message,
                              other_version=result.status == OTHER_VERSION)
        return result


class Recorder:
    """Records a world loaded from a scene, as it is played, into a replay file that
    ``qphys verify`` and Replay.verify check:

        rec = Recorder(World.from_scene("arena.scene"))
        rec.world.apply_impulse(...)     # any mutating call: recorded through the input log
        rec.step(60)
        rec.save("match.replay")
    """

    def __init__(self, world: World, capacity: int = 1 << 20) -> None:
        if world.scene_text is None:
            raise QphysError(Result.ERR_PARAM, "Recorder: the world must come from a scene (World.from_scene)")
        self.world = world
        self._first = world.steps
        self._lines: List[str] = []
        self._prev: Optional[np.ndarray] = None
        self._saved = False
        world.record_inputs(capacity)

    def _commit(self) -> None:
        w = self.world
        step = w.steps
        data = w.inputs()
        w.clear_inputs()
        if data:
            self._lines.append(f"i {step} {data.hex()}\n")
        hashes = w.body_hashes()
        changed = hashes.nonzero()[0] if self._prev is None else (hashes != self._prev).nonzero()[0]
        self._prev = hashes
        parts = [f"s {step} {w.hash():08x}"] + [f"{i + 1}:{int(hashes[i]):08x}" for i in changed]
        self._lines.append(" ".join(parts) + "\n")

    def step(self, n: int = 1) -> None:
        """Close the current step's record (its inputs and hashes), then step, n times."""
        if self._saved:
            raise QphysError(Result.ERR_PARAM, "Recorder: already saved")
        for _ in range(n):
            self._commit()
            self.world.step()

    def save(self, path: PathLike) -> None:
        """Close the last step and write the replay file (with its check line)."""
        if self._saved:
            raise QphysError(Result.ERR_PARAM, "Recorder: already saved")
        self._commit()
        self._saved = True
        self.world.stop_recording()
        text = self.world.scene_text or ""
        lines = text.split("\n")
        if lines[-1] == "":
            lines.pop()
        cfg = ctypes.create_string_buffer(512)
        lib.qph_engine_config(cfg, len(cfg))
        source = (self.world.path or "<scene>").replace("\n", " ")
        head = [f"{MAGIC}\n", f"# recorded by the qphys Python package from {source}; format: docs/scene-format.md "
                f"(Replay files)\n", f"engine {cfg.value.decode()}\n", f"version {lib.qph_version().decode()}\n",
                f"steps {self.world.steps - self._first}\n", f"scene {len(lines)}\n"]
        head += [f"| {line}\n" for line in lines]
        body = ("".join(head) + "".join(self._lines) + "end\n").encode()
        with open(os.fspath(path), "wb") as f:
            f.write(body + f"check {len(body)} {zlib.crc32(body):08x}\n".encode())
