"""The optional height field of a scene: read, validated, written back byte for byte, absent when not given."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from core.scene.io import load_scene, save_scene, scene_to_dict

SCENES = Path(__file__).resolve().parents[3] / "scenes"
SCHEMA = Path(__file__).resolve().parents[3] / "resources" / "schemas" / "miran-scene.schema.json"


def test_hills_height_field_round_trips_byte_for_byte(tmp_path):
    scene = load_scene(SCENES / "hills.json")
    hf = scene.heightfield
    assert hf is not None and hf.cell == 5.0 and hf.array().shape == (25, 41)
    save_scene(scene, tmp_path / "h.json")
    assert (tmp_path / "h.json").read_bytes() == (SCENES / "hills.json").read_bytes()
    assert load_scene(tmp_path / "h.json") == scene


def test_scene_without_height_field_writes_no_key():
    scene = load_scene(SCENES / "mckenna.json")
    assert scene.heightfield is None
    assert "heightfield" not in scene_to_dict(scene)


def test_height_field_is_schema_valid():
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text()))
    assert list(validator.iter_errors(json.loads((SCENES / "hills.json").read_text()))) == []
