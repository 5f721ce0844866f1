"""The routes of a running simulation in one growable packed buffer (the layout of core.routes.PackedRoutes).

``points`` (N, 2) float64 and ``s`` (N,) float64 hold every route one after the other, ``s`` restarting at 0 for
each route; an agent refers to its route by the row range [lo, hi). Adding a route (a new agent, a replanned
route) appends rows; rows of a route no agent uses any more stay until ``compact``.
"""

from __future__ import annotations

import numpy as np

from core.routes.kernels import bend_mask
from core.routes.route import Route


class RouteBook:
    """Append-only packed routes: ``add(route) -> (lo, hi)``; ``points`` / ``s`` are the used rows."""

    def __init__(self, capacity: int = 256) -> None:
        self._pts = np.zeros((capacity, 2), dtype=np.float64)
        self._s = np.zeros(capacity, dtype=np.float64)
        self.used = 0

    @property
    def points(self) -> np.ndarray:
        """(N, 2) float64 route vertices in use."""
        return self._pts[: self.used]

    @property
    def s(self) -> np.ndarray:
        """(N,) float64 cumulative arc length within each route."""
        return self._s[: self.used]

    def add(self, route: Route) -> tuple[int, int]:
        """Append a route; returns its row range [lo, hi). Vertices exactly on the straight piece between their
        neighbours are left out (grid routes are mostly such): the same curve and arc lengths, and far fewer
        pieces for the visibility of each step (MIRAN 3.2)."""
        keep = bend_mask(np.ascontiguousarray(route.points, dtype=np.float64))
        points = route.points[keep]
        arcs = route.s[keep]
        k = len(points)
        if self.used + k > len(self._s):
            cap = max(self.used + k, 2 * len(self._s))
            pts = np.zeros((cap, 2), dtype=np.float64)
            s = np.zeros(cap, dtype=np.float64)
            pts[: self.used] = self._pts[: self.used]
            s[: self.used] = self._s[: self.used]
            self._pts, self._s = pts, s
        lo = self.used
        self._pts[lo: lo + k] = points
        self._s[lo: lo + k] = arcs
        self.used += k
        return lo, lo + k

    def route(self, lo: int, hi: int) -> Route:
        """The route at rows [lo, hi) as a Route."""
        return Route(self._pts[lo:hi].copy(), self._s[lo:hi].copy())

    def compact(self, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Keep only the ranges still referenced (lo, hi arrays, one per agent); returns the new ranges."""
        keys = sorted(set(zip(lo.tolist(), hi.tolist())))
        new_pts = np.zeros((max(16, sum(b - a for a, b in keys)), 2), dtype=np.float64)
        new_s = np.zeros(len(new_pts), dtype=np.float64)
        where: dict[tuple[int, int], int] = {}
        used = 0
        for a, b in keys:
            new_pts[used: used + b - a] = self._pts[a:b]
            new_s[used: used + b - a] = self._s[a:b]
            where[(a, b)] = used
            used += b - a
        self._pts, self._s, self.used = new_pts, new_s, used
        new_lo = np.array([where[(a, b)] for a, b in zip(lo.tolist(), hi.tolist())], dtype=np.int64)
        return new_lo, new_lo + (hi - lo)

    def copy(self) -> "RouteBook":
        c = RouteBook(max(1, self.used))
        c._pts[: self.used] = self.points
        c._s[: self.used] = self.s
        c.used = self.used
        return c
