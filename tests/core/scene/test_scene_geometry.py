"""Geometry normalisation against brute force: each sample point's terrain is the last polygon covering it."""

from __future__ import annotations

import math

import numpy as np
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st
from shapely.geometry import Polygon

from core.scene.geometry import build_geometry
from core.scene.model import Obstacle, Scene, TerrainPolygon, TerrainType

TYPES = [TerrainType("g"), TerrainType("a"), TerrainType("b")]
boxes = st.tuples(st.integers(-5, 45), st.integers(-5, 45), st.integers(2, 25), st.integers(2, 25))


def _rect(x, y, w, h):
    return [(float(x), float(y)), (float(x + w), float(y)), (float(x + w), float(y + h)), (float(x), float(y + h))]


def _scene(obstacles, terrains) -> Scene:
    return Scene(
        bounds=(0.0, 0.0, 40.0, 40.0), terrain_types=list(TYPES), default_terrain="g",
        obstacles=[Obstacle(f"o{i}", _rect(*b)) for i, b in enumerate(obstacles)],
        terrains=[TerrainPolygon(f"t{i}", TYPES[1 + k].id, _rect(*b), []) for i, (b, k) in enumerate(terrains)],
    )


@settings(max_examples=60, deadline=None)
@given(st.lists(boxes, max_size=4), st.lists(st.tuples(boxes, st.integers(0, 1)), max_size=5))
def test_regions_match_brute_force(obstacles, terrains):
    scene = _scene(obstacles, terrains)
    geo = build_geometry(scene)
    # Sample points off the integer grid, so none lies on an edge.
    g = np.arange(0.37, 40, 1.3)
    X, Y = np.meshgrid(g, g)
    x, y = X.ravel(), Y.ravel()
    blocked = np.zeros(len(x), dtype=bool)
    for o in scene.obstacles:
        blocked |= shapely.contains_xy(Polygon(o.polygon), x, y)
    expected = np.zeros(len(x), dtype=int)             # default type index 0
    for t in scene.terrains:                            # in file order: a later polygon paints over an earlier one
        inside = shapely.contains_xy(Polygon(t.polygon), x, y)
        expected[inside] = scene.terrain_index(t.type)
    expected[blocked] = -1
    for k, region in enumerate(geo.regions):
        got = shapely.contains_xy(region, x, y)
        assert np.array_equal(got, expected == k), TYPES[k].id
    assert np.array_equal(shapely.contains_xy(geo.free, x, y), ~blocked)
    # Areas: regions are disjoint and tile the free space.
    assert math.isclose(float(geo.areas.sum()), geo.free_area, rel_tol=1e-9, abs_tol=1e-9)
    free = shapely.difference(shapely.box(0, 0, 40, 40),
                              shapely.union_all([Polygon(o.polygon) for o in scene.obstacles]))
    assert math.isclose(geo.free_area, free.area, rel_tol=1e-9, abs_tol=1e-9)
    for i in range(len(geo.regions)):
        for j in range(i):
            assert geo.regions[i].intersection(geo.regions[j]).area < 1e-9


def test_components_of_a_split_scene():
    """A wall across the bounds leaves two pieces, largest first; overlapping obstacles are fine."""
    scene = _scene([(18, -5, 4, 50), (19, 10, 10, 5)], [])
    geo = build_geometry(scene)
    assert len(geo.components) == 2
    assert geo.components[0].area >= geo.components[1].area
    assert math.isclose(geo.free_area, 40 * 40 - 4 * 40 - 7 * 5)


def test_holes_leave_the_earlier_terrain():
    scene = _scene([], [((0, 0, 40, 40), 0)])
    scene.terrains[0].holes = [_rect(10, 10, 10, 10)[::-1]]
    geo = build_geometry(scene)
    assert math.isclose(geo.areas[0], 100.0) and math.isclose(geo.areas[1], 1500.0)
