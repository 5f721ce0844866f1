"""``cdt``: A* on the weighted dual graph of the constrained triangulation (MIRAN section 4, Figure 6).

A node per free triangle of the quality constrained triangulation (core.routes.trimesh: obstacle outlines, bounds
and terrain boundaries are constraints, so every triangle has one terrain type), at its centroid. Two triangles sharing
an edge are joined by the dual edge e_uv = centroid(T_u) -> midpoint of the shared edge -> centroid(T_v); the midpoint p
is where the underlying triangle changes, so e_u and e_v each lie in one triangle and

    w(e_uv) = w(T_u) |e_u| + w(T_v) |e_v|

is the exact terrain-weighted length of the dual edge. The start joins its triangle's centroid (and the goal
likewise) by a segment inside that triangle. The heuristic is (smallest weight) x (straight distance to the goal),
admissible whatever the weights (graph.py). The search's optimum is ``search_cost``; the returned route joins the
shared edges' midpoints directly (each piece inside one triangle), so its exact weighted length ``cost`` is at most
``search_cost``.
"""

from __future__ import annotations

import math

import numpy as np
from core.jitcache import jit

from ..graph import DualGraph
from ..trimesh import TriMesh, quality_mesh
from .base import Leg, join_point


def dual_graph(mesh, use_landmarks: bool = True) -> DualGraph:
    """The weighted dual graph of a mesh's free triangles (both directions of every shared edge); ``mesh`` has
    ``vertices``, ``triangles``, ``neighbors`` and ``tri_terrain`` (a TriMesh or a NavMesh). Its searches use
    landmark bounds (``use_landmarks``, core.routes.graph): every edge costs the same both ways, as ALT needs."""
    V = mesh.vertices
    T = mesh.triangles.astype(np.int64)
    N = mesh.neighbors.astype(np.int64)
    cent = V[T].mean(axis=1)
    t, k = np.nonzero(N >= 0)
    u = t
    v = N[t, k]
    mid = 0.5 * (V[T[t, k]] + V[T[t, (k + 1) % 3]])
    half_u = np.hypot(*(mid - cent[u]).T)
    half_v = np.hypot(*(cent[v] - mid).T)
    return DualGraph.from_edges(cent, mesh.tri_terrain, u, v, half_u, half_v, via=mid, use_landmarks=use_landmarks)


@jit
def midpoint_route(indptr, indices, via, terrain, nodes, s1, g1, w):
    """(k + 1, 2) route s1 -> midpoints of the shared edges of the triangle path ``nodes`` (k,) -> g1, and its
    weighted length: piece i lies in triangle nodes[i] and costs w[terrain[nodes[i]]] times its length."""
    k = nodes.shape[0]
    pts = np.empty((k + 1, 2))
    pts[0, 0] = s1[0]
    pts[0, 1] = s1[1]
    for i in range(k - 1):
        u = nodes[i]
        for e in range(indptr[u], indptr[u + 1]):
            if indices[e] == nodes[i + 1]:
                pts[i + 1, 0] = via[e, 0]
                pts[i + 1, 1] = via[e, 1]
                break
    pts[k, 0] = g1[0]
    pts[k, 1] = g1[1]
    cost = 0.0
    for i in range(k):
        cost += w[terrain[nodes[i]]] * math.hypot(pts[i + 1, 0] - pts[i, 0], pts[i + 1, 1] - pts[i, 1])
    return pts, cost


class CdtPlanner:
    """MIRAN's indicative-route planner on the constrained triangulation, one mesh per clearance level."""

    name = "cdt"
    unreachable_hint = "the goal cannot be reached"

    def __init__(self, ctx):
        self.ctx = ctx
        self._meshes: dict[float, TriMesh] = {}
        self._graphs: dict[float, DualGraph] = {}

    def mesh(self, clearance: float = 0.0) -> TriMesh:
        """The quality triangulation of the free space eroded by ``clearance`` (cached)."""
        key = float(clearance)
        with self.ctx.lock:
            if key not in self._meshes:
                self._meshes[key] = quality_mesh(self.ctx.free(key).geometry)
            return self._meshes[key]

    def graph(self, clearance: float = 0.0) -> DualGraph:
        """The weighted dual graph of ``mesh(clearance)`` (cached)."""
        key = float(clearance)
        with self.ctx.lock:
            if key not in self._graphs:
                self._graphs[key] = dual_graph(self.mesh(key))
            return self._graphs[key]

    def plan(self, start: np.ndarray, goal: np.ndarray, weights: np.ndarray, clearance: float) -> Leg | None:
        """A* from the start's triangle to the goal's; None when they are not connected at this level."""
        free_c = self.ctx.free(clearance)
        s1 = join_point(self.ctx, free_c, start)
        g1 = join_point(self.ctx, free_c, goal)
        if s1 is None or g1 is None:
            return None
        g = self.graph(clearance)
        ts, tg = (int(v) for v in self.mesh(clearance).locate(np.vstack([s1, g1])))
        if ts < 0 or tg < 0:
            return None
        w = np.asarray(weights, dtype=np.float64)
        # Joining segments: start -> (entry point) -> centroid, each inside one triangle or visible in free space.
        head = self._join_cost(start, s1, g.xy[ts], g.terrain[ts], w)
        tail = self._join_cost(goal, g1, g.xy[tg], g.terrain[tg], w)
        if ts == tg:
            pts = np.array([start, s1, g1, goal])
            return Leg(pts, float(self._piece_cost(pts, w)))
        nodes, cost = g.search(w, np.array([ts]), np.array([head]), np.array([tg]), np.array([tail]), g1)
        if len(nodes) == 0:
            return None
        # The route runs through the shared edges' midpoints and skips the centroids: each piece still lies in
        # one triangle, so its weighted length is exact, and by the triangle inequality it is no more than the
        # dual edges' w(T_u)|e_u| + w(T_v)|e_v| that the search minimised.
        inner, cost_inner = midpoint_route(g.indptr, g.indices, g.via, g.terrain, nodes, s1, g1, w)
        pts = np.vstack([start[None], inner, goal[None]])
        extra = self._piece_cost(np.array([start, s1]), w) if (start[0] != s1[0] or start[1] != s1[1]) else 0.0
        extra += self._piece_cost(np.array([g1, goal]), w) if (goal[0] != g1[0] or goal[1] != g1[1]) else 0.0
        return Leg(pts, cost_inner + extra, float(cost))

    def _join_cost(self, p, entry, centroid, terrain: int, w: np.ndarray) -> float:
        """Cost of p -> entry (measured on the terrain) plus entry -> centroid (inside one triangle)."""
        c = float(w[terrain]) * math.hypot(centroid[0] - entry[0], centroid[1] - entry[1])
        if p[0] != entry[0] or p[1] != entry[1]:
            c += self._piece_cost(np.array([p, entry]), w)
        return c

    def _piece_cost(self, pts: np.ndarray, w: np.ndarray) -> float:
        return float(np.sum(self.ctx.terrain_lengths(pts[:-1], pts[1:]) @ w))
