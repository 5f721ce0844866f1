"""Visible intervals of a route window (MIRAN 2013, 3.2) against dense sampling with shapely's covers."""

import numpy as np
import pytest
import shapely

from core.navmesh import locate, visible_intervals

from scenegen import ALL_CASES, case


def _free_point(rng, m, scene):
    x0, y0, x1, y1 = scene.bounds
    while True:
        x = rng.uniform([x0, y0], [x1, y1])
        if locate(m, x)[0] >= 0:
            return x


def _arc(pts):
    return np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(pts, axis=0).T))])


@pytest.mark.parametrize("name", [n for n in ALL_CASES if n != "grid"])
def test_visible_intervals_agree_with_dense_sampling(name):
    """Every sample of the window farther than 1e-6 from an interval end is visible exactly when it is inside
    an interval (shapely decides visibility of each sample independently)."""
    scene, g, m = case(name)
    rng = np.random.default_rng(31)
    x0, y0, x1, y1 = scene.bounds
    size = max(x1 - x0, y1 - y0)
    for it in range(40):
        x = _free_point(rng, m, scene)
        k = int(rng.integers(2, 7))
        if it % 2:
            # A short route near x, the situation of MIRAN's sigma window.
            pts = x + rng.normal(0, 0.1 * size, (k, 2))
            pts = np.clip(pts, [x0, y0], [x1, y1])
        else:
            pts = rng.uniform([x0, y0], [x1, y1], (k, 2))
        s = _arc(pts)
        s0, s1 = (0.0, s[-1]) if it % 4 == 0 else sorted(rng.uniform(0, s[-1], 2))
        iv = visible_intervals(m, x, pts, s, s0, s1)
        assert np.all(np.diff(iv.ravel()) >= 0), "sorted and disjoint"
        assert np.all((iv >= s0 - 1e-12) & (iv <= s1 + 1e-12))
        ss = np.linspace(s0, s1, 800)
        sample = np.column_stack([np.interp(ss, s, pts[:, 0]), np.interp(ss, s, pts[:, 1])])
        ref = shapely.covers(g.free, shapely.linestrings(np.stack([np.broadcast_to(x, sample.shape), sample], 1)))
        inside = np.zeros(len(ss), dtype=bool)
        for a, b in iv:
            inside |= (ss >= a) & (ss <= b)
        ends = np.concatenate([iv.ravel(), s])
        far = np.min(np.abs(ss[:, None] - ends[None]), axis=1) > 1e-6
        assert np.array_equal(inside[far], ref[far])


@pytest.mark.parametrize("name", [n for n in ALL_CASES if n != "grid"][:6])
def test_long_windows_agree_with_dense_sampling(name):
    """Windows of many route segments (the shared expansion, over more than one WINDOW_CHUNK; every third window
    is the whole route), wandering around x, against shapely sample by sample."""
    from core.navmesh.kernels.visibility import WINDOW_CHUNK

    scene, g, m = case(name)
    rng = np.random.default_rng(33)
    x0, y0, x1, y1 = scene.bounds
    size = max(x1 - x0, y1 - y0)
    for it in range(6):
        x = _free_point(rng, m, scene)
        k = int(rng.integers(WINDOW_CHUNK // 2, 2 * WINDOW_CHUNK + 10))
        pts = x + np.cumsum(rng.normal(0, 0.08 * size, (k, 2)), axis=0) * (0.5 if it % 2 else 1.0)
        pts = np.clip(pts, [x0, y0], [x1, y1])
        s = _arc(pts)
        s0, s1 = (0.0, s[-1]) if it % 3 == 0 else sorted(rng.uniform(0, s[-1], 2))
        iv = visible_intervals(m, x, pts, s, s0, s1)
        assert np.all(np.diff(iv.ravel()) >= 0), "sorted and disjoint"
        ss = np.linspace(s0, s1, 4000)
        sample = np.column_stack([np.interp(ss, s, pts[:, 0]), np.interp(ss, s, pts[:, 1])])
        ref = shapely.covers(g.free, shapely.linestrings(np.stack([np.broadcast_to(x, sample.shape), sample], 1)))
        inside = np.zeros(len(ss), dtype=bool)
        for a, b in iv:
            inside |= (ss >= a) & (ss <= b)
        ends = np.concatenate([iv.ravel(), s])
        far = np.min(np.abs(ss[:, None] - ends[None]), axis=1) > 1e-6
        assert np.array_equal(inside[far], ref[far])
        # Splitting the window at a route vertex changes nothing but the merge at the split point.
        mid = s[len(s) // 2]
        if s0 < mid < s1:
            left = visible_intervals(m, x, pts, s, s0, mid)
            right = visible_intervals(m, x, pts, s, mid, s1)
            both = np.concatenate([left, right])
            hit = np.zeros(len(ss), dtype=bool)
            for a, b in both:
                hit |= (ss >= a) & (ss <= b)
            assert np.array_equal(hit[far], inside[far])


def test_visible_intervals_degenerate_cases():
    """Hand-checked cases on the integer grid scene: routes along obstacle edges, through pinch points, routes
    through x itself (x on the route's line), and windows."""
    scene, g, m = case("grid")

    def vis(x, pts, s0=None, s1=None):
        pts = np.asarray(pts, dtype=float)
        s = _arc(pts)
        return visible_intervals(m, x, pts, s, s[0] if s0 is None else s0, s[-1] if s1 is None else s1)

    # x on the route's line, the route running into obstacle a: visible up to its left side.
    np.testing.assert_allclose(vis([1, 3], [[0, 3], [10, 3]]), [[0, 2]])
    np.testing.assert_allclose(vis([1, 3], [[0, 3], [10, 3]], 0.5, 1.5), [[0.5, 1.5]])
    # Along the top of obstacle a up to the pinch point (4, 4), then along the bottom of b: hidden by b.
    np.testing.assert_allclose(vis([1, 4.5], [[0, 4], [10, 4]]), [[0, 4]])
    # Along the bottom edge of obstacle c, with x on that line: the whole route is in the closed free space.
    np.testing.assert_allclose(vis([1, 1], [[0, 1], [10, 1]]), [[0, 10]])
    # Only a grazing point is visible (through the pinch point): dropped.
    assert len(vis([3, 5], [[5, 3], [5, 0]])) == 0
    # x on the route's line through the pinch point (4, 4), ending on obstacle c's corner: all visible.
    np.testing.assert_allclose(vis([3, 5], [[4.5, 3.5], [7, 1]]), [[0, np.hypot(2.5, 2.5)]], atol=1e-12)
    # Only the route's first point is seen through the pinch point.
    assert len(vis([3, 5], [[4.5, 3.5], [4.5, 0.5]])) == 0
    # Route starting at x.
    np.testing.assert_allclose(vis([1, 1], [[1, 1], [1, 7]]), [[0, 6]])
    # Nothing is visible from inside an obstacle; a zero-length window is a point.
    assert len(vis([3, 3], [[0, 1], [10, 1]])) == 0
    np.testing.assert_allclose(vis([1, 1], [[0, 1], [10, 1]], 2.0, 2.0), [[2.0, 2.0]])


def test_visible_intervals_batch_matches_single_queries():
    """The packed-routes batch form gives each query's intervals, and flags overflow of its K slots."""
    from core.navmesh.kernels.shadows import visible_intervals_batch

    scene, g, m = case("city.json")
    rng = np.random.default_rng(32)
    routes = [rng.uniform(0, 500, (int(rng.integers(2, 9)), 2)) for _ in range(5)]
    rp = np.concatenate(routes)
    rs = np.concatenate([_arc(r) for r in routes])
    offsets = np.concatenate([[0], np.cumsum([len(r) for r in routes])]).astype(np.int64)
    n = 60
    xs = np.array([_free_point(rng, m, scene) for _ in range(n)])
    which = rng.integers(0, len(routes), n).astype(np.int64)
    s0 = np.array([rng.uniform(0, _arc(routes[r])[-1] / 2) for r in which])
    s1 = s0 + rng.uniform(0, 200, n)
    for K in (16, 1):
        out = np.zeros((n, K, 2))
        counts = np.zeros(n, dtype=np.int64)
        visible_intervals_batch(m.arrays, xs, rp, rs, offsets, which, s0, s1, out, counts, False)
        for i in range(n):
            r = which[i]
            ref = visible_intervals(m, xs[i], routes[r], _arc(routes[r]), s0[i], s1[i])
            if len(ref) <= K:
                assert counts[i] == len(ref)
                np.testing.assert_array_equal(out[i, : len(ref)], ref)
            else:
                assert counts[i] == -1
                np.testing.assert_array_equal(out[i], ref[:K])
