# SPDX-License-Identifier: MIT
"""Replays: Python and the qphys command agree on every verdict, line and JUnit byte; a
recording made in Python verifies in C and the other way round; damage, divergence and other
versions are told apart."""
from __future__ import annotations

import re
import shutil

import pytest

import qphys
from qphys import Recorder, Replay, ReplayError, World

from conftest import SCENES, qphys as run_qphys, resign


def cli_line(path) -> str:
    r = run_qphys("verify", path, "-j", "1", check=False)
    return r.stdout.split("\n")[0]


def test_a_recording_of_the_qphys_command_verifies(slope_replay):
    result = Replay.load(slope_replay).verify()
    assert result.ok and result.status == "matched"
    assert result.steps == 120 and result.version == qphys.__version__
    assert result.report_line == cli_line(slope_replay)


def test_a_recording_made_in_python_verifies_in_the_qphys_command(tmp_path):
    rec = Recorder(World.from_scene(str(SCENES / "slope.scene")))
    w = rec.world
    cube = w.scene_body(2)
    rec.step(30)
    w.apply_impulse(cube, (0, 2, 0), qphys.Raw(w.center(cube)))
    ball = w.create_body(qphys.sphere(0.2), position=(0, 4, 0))
    rec.step(30)
    w.set_velocity(ball, (1, 0, 0))
    rec.step(60)
    out = tmp_path / "py.replay"
    rec.save(out)
    text = out.read_text()
    assert "\ni 30 " in text and "\ni 60 " in text
    r = run_qphys("verify", out)
    assert r.stdout.startswith(f"{out}: matched: 120 steps, final hash {w.hash():08x}\n")
    assert Replay.load(out).verify().ok
    # qphys replay (the single-file command) agrees.
    assert "matched: 120 steps" in run_qphys("replay", out).stdout


def test_a_changed_world_hash_diverges_at_its_step(slope_replay, tmp_path):
    data = slope_replay.read_bytes()
    bad = tmp_path / "world.replay"
    bad.write_bytes(resign(re.sub(rb"(?m)^s 60 [0-9a-f]{8}", b"s 60 00000000", data)))
    result = Replay.load(bad).verify()
    assert result.status == "diverged" and result.step == 60 and result.body == 0
    assert result.recorded_hash == 0
    assert result.report_line == cli_line(bad)


def test_a_changed_body_hash_names_the_body(slope_replay, tmp_path):
    data = slope_replay.read_bytes()
    bad = tmp_path / "body.replay"
    bad.write_bytes(resign(re.sub(rb"(?m)^(s 0 [0-9a-f]{8} .*?) 3:[0-9a-f]{8}", rb"\1 3:12345678", data)))
    result = Replay.load(bad).verify()
    assert (result.status, result.step, result.body) == ("diverged", 0, 3)
    assert result.report_line == cli_line(bad)
    assert qphys.exit_status([result]) == 1


def test_a_damaged_file_raises_with_where_and_is_reported_damaged(slope_replay, tmp_path):
    data = slope_replay.read_bytes()
    flipped = tmp_path / "flip.replay"
    flipped.write_bytes(data[:500] + bytes([data[500] ^ 1]) + data[501:])
    with pytest.raises(ReplayError) as e:
        Replay.load(flipped)
    assert "CRC-32" in str(e.value) and e.value.line == 0 and str(e.value).startswith(f"{flipped}: ")
    result = qphys.verify_file(flipped)
    assert result.status == "damaged" and result.report_line == cli_line(flipped)
    # Malformed content in a file whose checksum holds: the line is named.
    scene = tmp_path / "scene.replay"
    scene.write_bytes(resign(data.replace(b"\n| plane\n", b"\n| plane glow\n", 1)))
    loaded = Replay.load(scene)
    with pytest.raises(ReplayError) as e:
        loaded.verify()
    assert e.value.line > 0 and e.value.column == 7
    assert str(e.value).startswith(f"{scene}:{e.value.line}:7: ")
    assert qphys.verify_file(scene).report_line == cli_line(scene)
    assert qphys.exit_status([qphys.verify_file(scene)]) == 2


def test_another_version_says_so(slope_replay, tmp_path):
    data = slope_replay.read_bytes()
    old = tmp_path / "old.replay"
    old.write_bytes(resign(data.replace(b"qphys-replay 4\n", b"qphys-replay 3\n", 1)))
    with pytest.raises(ReplayError) as e:
        Replay.load(old)
    assert e.value.other_version and "qphys-replay 3" in str(e.value)
    assert qphys.verify_file(old).status == "other version"
    assert qphys.verify_file(old).report_line == cli_line(old)
    # Same format, another qphys: verified, and the line names both versions.
    other = tmp_path / "other.replay"
    other.write_bytes(resign(re.sub(rb"(?m)^version .*$", b"version 0.0.1", data, count=1)))
    result = Replay.load(other).verify()
    assert result.ok and result.version == "0.0.1"
    assert result.report_line.endswith(f"(recorded by qphys 0.0.1; this is {qphys.__version__})")
    assert result.report_line == cli_line(other)


def test_a_snapshot_plus_inputs_pair(tmp_path):
    snap = tmp_path / "start.qps"
    run_qphys("run", SCENES / "slope.scene", "--steps", "40", "--save", snap)
    pair = tmp_path / "late.qpin"
    run_qphys("record", snap, "--steps", "60", "--inputs", "6", "-o", pair)
    assert (tmp_path / "late.qps").read_bytes() == snap.read_bytes()
    result = Replay.load(pair).verify()
    assert result.ok and result.steps == 60
    assert result.report_line == cli_line(pair)
    assert "matched: 60 steps" in run_qphys("replay", pair).stdout
    # Another snapshot beside the inputs: damaged, never a divergence.
    run_qphys("run", SCENES / "slope.scene", "--steps", "41", "--save", tmp_path / "late.qps")
    result = qphys.verify_file(pair)
    assert result.status == "damaged" and "not the one recorded" in result.message
    (tmp_path / "late.qps").unlink()
    assert qphys.verify_file(pair).status == "damaged"
    with pytest.raises(ReplayError):
        Replay.load(pair)


def test_bad_input_never_raises_from_verify_file(tmp_path):
    for name, data in [("empty.replay", b""), ("nul.replay", b"\0" * 100), ("text.replay", b"hello\n"),
                       ("huge_steps.replay", resign(b"qphys-replay 4\nengine x\nsteps 99999999\nscene 0\nend\ncheck 0 0\n"))]:
        (tmp_path / name).write_bytes(data)
        r = qphys.verify_file(tmp_path / name)
        assert r.status == "damaged", name
        assert r.report_line == cli_line(tmp_path / name)
    assert qphys.verify_file(tmp_path / "missing.replay").status == "damaged"


def test_a_folder_reports_and_junit_as_the_qphys_command(slope_replay, tmp_path):
    corpus = tmp_path / "corpus"
    (corpus / "b").mkdir(parents=True)
    shutil.copy(slope_replay, corpus / "b" / "good.replay")
    data = slope_replay.read_bytes()
    (corpus / "a.replay").write_bytes(resign(re.sub(rb"(?m)^s 90 [0-9a-f]{8}", b"s 90 00000000", data)))
    (corpus / "b" / "cut.replay").write_bytes(data[:1000])
    (corpus / "b" / "notes.txt").write_text("not a recording\n")
    results = qphys.verify_paths([corpus])
    assert [r.path for r in results] == qphys.find_recordings([corpus])
    assert [r.status for r in results] == ["diverged", "damaged", "matched"]
    junit = tmp_path / "c.xml"
    r = run_qphys("verify", corpus, "-j", "2", "--junit", junit, check=False)
    assert r.returncode == qphys.exit_status(results) == 2
    assert r.stdout == qphys.report(results)
    assert junit.read_text() == qphys.junit(results)
    assert 'failures="1" errors="1"' in qphys.junit(results)


def test_a_recording_of_more_bodies_than_a_default_world_verifies(tmp_path):
    """qphys records a scene of more bodies than a default world holds; the package verifies
    it in a world sized to it, as the command does."""
    n = qphys.CAPACITY + 100
    scene = tmp_path / "field.scene"
    scene.write_text("plane\n" + "".join(f"sphere radius 0.4 pos {i % 30} 0.4 {i // 30}\n" for i in range(n - 1)))
    out = tmp_path / "field.replay"
    run_qphys("record", scene, "--steps", "3", "-o", out)
    r = qphys.verify_file(out)
    assert r.status == qphys.MATCHED, r.message
    assert r.steps == 3
