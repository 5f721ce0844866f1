"""The ECM against an exact segment Voronoi diagram (Boost.Polygon via pyvoronoi) on unseen random scenes."""

import numpy as np
import pytest
import shapely

from core.ecm import NODE_OPEN, medial_axis

from conftest import case
from ecmref import exact_medial_axis

SEEDS = range(100, 106)


def _boundary(g):
    return shapely.union(g.obstacles.boundary, g.box.boundary)


@pytest.mark.parametrize("seed", SEEDS)
def test_event_points_have_their_true_clearance_and_closest_points(seed):
    scene, g, ecm = case(seed)
    h = ecm.pixel
    bnd = _boundary(g)
    true = shapely.distance(shapely.points(ecm.ev_B), bnd)
    assert np.all(np.abs(true - ecm.ev_R) <= h), "an event point's R is off its true clearance by over a pixel"
    # Away from edges the pixels lost, the numbers are exact up to rounding.
    exact = np.ones(ecm.n_events, dtype=bool)
    for k in range(ecm.n_edges):
        if NODE_OPEN in ecm.vert_kind[ecm.edge_uv[k]]:
            exact[ecm.edge_events(k)] = False
    assert np.all(np.abs(true - ecm.ev_R)[exact] <= 1e-9 * ecm.sites.scale)
    for cp in (ecm.ev_l, ecm.ev_r):
        assert np.all(shapely.distance(shapely.points(cp), bnd) <= 1e-9 * ecm.sites.scale), "l/r off the boundary"
        dist = np.hypot(*(ecm.ev_B - cp).T)
        assert np.all(np.abs(dist[exact] - ecm.ev_R[exact]) <= 1e-9 * ecm.sites.scale)
        assert np.all(np.abs(dist - ecm.ev_R) <= h)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.heavy
def test_every_exact_medial_axis_point_is_near_the_map(seed):
    scene, g, ecm = case(seed)
    h = ecm.pixel
    ref = exact_medial_axis(g.free, step=h / 2)
    clear = shapely.distance(shapely.points(ref), _boundary(g))
    ref = ref[clear > 2 * h]
    assert len(ref) > 100
    pts, clr, off = medial_axis(ecm, step=h / 4)
    lines = shapely.multilinestrings([shapely.linestrings(pts[off[k]:off[k + 1]]) for k in range(ecm.n_edges)])
    d = shapely.distance(shapely.points(ref), lines)
    assert d.max() <= 2 * h, f"exact medial axis point {ref[np.argmax(d)]} is {d.max() / h:.2f} px from the ECM"


@pytest.mark.parametrize("seed", SEEDS)
def test_the_map_lies_on_the_medial_axis(seed):
    """Every sampled point of the ECM's curves is equidistant from its two sides (within rounding)."""
    scene, g, ecm = case(seed)
    pts, clr, off = medial_axis(ecm, step=ecm.pixel)
    true = shapely.distance(shapely.points(pts), _boundary(g))
    assert np.all(np.abs(true - clr) <= ecm.pixel)
    assert np.median(np.abs(true - clr)) <= 1e-9 * ecm.sites.scale


@pytest.mark.parametrize("seed", SEEDS)
def test_storage_is_linear_in_the_obstacle_vertices(seed):
    scene, g, ecm = case(seed)
    nv = ecm.sites.n_vertices
    # Each ring feature starts or stops a closest-point run a bounded number of times; the vertices and edges of
    # a planar Voronoi diagram are linear too.
    assert ecm.n_events <= 12 * nv
    assert ecm.n_vertices <= 4 * nv and ecm.n_edges <= 6 * nv
    assert ecm.nbytes() <= 400 * nv + 4096


def test_resolution_changes_numbers_only_where_pixels_decide():
    """The same scene at two resolutions gives the same event points wherever both found the edge."""
    scene, g, lo = case(101, 320)
    scene, g, hi = case(101, 640)
    tree = shapely.STRtree(shapely.points(hi.ev_B))
    idx = tree.nearest(shapely.points(lo.ev_B))
    d = np.hypot(*(hi.ev_B[idx] - lo.ev_B).T)
    assert np.median(d) <= 1e-9 * lo.sites.scale
