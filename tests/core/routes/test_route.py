"""Route, PackedRoutes and the route kernels against shapely and brute force."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from shapely.ops import substring
from hypothesis import given, settings
from hypothesis import strategies as st

from core.routes import PackedRoutes, Route
from core.routes import kernels

coords = st.integers(-50000, 50000).map(lambda v: v / 1000.0)  # millimetre grid: no denormal steps
polylines = st.lists(st.tuples(coords, coords), min_size=2, max_size=12).filter(lambda p: len(set(p)) >= 2)


def brute_closest(r: Route, x: np.ndarray, s0: float, s1: float, n: int = 4001) -> tuple[np.ndarray, np.ndarray]:
    """Sampled arc lengths of the window [s0, s1] (dense samples, vertices, and each segment's foot of x found by
    shapely) and their distances to x."""
    feet = []
    for k in range(len(r.points) - 1):
        seg = shapely.LineString(r.points[k:k + 2])
        feet.append(r.s[k] + seg.project(shapely.Point(x)))
    t = np.concatenate([np.linspace(s0, s1, n), r.s, feet])
    t = np.unique(t[(t >= s0) & (t <= s1)])
    return t, np.hypot(*(r.point_at(t) - x).T)


@given(polylines)
@settings(max_examples=60, deadline=None)
def test_length_and_point_at_match_shapely(pts):
    r = Route.from_points(pts)
    line = shapely.LineString(r.points)
    assert r.length == pytest.approx(line.length, rel=1e-12, abs=1e-12)
    assert r.s[0] == 0.0 and np.all(np.diff(r.s) > 0)
    t = np.linspace(-1.0, r.length + 1.0, 17)
    expect = np.array([line.interpolate(min(max(v, 0.0), r.length)).coords[0] for v in t])
    assert np.allclose(r.point_at(t), expect, atol=1e-9)
    assert r.point_at(0.5 * r.length).shape == (2,)


@given(polylines, st.tuples(coords, coords), st.floats(0, 1), st.floats(0, 1))
@settings(max_examples=80, deadline=None)
def test_closest_point_is_first_closest_in_window(pts, x, a, b):
    r = Route.from_points(pts)
    s0, s1 = sorted((a * r.length, b * r.length))
    x = np.asarray(x, dtype=float)
    t = r.closest_point(x, s0, s1)
    assert s0 - 1e-9 <= t <= s1 + 1e-9
    ref = substring(shapely.LineString(r.points), s0, s1)
    dmin = ref.distance(shapely.Point(x))
    d = float(np.hypot(*(r.point_at(t) - x)))
    assert d <= dmin + 1e-9 * (1 + dmin)
    # First: no point of the window before t is as close.
    ts, ds = brute_closest(r, x, s0, s1)
    earlier = ts < t - 1e-6 * max(1.0, r.length)
    assert np.all(ds[earlier] > d + 1e-12 * (1 + d))


def test_closest_point_window_skips_a_later_closer_part():
    # MIRAN Figure 2: the route comes back near x later; the window ends before, so the closest point c is skipped.
    r = Route.from_points([(0, 0), (10, 0), (10, 10), (0, 10), (0, 1)])
    x = np.array([1.0, 2.0])
    assert r.closest_point(x, 0.0, 12.0) == pytest.approx(1.0)
    full = r.closest_point(x, 0.0, r.length)
    assert np.allclose(r.point_at(full), [0.0, 2.0])


def test_closest_point_picks_first_among_equal_distances():
    # x is equally far from the first and the last leg: the first is returned.
    r = Route.from_points([(0, 0), (10, 0), (10, 10), (0, 10)])
    assert r.closest_point(np.array([5.0, 5.0])) == pytest.approx(5.0)


def test_from_points_drops_duplicates_and_rejects_degenerate():
    r = Route.from_points([(0, 0), (0, 0), (3, 4), (3, 4), (3, 5)])
    assert len(r) == 3 and r.length == pytest.approx(6.0)
    with pytest.raises(ValueError):
        Route.from_points([(1, 1), (1, 1)])
    with pytest.raises(ValueError):
        Route.from_points([(0, 0), (np.nan, 1)])
    with pytest.raises(ValueError):
        r.points[0, 0] = 5.0  # read-only


@given(polylines, st.floats(0, 1), st.floats(0, 1))
@settings(max_examples=60, deadline=None)
def test_sub_route_matches_shapely_substring(pts, a, b):
    r = Route.from_points(pts)
    s0, s1 = sorted((a * r.length, b * r.length))
    if s1 - s0 < 1e-6:
        return
    sub = r.sub(s0, s1)
    ref = substring(shapely.LineString(r.points), s0, s1)
    assert sub.length == pytest.approx(ref.length, rel=1e-9, abs=1e-9)
    assert np.allclose(sub.points[0], r.point_at(s0)) and np.allclose(sub.points[-1], r.point_at(s1))
    assert shapely.LineString(sub.points).hausdorff_distance(ref) < 1e-7


def test_packed_routes_roundtrip_and_kernels_agree():
    rng = np.random.default_rng(3)
    routes = [Route.from_points(rng.uniform(0, 100, size=(int(rng.integers(2, 9)), 2))) for _ in range(7)]
    packed = PackedRoutes.pack(routes)
    assert packed.offsets[0] == 0 and packed.offsets[-1] == len(packed.points) and len(packed) == 7
    assert np.allclose(packed.lengths, [r.length for r in routes])
    for r, back in zip(routes, packed.unpack()):
        assert np.array_equal(r.points, back.points) and np.array_equal(r.s, back.s)
    for k, r in enumerate(routes):
        lo, hi = int(packed.offsets[k]), int(packed.offsets[k + 1])
        for t in rng.uniform(-1, r.length + 1, 5):
            assert np.allclose(kernels.point_at(packed.points, packed.s, lo, hi, t), r.point_at(t))
            x = rng.uniform(0, 100, 2)
            s0, s1 = sorted(rng.uniform(0, r.length, 2))
            assert kernels.closest_point(packed.points, packed.s, lo, hi, x, s0, s1) == r.closest_point(x, s0, s1)
    empty = PackedRoutes.pack([])
    assert len(empty) == 0 and empty.points.shape == (0, 2)


def test_scene_route_is_a_route():
    from core.scene.model import Route as SceneRoute
    from core.scene.model import Scene

    scene = Scene.empty()
    scene.routes = [SceneRoute("r", [(1, 1), (5, 1), (5, 4)])]
    r = Route.from_scene(scene, "r")
    assert r.length == pytest.approx(7.0)
