"""Shortest (minimum-clearance) paths against an exact visibility-graph shortest path on unseen random scenes."""

import numpy as np
import pytest
import shapely
import shapely.ops
from shapely.geometry import Polygon

from core.ecm import GOAL_BLOCKED, OK, START_BLOCKED, corridor, retract_point, shortest_path, shortest_path_status
from core.ecm.funnel import funnel
from core.ecm.search import _add, _taut

from conftest import case
from ecmref import VisibilityGraph, path_clearance

SEEDS = range(200, 205)


def _points(g, n, seed, clearance=0.0):
    rng = np.random.default_rng(seed)
    x0, y0, x1, y1 = g.box.bounds
    out = []
    bnd = shapely.union(g.obstacles.boundary, g.box.boundary)
    while len(out) < n:
        p = rng.uniform([x0, y0], [x1, y1])
        if g.free.contains(shapely.Point(p)) and bnd.distance(shapely.Point(p)) > clearance:
            out.append(p)
    return np.array(out)


def _region(C):
    """The corridor's free region at clearance 0: its strip triangles and its disks."""
    L, R = C.left, C.right
    tris = [Polygon([L[k], R[k], L[k + 1]]) for k in range(len(L) - 1)]
    tris += [Polygon([R[k], L[k + 1], R[k + 1]]) for k in range(len(L) - 1)]
    disks = [shapely.Point(b).buffer(r, 64) for b, r in zip(C.B, C.R)]
    return shapely.union_all([t for t in tris if t.is_valid and t.area > 0] + disks)


@pytest.mark.parametrize("seed", SEEDS)
def test_clearance_zero_paths_against_the_exact_shortest_path(seed):
    scene, g, ecm = case(seed)
    vg = VisibilityGraph(g.free)
    pts = _points(g, 40, seed)
    same_class = 0
    for s, t in zip(pts[0::2], pts[1::2]):
        exact, epath = vg.shortest_path(s, t)
        path, length, ok = shortest_path(ecm, s, t, 0.0)
        if not np.isfinite(exact):
            assert not ok
            continue
        assert ok
        assert np.allclose(path[0], s) and np.allclose(path[-1], t)
        assert abs(length - np.sum(np.hypot(*np.diff(path, axis=0).T))) <= 1e-9 * length + 1e-12
        assert path_clearance(path, g) >= -1e-9 * ecm.sites.scale, "the path leaves the free space"
        assert length >= exact * (1 - 1e-9), "shorter than the exact shortest path"
        region = _region(corridor(ecm, s, t, 0.0)).buffer(1e-6 * ecm.sites.scale)
        if region.covers(shapely.LineString(epath)):
            same_class += 1
            assert length <= 1.01 * exact, "within the optimal homotopy class but over 1 % longer"
    assert same_class >= 12


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("clearance", [0.4, 1.2])
def test_paths_keep_their_clearance(seed, clearance):
    scene, g, ecm = case(seed)
    pts = _points(g, 30, seed + 7, clearance)
    joined = 0
    for s, t in zip(pts[0::2], pts[1::2]):
        path, length, status = shortest_path_status(ecm, s, t, clearance)
        if status != OK:
            continue
        joined += 1
        assert path_clearance(path, g) >= clearance * (1 - 1e-9), "the path comes closer than its clearance"
        base, base_len, ok0 = shortest_path(ecm, s, t, 0.0)
        assert ok0 and length >= base_len * (1 - 1e-9)
    assert joined >= 5


def test_blocked_ends_are_reported():
    scene, g, ecm = case(202)
    inside = np.array(g.obstacles.representative_point().coords[0])
    free = _points(g, 2, 1, 2.0)
    assert shortest_path_status(ecm, inside, free[0])[2] == START_BLOCKED
    assert shortest_path_status(ecm, free[0], inside)[2] == GOAL_BLOCKED
    assert shortest_path_status(ecm, (-5.0, -5.0), free[0])[2] == START_BLOCKED
    pts, length, ok = shortest_path(ecm, inside, free[0])
    assert not ok and len(pts) == 0


@pytest.mark.parametrize("seed", SEEDS)
def test_retraction_lands_on_the_medial_axis_along_the_spoke(seed):
    scene, g, ecm = case(seed)
    bnd = shapely.union(g.obstacles.boundary, g.box.boundary)
    for p in _points(g, 30, seed + 3, 0.05):
        S, R, edge = retract_point(ecm, p)
        assert edge >= 0
        # S is as far from the boundary as its radius (a medial-axis point) ...
        assert abs(bnd.distance(shapely.Point(S)) - R) <= 1e-6 * ecm.sites.scale
        # ... and p lies on the segment from its closest obstacle point to S (IRM 3.2).
        c = np.array(shapely.ops.nearest_points(bnd, shapely.Point(p))[0].coords[0])
        u = (S - c) / np.linalg.norm(S - c)
        assert abs(u[0] * (p - c)[1] - u[1] * (p - c)[0]) <= 1e-6 * ecm.sites.scale
        assert np.linalg.norm(p - c) <= R + 1e-9 * ecm.sites.scale


def test_search_funnel_agrees_with_the_portal_funnel():
    """The incremental funnel of the graph search gives the same length as the funnel over the whole list."""
    rng = np.random.default_rng(0)
    for _ in range(300):
        n = int(rng.integers(2, 12))
        ang = np.cumsum(rng.uniform(-0.8, 0.8, n))
        c = np.cumsum(np.column_stack([np.cos(ang), np.sin(ang)]), axis=0) * 3
        w = rng.uniform(0.3, 2, n)
        nrm = np.column_stack([-np.sin(ang), np.cos(ang)])
        L, R = c + nrm * w[:, None], c - nrm * w[:, None]
        s = np.array([-1.0, 0.0])
        t = c[-1] + 3 * np.array([np.cos(ang[-1]), np.sin(ang[-1])])
        pts, length = funnel(np.vstack([s, L, t]), np.vstack([s, R, t]), 1e-12)
        ap = s.copy()
        Lc, Rc = np.empty((64, 2)), np.empty((64, 2))
        apd, hl, nl, hr, nr = 0.0, 0, 0, 0, 0
        for k in range(n):
            apd, hl, nl, hr, nr = _add(1, R[k, 0], R[k, 1], ap, apd, Lc, hl, nl, Rc, hr, nr, 1e-12)
            apd, hl, nl, hr, nr = _add(0, L[k, 0], L[k, 1], ap, apd, Lc, hl, nl, Rc, hr, nr, 1e-12)
        assert abs(_taut(t[0], t[1], ap, apd, Lc, hl, nl, Rc, hr, nr, 1e-12) - length) <= 1e-9
        # The funnel path is taut: no shorter polyline crosses the same portals.
        assert length >= np.hypot(*(t - s)) - 1e-12
