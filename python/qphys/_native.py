# SPDX-License-Identifier: MIT
"""The shared library libqphys.so and the C structs, declared for ctypes.

Where the library is looked for, in order:

1. ``$QPHYS_LIBRARY``: the path of a libqphys.so (``make shared`` builds build/host/libqphys.so);
2. the copy bundled into the installed package (``pip install`` builds and copies it);
3. ``build/host/libqphys.so`` of the source tree this package lies in (``python/qphys``), so
   that the tests run from a checkout after ``make shared``.

Every struct declared here is checked against the library's own ``sizeof`` (qph_sizes)
when the module loads: a library built with other pool options is refused with a clear
error instead of corrupting memory.
"""
from __future__ import annotations

import ctypes
import os
from ctypes import (POINTER, Structure, Union, c_bool, c_char, c_char_p, c_int, c_int16, c_int32, c_int64,
                    c_long, c_uint8, c_uint16, c_uint32, c_ulong, c_void_p)
from pathlib import Path
from typing import List

_HERE = Path(__file__).resolve().parent


def _candidates() -> List[Path]:
    found: List[Path] = []
    env = os.environ.get("QPHYS_LIBRARY")
    if env:
        found.append(Path(env))
    found.append(_HERE / "libqphys.so")
    for up in _HERE.parents:
        found.append(up / "build" / "host" / "libqphys.so")
        if (up / "Makefile").exists() and (up / "src").is_dir():
            break
    return found


def _load() -> ctypes.CDLL:
    tried = []
    for path in _candidates():
        if path.is_file():
            return ctypes.CDLL(str(path))
        tried.append(str(path))
    raise ImportError("qphys: libqphys.so not found; build it with `make shared` and set QPHYS_LIBRARY to its "
                      "path, or install the package with pip. Looked in: " + ", ".join(tried))


lib = _load()
LIBRARY_PATH: str = lib._name

lib.qph_sizes.argtypes = [POINTER(c_long), c_int]
lib.qph_sizes.restype = c_int
_SIZES = (c_long * 32)()
_n = lib.qph_sizes(_SIZES, 32)
(SIZEOF_WORLD, SIZEOF_WORLD_DEF, SIZEOF_BODY_DEF, SIZEOF_SHAPE, SIZEOF_JOINT_DEF, SIZEOF_RAY_HIT,
 SIZEOF_CONTACT_EVENT, SIZEOF_SENSOR_EVENT, SIZEOF_BODY_EVENT, SIZEOF_STATS, SIZEOF_SCENE_INFO,
 SIZEOF_SCENE_ERROR, SIZEOF_INPUT_LOG, SIZEOF_INPUT_INFO, SIZEOF_VERIFY_RESULT, SIZEOF_RAY_FILTER,
 MAX_BODY_SHAPES, MAX_BODIES, MAX_JOINTS, INPUT_MAX_ENTRY, SNAPSHOT_MAX_SIZE, SIZEOF_WORLD_CAPS) = list(_SIZES)[:_n]

fix16 = c_int32
q30 = c_int32


class Vec3(Structure):
    _fields_ = [("x", fix16), ("y", fix16), ("z", fix16)]


class Quat(Structure):
    _fields_ = [("w", q30), ("x", q30), ("y", q30), ("z", q30)]


class BodyIdC(Structure):
    _fields_ = [("index", c_uint16), ("generation", c_uint16)]


class JointIdC(Structure):
    _fields_ = [("index", c_uint16), ("generation", c_uint16)]


class _ShapeSize(Union):
    # hull: a pointer to its qp_hull (the package makes no hulls; the member keeps the size);
    # mesh, heightfield: pointers to the caller's level geometry (qphys/mesh.h)
    _fields_ = [("half", Vec3), ("normal", Vec3), ("radius", fix16), ("hull", c_void_p), ("mesh", c_void_p),
                ("heightfield", c_void_p)]


class _ShapeLength(Union):
    _fields_ = [("half_height", fix16), ("plane_offset", fix16)]


class ShapeC(Structure):
    """qp_shape: one shape in its body's frame (qphys/collide.h)."""
    _anonymous_ = ("_size", "_length")
    _fields_ = [("type", c_int), ("offset", Vec3), ("rotation", Quat), ("_size", _ShapeSize),
                ("_length", _ShapeLength)]


class ShapeFilterC(Structure):
    _fields_ = [("category", c_uint16), ("mask", c_uint16), ("group", c_int16)]


class WorldDefC(Structure):
    """qp_world_def (qphys/world.h): every field of the step, raw Q16.16 where the C is."""
    _fields_ = [("gravity", Vec3), ("dt", fix16), ("collision_iterations", c_int), ("contact_iterations", c_int),
                ("shock_iterations", c_int), ("penetration_iterations", c_int), ("restitution_ramp", c_bool),
                ("alternate_sweeps", c_bool), ("accumulate_impulses", c_bool), ("warm_start", c_bool),
                ("contact_margin", fix16), ("slop", fix16), ("gap_tolerance", fix16), ("penetration_rate", fix16),
                ("max_penetration_speed", fix16), ("bounce_threshold", fix16), ("max_linear_speed", fix16),
                ("max_angular_speed", fix16), ("bounds", fix16), ("gyroscopic", c_bool), ("joint_tree", c_bool),
                ("sleep_enabled", c_bool),
                ("sleep_policy", c_int), ("sleep_center_size", fix16), ("sleep_point_size", fix16),
                ("sleep_steps", c_int), ("sleep_energy", fix16), ("sleep_energy_bias", fix16),
                ("wake_energy_factor", fix16), ("wake_speed", fix16), ("wake_velocity", fix16),
                ("min_awake_steps", c_int)]


class BodyDefC(Structure):
    """qp_body_def (qphys/world.h)."""
    _fields_ = [("type", c_int), ("position", Vec3), ("rotation", Quat), ("linear_velocity", Vec3),
                ("angular_velocity", Vec3), ("mass", fix16), ("density", fix16), ("friction", fix16),
                ("static_friction", fix16), ("restitution", fix16), ("rolling_resistance", fix16),
                ("asleep", c_bool), ("user_data", c_uint32),
                ("shape_count", c_int), ("shapes", ShapeC * MAX_BODY_SHAPES),
                ("filters", ShapeFilterC * MAX_BODY_SHAPES), ("sensors", c_bool * MAX_BODY_SHAPES)]


class JointDefC(Structure):
    """qp_joint_def (qphys/joint.h)."""
    _fields_ = [("type", c_int), ("a", BodyIdC), ("b", BodyIdC), ("anchor", Vec3), ("anchor_a", Vec3),
                ("anchor_b", Vec3), ("axis", Vec3), ("enable_limit", c_bool), ("lower_angle", fix16),
                ("upper_angle", fix16), ("lower_translation", fix16), ("upper_translation", fix16),
                ("swing_angle", fix16), ("min_length", fix16), ("max_length", fix16), ("enable_motor", c_bool),
                ("motor_speed", fix16), ("max_motor_force", fix16), ("enable_spring", c_bool),
                ("spring_hz", fix16), ("spring_damping", fix16), ("spring_target", fix16),
                ("max_spring_force", fix16), ("break_impulse", fix16), ("max_friction_torque", fix16),
                ("drift_time", fix16),
                ("collide_connected", c_bool)]


class RayHitC(Structure):
    _fields_ = [("fraction", fix16), ("point", Vec3), ("normal", Vec3)]


class WorldRayHitC(Structure):
    _fields_ = [("body", BodyIdC), ("hit", RayHitC)]


class RayFilterC(Structure):
    _fields_ = [("mask", c_uint16), ("ignore", BodyIdC)]


class ContactEventC(Structure):
    _fields_ = [("a", BodyIdC), ("b", BodyIdC), ("shape_a", c_uint8), ("shape_b", c_uint8), ("kind", c_uint8),
                ("pad0", c_uint8), ("point", Vec3), ("normal", Vec3), ("impulse", fix16)]


class SensorEventC(Structure):
    _fields_ = [("sensor", BodyIdC), ("visitor", BodyIdC), ("sensor_shape", c_uint8), ("visitor_shape", c_uint8),
                ("kind", c_uint8), ("pad0", c_uint8)]


class BodyEventC(Structure):
    _fields_ = [("body", BodyIdC), ("kind", c_uint8), ("pad0", c_uint8 * 3)]


class StatsC(Structure):
    _fields_ = [("step", c_uint32), ("bodies", c_int), ("awake", c_int), ("asleep", c_int), ("pairs", c_int),
                ("contacts", c_int), ("points", c_int), ("max_pairs", c_int), ("max_contacts", c_int),
                ("levels", c_int), ("overflows", c_uint32), ("first_all_asleep_step", c_int)]


class SceneInfoC(Structure):
    _fields_ = [("world", WorldDefC), ("bodies", c_int), ("dynamic_bodies", c_int), ("shapes", c_int),
                ("joints", c_int), ("lines", c_int), ("hulls", c_int)]


class SceneErrorC(Structure):
    _fields_ = [("line", c_int), ("column", c_int), ("message", c_char_p), ("result", c_int)]


class InputLogC(Structure):
    _fields_ = [("data", c_void_p), ("size", c_ulong), ("len", c_ulong), ("count", c_uint32), ("lost", c_uint32)]


class InputInfoC(Structure):
    _fields_ = [("kind", c_int), ("step", c_uint32), ("body", BodyIdC), ("got", BodyIdC), ("joint", JointIdC),
                ("joint_got", JointIdC), ("result", c_int)]


class VerifyResultC(Structure):
    """verify_result (tools/verify.h)."""
    _fields_ = [("status", c_int32), ("body", c_int32), ("step", c_int64), ("steps", c_int64),
                ("world_hash", c_uint32), ("recorded_hash", c_uint32), ("line", c_int32), ("column", c_int32),
                ("version", c_char * 32), ("message", c_char * 320)]


class WorldCapsC(Structure):
    """qp_world_caps: how many of each a world's pools hold."""
    _fields_ = [("bodies", c_int), ("shapes", c_int), ("pairs", c_int), ("contacts", c_int), ("joints", c_int),
                ("events", c_int), ("sensor_overlaps", c_int), ("hulls", c_int)]


def _check_sizes() -> None:
    declared = [(WorldDefC, SIZEOF_WORLD_DEF), (BodyDefC, SIZEOF_BODY_DEF), (ShapeC, SIZEOF_SHAPE),
                (JointDefC, SIZEOF_JOINT_DEF), (WorldRayHitC, SIZEOF_RAY_HIT),
                (ContactEventC, SIZEOF_CONTACT_EVENT), (SensorEventC, SIZEOF_SENSOR_EVENT),
                (BodyEventC, SIZEOF_BODY_EVENT), (StatsC, SIZEOF_STATS), (SceneInfoC, SIZEOF_SCENE_INFO),
                (SceneErrorC, SIZEOF_SCENE_ERROR), (InputLogC, SIZEOF_INPUT_LOG), (InputInfoC, SIZEOF_INPUT_INFO),
                (VerifyResultC, SIZEOF_VERIFY_RESULT), (RayFilterC, SIZEOF_RAY_FILTER),
                (WorldCapsC, SIZEOF_WORLD_CAPS)]
    for cls, size in declared:
        if ctypes.sizeof(cls) != size:
            raise ImportError(f"qphys: {LIBRARY_PATH} does not match this package: sizeof {cls.__name__} is "
                              f"{size} there, {ctypes.sizeof(cls)} here (rebuild both from one checkout)")


_check_sizes()


def _fn(name: str, restype, *argtypes) -> None:
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)


W = c_void_p   # a qp_world *
_fn("qp_result_str", c_char_p, c_int)
_fn("qp_default_world_def", WorldDefC)
_fn("qp_default_body_def", BodyDefC)
_fn("qp_default_joint_def", JointDefC)
_fn("qp_default_shape_filter", ShapeFilterC)
_fn("qph_world_init", c_int, W, POINTER(WorldDefC))
_fn("qph_world_init_in", c_int, c_void_p, c_ulong, POINTER(WorldCapsC), POINTER(WorldDefC))
_fn("qp_world_memory_size", c_ulong, POINTER(WorldCapsC))
_fn("qp_world_caps_for", WorldCapsC, c_int, c_int, c_int)
_fn("qp_world_get_caps", WorldCapsC, W)
_fn("qp_world_body_capacity", c_int, W)
_fn("qp_snapshot_caps", c_int, c_char_p, c_ulong, POINTER(WorldCapsC))
_fn("sized_world_caps", WorldCapsC, c_int, c_int, c_int, c_int)
_fn("qph_scene_load", c_int, W, c_char_p, c_ulong, POINTER(SceneInfoC), POINTER(SceneErrorC))
_fn("qph_scene_load_level", c_int, W, c_char_p, c_ulong, c_char_p, POINTER(SceneInfoC), POINTER(SceneErrorC))
_fn("qp_scene_check", c_int, c_char_p, c_ulong, POINTER(SceneInfoC), POINTER(SceneErrorC))
_fn("qph_world_restore", c_int, W, c_char_p, c_ulong)
_fn("qph_body_layout", c_int, POINTER(c_long), c_int)
_fn("qph_body_hashes", None, W, POINTER(c_uint32))
_fn("qph_engine_config", None, c_char_p, c_ulong)
_fn("qph_version", c_char_p)
_fn("qph_replay_check", c_int, c_char_p, c_ulong, POINTER(c_int), c_char_p, c_ulong)
_fn("qp_world_step", None, W)
_fn("qp_world_get_stats", StatsC, W)
_fn("qp_world_get_def", POINTER(WorldDefC), W)
_fn("qp_world_hash", c_uint32, W)
_fn("qp_body_hash", c_uint32, W, BodyIdC)
_fn("qp_world_capacity", c_int)
_fn("qp_world_body_at", BodyIdC, W, c_int)
_fn("qp_scene_body", BodyIdC, W, c_int)
_fn("qp_create_body", BodyIdC, W, POINTER(BodyDefC), POINTER(c_int))
_fn("qp_destroy_body", c_int, W, BodyIdC)
_fn("qp_body_is_valid", c_bool, W, BodyIdC)
_fn("qp_body_position", Vec3, W, BodyIdC)
_fn("qp_body_center", Vec3, W, BodyIdC)
_fn("qp_body_rotation", Quat, W, BodyIdC)
_fn("qp_body_linear_velocity", Vec3, W, BodyIdC)
_fn("qp_body_angular_velocity", Vec3, W, BodyIdC)
_fn("qp_body_mass", fix16, W, BodyIdC)
_fn("qp_body_get_type", c_int, W, BodyIdC)
_fn("qp_body_is_awake", c_bool, W, BodyIdC)
_fn("qp_body_flags", c_uint32, W, BodyIdC)
_fn("qp_body_set_pose", c_int, W, BodyIdC, Vec3, Quat)
_fn("qp_body_set_linear_velocity", c_int, W, BodyIdC, Vec3)
_fn("qp_body_set_angular_velocity", c_int, W, BodyIdC, Vec3)
_fn("qp_body_apply_force", c_int, W, BodyIdC, Vec3)
_fn("qp_body_apply_torque", c_int, W, BodyIdC, Vec3)
_fn("qp_body_apply_impulse", c_int, W, BodyIdC, Vec3, Vec3)
_fn("qp_body_wake", c_int, W, BodyIdC)
_fn("qp_body_clear_flags", None, W, BodyIdC)
_fn("qp_body_set_shape_filter", c_int, W, BodyIdC, c_int, ShapeFilterC)
_fn("qp_make_sphere", c_int, fix16, POINTER(ShapeC))
_fn("qp_make_box", c_int, Vec3, POINTER(ShapeC))
_fn("qp_make_capsule", c_int, fix16, fix16, POINTER(ShapeC))
_fn("qp_make_plane", c_int, Vec3, fix16, POINTER(ShapeC))
_fn("qp_create_joint", JointIdC, W, POINTER(JointDefC), POINTER(c_int))
_fn("qp_destroy_joint", c_int, W, JointIdC)
_fn("qp_joint_is_valid", c_bool, W, JointIdC)
_fn("qp_world_raycast_filtered", c_bool, W, Vec3, Vec3, POINTER(RayFilterC), POINTER(WorldRayHitC))
_fn("qp_world_contact_events", c_int, W, POINTER(POINTER(ContactEventC)))
_fn("qp_world_sensor_events", c_int, W, POINTER(POINTER(SensorEventC)))
_fn("qp_world_body_events", c_int, W, POINTER(POINTER(BodyEventC)))
_fn("qp_world_events_lost", c_uint32, W)
_fn("qp_world_snapshot", c_ulong, W, c_void_p, c_ulong)
_fn("qp_input_log_init", c_int, POINTER(InputLogC), c_void_p, c_ulong)
_fn("qp_world_set_input_log", None, W, POINTER(InputLogC))
_fn("qp_input_replay_step", c_int, W, c_char_p, c_ulong, POINTER(c_ulong), POINTER(InputInfoC))
_fn("verify_data", c_int, W, c_char_p, c_char_p, c_ulong, c_char_p, c_ulong, c_int, POINTER(VerifyResultC))
_fn("verify_line", c_int, POINTER(VerifyResultC), c_char_p, c_char_p, ctypes.c_size_t)
_fn("replay_crc32", c_uint32, c_char_p, c_ulong)

_LAYOUT = (c_long * 8)()
lib.qph_body_layout(_LAYOUT, 8)
BODIES_OFFSET, BODY_STRIDE, BODY_X, BODY_Q, BODY_V, BODY_W, BODY_GENERATION, BODY_STATE = list(_LAYOUT)
CAPACITY: int = lib.qp_world_capacity()
_fn("verify_file", c_int, W, c_char_p, POINTER(VerifyResultC))
