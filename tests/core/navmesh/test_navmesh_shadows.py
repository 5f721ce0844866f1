"""Visible intervals by shadows (core.navmesh.kernels.shadows) against the exact triangle expansion and shapely,
with x placed on obstacle vertices, on obstacle edges and on the route itself, where the shadows must defer."""

import numpy as np
import pytest
import shapely

from core.navmesh import locate
from core.navmesh.kernels import shadows as ksh
from core.navmesh.kernels import visibility as kv
from core.navmesh.kernels.arrays import RouteSpan

from scenegen import ALL_CASES, case


def _queries(scene, m, rng, n):
    """n (x, route points, arc lengths, s0, s1): free x, some on obstacle vertices and edges or on the route."""
    x0, y0, x1, y1 = scene.bounds
    size = max(x1 - x0, y1 - y0)
    E = m.obstacle_edges
    for it in range(n):
        while True:
            x = rng.uniform([x0, y0], [x1, y1])
            if locate(m, x)[0] >= 0:
                break
        if it % 5 == 0:
            e = E[rng.integers(len(E))]
            x = e[:2] + (0.0, 0.5, 1.0)[it % 3] * (e[2:] - e[:2])
        k = int(rng.integers(2, 7))
        pts = x + rng.normal(0, 0.15 * size, (k, 2)) if it % 2 else rng.uniform([x0, y0], [x1, y1], (k, 2))
        if it % 7 == 0:
            pts[0] = x
        if it % 11 == 0:
            pts[1] = x + 3.0 * (x - pts[0])  # x on the route's first segment
        pts = np.clip(pts, [x0, y0], [x1, y1])
        s = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(pts, axis=0).T))])
        s0, s1 = (0.0, s[-1]) if it % 4 == 0 else sorted(rng.uniform(0, s[-1], 2))
        yield x, pts, s, s0, s1


@pytest.mark.parametrize("name", ALL_CASES)
def test_shadows_agree_with_the_exact_expansion(name):
    """Both kernels give the same intervals, up to the floating-point clipping of their ends."""
    scene, g, m = case(name)
    rng = np.random.default_rng(7)
    size = max(scene.bounds[2] - scene.bounds[0], scene.bounds[3] - scene.bounds[1])
    work = ksh.shadow_work(m.obstacle_edges.shape[0])
    a = np.empty((256, 2))
    b = np.empty((256, 2))
    c = np.empty((256, 2))
    deferred = 0
    for x, pts, s, s0, s1 in _queries(scene, m, rng, 300):
        R = RouteSpan(pts, s, 0, len(pts))
        na = kv.visible_intervals(m.arrays, x[0], x[1], R, s0, s1, a)
        nb = ksh.visible_intervals_by_shadows(m.arrays, x[0], x[1], R, s0, s1, b, work, -1)
        assert na == nb, (x.tolist(), pts.tolist(), s0, s1, a[:na].tolist(), b[:nb].tolist())
        assert np.allclose(a[:na], b[:nb], rtol=0, atol=1e-7 * size)
        # Without the expansion: the same intervals, or the request for it.
        nf = ksh.shadow_intervals(m.arrays, x[0], x[1], R, s0, s1, c, work, -1)
        if nf == ksh.NEEDS_EXPANSION:
            deferred += 1
        else:
            assert nf == nb and np.array_equal(c[:nf], b[:nb])
    # x on an obstacle edge (every fifth query) is the ill-conditioned case the expansion decides.
    assert 0 < deferred < 150


@pytest.mark.parametrize("name", [n for n in ALL_CASES if n != "grid"][:5])
def test_shadows_agree_with_shapely(name):
    """Every sample of the window farther than 1e-6 from an interval end is visible exactly when shapely says the
    segment from x to it lies in the closed free space (where shapely has x in it); the batch form gives the same
    intervals."""
    scene, g, m = case(name)
    rng = np.random.default_rng(8)
    qs = list(_queries(scene, m, rng, 40))
    for x, pts, s, s0, s1 in qs:
        if not g.free.covers(shapely.Point(x)):
            continue  # a point on an edge that shapely's rounding puts inside the obstacle (the test above has it)
        work = ksh.shadow_work(m.obstacle_edges.shape[0])
        out = np.empty((64, 2))
        n = ksh.visible_intervals_by_shadows(m.arrays, x[0], x[1], RouteSpan(pts, s, 0, len(pts)), s0, s1, out,
                                             work, -1)
        iv = out[:n]
        ss = np.linspace(s0, s1, 600)
        sample = np.column_stack([np.interp(ss, s, pts[:, 0]), np.interp(ss, s, pts[:, 1])])
        ref = shapely.covers(g.free, shapely.linestrings(np.stack([np.broadcast_to(x, sample.shape), sample], 1)))
        inside = np.zeros(len(ss), dtype=bool)
        for lo, hi in iv:
            inside |= (ss >= lo) & (ss <= hi)
        ends = np.concatenate([iv.ravel(), s])
        far = np.min(np.abs(ss[:, None] - ends[None]), axis=1) > 1e-6
        assert np.array_equal(inside[far], ref[far])
    # The packed-route batch, by shadows and by the expansion alone.
    rp = np.concatenate([q[1] for q in qs])
    rs = np.concatenate([q[2] for q in qs])
    offsets = np.concatenate([[0], np.cumsum([len(q[1]) for q in qs])]).astype(np.int64)
    xs = np.array([q[0] for q in qs])
    s0 = np.array([q[3] for q in qs])
    s1 = np.array([q[4] for q in qs])
    route = np.arange(len(qs), dtype=np.int64)
    got = []
    for exact in (False, True):
        out = np.zeros((len(qs), 16, 2))
        counts = np.empty(len(qs), dtype=np.int64)
        ksh.visible_intervals_batch(m.arrays, xs, rp, rs, offsets, route, s0, s1, out, counts, exact)
        got.append((out, counts))
    assert np.array_equal(got[0][1], got[1][1])
    assert np.allclose(got[0][0], got[1][0], rtol=0, atol=1e-7 * max(scene.bounds[2], scene.bounds[3]))


def test_an_obstacle_between_x_and_the_route_casts_its_shadow():
    """A square in front of a straight route hides exactly the part its corners project onto."""
    from core.navmesh import build_navmesh
    from core.scene.model import Obstacle, Scene, TerrainType

    scene = Scene(bounds=(0.0, 0.0, 100.0, 100.0), terrain_types=[TerrainType("g")], default_terrain="g",
                  obstacles=[Obstacle("box", [(40.0, 40.0), (60.0, 40.0), (60.0, 60.0), (40.0, 60.0)])])
    m = build_navmesh(scene)
    x = np.array([50.0, 10.0])
    pts = np.array([[0.0, 90.0], [100.0, 90.0]])
    s = np.array([0.0, 100.0])
    from core.navmesh import visible_intervals

    iv = visible_intervals(m, x, pts, s, 0.0, 100.0)
    # Rays from (50, 10) through the box's near corners (40, 40) and (60, 40) meet y = 90 at x = 50 -/+ 26.67.
    assert iv.shape == (2, 2)
    assert np.allclose(iv, [[0.0, 50.0 - 80.0 / 3.0], [50.0 + 80.0 / 3.0, 100.0]], atol=1e-9)


def _grid_edges_reference(E, EG, ES, EI, box):
    """The edges listed in the grid cells the box covers, first listing first, whose bounding boxes meet it:
    plain Python over the CSR grid."""
    xmin, ymin, xmax, ymax = box
    ncols, nrows = int(EG[4]), int(EG[5])

    def cell(v, o, size, n):
        return min(max(int(np.floor((v - o) / size)), 0), n - 1)

    seen, out = set(), []
    for cj in range(cell(ymin, EG[1], EG[3], nrows), cell(ymax, EG[1], EG[3], nrows) + 1):
        for ci in range(cell(xmin, EG[0], EG[2], ncols), cell(xmax, EG[0], EG[2], ncols) + 1):
            c = cj * ncols + ci
            for e in EI[ES[c]:ES[c + 1]]:
                if e in seen:
                    continue
                seen.add(e)
                ex0, ex1 = sorted((E[e, 0], E[e, 2]))
                ey0, ey1 = sorted((E[e, 1], E[e, 3]))
                if not (ex1 < xmin or ex0 > xmax or ey1 < ymin or ey0 > ymax):
                    out.append(int(e))
    return out


@pytest.mark.parametrize("name", [n for n in ALL_CASES if n != "grid"][:4])
def test_window_edges_reuse_the_cells_exactly(name):
    """``window_edges`` keeps the last cell range's edges between queries (a walker's window box drifts within the
    same cells): over boxes that drift a little and boxes that jump, with one work reused, it returns the very
    edges, in the very order, of a fresh grid scan in Python and of ``collect_edges``."""
    scene, g, m = case(name)
    E, EG, ES, EI = m.arrays.E, m.arrays.EG, m.arrays.ES, m.arrays.EI
    if len(E) == 0:
        pytest.skip("no obstacle edges")
    rng = np.random.default_rng(11)
    x0, y0, x1, y1 = scene.bounds
    size = max(x1 - x0, y1 - y0)
    work = ksh.shadow_work(E.shape[0])
    fresh = ksh.shadow_work(E.shape[0])
    c = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
    half = np.array([0.2, 0.2]) * size
    hits = 0
    for it in range(400):
        if it % 40 == 0:
            c = rng.uniform([x0, y0], [x1, y1])
            half = rng.uniform(0.02, 0.4, 2) * size
        c = c + rng.normal(0, 0.002 * size, 2)
        box = (c[0] - half[0], c[1] - half[1], c[0] + half[0], c[1] + half[1])
        x, y = c + rng.uniform(-1, 1, 2) * half
        before = work.cells[:4].copy()
        k = ksh.window_edges(E, EG, ES, EI, x, y, *box, work)
        hits += int(np.array_equal(before, work.cells[:4]))
        ref = _grid_edges_reference(E, EG, ES, EI, box)
        nk = ksh.collect_edges(E, EG, ES, EI, *box, fresh.cand, fresh.stamp)
        assert fresh.cand[:nk].tolist() == ref
        if k != ksh.DEFER:
            assert work.cand[:k].tolist() == ref, (it, box)
    assert hits > 100  # most drifting boxes stayed in their cells
