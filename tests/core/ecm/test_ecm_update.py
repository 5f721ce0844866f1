"""Local updates of the ECM (core.ecm.update) against a fresh exact build of the changed scene.

After every insertion, deletion and move of an obstacle, on generated scenes (non-convex and overlapping
obstacles, courtyards, contacts with the bounds) and on the shipped city, the updated map has the vertices, the
edges between them, the events and the clearances of Boost.Polygon's exact diagram of the new scene built from
scratch, within the tolerance the exact backend's own tests use; its sites hold the new scene's rings. Sequences of
30 changes a scene in CI, 500 under MIRAN_TEST_FULL (issue 30's sequence)."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pytest
import shapely

from ci_size import size
from ecm_checks import assert_same_map
from scene_changes import random_change
from core.ecm import build_ecm
from core.ecm.site_update import updated_sites
from core.ecm.sites import build_sites, obstacle_union
from core.ecm.update import local_update
from core.scene import load_scene
from core.scene.model import Obstacle, Profile, Scene, TerrainType

from ecmgen import random_scene, rect, star

SCENES_DIR = Path(__file__).resolve().parents[3] / "scenes"
SCENES = {"random:1": lambda: random_scene(1), "random:2": lambda: random_scene(2),
          "random:7": lambda: random_scene(7), "city": lambda: load_scene(SCENES_DIR / "city.json")}


def _segments(sites) -> list:
    return sorted(map(tuple, np.round(sites.segments(), 9).tolist()))


def _change(rng, scene, mine: dict, k: int):
    """One random change of ``scene`` (``scene_changes.random_change``, the obstacles ``ecmgen.star`` polygons)."""
    return random_change(rng, scene, mine, k, star)


@pytest.mark.parametrize("name", sorted(SCENES))
def test_a_random_sequence_of_changes_keeps_the_map_that_of_the_scene(name):
    scene = SCENES[name]()
    rng = np.random.default_rng(100 + sorted(SCENES).index(name))
    ecm = build_ecm(scene, backend="exact")
    tol = 1e-8 * ecm.sites.scale
    mine: dict = {}
    n = size(30, 500)
    local = 0
    for k in range(n):
        scene, changed = _change(rng, scene, mine, k)
        fresh = build_ecm(scene, backend="exact")
        updated = local_update(ecm, scene, changed)
        if updated is not None:
            local += 1
            assert_same_map(updated, fresh, tol)
            assert _segments(updated.sites) == _segments(fresh.sites)
        ecm = updated if updated is not None else fresh
    # The local update is the rule, a fresh build the exception (a check that failed).
    assert local >= 0.95 * n


def _city_with_stall():
    scene = load_scene(SCENES_DIR / "city.json")
    stall = [(197.0, 247.0), (203.0, 247.0), (203.0, 253.0), (197.0, 253.0)]
    return scene, dataclasses.replace(scene, obstacles=[*scene.obstacles, Obstacle("stall", stall)]), stall


def test_deleting_an_insertion_restores_the_map():
    scene, with_stall, stall = _city_with_stall()
    ecm = build_ecm(scene, backend="exact")
    inserted = local_update(ecm, with_stall, [shapely.Polygon(stall)])
    assert inserted is not None
    assert_same_map(inserted, build_ecm(with_stall, backend="exact"), 1e-8 * ecm.sites.scale)
    # Only the edges whose corridors the stall reaches were replaced: a handful of the city's 600.
    assert 0 < inserted.stats["edges_replaced"] <= 20
    restored = local_update(inserted, scene, [shapely.Polygon(stall)])
    assert restored is not None
    assert_same_map(restored, ecm, 1e-8 * ecm.sites.scale)
    assert _segments(restored.sites) == _segments(ecm.sites)


def test_without_pyvoronoi_the_update_answers_a_fresh_build(monkeypatch):
    from core.ecm.update import update_between

    scene, with_stall, stall = _city_with_stall()
    ecm = build_ecm(scene, backend="exact")
    monkeypatch.setitem(sys.modules, "pyvoronoi", None)    # its import fails
    assert local_update(ecm, with_stall, [shapely.Polygon(stall)]) is None
    assert update_between(ecm, scene, with_stall) is None   # the app's overlay then builds the map afresh


def test_a_gpu_map_is_updated_to_the_gpu_map_of_the_new_scene():
    # The GPU backend's annotation is exact, so its map takes the exact diagram's new edges without a seam.
    scene, with_stall, stall = _city_with_stall()
    inserted = local_update(build_ecm(scene, 2048, backend="gpu"), with_stall, [shapely.Polygon(stall)])
    assert inserted is not None and inserted.stats["backend"] == "gpu"
    fresh = build_ecm(with_stall, 2048, backend="gpu")
    assert_same_map(inserted, fresh, 1e-8 * fresh.sites.scale)


def test_changes_that_leave_the_rings_keep_the_map():
    scene = random_scene(3)
    ecm = build_ecm(scene, backend="exact")
    x0, y0, x1, y1 = scene.bounds
    far = rect(x1 + 5.0, y1 + 5.0, x1 + 9.0, y1 + 9.0)
    assert local_update(ecm, dataclasses.replace(scene, obstacles=[*scene.obstacles, Obstacle("far", far)]),
                        [shapely.Polygon(far)]) is ecm


def _sq(x0, y0, x1, y1):
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


# Degenerate changes of a 10 x 8 scene with obstacles a (2, 2)-(4, 4), b (4, 4)-(6, 6) touching a at a corner, and
# an L: (obstacles after the change given those before, the changed polygons).
DEGENERATE = {
    "a copy of a": lambda obs: ([*obs, Obstacle("dup", _sq(2, 2, 4, 4))], [_sq(2, 2, 4, 4)]),
    "an edge shared with a": lambda obs: ([*obs, Obstacle("e", _sq(0.5, 2, 2, 4))], [_sq(0.5, 2, 2, 4)]),
    "inside a": lambda obs: ([*obs, Obstacle("in", _sq(2.5, 2.5, 3, 3))], [_sq(2.5, 2.5, 3, 3)]),
    "over the bounds' corner": lambda obs: ([*obs, Obstacle("o", _sq(-1, -1, 1.5, 1))], [_sq(-1, -1, 1.5, 1)]),
    "along a wall": lambda obs: ([*obs, Obstacle("w", _sq(7, 0, 9, 0.5))], [_sq(7, 0, 9, 0.5)]),
    "over nearly everything": lambda obs: ([*obs, Obstacle("all", _sq(0.1, 0.1, 9.9, 7.9))],
                                           [_sq(0.1, 0.1, 9.9, 7.9)]),
    "a micrometre square": lambda obs: ([*obs, Obstacle("t", _sq(8.5, 6.5, 8.500001, 6.500001))],
                                        [_sq(8.5, 6.5, 8.500001, 6.500001)]),
    "collinear vertices": lambda obs: ([*obs, Obstacle("c", [(7.5, 5), (8, 5), (8.5, 5), (8.5, 6), (7.5, 6)])],
                                       [[(7.5, 5), (8, 5), (8.5, 5), (8.5, 6), (7.5, 6)]]),
    "b removed": lambda obs: ([o for o in obs if o.id != "b"], [_sq(4, 4, 6, 6)]),
    "every obstacle removed": lambda obs: ([], [o.polygon for o in obs]),
    "symmetric about a": lambda obs: ([*obs, Obstacle("s", _sq(0.5, 2.5, 1, 3.5))], [_sq(0.5, 2.5, 1, 3.5)]),
}


def _grid_scene():
    obstacles = [Obstacle("a", _sq(2, 2, 4, 4)), Obstacle("b", _sq(4, 4, 6, 6)),
                 Obstacle("L", [(7, 1), (9, 1), (9, 1.5), (7.5, 1.5), (7.5, 3), (7, 3)])]
    return Scene(bounds=(0.0, 0.0, 10.0, 8.0), terrain_types=[TerrainType("default")], default_terrain="default",
                 name="grid", obstacles=obstacles, profiles=[Profile("pedestrian")])


@pytest.mark.parametrize("name", sorted(DEGENERATE))
def test_degenerate_changes_give_a_fresh_builds_map(name):
    """Changes that touch, copy, cover or mirror what is there, or are far smaller than the scene: the update gives
    the fresh build's map, and takes the local way."""
    scene = _grid_scene()
    obstacles, changed = DEGENERATE[name](list(scene.obstacles))
    after = dataclasses.replace(scene, obstacles=obstacles)
    fresh = build_ecm(after, backend="exact")
    got = local_update(build_ecm(scene, backend="exact"), after, [shapely.Polygon(p) for p in changed])
    assert got is not None
    assert_same_map(got, fresh, 1e-8 * fresh.sites.scale)


@pytest.mark.parametrize("seed", [4, 5, 6])
def test_updated_sites_hold_the_new_scenes_rings(seed):
    """The rings kept and the rings derived afresh are those of ``build_sites`` of the whole new union; kept
    vertices keep their coordinates and their successors."""
    scene = random_scene(seed)
    rng = np.random.default_rng(seed)
    sites = build_sites(obstacle_union(scene), scene.bounds)
    mine: dict = {}
    for k in range(20):
        scene, changed = _change(rng, scene, mine, k)
        new, vmap = updated_sites(sites, scene, changed)
        assert _segments(new) == _segments(build_sites(obstacle_union(scene), scene.bounds))
        kept = np.flatnonzero(vmap >= 0)
        assert np.array_equal(new.ring_xy[vmap[kept]], sites.ring_xy[kept])
        assert np.array_equal(new.ring_next[vmap[kept]], vmap[sites.ring_next[kept]])
        assert new.ring_ptr[-1] == len(new.ring_xy) and new.ring_ptr[-2] == len(new.ring_xy) - 4
        area = sum(shapely.Polygon(new.piece(s)).area for s in range(new.n_sites) if len(new.piece(s)) > 2)
        assert area == pytest.approx(obstacle_union(scene).area, rel=1e-9)
        sites = new
