"""Weighted length of visible segments from terrain boundary crossings (core.navmesh.kernels.crossings) against
the triangle walk and shapely, with segments ending on, starting from and running along terrain boundaries."""

import numpy as np
import pytest
import shapely

from core.navmesh import locate
from core.navmesh.kernels import crossings as kx
from core.navmesh.kernels.arrays import EdgeGrid
from core.navmesh.kernels import segments as ks
from core.navmesh.kernels import walk as kw

from scenegen import ALL_CASES, case, shapely_terrain_lengths


def _segments(scene, m, rng, n):
    """n visible segments x -> q with x free; some q on terrain boundary edges, some x on them, some along one."""
    x0, y0, x1, y1 = scene.bounds
    size = max(x1 - x0, y1 - y0)
    TE = m.terrain_edges
    W = m.arrays.walk
    out = []
    while len(out) < n:
        it = len(out)
        x = rng.uniform([x0, y0], [x1, y1])
        q = np.clip(x + rng.normal(0, 0.2 * size, 2), [x0, y0], [x1, y1])
        if len(TE) and it % 4 == 1:
            e = TE[rng.integers(len(TE))]
            q = e[:2] + (0.0, 0.5, 1.0)[it % 3] * (e[2:] - e[:2])
        if len(TE) and it % 8 == 2:
            e = TE[rng.integers(len(TE))]
            x = e[:2] + 0.3 * (e[2:] - e[:2])
            q = e[:2] + (0.9 if it % 16 == 2 else -0.5) * (e[2:] - e[:2])  # along the edge, or beyond its start
            q = np.clip(q, [x0, y0], [x1, y1])
        if locate(m, x)[0] < 0 or not ks.segment_visible(W, x[0], x[1], q[0], q[1]):
            continue
        out.append((x, q))
    return out


@pytest.mark.parametrize("name", ALL_CASES)
def test_crossing_cost_equals_the_walk(name):
    """On ordinary segments (also those ending on a boundary edge or vertex) the crossings decide, and their cost
    equals the triangle walk's; segments along a boundary edge may defer (NaN)."""
    scene, g, m = case(name)
    W = m.arrays.walk
    V, T, N, TT = W.V, W.T, W.N, W.TT
    TE, TD, TG, TS, TI = m.terrain_args()
    rng = np.random.default_rng(11)
    size = max(scene.bounds[2] - scene.bounds[0], scene.bounds[3] - scene.bounds[1])
    work = kx.crossing_work(len(TE))
    w = rng.uniform(0.5, 5.0, m.n_terrain_types)
    segs = _segments(scene, m, rng, 200)
    for it, (x, q) in enumerate(segs):
        tri = kw.prefer_free(V, T, N, TT, kw.locate_any(W, x[0], x[1]), x[0], x[1])
        ref = ks.walk_cost(V, T, N, TT, tri, x[0], x[1], q[0], q[1], w)
        nc = kx.window_terrain_edges(EdgeGrid(TE, TG, TS, TI), min(x[0], q[0]), min(x[1], q[1]), max(x[0], q[0]),
                                     max(x[1], q[1]), work)
        c = kx.crossing_cost(TE, TD, nc, x[0], x[1], TT[tri], q[0], q[1], w, work)
        length = np.hypot(*(q - x))
        if it % 8 == 2:
            # Along a boundary edge, up to rounding: the crossings defer, or (x a hair off the edge's line) give a
            # cost whose crossing point is ill-conditioned, like the walk's; it stays a weighted length.
            assert c != c or w.min() * length * (1 - 1e-9) <= c <= w.max() * length * (1 + 1e-9)
            continue
        assert c == c, "ordinary segments never defer"
        assert abs(c - ref) <= 1e-9 * size * max(w), (x.tolist(), q.tolist(), c, ref)


@pytest.mark.parametrize("name", [n for n in ALL_CASES if n != "grid"][:4])
def test_crossing_cost_agrees_with_shapely(name):
    """The weighted length equals sum_T w(T) l^T with shapely's terrain lengths of the segment."""
    scene, g, m = case(name)
    W = m.arrays.walk
    V, T, N, TT = W.V, W.T, W.N, W.TT
    TE, TD, TG, TS, TI = m.terrain_args()
    rng = np.random.default_rng(12)
    work = kx.crossing_work(len(TE))
    w = rng.uniform(0.5, 5.0, m.n_terrain_types)
    segs = [s for it, s in enumerate(_segments(scene, m, rng, 60)) if it % 8 != 2]  # not along an edge
    lines = shapely.linestrings(np.array([[x, q] for x, q in segs]))
    ref = shapely_terrain_lengths(g, lines) @ w
    for (x, q), r in zip(segs, ref):
        tri = kw.prefer_free(V, T, N, TT, kw.locate_any(W, x[0], x[1]), x[0], x[1])
        nc = kx.window_terrain_edges(EdgeGrid(TE, TG, TS, TI), min(x[0], q[0]), min(x[1], q[1]), max(x[0], q[0]),
                                     max(x[1], q[1]), work)
        c = kx.crossing_cost(TE, TD, nc, x[0], x[1], TT[tri], q[0], q[1], w, work)
        assert abs(c - r) <= 1e-6 * max(1.0, r)


def test_terrain_edges_separate_different_types():
    """Every terrain boundary edge has different types on its sides, and the free triangle left of it has the
    left type (shapely checks the point just left of the edge's midpoint)."""
    scene, g, m = case("mckenna_road.json")
    E, D = m.terrain_edges, m.terrain_sides
    assert len(E) > 0 and np.all(D[:, 0] != D[:, 1])
    mid = 0.5 * (E[:, :2] + E[:, 2:])
    d = E[:, 2:] - E[:, :2]
    left = mid + 1e-6 * np.column_stack([-d[:, 1], d[:, 0]]) / np.hypot(d[:, 0], d[:, 1])[:, None]
    for p, t in zip(left, D[:, 0]):
        assert shapely.covers(g.regions[t], shapely.Point(p))
