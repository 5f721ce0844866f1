"""Point location, visibility and terrain lengths by triangle walks, against shapely and exact arithmetic."""

from fractions import Fraction

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from core.navmesh import (
    locate,
    polyline_terrain_lengths,
    polyline_visible,
    segment_cost,
    segment_terrain_lengths,
    segment_visible,
    weighted_length,
)
from core.navmesh.kernels.predicates import orient

from scenegen import ALL_CASES, case, random_segments, shapely_terrain_lengths


def _lines(p, q):
    return shapely.linestrings(np.stack([p, q], axis=1))


def _contains(m, tri, pts):
    v = m.vertices[m.triangles[tri]]
    ok = np.ones(len(pts), dtype=bool)
    for k in range(3):
        a, b = v[:, k], v[:, (k + 1) % 3]
        cross = (b[:, 0] - a[:, 0]) * (pts[:, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (pts[:, 0] - a[:, 0])
        ok &= cross >= -1e-9
    return ok


@pytest.mark.parametrize("name", ALL_CASES)
def test_locate_agrees_with_shapely(name):
    scene, g, m = case(name)
    rng = np.random.default_rng(11)
    x0, y0, x1, y1 = scene.bounds
    pts = np.column_stack([rng.uniform(x0 - 5, x1 + 5, 4000), rng.uniform(y0 - 5, y1 + 5, 4000)])
    tri = locate(m, pts)
    assert np.array_equal(tri >= 0, shapely.covers(g.free, shapely.points(pts)))
    assert _contains(m, tri[tri >= 0], pts[tri >= 0]).all()
    # With detail: -2 outside the bounds, -1 inside an obstacle.
    detail = locate(m, pts, detail=True)
    outside = ~shapely.covers(g.box, shapely.points(pts))
    assert np.array_equal(detail == -2, outside)
    assert np.array_equal(detail == -1, (tri < 0) & ~outside)
    # On the mesh's own boundaries (shapely's outline differs from it by rounding, ~1e-15): every vertex is free
    # exactly when a free triangle uses it; the rounded midpoint of an obstacle edge is free exactly when it is
    # not strictly on the obstacle's side of the edge.
    tri = locate(m, m.vertices)
    assert np.array_equal(tri >= 0, m.vert_he >= 0)
    assert _contains(m, tri[tri >= 0], m.vertices[tri >= 0]).all()
    e = m.obstacle_edges
    mid = 0.5 * (e[:, :2] + e[:, 2:])
    side = np.array([orient(a[0], a[1], a[2], a[3], c[0], c[1]) for a, c in zip(e, mid)])
    assert np.array_equal(locate(m, mid) >= 0, side >= 0)


@pytest.mark.parametrize("name", ALL_CASES)
def test_visibility_agrees_with_shapely_covers(name):
    scene, g, m = case(name)
    rng = np.random.default_rng(12)
    p, q = random_segments(rng, scene, 3000, margin=3.0)
    p2, q2 = random_segments(rng, scene, 2000, length=0.05 * (scene.bounds[2] - scene.bounds[0]))
    p, q = np.concatenate([p, p2]), np.concatenate([q, q2])
    assert np.array_equal(segment_visible(m, p, q), shapely.covers(g.free, _lines(p, q)))


@pytest.mark.parametrize("name", ALL_CASES)
def test_terrain_lengths_equal_shapely_intersections(name):
    scene, g, m = case(name)
    rng = np.random.default_rng(13)
    n = 3000 if m.n_triangles < 500 else 800  # shapely's overlay on the big scenes is the slow part
    p, q = random_segments(rng, scene, n, margin=3.0)
    p2, q2 = random_segments(rng, scene, n, length=50.0)
    p, q = np.concatenate([p, p2]), np.concatenate([q, q2])
    lines = _lines(p, q)
    got = segment_terrain_lengths(m, p, q)
    ref = shapely_terrain_lengths(g, lines)
    scale = np.maximum(shapely.length(lines), 1e-300)[:, None]
    assert np.all(np.abs(got - ref) <= 1e-9 * scale)


@pytest.mark.parametrize("name", ALL_CASES)
def test_polylines_and_costs(name):
    scene, g, m = case(name)
    rng = np.random.default_rng(14)
    x0, y0, x1, y1 = scene.bounds
    w = scene.weight_matrix()[0] if scene.profiles else np.ones(len(scene.terrain_types))
    for _ in range(20):
        pts = np.column_stack([rng.uniform(x0, x1, 6), rng.uniform(y0, y1, 6)])
        line = shapely.linestrings(pts)
        ref = np.array([shapely.length(shapely.intersection(line, r)) for r in g.regions])
        got = polyline_terrain_lengths(m, pts)
        assert np.all(np.abs(got - ref) <= 1e-9 * line.length)
        assert polyline_visible(m, pts) == bool(shapely.covers(g.free, line))
    p, q = random_segments(rng, scene, 500)
    np.testing.assert_allclose(segment_cost(m, p, q, w), weighted_length(segment_terrain_lengths(m, p, q), w),
                               rtol=1e-12, atol=1e-12)


def test_degenerate_segments_on_grid_scene():
    """Integer end points on an integer scene: segments through vertices, along obstacle and terrain edges,
    starting and ending on boundaries. Visibility is exact; lengths sum to the part in the closed free space and
    a piece along a shared edge counts once (shapely counts it for both regions)."""
    scene, g, m = case("grid")
    pts = np.array([(x, y) for x in range(11) for y in range(9)], dtype=float)
    pts = np.concatenate([pts, pts + 0.5])
    rng = np.random.default_rng(15)
    idx = rng.integers(0, len(pts), (6000, 2))
    p, q = pts[idx[:, 0]], pts[idx[:, 1]]
    lines = _lines(p, q)
    same = np.all(p == q, axis=1)
    ref_vis = shapely.covers(g.free, lines)
    ref_vis[same] = shapely.covers(g.free, shapely.points(p[same]))
    assert np.array_equal(segment_visible(m, p, q), ref_vis)
    got = segment_terrain_lengths(m, p, q)
    ref = np.column_stack([shapely.length(shapely.intersection(lines, r)) for r in g.regions])
    in_free = shapely.length(shapely.intersection(lines, g.free))
    np.testing.assert_allclose(got.sum(axis=1), in_free, atol=1e-12)
    assert np.all(got <= ref + 1e-12)
    # Explicit cases: along the top of obstacle a (free side below it is default terrain, above is road).
    road, mud, default = 1, 2, 0
    np.testing.assert_allclose(segment_terrain_lengths(m, [2, 4], [4, 4])[0], [0, 2, 0])  # road strip above
    np.testing.assert_allclose(segment_terrain_lengths(m, [0, 2], [2, 2])[0], [2, 0, 0])
    # Along the road/default boundary y = 4 from x=0 to 2: both sides free; the left (road) side gets it.
    np.testing.assert_allclose(segment_terrain_lengths(m, [0, 4], [2, 4])[0], [0, 2, 0])
    np.testing.assert_allclose(segment_terrain_lengths(m, [2, 4], [0, 4])[0], [2, 0, 0])
    # Through the pinch point (4, 4) where obstacles a and b touch: inside the closed free space.
    assert segment_visible(m, [3, 5], [5, 3])[0]
    assert not segment_visible(m, [3, 3], [5, 5])[0]
    assert default == 0 and mud == 2 and road == 1


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(-50, 50), min_size=6, max_size=6), st.integers(0, 60), st.booleans())
def test_orient_is_exact(c, k, scale_up):
    """orient() against exact rational arithmetic on nearly collinear inputs."""
    ax, ay, bx, by, _, _ = [float(v) for v in c]
    s = 2.0 ** -k
    # c on the line a-b, then nudged by a tiny amount relative to the coordinates.
    cx = ax + (bx - ax) * 0.3 + s * (c[4] % 3 - 1) * 1e-17
    cy = ay + (by - ay) * 0.3 + s * (c[5] % 3 - 1) * 1e-17
    if scale_up:
        ax, ay, bx, by, cx, cy = (v * 1e6 + 0.1 for v in (ax, ay, bx, by, cx, cy))
    F = Fraction
    det = (F(bx) - F(ax)) * (F(cy) - F(ay)) - (F(by) - F(ay)) * (F(cx) - F(ax))
    assert orient(ax, ay, bx, by, cx, cy) == (det > 0) - (det < 0)


@pytest.mark.parametrize("name", ["random:0", "grid", "city.json"])
def test_fan_costs_match_single_queries(name):
    """One located start, many candidates (MIRAN's candidate attraction points): same answers as single walks,
    including candidates outside the bounds and a start inside an obstacle."""
    from core.navmesh.kernels.segments import fan_costs

    scene, g, m = case(name)
    w = scene.weight_matrix()[0]
    rng = np.random.default_rng(16)
    x0, y0, x1, y1 = scene.bounds
    for _ in range(30):
        x = rng.uniform([x0, y0], [x1, y1])
        if name == "grid":
            x = np.round(x)
        cands = x + rng.normal(0, 0.2 * (x1 - x0), (10, 2))
        if name == "grid":
            cands = np.round(cands)
        vis = np.empty(10, dtype=bool)
        cost = np.empty(10)
        fan_costs(m.arrays, x[0], x[1], cands, w, vis, cost)
        np.testing.assert_array_equal(vis, segment_visible(m, x, cands))
        np.testing.assert_allclose(cost, segment_cost(m, x, cands, w), rtol=1e-12, atol=1e-12)


def test_non_finite_inputs_give_missing_answers():
    """NaN or infinite coordinates never walk: no triangle, not visible, no length, NaN clearance and cost."""
    from core.navmesh import clearance, disc_traversal_cost, visible_intervals

    scene, g, m = case("random:0")
    bad = np.array([[np.nan, 1.0], [np.inf, 1.0], [1.0, -np.inf]])
    good = np.array([[10.0, 10.0]] * 3)
    assert np.all(locate(m, bad) == -1)
    assert not segment_visible(m, bad, good).any() and not segment_visible(m, good, bad).any()
    assert np.all(segment_terrain_lengths(m, bad, good) == 0) and np.all(segment_terrain_lengths(m, good, bad) == 0)
    assert np.all(segment_cost(m, good, bad, np.ones(4)) == 0)
    assert np.all(np.isnan(clearance(m, bad)[0]))
    assert np.all(np.isnan(disc_traversal_cost(m, good, bad, 0.5, np.ones(4))))
    pts = np.array([[5.0, 5.0], [50.0, 50.0]])
    s = np.array([0.0, np.hypot(45, 45)])
    assert len(visible_intervals(m, [np.nan, 3.0], pts, s, 0.0, s[-1])) == 0
    assert len(visible_intervals(m, [5.0, 5.0], pts, s, np.nan, s[-1])) == 0


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 12), st.integers(0, 10))
def test_unseen_random_scenes_agree_with_shapely(seed, n_obstacles, n_terrains):
    """Scenes drawn by hypothesis (never seen before): areas, location, visibility and terrain lengths."""
    from core.navmesh import build_navmesh
    from core.scene import build_geometry

    from scenegen import random_scene

    scene = random_scene(seed, n_obstacles=n_obstacles, n_terrains=n_terrains, degenerate=seed % 2 == 0)
    g = build_geometry(scene)
    m = build_navmesh(scene, g)
    np.testing.assert_allclose(m.terrain_areas(), g.areas, rtol=1e-9, atol=1e-9 * g.free_area)
    rng = np.random.default_rng(seed)
    p, q = random_segments(rng, scene, 400, margin=2.0)
    lines = _lines(p, q)
    assert np.array_equal(locate(m, p) >= 0, shapely.covers(g.free, shapely.points(p)))
    assert np.array_equal(segment_visible(m, p, q), shapely.covers(g.free, lines))
    ref = shapely_terrain_lengths(g, lines)
    assert np.all(np.abs(segment_terrain_lengths(m, p, q) - ref) <= 1e-9 * shapely.length(lines)[:, None])
