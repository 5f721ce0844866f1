"""Regressions of issue 14's reader findings: geometry that touches the bounds from outside, lone surrogates,
thin walls at large coordinates, and files that are not regular files."""

from __future__ import annotations

import os

import pytest

from core.navmesh import build_navmesh
from core.scene.geometry import build_geometry
from core.scene.io import load_scene, scene_to_dict
from core.scene.model import Obstacle, Scene
from core.scene.parse import check_scene
from core.scene.polygons import ring_problem, thickness
from core.scene.problems import InputError

from scenedata import SCENES


def test_an_obstacle_touching_the_bounds_from_outside_leaves_no_stray_lines():
    """The validator refuses it; built directly, the geometry keeps only areas and the mesh builds."""
    scene = Scene.empty(20, 20)
    scene.obstacles = [Obstacle("in", [(8, 8), (12, 8), (12, 12), (8, 12)]),
                       Obstacle("out", [(20, 0), (25, 0), (25, 5), (20, 5)])]
    g = build_geometry(scene)
    assert g.obstacles.geom_type in ("Polygon", "MultiPolygon") and g.obstacles.area == pytest.approx(16.0)
    assert build_navmesh(scene).n_terrain_types == 1
    _, problems = check_scene(scene_to_dict(scene))
    assert [(p.path, p.message) for p in problems] == [
        ("obstacles[1].polygon", "lies outside the bounds, touching them only along their edge")]


def test_a_long_thin_wall_is_not_collinear_and_is_judged_by_the_scene_size():
    wall = [(-1e9, 0.0), (1e9, 0.0), (1e9, 0.001), (-1e9, 0.001)]
    assert ring_problem(wall) is None and thickness(wall) == pytest.approx(0.001, rel=1e-6)
    assert "collinear" in ring_problem([(0, 0), (1, 1), (2, 2 + 1e-17)])
    doc = {"format": "miran-scene", "version": 1, "bounds": [-1e9, -1, 1e9, 1],
           "terrain_types": [{"id": "default"}], "default_terrain": "default",
           "obstacles": [{"id": "w", "polygon": [list(p) for p in wall]}]}
    _, problems = check_scene(doc)
    assert [p.path for p in problems] == ["obstacles[0].polygon"] and "0.001 thick" in problems[0].message
    doc["bounds"] = [-10, -1, 10, 1]
    doc["obstacles"][0]["polygon"] = [[-10, 0], [10, 0], [10, 0.001], [-10, 0.001]]
    assert check_scene(doc)[1] == []


def test_lone_surrogates_are_refused_wherever_a_string_is_read():
    base = load_scene(SCENES / "mckenna.json")
    doc = scene_to_dict(base)
    doc["name"] = "a\ud800"
    doc["profiles"][0]["id"] = "\udfff"
    _, problems = check_scene(doc)
    paths = {p.path for p in problems}
    assert {"name", "profiles[0].id"} <= paths
    assert all("surrogate" in p.message for p in problems if p.path in ("name", "profiles[0].id"))
    for p in problems:
        str(p).encode("utf-8")  # every message can be printed


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_devices_and_pipes_are_refused_unopened(tmp_path):
    fifo = tmp_path / "scene.json"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="named pipe"):
        load_scene(fifo)  # would block for ever if it were opened
    if os.path.exists("/dev/zero"):
        with pytest.raises(InputError, match="character device"):
            load_scene("/dev/zero")
