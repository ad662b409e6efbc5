# SPDX-License-Identifier: MIT
"""The World binding: same bits as the C build, bodies, state arrays, snapshots, events, rays,
joints, errors."""
from __future__ import annotations

import numpy as np
import pytest

import qphys
from qphys import Fix, QphysError, Raw, Result, SceneError, World

from conftest import ROOT, SCENES, golden, qphys as run_qphys


@pytest.mark.parametrize("name", ["slope", "bounce", "chain_boxes", "door", "level", "terrain8"])
def test_scene_hashes_are_the_goldens(name):
    w = World.from_scene(str(SCENES / f"{name}.scene"))
    want = golden(name)
    for step in range(1, 121):
        w.step()
        assert w.hash() == want[step], f"{name} step {step}"


def drop_world():
    w = World(gravity=(0, -10, 0))
    ground = w.create_body(qphys.plane(), type="static")
    cube = w.create_body(qphys.box(0.5, 0.5, 0.5), position=(0, 2, 0))
    return w, ground, cube


def test_a_dropped_box_comes_to_rest_on_the_ground():
    w, _, cube = drop_world()
    w.step(240)
    c = w.center(cube)
    assert abs(c[1] - qphys.ONE // 2) < qphys.ONE // 100       # centre 0.5 m up, within 1 cm
    assert abs(w.velocity(cube)[1]) < qphys.ONE // 100
    assert w.body_type(cube) == "dynamic"


def test_world_fields_by_name():
    d = qphys.default_world_def(dt=1 / 120, bounds=500, contact_iterations=20, gravity=(0, -9.81, 0),
                                sleep_enabled=False)
    assert d.dt == 546 and d.bounds == 500 * qphys.ONE and d.contact_iterations == 20
    assert d.gravity.y == -642908 and not d.sleep_enabled
    assert World(d).world_def.dt == 546
    with pytest.raises(QphysError) as e:
        qphys.default_world_def(contact_iterations=2.5)
    assert e.value.result == Result.ERR_PARAM
    with pytest.raises(QphysError):
        qphys.default_world_def(no_such_field=1)


def test_raw_and_float_arguments_are_the_same_bits():
    a = World()
    b = World()
    ia = a.create_body(qphys.sphere(0.25), position=(1.5, 3, -0.75))
    ib = b.create_body(qphys.sphere(Fix(16384)), position=Raw((98304, 196608, -49152)))
    assert a.center(ia) == b.center(ib) == (98304, 196608, -49152)
    assert a.hash() == b.hash()


def test_arrays_are_views_of_the_world_and_floats_of_the_raw_numbers():
    w, ground, cube = drop_world()
    raw = w.centers_raw()
    assert raw.dtype == np.int32 and raw.shape == (qphys.CAPACITY, 3)
    assert not raw.flags.writeable
    w.step(30)
    # The view follows the world without being asked again (no copy).
    assert tuple(raw[cube.index - 1]) == w.center(cube)
    assert tuple(w.rotations_raw()[cube.index - 1]) == w.rotation(cube)
    assert tuple(w.velocities_raw()[cube.index - 1]) == w.velocity(cube)
    assert tuple(w.spins_raw()[cube.index - 1]) == w.spin(cube)
    assert np.array_equal(w.centers()[cube.index - 1], np.array(w.center(cube)) / 65536.0)
    live = w.live()
    assert live[ground.index - 1] and live[cube.index - 1] and live.sum() == 2
    with pytest.raises(ValueError):
        raw[0, 0] = 1
    # A view outlives its world object.
    del w
    assert raw.sum() != 0


def test_snapshot_restore_continues_with_the_same_bits():
    w = World.from_scene(str(SCENES / "slope.scene"))
    w.step(50)
    snap = w.snapshot()
    w.step(50)
    h100 = w.hash()
    other = World.from_snapshot(snap)
    assert other.steps == 50
    other.step(50)
    assert other.hash() == h100 == golden("slope")[100]


def test_a_damaged_snapshot_is_refused_and_changes_nothing():
    w = World.from_scene(str(SCENES / "slope.scene"))
    w.step(10)
    snap = bytearray(w.snapshot())
    before = w.hash()
    snap[len(snap) // 2] ^= 0x10
    with pytest.raises(QphysError) as e:
        w.restore(bytes(snap))
    assert e.value.result == Result.ERR_BUFFER
    assert w.hash() == before
    with pytest.raises(QphysError):
        w.restore(b"")


def test_contact_and_sleep_events():
    w, ground, cube = drop_world()
    began = None
    slept = None
    for step in range(1, 400):
        w.step()
        ev = w.events()
        for c in ev.contacts:
            if c.kind == "begin" and began is None:
                began = (step, c)
        if any(b.kind == "slept" and b.body == cube for b in ev.bodies):
            slept = step
            break
    assert began is not None, "no contact began"
    step, c = began
    assert {c.a, c.b} == {ground, cube}
    assert c.impulse > 0
    # Falling 1.5 m takes about 0.55 s: 33 steps at 60 Hz.
    assert 25 <= step <= 40
    assert slept is not None and not w.is_awake(cube)


def test_ray_casts():
    w, ground, cube = drop_world()
    w.step(240)
    hit = w.raycast((0, 5, 0), (0, -10, 0))
    assert hit is not None and hit.body == cube
    assert abs(hit.point[1] - qphys.ONE) < qphys.ONE // 100      # the top face, 1 m up
    assert hit.normal[1] > (qphys.Q30_ONE * 99) // 100           # facing up
    below = w.raycast((0, 5, 0), (0, -10, 0), ignore=cube)
    assert below is not None and below.body == ground and abs(below.point[1]) < qphys.ONE // 100
    assert w.raycast((0, 5, 0), (0, -10, 0), mask=0) is None
    assert w.raycast((0, 5, 0), (0, 1, 0)) is None


def test_joints():
    w = World()
    anchor = w.create_body(qphys.box(0.2, 0.2, 0.2), type="static", position=(0, 5, 0))
    bob = w.create_body(qphys.sphere(0.2), position=(1, 5, 0))
    j = w.create_joint("distance", anchor, bob, anchor_a=(0, 5, 0), anchor_b=(1, 5, 0), max_length=1)
    assert w.joint_is_valid(j)
    w.step(120)
    c = np.array(w.center(bob)) / 65536.0
    assert np.linalg.norm(c - np.array([0, 5, 0])) < 1.02        # the rope holds
    with pytest.raises(QphysError) as e:
        w.create_joint("ball", bob, bob, anchor=(0, 5, 0))
    assert e.value.result == Result.ERR_PARAM
    w.destroy_joint(j)
    with pytest.raises(QphysError) as e:
        w.destroy_joint(j)
    assert e.value.result == Result.ERR_INVALID_ID


def test_errors_carry_the_engine_result_and_change_nothing():
    w, ground, cube = drop_world()
    h = w.hash()
    with pytest.raises(QphysError) as e:
        qphys.sphere(0)
    assert e.value.result == Result.ERR_PARAM
    with pytest.raises(QphysError) as e:
        qphys.sphere(1000)                                       # sizes end at 100 m
    assert e.value.result == Result.ERR_RANGE
    with pytest.raises(QphysError) as e:
        w.apply_impulse(ground, (0, 1, 0), (0, 0, 0))            # static bodies take none
    assert e.value.result != Result.OK
    assert w.hash() == h
    w.destroy_body(cube)
    with pytest.raises(QphysError) as e:
        w.set_velocity(cube, (1, 0, 0))
    assert e.value.result == Result.ERR_INVALID_ID
    with pytest.raises(QphysError) as e:
        World(dt=5.0)
    assert e.value.result == Result.ERR_RANGE
    assert not w.is_valid(cube)


@pytest.mark.parametrize("bad", ["bad_number", "missing_pos", "joint_missing_body", "size_out_of_range",
                                 "binary_garbage", "mesh_zero_area", "heightfield_height_count"])
def test_scene_errors_name_file_line_and_column_as_the_qphys_command_does(bad):
    path = str(ROOT / "tests" / "bad_scenes" / f"{bad}.scene")
    with pytest.raises(SceneError) as e:
        World.from_scene(path)
    err = e.value
    assert err.result in (Result.ERR_PARSE, Result.ERR_RANGE, Result.ERR_FULL, Result.ERR_PARAM)
    cli = run_qphys("check", path, check=False)
    assert cli.returncode == 2
    if err.line > 0:
        assert str(err).startswith(f"{path}:{err.line}:{err.column}: ")
        assert cli.stderr.startswith(f"{path}:{err.line}:{err.column}: error: ")


def test_an_input_log_replays_into_a_twin():
    scene = str(SCENES / "slope.scene")
    a = World.from_scene(scene)
    b = World.from_scene(scene)
    a.record_inputs()
    cube = a.scene_body(2)
    ball = None
    logs, hashes = [], []
    for step in range(90):
        if step == 10:
            a.apply_impulse(cube, (0, 3, 0), Raw(a.center(cube)))
        if step == 20:
            ball = a.create_body(qphys.sphere(0.2), position=(0, 4, 0))
        if step == 40:
            a.destroy_body(ball)
        logs.append(a.inputs())
        a.clear_inputs()
        a.step()
        hashes.append(a.hash())
    assert sum(1 for x in logs if x) == 3
    assert hashes[80] != golden("slope")[81]          # the inputs changed the run
    for step in range(90):
        assert b.replay_inputs(logs[step]) == len(logs[step])
        b.step()
        assert b.hash() == hashes[step], f"step {step + 1}"


def test_replaying_inputs_into_another_world_diverges():
    scene = str(SCENES / "slope.scene")
    a = World.from_scene(scene)
    a.record_inputs()
    ball = a.create_body(qphys.sphere(0.2), position=(0, 4, 0))
    a.destroy_body(ball)
    log = a.inputs()
    b = World.from_scene(scene)
    b.create_body(qphys.sphere(0.2), position=(3, 4, 0))          # slot taken: another id comes out
    with pytest.raises(qphys.DivergedError) as e:
        b.replay_inputs(log)
    assert e.value.step == 0
    with pytest.raises(QphysError) as e2:
        World.from_scene(scene).replay_inputs(b"\xff" * 20)
    assert e2.value.result == Result.ERR_BUFFER


def assert_default_world_refuses(data):
    """A world of the default capacities refuses the snapshot data (ERR_FULL), unchanged."""
    default = World()
    before = default.hash()
    with pytest.raises(QphysError) as e:
        default.restore(data)
    assert e.value.result == Result.ERR_FULL
    assert default.hash() == before


def test_worlds_of_any_size():
    """A scene of more bodies than a default world holds loads into a world sized to it, its
    arrays as long as its capacity; a world of 21 bodies beside it; a snapshot of the large one
    restores into a world sized to it, and a default world refuses it (ERR_FULL), unchanged."""
    n = qphys.CAPACITY + 400
    text = "plane\n" + "".join(f"box half 0.5 0.5 0.5 pos {2 * (i % 40)} 0.5 {2 * (i // 40)}\n" for i in range(n - 1))
    big = World.from_scene_text(text)
    assert big.capacity == n
    assert big.caps.contacts == 3 * n
    small = World(caps=qphys.caps_for(21))
    assert small.capacity == 21
    assert small.centers_raw().shape == (21, 3)
    assert big.centers_raw().shape == (n, 3)
    for _ in range(5):
        big.step()
    assert int(big.live().sum()) == n
    assert np.all(np.abs(big.centers()[1:, 1] - 0.5) < 0.01)   # every cube at rest on the plane
    data = big.snapshot()
    twin = World.from_snapshot(data)
    assert twin.capacity == n and twin.hash() == big.hash()
    assert_default_world_refuses(data)
    with pytest.raises(QphysError):
        World(caps=type(qphys.caps_for(1))())   # every capacity 0: refused


def test_more_hulls_than_the_default():
    """A scene of more hull bodies than a default world's 16 loads into a world whose hull pool
    holds them, its rocks come to rest above the plane, and its snapshot restores into a world
    sized to it; a default world refuses that snapshot (ERR_FULL), unchanged."""
    rock = "hull points -0.2 0 -0.2  0.2 0 -0.2  0 0 0.25  0 0.3 0  0.05 -0.1 0"
    text = "world sleep on\nplane\n" + "".join(f"{rock} pos {i % 6} 0.5 {i // 6}\n" for i in range(30))
    w = World.from_scene_text(text)
    assert qphys.caps_for(10).hulls == 16
    assert w.caps.hulls == 30
    for _ in range(90):
        w.step()
    assert np.all(w.centers()[1:31, 1] > 0)
    data = w.snapshot()
    twin = World.from_snapshot(data)
    assert twin.caps.hulls == 30 and twin.hash() == w.hash()
    assert_default_world_refuses(data)
