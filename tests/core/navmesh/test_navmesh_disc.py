"""Disc traversal cost (Kremyzas 2014, ch. 3) against a dense-sampling reference built on shapely distances."""

import numpy as np
import pytest
import shapely

from core.navmesh import disc_overlap_intervals, disc_traversal_cost, segment_cost
from core.navmesh.kernels.disc import triangle_overlap_interval

from scenegen import ALL_CASES, case, random_segments


def _weights(scene):
    return scene.weight_matrix()[0] if scene.profiles else np.ones(len(scene.terrain_types))


@pytest.mark.parametrize("name", ALL_CASES)
def test_disc_cost_agrees_with_dense_sampling(name):
    """At each sampled centre the reference rate is the largest weight among the terrain regions within r
    (shapely distance); it must equal the rate of the computed overlap intervals away from their ends, and the
    cost must be the integral of those intervals."""
    scene, g, m = case(name)
    w = _weights(scene)
    rng = np.random.default_rng(41)
    x0, y0, x1, y1 = scene.bounds
    size = max(x1 - x0, y1 - y0)
    p, q = random_segments(rng, scene, 30, length=0.12 * size)
    keep = np.all((q >= [x0, y0]) & (q <= [x1, y1]), axis=1)
    p, q = p[keep], q[keep]
    for r in (0.03 * size, 0.004 * size):
        cost = disc_traversal_cost(m, p, q, r, w)
        for i in range(len(p)):
            L = np.hypot(*(q[i] - p[i]))
            iv = disc_overlap_intervals(m, p[i], q[i], r, w)
            assert iv[0, 0] == 0.0 and iv[-1, 1] == pytest.approx(L) and np.all(iv[1:, 0] == iv[:-1, 1])
            rate_iv = np.where(iv[:, 2] >= 0, w[np.maximum(iv[:, 2], 0).astype(int)], 0.0)
            assert cost[i] == pytest.approx(np.sum(rate_iv * (iv[:, 1] - iv[:, 0])), rel=1e-9, abs=1e-12)
            xs = (np.arange(600) + 0.5) / 600 * L
            centres = shapely.points(p[i] + xs[:, None] * (q[i] - p[i]) / L)
            ref = np.zeros(len(xs))
            for k, region in enumerate(g.regions):
                if not region.is_empty:
                    ref = np.where(shapely.distance(region, centres) <= r, np.maximum(ref, w[k]), ref)
            ours = rate_iv[np.clip(np.searchsorted(iv[:, 1], xs), 0, len(iv) - 1)]
            far = np.min(np.abs(xs[:, None] - iv[:, :2].ravel()[None]), axis=1) > 1e-7 * L
            np.testing.assert_array_equal(ours[far], ref[far])


@pytest.mark.parametrize("name", ["random:0", "city.json"])
def test_disc_cost_limits(name):
    scene, g, m = case(name)
    w = _weights(scene)
    rng = np.random.default_rng(42)
    p, q = random_segments(rng, scene, 200, length=30.0)
    x0, y0, x1, y1 = scene.bounds
    inside = np.all((q >= [x0, y0]) & (q <= [x1, y1]), axis=1)
    # r = 0 is the point cost; a growing disc never costs less (the max over more triangles).
    np.testing.assert_allclose(disc_traversal_cost(m, p[inside], q[inside], 0.0, w),
                               segment_cost(m, p[inside], q[inside], w), rtol=1e-12, atol=1e-12)
    c1 = disc_traversal_cost(m, p[inside], q[inside], 0.5, w)
    c2 = disc_traversal_cost(m, p[inside], q[inside], 2.0, w)
    assert np.all(c2 >= c1 - 1e-9) and np.all(c1 >= segment_cost(m, p[inside], q[inside], w) - 1e-9)
    assert np.all(np.isnan(disc_traversal_cost(m, p[~inside], q[~inside], 0.5, w)))
    assert disc_traversal_cost(m, p[:1], p[:1], 0.5, w)[0] == 0.0


def test_triangle_overlap_interval_brute_force():
    """The exact interval of one triangle (vertex discs, edge bands, interior) against sampled distances."""
    rng = np.random.default_rng(43)
    V = rng.uniform(-5, 5, (3, 2))
    d1, d2 = V[1] - V[0], V[2] - V[0]
    if d1[0] * d2[1] - d1[1] * d2[0] < 0:
        V = V[[0, 2, 1]]
    T = np.array([[0, 1, 2]], dtype=np.int32)
    tri = shapely.Polygon(V)
    for _ in range(200):
        p = rng.uniform(-8, 8, 2)
        a = rng.uniform(0, 2 * np.pi)
        e = np.array([np.cos(a), np.sin(a)])
        r = rng.uniform(0.05, 3)
        lo, hi = triangle_overlap_interval(V, T, 0, p[0], p[1], e[0], e[1], r)
        xs = np.linspace(-20, 20, 4001)
        hit = shapely.distance(tri, shapely.points(p + xs[:, None] * e)) <= r
        if lo > hi:
            assert not hit.any()
            continue
        inside = (xs >= lo) & (xs <= hi)
        far = np.minimum(np.abs(xs - lo), np.abs(xs - hi)) > 1e-6
        assert np.array_equal(inside[far], hit[far])
