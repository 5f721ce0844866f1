"""The annotation's phases one by one against closed forms and shapely: Voronoi vertices, ray events, arc lengths
of parabolic pieces and points on them."""

import numpy as np
import pytest
import shapely

from core.ecm.annotate import SiteEdges, interval_length
from core.ecm.annotate.ray_events import ray_event
from core.ecm.annotate.vertices import solve_vertex
from core.ecm.debug import _point_on_piece
from core.ecm.sites import build_sites

SQUARES = [shapely.box(0, 0, 2, 2), shapely.box(6, 0, 8, 2), shapely.box(3, 5, 5, 7)]
BOUNDS = (-10.0, -10.0, 20.0, 20.0)


@pytest.fixture(scope="module")
def sites():
    return build_sites(shapely.MultiPolygon(SQUARES), BOUNDS)


def _site_of(sites, square) -> int:
    """The site whose bounding box is the square's."""
    return int(np.flatnonzero(np.all(np.isclose(sites.piece_bbox, square.bounds), axis=1))[0])


def _edges(sites) -> SiteEdges:
    return SiteEdges(sites.real_ptr, sites.real_edge, sites.ring_xy, sites.ring_next)


@pytest.mark.parametrize("start", [(4.0, 2.8), (3.6, 3.3), (4.4, 2.2)])
def test_the_vertex_of_three_obstacles_is_equidistant_from_them(sites, start):
    sides = np.zeros((4, 4), dtype=np.int32)
    sides[:3, 0] = [_site_of(sites, sq) for sq in SQUARES]
    counts = np.array([1, 1, 1, 0], dtype=np.int32)
    x, y, R, ok = solve_vertex(sides, counts, 3, _edges(sites), *start, 0.5, sites.scale)
    assert ok
    true = [shapely.distance(shapely.Point(x, y), sq) for sq in SQUARES]
    assert np.allclose(true, R, rtol=0, atol=1e-9), f"distances {true} to the three squares, R {R}"
    # By symmetry about x = 4 the vertex lies on that line.
    assert abs(x - 4.0) <= 1e-9


@pytest.mark.parametrize("guess", ["none", "closest"])
def test_a_ray_event_is_as_far_from_the_other_side_as_from_its_vertex(sites, guess):
    other = np.array([_site_of(sites, SQUARES[1]), _site_of(sites, SQUARES[2])], dtype=np.int32)
    v = np.array([2.0, 1.5])
    n = np.array([1.0, 0.0])
    nv = len(sites.ring_xy)
    # The closed form needs a feature to start from; without one the kernel bisects.
    f = -1 if guess == "none" else nv + int(np.flatnonzero(np.isclose(sites.ring_xy[:, 0], 6.0)
                                                          & np.isclose(sites.ring_xy[:, 1], 2.0))[0])
    t = ray_event(v[0], v[1], n[0], n[1], other, 2, f, _edges(sites), sites.edge_normal, 10.0, sites.scale)
    b = v + t * n
    d = shapely.distance(shapely.Point(*b), shapely.union(SQUARES[1], SQUARES[2]))
    assert abs(t - 2.0) <= 1e-9 and abs(d - t) <= 1e-9


def _focus_and_line(d):
    """A vertex at (0, d) over the edge from (10, 0) to (-10, 0) (free normal (0, 1)): their bisector is the
    parabola y = (x^2 + d^2) / (2 d)."""
    xy = np.array([[10.0, 0.0], [-10.0, 0.0], [0.0, d]])
    ring_next = np.array([1, 2, 0], dtype=np.int32)
    normal = np.array([[0.0, 1.0], [0.0, 0.0], [0.0, 0.0]])
    return xy, ring_next, normal


def _parabola(x, d):
    return np.array([x, (x * x + d * d) / (2 * d)])


@pytest.mark.parametrize("x0, x1, d", [(-3.0, 4.0, 1.0), (0.5, 2.5, 2.0), (-6.0, -1.0, 0.5)])
def test_a_parabolic_piece_has_the_arc_length_of_its_parabola(x0, x1, d):
    xy, ring_next, normal = _focus_and_line(d)
    b0, b1 = _parabola(x0, d), _parabola(x1, d)
    v = (0.0, d)
    # Closed form of the arc length of y = (x^2 + d^2) / (2 d): (d / 2) [u sqrt(1 + u^2) + asinh u], u = x / d.
    def prim(x):
        u = x / d
        return 0.5 * d * (u * np.sqrt(1 + u * u) + np.arcsinh(u))
    exact = prim(x1) - prim(x0)
    for fl, fr, l0, l1, r0, r1 in ((2, 3, v, v, (x0, 0.0), (x1, 0.0)), (3, 2, (x0, 0.0), (x1, 0.0), v, v)):
        length = interval_length(fl, fr, tuple(b0), tuple(b1), l0, l1, r0, r1, xy, ring_next, normal)
        # Sixteen chords: shorter than the arc, by at most 0.2 % of it here.
        assert exact * (1 - 2e-3) <= length <= exact * (1 + 1e-12)
        assert length > np.hypot(*(b1 - b0))


def test_a_straight_piece_has_its_chord_length():
    xy, ring_next, normal = _focus_and_line(1.0)
    b0, b1 = (1.0, 2.0), (4.0, 6.0)
    # Two vertices (0 and 2): a line segment.
    assert interval_length(0, 2, b0, b1, b0, b1, b0, b1, xy, ring_next, normal) == 5.0


@pytest.mark.parametrize("u", [0.0, 0.25, 0.6, 1.0])
def test_points_on_a_parabolic_piece_lie_on_the_parabola(u):
    d = 1.5
    xy, ring_next, normal = _focus_and_line(d)
    x0, x1 = -2.0, 3.0
    b0, b1 = tuple(_parabola(x0, d)), tuple(_parabola(x1, d))
    v = (0.0, d)
    x, y, R = _point_on_piece(2, 3, b0, b1, v, v, (x0, 0.0), (x1, 0.0), u, xy, ring_next, normal)
    xf = x0 + u * (x1 - x0)
    assert np.allclose((x, y), _parabola(xf, d), rtol=0, atol=1e-12)
    assert abs(R - y) <= 1e-12 and abs(np.hypot(x, y - d) - R) <= 1e-12
