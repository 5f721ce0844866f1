"""Exact references for the ECM tests: Boost.Polygon's segment Voronoi diagram (pyvoronoi) and a visibility graph.

Both work on the free space's own boundary rings (obstacle union clipped to the bounds, with the bounds), so they
see the same input as the ECM.
"""

from __future__ import annotations

import heapq

import numpy as np
import shapely
from shapely.geometry import LineString


def free_rings(free) -> list[np.ndarray]:
    """The free space's boundary rings, each (n, 2) without the closing vertex, with the free space on their left
    (exteriors counter-clockwise, holes clockwise)."""
    rings = []
    for poly in getattr(free, "geoms", [free]):
        poly = shapely.geometry.polygon.orient(poly, 1.0)
        for ring in [poly.exterior, *poly.interiors]:
            rings.append(np.asarray(ring.coords)[:-1])
    return rings


def exact_medial_axis(free, step: float, factor: int = 1000) -> np.ndarray:
    """(n, 2) points on the medial axis of the free space, at most ``step`` apart along each Voronoi edge.

    The medial axis is the set of primary edges of the segment Voronoi diagram of the free space's boundary that
    lie in the free space (secondary edges separate a segment from its own end point: no medial axis).
    """
    import pyvoronoi

    pv = pyvoronoi.Pyvoronoi(factor)
    for ring in free_rings(free):
        for k in range(len(ring)):
            pv.AddSegment([ring[k].tolist(), ring[(k + 1) % len(ring)].tolist()])
    pv.Construct()
    edges = pv.GetEdges()
    verts = pv.GetVertices()
    out = []
    for i, e in enumerate(edges):
        if e.twin < i or not e.is_primary or e.start < 0 or e.end < 0:
            continue
        a = np.array([verts[e.start].X, verts[e.start].Y])
        b = np.array([verts[e.end].X, verts[e.end].Y])
        if e.is_linear:
            n = max(2, int(np.ceil(np.linalg.norm(b - a) / step)) + 1)
            out.append(a + (b - a) * np.linspace(0.0, 1.0, n)[:, None])
        else:
            pts = np.asarray(list(pv.DiscretizeCurvedEdge(i, step * 0.05)), dtype=np.float64)
            # Densify the discretisation so that consecutive points are at most ``step`` apart.
            dense = [pts[:1]]
            for p, q in zip(pts[:-1], pts[1:]):
                m = max(1, int(np.ceil(np.linalg.norm(q - p) / step)))
                dense.append(p + (q - p) * (np.arange(1, m + 1) / m)[:, None])
            out.append(np.vstack(dense))
    pts = np.vstack(out)
    return pts[shapely.contains_xy(free, pts[:, 0], pts[:, 1])]


class VisibilityGraph:
    """The visibility graph of the free space's reflex corners (the only possible bends of a shortest path),
    built once; ``shortest_path`` adds the two end points and runs Dijkstra."""

    def __init__(self, free):
        self.fat = free.buffer(1e-9 * max(1.0, np.sqrt(free.area)))
        shapely.prepare(self.fat)
        corners = []
        for ring in free_rings(free):
            n = len(ring)
            for k in range(n):
                a, b, c = ring[k - 1], ring[k], ring[(k + 1) % n]
                # With the free space on the left, a right turn is a reflex corner of the free space.
                if (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]) < 0:
                    corners.append(b)
        self.corners = np.array(corners, dtype=np.float64).reshape(-1, 2)
        n = len(self.corners)
        ii, jj = np.triu_indices(n, 1)
        lines = shapely.linestrings(np.stack([self.corners[ii], self.corners[jj]], axis=1))
        vis = shapely.covers(self.fat, lines)
        self.adj: list[list[tuple[int, float]]] = [[] for _ in range(n + 2)]
        for a, b in zip(ii[vis], jj[vis]):
            d = float(np.hypot(*(self.corners[a] - self.corners[b])))
            self.adj[a + 2].append((b + 2, d))
            self.adj[b + 2].append((a + 2, d))

    def shortest_path(self, start, goal) -> tuple[float, np.ndarray]:
        nodes = np.vstack([np.asarray(start, float), np.asarray(goal, float), self.corners])
        adj = [list(x) for x in self.adj]
        for end in range(2):
            lines = shapely.linestrings(np.stack([np.repeat(nodes[end:end + 1], len(nodes), axis=0), nodes], axis=1))
            vis = shapely.covers(self.fat, lines)
            for j in np.flatnonzero(vis):
                if j == end:
                    continue
                d = float(np.hypot(*(nodes[end] - nodes[j])))
                adj[end].append((int(j), d))
                adj[int(j)].append((end, d))
        return _dijkstra(adj, nodes)


def visibility_shortest_path(free, start, goal) -> tuple[float, np.ndarray]:
    """Exact shortest path in the closed free space between two points. Returns (length, points); inf if none."""
    return VisibilityGraph(free).shortest_path(start, goal)


def _dijkstra(adj, nodes) -> tuple[float, np.ndarray]:
    n = len(nodes)
    dist = np.full(n, np.inf)
    prev = np.full(n, -1)
    dist[0] = 0.0
    heap = [(0.0, 0)]
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist[u]:
            continue
        if u == 1:
            break
        for w, c in adj[u]:
            if d + c < dist[w]:
                dist[w] = d + c
                prev[w] = u
                heapq.heappush(heap, (d + c, w))
    if not np.isfinite(dist[1]):
        return np.inf, np.zeros((0, 2))
    path = [1]
    while path[-1] != 0:
        path.append(int(prev[path[-1]]))
    return float(dist[1]), nodes[path[::-1]]


def path_clearance(pts: np.ndarray, geometry) -> float:
    """Smallest distance from a polyline to the obstacles or the bounds' boundary."""
    line = LineString(pts) if len(pts) >= 2 else shapely.points(pts[0])
    walls = geometry.box.boundary
    d = shapely.distance(line, walls)
    if not geometry.obstacles.is_empty:
        d = min(d, shapely.distance(line, geometry.obstacles))
    return float(d)
