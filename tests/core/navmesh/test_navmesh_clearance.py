"""Clearance through the obstacle-edge grid against shapely distances to the free space's outline."""

import numpy as np
import pytest
import shapely

from core.navmesh import clearance, polyline_clearance

from scenegen import ALL_CASES, case, random_segments


@pytest.mark.parametrize("name", ALL_CASES)
def test_point_clearance_equals_shapely_distance(name):
    scene, g, m = case(name)
    rng = np.random.default_rng(21)
    x0, y0, x1, y1 = scene.bounds
    pts = np.column_stack([rng.uniform(x0 - 10, x1 + 10, 3000), rng.uniform(y0 - 10, y1 + 10, 3000)])
    dist, near = clearance(m, pts)
    outline = g.free.boundary
    ref = shapely.distance(shapely.points(pts), outline)
    scale = max(x1 - x0, y1 - y0)
    np.testing.assert_allclose(dist, ref, atol=1e-12 * scale)
    np.testing.assert_allclose(np.linalg.norm(near - pts, axis=1), dist, atol=1e-12 * scale)
    assert np.all(shapely.distance(shapely.points(near), outline) <= 1e-9 * scale)


@pytest.mark.parametrize("name", ALL_CASES)
def test_polyline_clearance_equals_shapely_distance(name):
    scene, g, m = case(name)
    rng = np.random.default_rng(22)
    outline = g.free.boundary
    p, q = random_segments(rng, scene, 150, length=0.08 * (scene.bounds[2] - scene.bounds[0]))
    for a, b in zip(p, q):
        pts = np.array([a, 0.5 * (a + b) + rng.normal(0, 1, 2), b])
        assert polyline_clearance(m, pts) == pytest.approx(outline.distance(shapely.linestrings(pts)), abs=1e-9)
