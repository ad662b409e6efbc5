# SPDX-License-Identifier: MIT
"""The world: bodies, shapes, joints, the step, hashes, state, snapshots, events, ray casts and
the input log, over libqphys.so.

Numbers. The engine computes in Q16.16 (rotations and normals in Q2.30). What this module
returns as ``int`` is the engine's exact raw value (``raw / 65536`` metres; ``raw / 2**30`` for
a quaternion component); the numpy float arrays are those values divided out. Arguments given
as Python numbers are metres (seconds, kilograms, radians) and are rounded to the nearest
Q16.16 value, ties away from zero; wrap them in :class:`Raw` (vectors, quaternions) or
:class:`Fix` (scalars) to pass raw values unchanged, which is what a bit-exact game does.
"""
from __future__ import annotations

import ctypes
import math
import os
from ctypes import byref, c_int, c_int64, c_ulong
from typing import List, NamedTuple, Optional, Sequence, Union

import numpy as np

from . import _native as N
from ._native import lib
from .errors import QphysError, Result, SceneError, DivergedError, check, result_str

ONE = 1 << 16          #: 1.0 in Q16.16
Q30_ONE = 1 << 30      #: 1.0 in Q2.30
CAPACITY: int = N.CAPACITY  #: body slots of a world of the default capacities (QP_CFG_MAX_BODIES)

_INT32 = (-(1 << 31), (1 << 31) - 1)


class Fix(int):
    """A raw Q16.16 scalar, passed to the engine unchanged."""


class Raw(tuple):
    """A raw vector (Q16.16) or quaternion (Q2.30), passed to the engine unchanged."""


Number = Union[int, float]
Vector = Sequence[Number]


def _round(x: float, scale: int, what: str) -> int:
    v = float(x) * scale
    if not math.isfinite(v):
        raise QphysError(Result.ERR_RANGE, f"{what}: {x!r} is not a finite number")
    r = int(math.floor(abs(v) + 0.5))
    r = -r if v < 0 else r
    if not _INT32[0] <= r <= _INT32[1]:
        raise QphysError(Result.ERR_RANGE, f"{what}: {x!r} does not fit Q16.16")
    return r


def to_fix(x: Number, what: str = "value") -> int:
    """x as a raw Q16.16 int: Fix and Raw values unchanged, numbers rounded to nearest."""
    if isinstance(x, Fix):
        return int(x)
    return _round(x, ONE, what)


def to_float(raw: int) -> float:
    """A raw Q16.16 value in metres (exact: a double holds every Q16.16 value)."""
    return raw / ONE


def _vec(v: Optional[Vector], what: str = "vector") -> N.Vec3:
    if v is None:
        return N.Vec3(0, 0, 0)
    if len(v) != 3:
        raise QphysError(Result.ERR_PARAM, f"{what}: expected 3 numbers, got {len(v)}")
    if isinstance(v, Raw):
        return N.Vec3(*(int(c) for c in v))
    return N.Vec3(*(to_fix(c, what) for c in v))


def _quat(q: Optional[Vector], what: str = "rotation") -> N.Quat:
    if q is None:
        return N.Quat(Q30_ONE, 0, 0, 0)
    if len(q) != 4:
        raise QphysError(Result.ERR_PARAM, f"{what}: expected 4 numbers (w, x, y, z), got {len(q)}")
    if isinstance(q, Raw):
        return N.Quat(*(int(c) for c in q))
    return N.Quat(*(_round(c, Q30_ONE, what) for c in q))


def _v3(v: N.Vec3) -> Raw:
    return Raw((v.x, v.y, v.z))


def _q4(q: N.Quat) -> Raw:
    return Raw((q.w, q.x, q.y, q.z))


class BodyId(NamedTuple):
    """A body's name: slot index (1-based) and the slot's generation."""
    index: int  # type: ignore[assignment]  # the engine's name for it; tuple.index is shadowed
    generation: int


class JointId(NamedTuple):
    """A joint's name: slot index (1-based) and the slot's generation."""
    index: int  # type: ignore[assignment]  # as BodyId's
    generation: int


def _bid(b: Union[BodyId, Sequence[int], None]) -> N.BodyIdC:
    return N.BodyIdC(0, 0) if b is None else N.BodyIdC(int(b[0]), int(b[1]))


def _jid(j: Union[JointId, Sequence[int]]) -> N.JointIdC:
    return N.JointIdC(int(j[0]), int(j[1]))


class BodyState(NamedTuple):
    """A body's exact state: raw Q16.16 centre of mass, velocity and spin, Q2.30 rotation."""
    center: Raw
    rotation: Raw
    velocity: Raw
    spin: Raw


class RayHit(NamedTuple):
    """The nearest hit of a ray: the body, the fraction of the ray (Q16.16), the world point
    (Q16.16) and the unit normal (Q2.30), raw."""
    body: BodyId
    fraction: int
    point: Raw
    normal: Raw


class ContactEvent(NamedTuple):
    a: BodyId
    b: BodyId
    shape_a: int
    shape_b: int
    kind: str            #: "begin" or "end"
    point: Raw           #: Q16.16
    normal: Raw          #: Q2.30
    impulse: int         #: Q16.16, N s


class SensorEvent(NamedTuple):
    sensor: BodyId
    visitor: BodyId
    sensor_shape: int
    visitor_shape: int
    kind: str            #: "begin" or "end"


class BodyEvent(NamedTuple):
    body: BodyId
    kind: str            #: "slept" or "woke"


class Events(NamedTuple):
    """What the last step (and the calls since) reported, in the engine's order."""
    contacts: List[ContactEvent]
    sensors: List[SensorEvent]
    bodies: List[BodyEvent]
    lost: int


_BODY_TYPES = {"static": 0, "dynamic": 1, "kinematic": 2}
_BODY_TYPE_NAMES = {v: k for k, v in _BODY_TYPES.items()}
_JOINT_TYPES = {"ball": 0, "hinge": 1, "distance": 2, "fixed": 3, "slider": 4, "cone": 5}
_EVENT_KINDS = {0: "begin", 1: "end", 2: "slept", 3: "woke"}


# ---- shapes -------------------------------------------------------------------------------

def _placed(s: N.ShapeC, offset: Optional[Vector], rotation: Optional[Vector]) -> N.ShapeC:
    if offset is not None:
        s.offset = _vec(offset, "offset")
    if rotation is not None:
        s.rotation = _quat(rotation)
    return s


def box(hx: Number, hy: Number, hz: Number, offset: Optional[Vector] = None,
        rotation: Optional[Vector] = None) -> N.ShapeC:
    """A box of half extents hx, hy, hz (m), at offset/rotation in its body's frame."""
    s = N.ShapeC()
    check(lib.qp_make_box(_vec((hx, hy, hz), "half extents"), byref(s)), "box")
    return _placed(s, offset, rotation)


def sphere(radius: Number, offset: Optional[Vector] = None) -> N.ShapeC:
    """A sphere of the given radius (m)."""
    s = N.ShapeC()
    check(lib.qp_make_sphere(to_fix(radius, "radius"), byref(s)), "sphere")
    return _placed(s, offset, None)


def capsule(radius: Number, half_height: Number, offset: Optional[Vector] = None,
            rotation: Optional[Vector] = None) -> N.ShapeC:
    """A capsule along its local y axis: radius and half the segment's length (m)."""
    s = N.ShapeC()
    check(lib.qp_make_capsule(to_fix(radius, "radius"), to_fix(half_height, "half height"), byref(s)), "capsule")
    return _placed(s, offset, rotation)


def plane(normal: Vector = (0, 1, 0), offset: Number = 0) -> N.ShapeC:
    """A static half-space: normal . p <= offset is solid."""
    s = N.ShapeC()
    check(lib.qp_make_plane(_vec(normal, "normal"), to_fix(offset, "offset"), byref(s)), "plane")
    return s


# ---- definitions ----------------------------------------------------------------------------

# qp_world_def's plain int fields (counts, steps, the sleep policy); the other number fields are
# Q16.16 (ctypes cannot tell them apart: both are 32-bit ints).
_WORLD_INT_FIELDS = {"collision_iterations", "contact_iterations", "shock_iterations", "penetration_iterations",
                     "sleep_policy", "sleep_steps", "min_awake_steps"}


def default_world_def(**fields: object) -> N.WorldDefC:
    """qp_default_world_def() with fields overridden by name (qp_world_def's fields): vectors
    and Q16.16 fields from numbers (or Raw/Fix), ints and bools as they are."""
    d = lib.qp_default_world_def()
    kinds = dict(N.WorldDefC._fields_)
    for name, value in fields.items():
        if name not in kinds:
            raise QphysError(Result.ERR_PARAM, f"world def: no field '{name}'")
        t = kinds[name]
        if t is N.Vec3:
            setattr(d, name, _vec(value, name))  # type: ignore[arg-type]
        elif t is ctypes.c_bool:
            setattr(d, name, bool(value))
        elif name in _WORLD_INT_FIELDS:
            if isinstance(value, float) and not value.is_integer():
                raise QphysError(Result.ERR_PARAM, f"world def: {name} is a whole number, not {value!r}")
            setattr(d, name, int(value))  # type: ignore[call-overload]
        else:
            setattr(d, name, to_fix(value, name))  # type: ignore[arg-type]
    return d


# ---- the world ---------------------------------------------------------------------------------

def caps_for(bodies: int, shapes: Optional[int] = None, joints: int = 1) -> N.WorldCapsC:
    """qp_world_caps_for: capacities for this many bodies, shapes (default: one a body) and
    joints, with 8 pairs and 3 contacts a body."""
    return lib.qp_world_caps_for(int(bodies), int(bodies if shapes is None else shapes), int(joints))


class World:
    """One qp_world, its memory owned by this object (views of it keep the memory alive).

    ``World(world_def)`` is an empty world of the default capacities (``default_world_def(...)``
    makes the def; ``caps=caps_for(n)`` gives other capacities); ``World.from_scene(path)`` loads
    a scene file and ``World.from_snapshot(data)`` restores one, each into a world sized to it
    (as the qphys command does: docs/scale.md).
    """

    def __init__(self, world_def: Optional[N.WorldDefC] = None, caps: Optional[N.WorldCapsC] = None,
                 **fields: object) -> None:
        if world_def is not None and fields:
            raise QphysError(Result.ERR_PARAM, "World: a world_def or fields, not both")
        d = world_def if world_def is not None else default_world_def(**fields)
        size = N.SIZEOF_WORLD if caps is None else lib.qp_world_memory_size(byref(caps))
        if size == 0:
            raise QphysError(Result.ERR_PARAM, "World: a capacity out of its range (qp_world_caps)")
        self._mem = (c_int64 * ((size + 7) // 8))()
        self._w = ctypes.c_void_p(ctypes.addressof(self._mem))
        self._log: Optional[N.InputLogC] = None
        self._log_buf: Optional[ctypes.Array] = None
        self.scene_text: Optional[str] = None   #: the scene it was loaded from, if any
        self.path: Optional[str] = None         #: that scene's file
        self.scene_bodies: int = 0              #: bodies the scene defined
        if caps is None:
            check(lib.qph_world_init(self._w, byref(d)), "qp_world_init")
        else:
            check(lib.qph_world_init_in(self._w, size, byref(caps), byref(d)), "qp_world_init_in")
        self.capacity: int = lib.qp_world_body_capacity(self._w)   #: its body slots

    @property
    def caps(self) -> N.WorldCapsC:
        """Its capacities (qp_world_caps)."""
        return lib.qp_world_get_caps(self._w)

    # -- loading -------------------------------------------------------------------------
    @classmethod
    def from_scene(cls, path: str) -> "World":
        """Load a scene file; SceneError (FILE:LINE:COLUMN: message) when it does not load."""
        with open(path, "rb") as f:
            text = f.read()
        return cls.from_scene_text(text, path)

    @classmethod
    def from_scene_text(cls, text: Union[str, bytes], path: str = "<scene>") -> "World":
        """Load scene text; errors name path."""
        data = text.encode() if isinstance(text, str) else bytes(text)
        counts = N.SceneInfoC()
        err = N.SceneErrorC()
        r = lib.qp_scene_check(data, len(data), byref(counts), byref(err))
        if r != 0:
            msg = (err.message or b"").decode() or result_str(r)
            raise SceneError(r, path, err.line, err.column, f"{msg} ({result_str(r)})")
        w = cls(caps=lib.sized_world_caps(counts.bodies, counts.shapes, counts.joints, counts.hulls))
        info = N.SceneInfoC()
        err = N.SceneErrorC()
        # Mesh files (mesh file PATH) are read relative to path's folder.
        r = lib.qph_scene_load_level(w._w, data, len(data), os.fsencode(path), byref(info), byref(err))
        if r != 0:
            msg = (err.message or b"").decode() or result_str(r)
            raise SceneError(r, path, err.line, err.column, f"{msg} ({result_str(r)})")
        w.scene_text = data.decode("utf-8", "replace")
        w.path = path
        w.scene_bodies = info.bodies
        return w

    @classmethod
    def from_snapshot(cls, data: bytes) -> "World":
        """A world restored from snapshot bytes (World.snapshot), sized to them."""
        data = bytes(data)
        need = N.WorldCapsC()
        check(lib.qp_snapshot_caps(data, len(data), byref(need)), "restore",
              "damaged, truncated or inconsistent" if data else "empty")
        caps = lib.sized_world_caps(need.bodies, need.shapes, need.joints, need.hulls)
        for name in ("pairs", "contacts", "sensor_overlaps"):
            setattr(caps, name, max(getattr(caps, name), getattr(need, name)))
        w = cls(caps=caps)
        w.restore(data)
        return w

    def scene_body(self, i: int) -> BodyId:
        """Body number i (0-based, file order) of a world loaded from a scene."""
        b = lib.qp_scene_body(self._w, i)
        if b.index == 0:
            raise QphysError(Result.ERR_INVALID_ID, f"scene body {i}: no such body")
        return BodyId(b.index, b.generation)

    # -- the step and hashes ---------------------------------------------------------------
    def step(self, n: int = 1) -> None:
        """Take n steps."""
        for _ in range(n):
            lib.qp_world_step(self._w)

    def hash(self) -> int:
        """qp_world_hash: the whole state's 32-bit hash."""
        return lib.qp_world_hash(self._w)

    def body_hash(self, body: BodyId) -> int:
        """qp_body_hash of one body (0 for a stale id)."""
        return lib.qp_body_hash(self._w, _bid(body))

    def body_hashes(self) -> np.ndarray:
        """qp_body_hash of every slot 1..capacity (row i - 1: slot i; 0: no body), uint32."""
        out = np.zeros(self.capacity, dtype=np.uint32)
        lib.qph_body_hashes(self._w, out.ctypes.data_as(ctypes.POINTER(ctypes.c_uint32)))
        return out

    @property
    def steps(self) -> int:
        """Steps taken (stats.step)."""
        return lib.qp_world_get_stats(self._w).step

    def stats(self) -> dict:
        """qp_world_get_stats as a dict."""
        s = lib.qp_world_get_stats(self._w)
        return {name: getattr(s, name) for name, _ in N.StatsC._fields_}

    @property
    def world_def(self) -> N.WorldDefC:
        """A copy of the world's definition."""
        d = N.WorldDefC()
        ctypes.pointer(d)[0] = lib.qp_world_get_def(self._w)[0]
        return d

    # -- bodies ------------------------------------------------------------------------------
    def create_body(self, shapes: Union[N.ShapeC, Sequence[N.ShapeC], None] = None, *, type: str = "dynamic",
                    position: Optional[Vector] = None, rotation: Optional[Vector] = None,
                    velocity: Optional[Vector] = None, spin: Optional[Vector] = None,
                    mass: Optional[Number] = None, density: Optional[Number] = None,
                    friction: Optional[Number] = None, static_friction: Optional[Number] = None,
                    restitution: Optional[Number] = None, rolling_resistance: Optional[Number] = None,
                    asleep: bool = False, user_data: int = 0,
                    filters: Optional[Sequence[Sequence[int]]] = None, sensors: Optional[Sequence[bool]] = None,
                    body_def: Optional[N.BodyDefC] = None) -> BodyId:
        """Create a body of one or more shapes (box(), sphere(), ...), or from a ready
        qp_body_def (body_def). Filters are (category, mask, group) per shape."""
        if body_def is None:
            d = lib.qp_default_body_def()
            if type not in _BODY_TYPES:
                raise QphysError(Result.ERR_PARAM, f"body type '{type}': expected one of {sorted(_BODY_TYPES)}")
            d.type = _BODY_TYPES[type]
            items = [shapes] if isinstance(shapes, N.ShapeC) else list(shapes or [])
            if not 1 <= len(items) <= N.MAX_BODY_SHAPES:
                raise QphysError(Result.ERR_PARAM, f"a body has 1 to {N.MAX_BODY_SHAPES} shapes, not {len(items)}")
            d.shape_count = len(items)
            for k, shape in enumerate(items):
                d.shapes[k] = shape
            d.position = _vec(position, "position")
            d.rotation = _quat(rotation)
            d.linear_velocity = _vec(velocity, "velocity")
            d.angular_velocity = _vec(spin, "spin")
            for name, value in (("mass", mass), ("density", density), ("friction", friction),
                                ("static_friction", static_friction), ("restitution", restitution),
                                ("rolling_resistance", rolling_resistance)):
                if value is not None:
                    setattr(d, name, to_fix(value, name))
            d.asleep = asleep
            d.user_data = user_data
            for k, f in enumerate(filters or []):
                d.filters[k] = N.ShapeFilterC(*f)
            for k, sensor in enumerate(sensors or []):
                d.sensors[k] = bool(sensor)
            body_def = d
        err = c_int(0)
        b = lib.qp_create_body(self._w, byref(body_def), byref(err))
        check(err.value, "create body")
        return BodyId(b.index, b.generation)

    def destroy_body(self, body: BodyId) -> None:
        check(lib.qp_destroy_body(self._w, _bid(body)), "destroy body")

    def is_valid(self, body: BodyId) -> bool:
        return bool(lib.qp_body_is_valid(self._w, _bid(body)))

    def bodies(self) -> List[BodyId]:
        """The live bodies, by slot."""
        out = []
        for i in range(1, self.capacity + 1):
            b = lib.qp_world_body_at(self._w, i)
            if b.index:
                out.append(BodyId(b.index, b.generation))
        return out

    def _valid(self, body: BodyId) -> N.BodyIdC:
        b = _bid(body)
        if not lib.qp_body_is_valid(self._w, b):
            raise QphysError(Result.ERR_INVALID_ID, f"body {tuple(body)}: {result_str(Result.ERR_INVALID_ID)}")
        return b

    def position(self, body: BodyId) -> Raw:
        """The body's origin, raw Q16.16."""
        return _v3(lib.qp_body_position(self._w, self._valid(body)))

    def center(self, body: BodyId) -> Raw:
        """The body's centre of mass, raw Q16.16."""
        return _v3(lib.qp_body_center(self._w, self._valid(body)))

    def rotation(self, body: BodyId) -> Raw:
        """The body's rotation (w, x, y, z), raw Q2.30."""
        return _q4(lib.qp_body_rotation(self._w, self._valid(body)))

    def velocity(self, body: BodyId) -> Raw:
        """Linear velocity of the centre of mass, raw Q16.16."""
        return _v3(lib.qp_body_linear_velocity(self._w, self._valid(body)))

    def spin(self, body: BodyId) -> Raw:
        """Angular velocity (world frame), raw Q16.16."""
        return _v3(lib.qp_body_angular_velocity(self._w, self._valid(body)))

    def state(self, body: BodyId) -> BodyState:
        """Centre, rotation, velocity and spin, raw."""
        return BodyState(self.center(body), self.rotation(body), self.velocity(body), self.spin(body))

    def body_type(self, body: BodyId) -> str:
        return _BODY_TYPE_NAMES[lib.qp_body_get_type(self._w, self._valid(body))]

    def mass(self, body: BodyId) -> int:
        """Mass, raw Q16.16 (kg)."""
        return lib.qp_body_mass(self._w, self._valid(body))

    def is_awake(self, body: BodyId) -> bool:
        return bool(lib.qp_body_is_awake(self._w, self._valid(body)))

    def flags(self, body: BodyId) -> int:
        """QP_FLAG_* bits the body raised (sticky until clear_flags)."""
        return lib.qp_body_flags(self._w, self._valid(body))

    def set_pose(self, body: BodyId, position: Vector, rotation: Optional[Vector] = None) -> None:
        check(lib.qp_body_set_pose(self._w, _bid(body), _vec(position, "position"), _quat(rotation)), "set pose")

    def set_velocity(self, body: BodyId, v: Vector) -> None:
        check(lib.qp_body_set_linear_velocity(self._w, _bid(body), _vec(v, "velocity")), "set velocity")

    def set_spin(self, body: BodyId, w: Vector) -> None:
        check(lib.qp_body_set_angular_velocity(self._w, _bid(body), _vec(w, "spin")), "set spin")

    def apply_force(self, body: BodyId, force: Vector) -> None:
        check(lib.qp_body_apply_force(self._w, _bid(body), _vec(force, "force")), "apply force")

    def apply_torque(self, body: BodyId, torque: Vector) -> None:
        check(lib.qp_body_apply_torque(self._w, _bid(body), _vec(torque, "torque")), "apply torque")

    def apply_impulse(self, body: BodyId, impulse: Vector, point: Vector) -> None:
        """An impulse (N s) at a world point (m)."""
        check(lib.qp_body_apply_impulse(self._w, _bid(body), _vec(impulse, "impulse"), _vec(point, "point")),
              "apply impulse")

    def wake(self, body: BodyId) -> None:
        check(lib.qp_body_wake(self._w, _bid(body)), "wake")

    def clear_flags(self, body: BodyId) -> None:
        lib.qp_body_clear_flags(self._w, self._valid(body))

    def set_shape_filter(self, body: BodyId, shape: int, category: int = 1, mask: int = 0xFFFF,
                         group: int = 0) -> None:
        check(lib.qp_body_set_shape_filter(self._w, _bid(body), shape, N.ShapeFilterC(category, mask, group)),
              "set shape filter")

    # -- arrays of every slot ------------------------------------------------------------------
    def _view(self, offset: int, n: int, dtype: type = np.int32) -> np.ndarray:
        start = N.BODIES_OFFSET + N.BODY_STRIDE + offset   # slot 1
        shape = (self.capacity, n) if n > 1 else (self.capacity,)
        strides = (N.BODY_STRIDE, np.dtype(dtype).itemsize) if n > 1 else (N.BODY_STRIDE,)
        a: np.ndarray = np.ndarray(shape, dtype=dtype, buffer=self._mem, offset=start, strides=strides)
        a.flags.writeable = False
        return a

    def live(self) -> np.ndarray:
        """Which slots hold a body (row i - 1: slot i), bool."""
        return (self._view(N.BODY_STATE, 1, np.uint16) & 1) != 0

    def centers_raw(self) -> np.ndarray:
        """Every slot's centre of mass, raw Q16.16 int32, shape (capacity, 3): a read-only view
        of the world's memory (no copy; it follows the world as it steps). Rows of free slots
        hold whatever their last body left: mask them with live()."""
        return self._view(N.BODY_X, 3)

    def rotations_raw(self) -> np.ndarray:
        """Every slot's rotation (w, x, y, z), raw Q2.30 int32, shape (capacity, 4); a view."""
        return self._view(N.BODY_Q, 4)

    def velocities_raw(self) -> np.ndarray:
        """Every slot's linear velocity, raw Q16.16 int32, shape (capacity, 3); a view."""
        return self._view(N.BODY_V, 3)

    def spins_raw(self) -> np.ndarray:
        """Every slot's angular velocity, raw Q16.16 int32, shape (capacity, 3); a view."""
        return self._view(N.BODY_W, 3)

    def centers(self) -> np.ndarray:
        """centers_raw() in metres, float64 (a copy: the division makes new numbers)."""
        return self.centers_raw() / float(ONE)

    def rotations(self) -> np.ndarray:
        """rotations_raw() as unit quaternions, float64 (a copy)."""
        return self.rotations_raw() / float(Q30_ONE)

    def velocities(self) -> np.ndarray:
        """velocities_raw() in m/s, float64 (a copy)."""
        return self.velocities_raw() / float(ONE)

    def spins(self) -> np.ndarray:
        """spins_raw() in rad/s, float64 (a copy)."""
        return self.spins_raw() / float(ONE)

    # -- joints ----------------------------------------------------------------------------------
    def create_joint(self, type: str = "ball", a: Optional[BodyId] = None, b: Optional[BodyId] = None, *,
                     anchor: Optional[Vector] = None, anchor_a: Optional[Vector] = None,
                     anchor_b: Optional[Vector] = None, axis: Optional[Vector] = None,
                     limit: Optional[Sequence[Number]] = None, min_length: Optional[Number] = None,
                     max_length: Optional[Number] = None, drift_time: Optional[Number] = None,
                     collide_connected: bool = False, joint_def: Optional[N.JointDefC] = None) -> JointId:
        """A ball (anchor), hinge (anchor, axis, limit=(lower, upper) radians), distance
        (anchor_a, anchor_b, min_length, max_length), fixed (anchor), slider (anchor, axis) or cone
        (anchor, axis) joint between bodies a and b, or from a ready qp_joint_def (joint_def): a
        slider's travel limits, a cone's swing and twist, motors, springs and break impulses are
        that def's fields (lib.qp_default_joint_def(), then set them)."""
        if joint_def is None:
            d = lib.qp_default_joint_def()
            if type not in _JOINT_TYPES:
                raise QphysError(Result.ERR_PARAM, f"joint type '{type}': expected one of {sorted(_JOINT_TYPES)}")
            d.type = _JOINT_TYPES[type]
            d.a = _bid(a)
            d.b = _bid(b)
            for name, point in (("anchor", anchor), ("anchor_a", anchor_a), ("anchor_b", anchor_b),
                                ("axis", axis)):
                if point is not None:
                    setattr(d, name, _vec(point, name))
            if limit is not None:
                d.enable_limit = True
                d.lower_angle = to_fix(limit[0], "lower angle")
                d.upper_angle = to_fix(limit[1], "upper angle")
            for name, value in (("min_length", min_length), ("max_length", max_length),
                                ("drift_time", drift_time)):
                if value is not None:
                    setattr(d, name, to_fix(value, name))
            d.collide_connected = collide_connected
            joint_def = d
        err = c_int(0)
        j = lib.qp_create_joint(self._w, byref(joint_def), byref(err))
        check(err.value, "create joint")
        return JointId(j.index, j.generation)

    def destroy_joint(self, joint: JointId) -> None:
        check(lib.qp_destroy_joint(self._w, _jid(joint)), "destroy joint")

    def joint_is_valid(self, joint: JointId) -> bool:
        return bool(lib.qp_joint_is_valid(self._w, _jid(joint)))

    # -- queries and events ------------------------------------------------------------------------
    def raycast(self, origin: Vector, delta: Vector, mask: int = 0xFFFF,
                ignore: Optional[BodyId] = None) -> Optional[RayHit]:
        """The nearest hit of origin + t * delta, t in [0, 1], on shapes whose category is in
        mask, ignoring one body; None for a miss."""
        f = N.RayFilterC(mask, _bid(ignore))
        hit = N.WorldRayHitC()
        if not lib.qp_world_raycast_filtered(self._w, _vec(origin, "origin"), _vec(delta, "delta"), byref(f),
                                             byref(hit)):
            return None
        return RayHit(BodyId(hit.body.index, hit.body.generation), hit.hit.fraction, _v3(hit.hit.point),
                      _v3(hit.hit.normal))

    def events(self) -> Events:
        """The events of the last step and of the calls made since (read them after each step)."""
        cp = ctypes.POINTER(N.ContactEventC)()
        n = lib.qp_world_contact_events(self._w, byref(cp))
        contacts = [ContactEvent(BodyId(e.a.index, e.a.generation), BodyId(e.b.index, e.b.generation), e.shape_a,
                                 e.shape_b, _EVENT_KINDS[e.kind], _v3(e.point), _v3(e.normal), e.impulse)
                    for e in (cp[i] for i in range(n))]
        sp = ctypes.POINTER(N.SensorEventC)()
        n = lib.qp_world_sensor_events(self._w, byref(sp))
        sensors = [SensorEvent(BodyId(e.sensor.index, e.sensor.generation),
                               BodyId(e.visitor.index, e.visitor.generation), e.sensor_shape, e.visitor_shape,
                               _EVENT_KINDS[e.kind]) for e in (sp[i] for i in range(n))]
        bp = ctypes.POINTER(N.BodyEventC)()
        n = lib.qp_world_body_events(self._w, byref(bp))
        bodies = [BodyEvent(BodyId(e.body.index, e.body.generation), _EVENT_KINDS[e.kind])
                  for e in (bp[i] for i in range(n))]
        return Events(contacts, sensors, bodies, lib.qp_world_events_lost(self._w))

    # -- snapshots --------------------------------------------------------------------------------
    def snapshot(self) -> bytes:
        """The world's state as portable bytes (qp_world_snapshot)."""
        n = lib.qp_world_snapshot(self._w, None, 0)
        buf = ctypes.create_string_buffer(n)
        if lib.qp_world_snapshot(self._w, buf, n) != n:
            raise QphysError(Result.ERR_BUFFER, "snapshot failed")
        return buf.raw

    def restore(self, data: bytes) -> None:
        """Replace the state with a snapshot's; QphysError (ERR_BUFFER: damaged, ERR_FULL: larger
        than this world's capacities) leaves the world as it was. The input log is detached."""
        data = bytes(data)
        check(lib.qph_world_restore(self._w, data, len(data)), "restore",
              "damaged, truncated or inconsistent" if data else "empty")
        self._log = None
        self._log_buf = None
        self.scene_text = None

    # -- the input log ------------------------------------------------------------------------------
    def record_inputs(self, capacity: int = 1 << 20) -> None:
        """Record every mutating call from now on into a log of capacity bytes (inputs())."""
        self._log_buf = ctypes.create_string_buffer(max(capacity, 1))
        self._log = N.InputLogC()
        check(lib.qp_input_log_init(byref(self._log), self._log_buf, capacity), "input log")
        lib.qp_world_set_input_log(self._w, byref(self._log))

    def stop_recording(self) -> None:
        lib.qp_world_set_input_log(self._w, None)
        self._log = None

    def inputs(self) -> bytes:
        """The entries recorded since record_inputs or clear_inputs (qphys/record.h bytes).
        QphysError(ERR_FULL) when the log filled up: it is incomplete."""
        if self._log is None or self._log_buf is None:
            raise QphysError(Result.ERR_PARAM, "no input log: call record_inputs first")
        if self._log.lost:
            raise QphysError(Result.ERR_FULL, f"the input log is full: {self._log.lost} entries lost")
        return self._log_buf.raw[:self._log.len]

    def clear_inputs(self) -> None:
        """Empty the log (recording goes on)."""
        if self._log is not None and self._log_buf is not None:
            check(lib.qp_input_log_init(byref(self._log), self._log_buf, ctypes.sizeof(self._log_buf)),
                  "input log")

    def replay_inputs(self, data: bytes, at: int = 0) -> int:
        """Apply the entries of data[at:] recorded at the current step, in order; returns the
        offset of the first entry of a later step. QphysError(ERR_BUFFER) for bytes that are not
        entries; DivergedError when a replayed call fails or creates another id than recorded."""
        data = bytes(data)
        pos = c_ulong(at)
        info = N.InputInfoC()
        r = lib.qp_input_replay_step(self._w, data, len(data), byref(pos), byref(info))
        if r == Result.ERR_BUFFER:
            raise QphysError(r, f"input bytes at {pos.value} are not a well-formed entry of this step")
        if r != 0:
            raise DivergedError(r, info.step, info.kind,
                                f"the recorded input of kind {info.kind} at step {info.step} did not replay: "
                                f"{result_str(info.result) if info.result else 'another id was created'}")
        return pos.value


def worlds_equal(a: World, b: World) -> bool:
    """Whether two worlds hold the same state (their snapshots are the same bytes)."""
    return a.snapshot() == b.snapshot()


__all__: List[str] = [
    "ONE", "Q30_ONE", "CAPACITY", "caps_for", "Fix", "Raw", "to_fix", "to_float", "BodyId", "JointId", "BodyState",
    "RayHit",
    "ContactEvent", "SensorEvent", "BodyEvent", "Events", "box", "sphere", "capsule", "plane",
    "default_world_def", "World", "worlds_equal",
]
