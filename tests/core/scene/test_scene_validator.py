"""The validator: every problem at once, never a traceback, and polygon verdicts that agree with shapely."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
import shapely
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shapely.geometry import Polygon

from core.scene import parse
from core.scene.io import load_scene, scene_to_dict
from core.scene.jsonio import parse_json_text
from core.scene.model import Scene
from core.scene.parse import check_scene, parse_scene
from core.scene.problems import InputError

from scenedata import BAD, SCENES

BASE = json.loads((BAD.parent / "bad" / "zero_area.json").read_text())
BASE["terrains"][0]["polygon"] = [[0, 0], [30, 0], [30, 30], [0, 30]]
SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=30,
)


def _outcome_is_consistent(data) -> list:
    scene, problems = check_scene(data)
    assert (scene is None) == bool(problems)
    for p in problems:
        assert isinstance(p.path, str) and isinstance(p.message, str) and p.message
    return problems


def test_base_scene_is_valid():
    assert check_scene(copy.deepcopy(BASE))[1] == []


@SETTINGS
@given(json_values)
def test_any_json_value_never_crashes(value):
    _outcome_is_consistent(value)


_KEYS = ["format", "version", "bounds", "terrain_types", "default_terrain", "name", "units", "obstacles", "terrains",
         "profiles", "routes", "networks", "agents", "simulation"]


def _paths(doc, prefix=()):
    """Every place in a document where a value could be replaced."""
    yield prefix
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _paths(v, prefix + (i,))


ALL_PATHS = list(_paths(BASE))[1:]


@SETTINGS
@given(st.lists(st.tuples(st.sampled_from(ALL_PATHS), json_values | st.just(KeyError)), min_size=1, max_size=4))
def test_mutated_scene_never_crashes(mutations):
    """Replace (or delete) values anywhere in a valid scene: a result, never an exception."""
    doc = copy.deepcopy(BASE)
    for path, value in mutations:
        node = doc
        try:
            for key in path[:-1]:
                node = node[key]
            if value is KeyError:
                del node[path[-1]]
            else:
                node[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue
    _outcome_is_consistent(doc)


@SETTINGS
@given(st.text(max_size=200))
def test_any_text_is_json_or_one_located_problem(text):
    try:
        parse_json_text(text)
    except InputError as e:
        assert len(e.problems) == 1 and "JSON" in e.problems[0].message


small = st.integers(-20, 20)
rings = st.lists(st.tuples(small, small), min_size=0, max_size=9)


def _obstacle_problem(ring) -> list:
    doc = copy.deepcopy(BASE)
    doc["bounds"] = [-30, -30, 30, 30]
    doc["obstacles"] = [{"id": "p", "polygon": [list(p) for p in ring]}]
    doc["terrains"], doc["routes"], doc["networks"], doc["agents"] = [], [], [], []
    return [p for p in _outcome_is_consistent(doc) if p.path.startswith("obstacles[0]")]


@SETTINGS
@given(rings)
def test_polygon_verdict_agrees_with_shapely(ring):
    """Integer vertices (no near-degenerate cases): accepted exactly when shapely finds a valid polygon of non-zero
    area, with at least 3 distinct vertices; the crossing point of a self-intersection lies on the ring."""
    problems = _obstacle_problem(ring)
    distinct = len(set(ring))
    if distinct >= 3:
        poly = Polygon(ring)
        reference_ok = poly.is_valid and poly.area > 0
    else:
        reference_ok = False
    assert (not problems) == reference_ok, (ring, problems)
    if len(ring) >= 3 and distinct < 3:
        assert "3 distinct vertices" in problems[0].message
    for p in problems:
        if "self-intersecting at (" in p.message:
            x, y = map(float, p.message.split("at (")[1].rstrip(")").split(","))
            assert Polygon(ring).exterior.distance(shapely.Point(x, y)) < 1e-4


@SETTINGS
@given(st.lists(st.tuples(st.integers(0, 80), st.integers(0, 80), st.integers(2, 15), st.integers(2, 15)),
                min_size=1, max_size=6),
       st.lists(st.tuples(st.integers(0, 100), st.integers(0, 100)), min_size=2, max_size=6))
def test_placement_agrees_with_shapely(rects, route):
    """Route points are refused exactly when shapely puts them outside the bounds or inside an obstacle."""
    doc = copy.deepcopy(BASE)
    doc["bounds"] = [0, 0, 90, 90]
    doc["obstacles"] = [{"id": f"o{i}", "polygon": [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]}
                        for i, (x, y, w, h) in enumerate(rects)]
    doc["terrains"], doc["networks"], doc["agents"] = [], [], []
    doc["routes"] = [{"id": "r", "points": [list(p) for p in route]}]
    problems = _outcome_is_consistent(doc)
    flagged = {int(p.path.split("[")[2].rstrip("]")) for p in problems if p.path.startswith("routes[0].points[")}
    union = shapely.union_all([Polygon(o["polygon"]) for o in doc["obstacles"]])
    box = shapely.box(0, 0, 90, 90)
    expected = {k for k, (x, y) in enumerate(route)
                if not box.covers(shapely.Point(x, y)) or union.contains(shapely.Point(x, y))}
    if len(set(route)) >= 2:
        assert flagged == expected


def test_all_problems_reported_at_once():
    doc = copy.deepcopy(BASE)
    doc["obstacles"][0]["polygon"] = [[40, 40], [60, 60], [60, 40], [40, 60]]     # geometry
    doc["profiles"][0]["sigma"] = 0                                               # value
    doc["agents"][0]["profile"] = "ghost"                                         # reference
    doc["routes"][0]["points"][0] = [150, 50]                                     # placement
    doc["extra"] = True                                                           # structure
    paths = [p.path for p in check_scene(doc)[1]]
    assert sorted(paths) == sorted(["extra", "obstacles[0].polygon", "profiles[0].sigma", "agents[0].profile",
                                    "routes[0].points[0]"])


def test_placement_still_checked_when_another_obstacle_is_bad():
    doc = copy.deepcopy(BASE)
    doc["obstacles"].insert(0, {"id": "bad", "polygon": [[0, 0], [1, 1]]})
    doc["routes"][0]["points"][1] = [50, 50]
    paths = [p.path for p in check_scene(doc)[1]]
    assert paths == ["obstacles[0].polygon", "routes[0].points[1]"]
    assert "inside obstacle 'o1'" in check_scene(doc)[1][1].message


def test_point_on_seam_of_touching_obstacles_is_inside():
    doc = copy.deepcopy(BASE)
    doc["obstacles"].append({"id": "o2", "polygon": [[60, 40], [80, 40], [80, 60], [60, 60]]})
    doc["routes"][0]["points"][1] = [60, 50]
    (p,) = check_scene(doc)[1]
    assert p.path == "routes[0].points[1]" and "'o1', 'o2'" in p.message


def test_point_on_obstacle_boundary_is_free():
    doc = copy.deepcopy(BASE)
    doc["routes"][0]["points"][1] = [40, 50]
    assert check_scene(doc)[1] == []


def test_size_limits_refuse_before_geometry(monkeypatch):
    monkeypatch.setattr(parse, "MAX_VERTICES", 50)
    doc = copy.deepcopy(BASE)
    doc["obstacles"][0]["polygon"] = [[0, 0]] * 60          # would be a geometry problem too; only size is reported
    problems = check_scene(doc)[1]
    assert [(p.path, p.message) for p in problems] == [("", "the scene has 70 vertices, over the limit of 50")]


def test_size_limit_in_vertices():
    doc = copy.deepcopy(BASE)
    doc["routes"][0]["points"] = [[1, 1]] * (parse.MAX_VERTICES + 1)
    (p,) = check_scene(doc)[1]
    assert f"over the limit of {parse.MAX_VERTICES}" in p.message


def test_agent_limit(monkeypatch):
    monkeypatch.setattr(parse, "MAX_AGENTS", 1)
    (p,) = check_scene(copy.deepcopy(BASE))[1]
    assert (p.path, p.message) == ("agents", "2 agents, over the limit of 1")


def test_huge_numbers_do_not_overflow():
    doc = copy.deepcopy(BASE)
    doc["obstacles"][0]["polygon"][0] = [10 ** 400, 40]
    doc["profiles"][0]["sigma"] = 10 ** 400
    doc["networks"][0]["edges"][0] = [0, 10 ** 5000]
    msgs = {p.path: p.message for p in check_scene(doc)[1]}
    assert "finite numbers" in msgs["obstacles[0].polygon[0]"]
    assert "finite number" in msgs["profiles[0].sigma"]
    assert "out of range" in msgs["networks[0].edges[0][1]"] and "digits" in msgs["networks[0].edges[0][1]"]


def test_many_bad_points_are_summarised():
    doc = copy.deepcopy(BASE)
    doc["routes"][0]["points"] = [["a", 1]] * 500
    problems = [p for p in check_scene(doc)[1] if p.path.startswith("routes[0].points")]
    assert len(problems) == 11 and problems[-1].message == "500 bad points in all (10 shown)"


def test_odd_keys_are_quoted_in_paths():
    doc = copy.deepcopy(BASE)
    doc["profiles"][0]["weights"]["deep water"] = 2
    (p,) = check_scene(doc)[1]
    assert p.path == 'profiles[0].weights["deep water"]'


def test_defaults_of_optional_fields():
    doc = {"format": "miran-scene", "version": 1, "bounds": [0, 0, 10, 10], "terrain_types": [{"id": "g"}],
           "default_terrain": "g", "profiles": [{"id": "p"}],
           "agents": [{"id": "a", "profile": "p", "start": [1, 1], "goal": [9, 9]}]}
    scene = parse_scene(doc)
    assert scene.name == "Untitled" and scene.units == "m"
    assert scene.terrain_types[0].name == "g" and scene.terrain_types[0].color == "#cbd5a3"
    p = scene.profiles[0]
    assert (p.weights, p.radius, p.max_speed, p.sigma, p.d) == ({}, 0.25, 1.4, 40.0, 10.0)
    assert p.weight("g") == 1.0                      # a terrain type the profile does not name weighs 1
    assert scene.agents[0].planner is None and scene.agents[0].route is None
    assert (scene.simulation.method, scene.simulation.integrator, scene.simulation.dt) == ("miran", "euler", 0.1)
    assert scene.obstacles == scene.terrains == scene.routes == scene.networks == []


def test_empty_scene_round_trips():
    scene = Scene.empty(30, 20, "blank")
    assert parse_scene(scene_to_dict(scene)) == scene


@pytest.mark.parametrize("name", ["mckenna_road.json"])
def test_validation_does_not_mutate_input(name):
    doc = json.loads((SCENES / name).read_text())
    before = copy.deepcopy(doc)
    check_scene(doc)
    assert doc == before
    assert np.isfinite(load_scene(SCENES / name).weight_matrix()).all()


def test_a_planned_agent_whose_goal_is_its_start_is_refused():
    """Nothing to plan (the simulation would refuse it too): the message points to a route that ends where it
    starts, which a character walks round once."""
    d = copy.deepcopy(BASE)
    d["agents"][1]["goal"] = list(d["agents"][1]["start"])
    _, problems = check_scene(d)
    assert [p.path for p in problems] == ["agents[1].goal"]
    assert "the same point as the start" in problems[0].message and "ends where it starts" in problems[0].message
