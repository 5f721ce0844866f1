"""The miran-paths file: written from a simulation, valid against the JSON Schema, read back equal, measured
exactly (shapely as the reference), and bad files refused with one located message per problem."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import numpy as np
import pytest
import shapely
from shapely.geometry import LineString, Polygon

from core.export import paths_from_simulation, paths_to_dict, parse_paths, read_paths, write_paths
from core.scene.geometry import build_geometry
from core.scene.io import load_scene
from core.scene.problems import InputError
from core.sim import Simulation

ROOT = Path(__file__).resolve().parents[3]
SCHEMA = json.loads((ROOT / "resources" / "schemas" / "miran-paths.schema.json").read_text())


@pytest.fixture(scope="module")
def forest_run():
    scene = load_scene(ROOT / "scenes" / "forest.json")
    sim = Simulation(scene, method="disc-miran")
    sim.run()
    return scene, sim, paths_from_simulation(sim)


def test_round_trip_is_exact_and_the_schema_agrees(forest_run, tmp_path):
    scene, sim, pf = forest_run
    out = tmp_path / "paths.json"
    write_paths(out, pf)
    doc = json.loads(out.read_text())
    jsonschema.validate(doc, SCHEMA)
    back = read_paths(out)
    assert paths_to_dict(back) == paths_to_dict(pf)
    for a, b in zip(pf.agents, back.agents):
        assert np.array_equal(a.points, b.points)
    assert doc["method"] == "disc-miran" and doc["dt"] == sim.params.dt
    assert doc["parameters"]["profiles"]["adult"]["sigma"] == 80.0


def test_measures_agree_with_shapely(forest_run):
    """terrain_lengths exactly on the walked polyline; min_clearance = distance to obstacles or bounds minus R."""
    scene, sim, pf = forest_run
    geo = build_geometry(scene)
    boundary = shapely.union(shapely.union_all([Polygon(o.polygon) for o in scene.obstacles]).boundary,
                             shapely.box(*scene.bounds).boundary)
    w = scene.weight_matrix()
    for i, a in enumerate(pf.agents):
        line = LineString(a.xy)
        ref = {t.id: line.intersection(r).length for t, r in zip(scene.terrain_types, geo.regions)}
        for k, v in ref.items():
            assert a.terrain_lengths[k] == pytest.approx(v, rel=1e-9, abs=1e-9)
        assert a.length == pytest.approx(line.length, rel=1e-12)
        prof = [p.id for p in scene.profiles].index(a.profile)
        assert a.weighted_length == pytest.approx(sum(ref[t.id] * w[prof, k]
                                                      for k, t in enumerate(scene.terrain_types)), rel=1e-9)
        assert a.min_clearance == pytest.approx(boundary.distance(line) - sim.state.radius[i], rel=1e-9, abs=1e-9)
        assert a.reached_goal and a.time == pytest.approx(a.points[-1, 0])
        assert a.points[0, 0] == 0.0 and np.all(np.diff(a.points[:, 0]) > 0)


def _doc(forest_run):
    return paths_to_dict(forest_run[2])


@pytest.mark.parametrize("mutate,path,words", [
    (lambda d: d.update(format="miran-scene"), "format", "expected 'miran-paths'"),
    (lambda d: d.update(version=2), "version", "unsupported version"),
    (lambda d: d.update(method="walk"), "method", "valid: miran, disc-miran, irm"),
    (lambda d: d.update(dt=0), "dt", "must be positive"),
    (lambda d: d.pop("agents"), "agents", "missing required field"),
    (lambda d: d.update(extra=1), "extra", "unknown field"),
    (lambda d: d["agents"][1].update(id=d["agents"][0]["id"]), "agents[1].id", "duplicate id"),
    (lambda d: d["agents"][0].update(reached_goal="yes"), "agents[0].reached_goal", "true or false"),
    (lambda d: d["agents"][0].update(length=-1.0), "agents[0].length", "must not be negative"),
    (lambda d: d["agents"][0]["terrain_lengths"].update(path=1e6), "agents[0].length", "differs from the sum"),
    (lambda d: d["agents"][0]["points"].__setitem__(3, [1.0, 2.0]), "agents[0].points[3]", "[t, x, y]"),
    (lambda d: d["agents"][0]["points"].__setitem__(2, [0.0, True, 1.0]), "agents[0].points[2]", "numbers"),
    (lambda d: d["agents"][0]["points"].__setitem__(5, [0.0, 1.0, 1.0]), "agents[0].points[5]", "goes back"),
    (lambda d: d["agents"][1].update(points=[]), "agents[1].points", "at least 1"),
])
def test_bad_files_get_located_messages(forest_run, mutate, path, words):
    doc = copy.deepcopy(_doc(forest_run))
    mutate(doc)
    with pytest.raises(InputError) as e:
        parse_paths(doc, "p.json")
    hits = [p for p in e.value.problems if p.path == path]
    assert hits and words in hits[0].message, e.value.problems


def test_unreadable_files_are_input_errors(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{\"format\": ")
    with pytest.raises(InputError, match="malformed JSON at line 1"):
        read_paths(bad)
    with pytest.raises(InputError, match="no such file"):
        read_paths(tmp_path / "missing.json")
