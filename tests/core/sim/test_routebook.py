"""The simulation's route book keeps only the vertices where a route bends: the same curve, the same arc lengths."""

import numpy as np

from core.routes.kernels import bend_mask
from core.routes.route import Route
from core.sim.routebook import RouteBook


def _grid_route(rng, n):
    """A staircase of unit grid steps (as the grid planner makes), with straight runs, turns and a U-turn."""
    steps = rng.choice([[1, 0], [0, 1], [1, 1], [-1, 0]], size=n, p=[0.45, 0.3, 0.2, 0.05])
    pts = np.concatenate([[[0.0, 0.0]], np.cumsum(steps, axis=0).astype(np.float64)])
    return Route.from_points(pts)


def test_route_book_drops_only_straight_vertices():
    rng = np.random.default_rng(4)
    for _ in range(20):
        route = _grid_route(rng, int(rng.integers(5, 80)))
        book = RouteBook(4)
        book.add(Route.from_points(np.array([[5.0, 5.0], [6.0, 5.0]])))
        lo, hi = book.add(route)
        kept = book.route(lo, hi)
        assert hi - lo <= len(route.points)
        # Same ends, same length, and the same point at every arc length (the curve is unchanged).
        np.testing.assert_array_equal(kept.points[[0, -1]], route.points[[0, -1]])
        assert kept.s[-1] == route.s[-1]
        t = np.concatenate([rng.uniform(0, route.length, 200), route.s])
        np.testing.assert_allclose(kept.point_at(t), route.point_at(t), rtol=0, atol=1e-12)
        # Every dropped vertex lay between its neighbours on a straight piece; every kept interior one is a bend.
        keep = bend_mask(np.ascontiguousarray(route.points))
        p = route.points
        for k in range(1, len(p) - 1):
            a, b, c = p[k - 1], p[k], p[k + 1]
            straight = abs((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])) == 0.0
            forward = np.dot(b - a, c - b) > 0
            assert keep[k] == (not (straight and forward))


def test_a_route_turning_back_keeps_its_turning_point():
    route = Route.from_points(np.array([[0.0, 0.0], [2.0, 0.0], [1.0, 0.0], [1.0, 3.0]]))
    book = RouteBook()
    lo, hi = book.add(route)
    np.testing.assert_array_equal(book.points[lo:hi], route.points)
