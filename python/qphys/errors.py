# SPDX-License-Identifier: MIT
"""Exceptions: every failing engine call raises one carrying the engine's qp_result."""
from __future__ import annotations

import enum
from typing import Optional

from ._native import lib


class Result(enum.IntEnum):
    """qp_result (qphys/types.h)."""
    OK = 0
    ERR_PARAM = 1
    ERR_RANGE = 2
    ERR_FULL = 3
    ERR_INVALID_ID = 4
    ERR_BUFFER = 5
    ERR_PARSE = 6
    ERR_CONFIG = 7


def result_str(r: int) -> str:
    """The engine's short English description of a qp_result."""
    return lib.qp_result_str(int(r)).decode()


class QphysError(Exception):
    """A call the engine refused. ``result`` is its qp_result; the world is as it was."""

    def __init__(self, result: int, message: str) -> None:
        self.result = Result(result) if 0 <= int(result) < len(Result) else int(result)
        self.message = message
        super().__init__(message)


class FileError(QphysError):
    """A file the engine refused: ``path``, ``line`` and ``column`` (1-based; 0 when the error
    is about the file as a whole) say where, and str() reads FILE:LINE:COLUMN: message."""

    def __init__(self, result: int, path: str, line: int, column: int, message: str) -> None:
        self.path = path
        self.line = line
        self.column = column
        where = f"{path}:{line}:{column}" if line > 0 else path
        super().__init__(result, f"{where}: {message}")
        self.message = message


class SceneError(FileError):
    """A scene file (docs/scene-format.md) that does not load."""


class ReplayError(FileError):
    """A replay file that is damaged, or of another qphys version (``other_version``)."""

    def __init__(self, result: int, path: str, line: int, column: int, message: str,
                 other_version: bool = False) -> None:
        super().__init__(result, path, line, column, message)
        self.other_version = other_version


class DivergedError(QphysError):
    """A recorded input that did not replay as recorded (qp_input_replay_step): the world is not
    the one recorded. ``step`` and ``kind`` name the entry."""

    def __init__(self, result: int, step: int, kind: int, message: str) -> None:
        super().__init__(result, message)
        self.step = step
        self.kind = kind


def check(r: int, what: str, extra: Optional[str] = None) -> None:
    """Raise QphysError unless r is QP_OK."""
    if r != 0:
        msg = f"{what}: {result_str(r)}"
        if extra:
            msg += f" ({extra})"
        raise QphysError(r, msg)
