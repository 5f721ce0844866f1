"""The JSON Schemas agree with the readers: shipped scenes pass both; structural mistakes fail both.

The schema states only the structural rules. Geometry (simple polygons, holes, placement in free space),
references between ids, unique ids, xmax > xmin and NaN/Infinity (which are not JSON, so no schema sees them) are
checked by the validator alone: for those corpus files the test asserts the schema *accepts* the document, which
pins down exactly where the boundary between the two lies.
"""

from __future__ import annotations

import json

import jsonschema
import pytest

from core.scene.io import load_scene, scene_to_dict
from core.scene.jsonio import parse_json_text
from core.scene.problems import InputError
from core.scene.parse import check_scene

from scenedata import BAD, BAD_CORPUS, SCHEMAS, SHIPPED, SCENES


def _validator(name: str) -> jsonschema.Draft202012Validator:
    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


SCENE_SCHEMA = _validator("miran-scene")
PATHS_SCHEMA = _validator("miran-paths")


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_scenes_pass_schema_and_validator(name):
    doc = json.loads((SCENES / name).read_text())
    assert list(SCENE_SCHEMA.iter_errors(doc)) == []
    assert check_scene(doc)[1] == []


@pytest.mark.parametrize("name", sorted(BAD_CORPUS))
def test_schema_and_validator_agree_on_bad_corpus(name):
    kind = BAD_CORPUS[name]["schema"]
    text = (BAD / name).read_text()
    if kind == "json":
        with pytest.raises(InputError):
            parse_json_text(text)
        return
    doc = json.loads(text)
    scene, problems = check_scene(doc)
    assert scene is None and problems
    schema_errors = list(SCENE_SCHEMA.iter_errors(doc))
    if kind == "rejects":
        assert schema_errors, f"{name}: the schema accepts a structurally bad scene"
    else:
        assert kind.startswith("validator-only: ")
        assert schema_errors == [], f"{name}: {kind}, yet the schema rejects it: {schema_errors[0].message}"


def test_saved_scene_is_schema_valid(tmp_path):
    """What save_scene writes (every optional field spelled out) is valid under the schema."""
    for name in SHIPPED:
        doc = scene_to_dict(load_scene(SCENES / name))
        assert list(SCENE_SCHEMA.iter_errors(doc)) == []


def _paths_doc() -> dict:
    """The paths format's example (docs: Reference, paths format), made consistent (length = sum of terrain
    lengths)."""
    return {
        "format": "miran-paths", "version": 1, "scene": "McKenna + Road", "method": "miran",
        "integrator": "euler", "dt": 0.1, "parameters": {"sigma": 40, "d": 10},
        "agents": [{
            "id": "a1", "profile": "pedestrian", "reached_goal": True, "time": 152.3, "length": 210.4,
            "weighted_length": 130.9,
            "terrain_lengths": {"default": 12.1, "sidewalk": 180.3, "road": 18.0, "mud": 0.0},
            "min_clearance": 0.41, "points": [[0.0, 5.0, 5.0], [0.1, 5.1, 5.1]],
        }],
    }


def test_paths_schema_accepts_the_design_example():
    assert list(PATHS_SCHEMA.iter_errors(_paths_doc())) == []


@pytest.mark.parametrize("mutate", [
    lambda d: d.pop("agents"),
    lambda d: d.update(format="miran-scene"),
    lambda d: d.update(version=2),
    lambda d: d.update(method="rvo"),
    lambda d: d.update(dt=0),
    lambda d: d.update(extra=1),
    lambda d: d["agents"][0].pop("min_clearance"),
    lambda d: d["agents"][0].update(reached_goal="yes"),
    lambda d: d["agents"][0].update(length=-1.0),
    lambda d: d["agents"][0].update(points=[[0.0, 1.0]]),
    lambda d: d["agents"][0].update(points=[]),
    lambda d: d["agents"][0]["terrain_lengths"].update(mud=-0.5),
])
def test_paths_schema_rejects_structural_mistakes(mutate):
    doc = _paths_doc()
    mutate(doc)
    assert list(PATHS_SCHEMA.iter_errors(doc))


def test_paths_schema_agrees_with_the_paths_reader():
    """The paths reader and the schema agree on the example and its mistakes."""
    from core.export import paths

    doc = _paths_doc()
    assert paths.check_paths(doc)[1] == []
    doc["agents"][0]["reached_goal"] = "yes"
    assert paths.check_paths(doc)[1] and list(PATHS_SCHEMA.iter_errors(doc))
