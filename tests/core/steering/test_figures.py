"""The papers' experiments as tests, on the shipped stand-in scenes: MIRAN Figure 7 (sigma controls how closely the
route is followed), Figure 1 (the forest's adult and child choose differently) and Figure 8 (MIRAN keeps the
pedestrian out of the mud). Lengths per terrain are measured with shapely, independently of the navmesh."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString

from core.navmesh import build_navmesh
from core.routes import Route
from core.scene.geometry import build_geometry
from core.scene.io import load_scene
from core.sim import Simulation

SCENES = Path(__file__).resolve().parents[3] / "scenes"
SIGMAS = (100.0, 250.0, 300.0, 400.0, 1250.0)


@lru_cache(maxsize=None)
def _scene_and_mesh(name):
    scene = load_scene(SCENES / f"{name}.json")
    return scene, build_navmesh(scene)


def _terrain_lengths(scene, path_xy) -> dict[str, float]:
    geo = build_geometry(scene)
    line = LineString(path_xy)
    return {t.id: line.intersection(r).length for t, r in zip(scene.terrain_types, geo.regions)}


@lru_cache(maxsize=None)
def _mckenna_paths():
    scene, mesh = _scene_and_mesh("mckenna")
    out = {}
    for sigma in SIGMAS:
        sim = Simulation(scene, mesh=mesh)
        sim.set_profile("pedestrian", sigma=sigma, d=20.0)
        sim.run()
        assert sim.arrived().all()
        out[sigma] = sim.path(0)[:, 1:]
    return out


def _loop(route: Route) -> tuple[float, float]:
    """Arc lengths of the route's two passes through its self-crossing (the loop of Figure 7)."""
    pts = route.points
    for i in range(len(pts) - 1):
        for j in range(i + 2, len(pts) - 1):
            x = LineString(pts[i:i + 2]).intersection(LineString(pts[j:j + 2]))
            if x.geom_type == "Point":
                c = np.array(x.coords[0])
                return route.s[i] + np.hypot(*(c - pts[i])), route.s[j] + np.hypot(*(c - pts[j]))
    raise AssertionError("the route has no loop")


def test_figure_7_route_following_loosens_as_sigma_grows():
    """MIRAN section 5: "the smaller the value of sigma, the closer the character follows pi_ind": the mean distance
    from the route to the walked path grows with sigma."""
    scene, _ = _scene_and_mesh("mckenna")
    route = Route.from_scene(scene, "loop")
    samples = shapely.points(route.point_at(np.linspace(0.0, route.length, 800)))
    mean = [float(shapely.distance(samples, LineString(p)).mean()) for p in _mckenna_paths().values()]
    assert all(a < b for a, b in zip(mean, mean[1:])), mean


def test_figure_7_sigma_300_neither_follows_the_loop_nor_skips_it():
    """MIRAN section 5: with sigma = 300 "the character neither follows the loop contained in pi_ind nor does it
    skip it entirely"; sigma = 100 follows most of it and sigma = 1250 skips it."""
    scene, _ = _scene_and_mesh("mckenna")
    route = Route.from_scene(scene, "loop")
    s0, s1 = _loop(route)
    loop = shapely.points(route.point_at(np.linspace(s0, s1, 600)))
    paths = _mckenna_paths()

    def near(sigma, dist):
        return float((shapely.distance(loop, LineString(paths[sigma])) < dist).mean())

    assert near(100.0, 15.0) > 0.4                       # followed
    assert 0.1 < near(300.0, 15.0) and near(300.0, 30.0) < 0.6   # part of it followed, part skipped
    assert near(1250.0, 30.0) < near(300.0, 30.0)         # skipped more


def test_figure_1_the_adult_avoids_puddles_and_fallen_trees_the_child_walks_through_them():
    scene, mesh = _scene_and_mesh("forest")
    sim = Simulation(scene, mesh=mesh)
    sim.run()
    assert sim.arrived().all()
    walked = {sim.state.ids[i]: _terrain_lengths(scene, sim.path(i)[:, 1:]) for i in range(sim.n_agents)}
    assert walked["adult"]["puddles"] == 0.0 and walked["adult"]["trees"] == 0.0
    assert walked["child"]["puddles"] > 5.0 and walked["child"]["trees"] > 0.5


@pytest.mark.parametrize("method", ["miran", "disc-miran"])
def test_figure_8_miran_keeps_the_pedestrian_on_the_sidewalk_and_out_of_the_mud(method):
    scene, mesh = _scene_and_mesh("mckenna_road")
    sim = Simulation(scene, mesh=mesh, method=method)
    sim.run()
    assert sim.arrived().all()
    walked = _terrain_lengths(scene, sim.path(0)[:, 1:])
    route = _terrain_lengths(scene, np.asarray(scene.routes[0].points))
    assert walked["mud"] == 0.0
    total = sum(walked.values())
    assert walked["sidewalk"] > 0.6 * total
    assert walked["road"] < 0.5 * route["road"]            # the bulges of the sketch onto the road are cut
