"""The exact Euclidean shortest path (visibility graph), the reference the benchmarks and tests compare with.

Only reflex corners of the free space (convex corners of the obstacles and of the bounds' inner side) can be
interior vertices of a shortest path; the graph joins every pair that sees each other (exact segment walks on the
navigation mesh), and a query adds the start and the goal. A* with the straight-line heuristic is exact here.
"""

from __future__ import annotations

import numpy as np
import shapely

from .freespace import polygon_parts
from .search import astar, csr_from_edges


def reflex_corners(free) -> np.ndarray:
    """(k, 2) float64 corners of the free space where its interior angle exceeds 180 degrees."""
    out = []
    for poly in polygon_parts(free):
        poly = shapely.geometry.polygon.orient(poly, 1.0)  # exterior CCW, holes CW: free space on the left
        for ring in [poly.exterior, *poly.interiors]:
            c = np.asarray(ring.coords, dtype=np.float64)[:-1]
            prev, nxt = np.roll(c, 1, axis=0), np.roll(c, -1, axis=0)
            turn = (c[:, 0] - prev[:, 0]) * (nxt[:, 1] - c[:, 1]) - (c[:, 1] - prev[:, 1]) * (nxt[:, 0] - c[:, 0])
            out.append(c[turn < 0])
    return np.vstack(out) if out else np.zeros((0, 2))


class VisibilityGraph:
    """Visibility graph over the reflex corners of a context's free space (level 0)."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.corners = reflex_corners(ctx.geometry.free)
        n = len(self.corners)
        i, j = np.triu_indices(n, 1)
        vis = ctx.visible(self.corners[i], self.corners[j]) if len(i) else np.zeros(0, dtype=bool)
        a, b = i[vis], j[vis]
        src = np.concatenate([a, b])
        dst = np.concatenate([b, a])
        self.indptr, self.indices, order = csr_from_edges(n + 2, src, dst)
        self.costs = np.hypot(*(self.corners[src] - self.corners[dst]).T)[order]
        self.n_edges = len(a)

    def shortest(self, start, goal) -> tuple[np.ndarray, float]:
        """The exact shortest path (k, 2) from start to goal in the free space and its length (inf if none)."""
        s = np.asarray(start, dtype=np.float64)
        g = np.asarray(goal, dtype=np.float64)
        if self.ctx.visible(s, g)[0]:
            return np.array([s, g]), float(np.hypot(*(g - s)))
        n = len(self.corners)
        rep = np.repeat
        vs = self.ctx.visible(rep(s[None], n, axis=0), self.corners)
        vg = self.ctx.visible(rep(g[None], n, axis=0), self.corners)
        src = np.flatnonzero(vs)
        dst = np.flatnonzero(vg)
        xy = np.vstack([self.corners, s[None], g[None]])
        nodes, cost = astar(self.indptr, self.indices, self.costs, xy, 1.0, src,
                            np.hypot(*(self.corners[src] - s).T), dst, np.hypot(*(self.corners[dst] - g).T), g)
        if len(nodes) == 0:
            return np.zeros((0, 2)), float("inf")
        return np.vstack([s[None], self.corners[nodes], g[None]]), float(cost)
