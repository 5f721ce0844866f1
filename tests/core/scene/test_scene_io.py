"""Loading and saving scenes: round trips, atomic writes, file-level errors."""

from __future__ import annotations

import json
import os

import pytest

from core.scene import jsonio
from core.scene.io import load_scene, save_scene, scene_to_dict
from core.scene.model import Scene
from core.scene.problems import InputError

from scenedata import SCENES, SHIPPED


@pytest.mark.parametrize("name", SHIPPED)
def test_round_trip_is_identity(name, tmp_path):
    scene = load_scene(SCENES / name)
    save_scene(scene, tmp_path / name)
    again = load_scene(tmp_path / name)
    assert again == scene
    # Saving the reloaded scene writes the same bytes: the file format is a fixed point.
    save_scene(again, tmp_path / "second.json")
    assert (tmp_path / "second.json").read_bytes() == (tmp_path / name).read_bytes()


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_files_are_in_saved_form(name):
    """The shipped files are exactly what save_scene writes, so editing and saving one changes only the edit."""
    scene = load_scene(SCENES / name)
    assert json.loads((SCENES / name).read_text()) == scene_to_dict(scene)


def test_save_is_atomic_when_writing_fails(tmp_path, monkeypatch):
    target = tmp_path / "scene.json"
    save_scene(Scene.empty(50, 50, "old"), target)
    before = target.read_bytes()

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(jsonio.os, "replace", broken_replace)
    with pytest.raises(OSError):
        save_scene(Scene.empty(80, 80, "new"), target)
    assert target.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["scene.json"]  # the temporary file is gone too


def test_save_refuses_non_finite_values_without_touching_the_file(tmp_path):
    target = tmp_path / "scene.json"
    save_scene(Scene.empty(), target)
    before = target.read_bytes()
    bad = Scene.empty()
    bad.simulation.dt = float("nan")
    with pytest.raises(ValueError):
        save_scene(bad, target)
    assert target.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["scene.json"]


def test_closing_vertex_and_repeats_are_dropped(tmp_path):
    doc = scene_to_dict(Scene.empty(100, 100))
    doc["obstacles"] = [{"id": "o", "polygon": [[10, 10], [20, 10], [20, 10], [20, 20], [10, 20], [10, 10]]}]
    p = tmp_path / "s.json"
    p.write_text(json.dumps(doc))
    assert load_scene(p).obstacles[0].polygon == [(10.0, 10.0), (20.0, 10.0), (20.0, 20.0), (10.0, 20.0)]


def test_byte_order_mark_is_accepted(tmp_path):
    p = tmp_path / "bom.json"
    p.write_bytes(b"\xef\xbb\xbf" + json.dumps(scene_to_dict(Scene.empty())).encode())
    assert load_scene(p) == Scene.empty()


@pytest.mark.parametrize("content, message", [
    (b"\xff\xfe{}", "not UTF-8 text"),
    (b"", "malformed JSON at line 1, column 1"),
    (b'{"a": 1} x', "malformed JSON at line 1, column 10"),
    (b"[" * 100000, "nested too deeply"),
    (b"1" * 5000, "malformed JSON: Exceeds the limit"),
])
def test_unreadable_text_is_one_clear_problem(tmp_path, content, message):
    p = tmp_path / "bad.json"
    p.write_bytes(content)
    with pytest.raises(InputError) as info:
        load_scene(p)
    assert len(info.value.problems) == 1
    assert message in info.value.problems[0].message


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        load_scene(tmp_path / "nope.json")
    with pytest.raises(InputError, match="is a directory"):
        load_scene(tmp_path)


def test_oversized_file_is_refused_before_reading(tmp_path, monkeypatch):
    p = tmp_path / "big.json"
    p.write_text(json.dumps(scene_to_dict(Scene.empty())))
    monkeypatch.setattr(jsonio, "MAX_FILE_BYTES", 100)
    with pytest.raises(InputError, match="over the limit"):
        load_scene(p)


def test_readable_json_keeps_points_on_one_line():
    text = jsonio.dumps_readable({"polygon": [[1, 2.5], [3, 4]], "name": "[\n 1 ]"})
    assert '[1, 2.5]' in text and '[3, 4]' in text
    assert json.loads(text) == {"polygon": [[1, 2.5], [3, 4]], "name": "[\n 1 ]"}


def test_an_input_error_survives_pickling_with_its_problems_and_source():
    """It travels to and from a sweep's worker processes: the same lines and message after, for a subclass too."""
    import pickle

    from core.ecm.exact import ExactUnavailableError
    from core.scene.problems import InputError, Problem

    for e in (InputError([Problem("agents[2].goal", "bad"), Problem("", "worse")], "s.json"),
              ExactUnavailableError()):
        back = pickle.loads(pickle.dumps(e))
        assert type(back) is type(e) and back.problems == e.problems and back.source == e.source
        assert back.lines() == e.lines() and str(back) == str(e)
