"""The trace's drawing arrays: visible route pieces lie on the route and have the intervals' lengths."""

import numpy as np
import shapely

from core.routes.route import Route
from core.sim.debug import route_pieces


def test_route_pieces_match_the_intervals():
    rng = np.random.default_rng(3)
    for _ in range(20):
        route = Route.from_points(np.cumsum(rng.uniform(-10, 10, size=(8, 2)), axis=0))
        cuts = np.sort(rng.uniform(0, route.length, 6)).reshape(3, 2)
        out = route_pieces(route, cuts)
        pieces = np.split(out, np.flatnonzero(np.isnan(out[:, 0])))
        pieces = [p[~np.isnan(p[:, 0])] for p in pieces if len(p[~np.isnan(p[:, 0])])]
        assert len(pieces) == 3
        line = shapely.LineString(route.points)
        for p, (a, b) in zip(pieces, cuts):
            seg = np.diff(p, axis=0)
            assert np.isclose(np.hypot(seg[:, 0], seg[:, 1]).sum(), b - a, rtol=1e-9, atol=1e-9)
            assert line.distance(shapely.MultiPoint(p)) < 1e-9
            assert np.allclose(p[0], route.point_at(a)) and np.allclose(p[-1], route.point_at(b))


def test_degenerate_and_empty_intervals():
    route = Route.from_points([[0, 0], [4, 0]])
    out = route_pieces(route, np.array([[1.0, 1.0]]))
    assert out.shape == (3, 2) and np.allclose(out[:2], [[1, 0], [1, 0]]) and np.isnan(out[2]).all()
    assert route_pieces(route, np.zeros((0, 2))).shape == (0, 2)
