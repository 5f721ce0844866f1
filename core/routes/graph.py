"""A weighted graph over a tessellation (grid cells, triangles): CSR adjacency plus per-edge terrain halves.

An edge u -> v runs from node u's point through a crossing point into node v's cell (MIRAN section 4, Figure 6):
``half_u`` is the length of the part in u's cell and ``half_v`` the part in v's, so with a profile's weights w its
cost is ``w[terrain[u]] * half_u + w[terrain[v]] * half_v``. Costs are computed per weight vector and cached, so a
changed weight costs one vector operation, not a rebuild. Each thread keeps one search workspace per graph, so a
query touches only the nodes it visits.

A graph built with ``use_landmarks=True`` (the cdt planner's: a crowd asks it thousands of routes) measures LANDMARKS
landmark nodes per weight vector on its first query with those weights and searches with their bound as well (ALT,
core.routes.search): the same optimal costs, several times fewer nodes expanded. The table is a function of the
graph and the weights only (farthest-first from node 0), so a route is a function of (graph, weights, query), never
of how many queries came before. Only queries towards a single target node use it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np
from core.jitcache import jit

from .search import NO_LANDMARKS, astar_ws, csr_from_edges, landmarks, new_workspace
from .search_arrays import Heuristic

# Landmarks measured per weight vector (on its first query) by a graph that uses them.
LANDMARKS = 8


@dataclass(eq=False)
class DualGraph:
    """Directed weighted graph of a tessellation.

    - ``xy``: (n, 2) float64 node points (cell centre or triangle centroid), scene units.
    - ``terrain``: (n,) int32 terrain type index of each node's cell.
    - ``indptr``: (n + 1,) int64, ``indices``: (m,) int64 CSR adjacency (neighbours of u:
      indices[indptr[u]:indptr[u+1]]).
    - ``half_u``, ``half_v``: (m,) float64 lengths of each edge's part in the source and the target cell.
    - ``via``: (m, 2) float64 the crossing point of each edge (NaN where the edge is one straight segment).
    - ``use_landmarks``: search single-target queries with landmark bounds too (module docstring).
    """

    xy: np.ndarray
    terrain: np.ndarray
    indptr: np.ndarray
    indices: np.ndarray
    half_u: np.ndarray
    half_v: np.ndarray
    via: np.ndarray
    use_landmarks: bool = False
    _costs: dict = field(default_factory=dict, repr=False)
    _landmarks: dict = field(default_factory=dict, repr=False)
    _local: threading.local = field(default_factory=threading.local, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def from_edges(cls, xy: np.ndarray, terrain: np.ndarray, a: np.ndarray, b: np.ndarray, half_a: np.ndarray,
                   half_b: np.ndarray, via: np.ndarray | None = None, use_landmarks: bool = False) -> "DualGraph":
        """Build from directed edge lists a[k] -> b[k] (each undirected edge given in both directions)."""
        n = len(xy)
        indptr, indices, order = csr_from_edges(n, a, b)
        if via is None:
            via = np.full((len(a), 2), np.nan)
        return cls(np.ascontiguousarray(xy, dtype=np.float64), np.asarray(terrain, dtype=np.int32), indptr,
                   indices, np.ascontiguousarray(np.asarray(half_a, dtype=np.float64)[order]),
                   np.ascontiguousarray(np.asarray(half_b, dtype=np.float64)[order]),
                   np.ascontiguousarray(np.asarray(via, dtype=np.float64)[order]), use_landmarks)

    @property
    def n(self) -> int:
        return len(self.xy)

    def sources(self) -> np.ndarray:
        """(m,) int64 source node of every CSR edge."""
        return np.repeat(np.arange(self.n, dtype=np.int64), np.diff(self.indptr))

    def costs(self, weights: np.ndarray) -> np.ndarray:
        """(m,) float64 edge costs for one weight vector (one weight per terrain type), cached."""
        key = tuple(float(w) for w in weights)
        c = self._costs.get(key)
        if c is None:
            w = np.asarray(weights, dtype=np.float64)
            c = w[self.terrain[self.sources()]] * self.half_u + w[self.terrain[self.indices]] * self.half_v
            c = np.ascontiguousarray(c)
            if len(self._costs) > 16:
                self._costs.clear()
            self._costs[key] = c
        return c

    def search(self, weights: np.ndarray, src: np.ndarray, src_cost: np.ndarray, dst: np.ndarray,
               dst_cost: np.ndarray, goal: np.ndarray) -> tuple[np.ndarray, float]:
        """A* from the start's source nodes to the goal's target nodes; (nodes, cost), empty and inf if none."""
        w = np.asarray(weights, dtype=np.float64)
        hscale = float(np.min(w)) if len(w) else 1.0
        dst = np.asarray(dst, dtype=np.int64)
        lm = self._landmark_table(w) if self.use_landmarks and len(dst) == 1 and self.n > 4 * LANDMARKS else None
        lm, lm_goal = (lm, lm[int(dst[0])]) if lm is not None else NO_LANDMARKS
        ws, stamp = self._workspace()
        tail = float(np.asarray(dst_cost, dtype=np.float64)[0]) if len(lm_goal) else 0.0
        H = Heuristic(self.xy, hscale, np.asarray(goal, dtype=np.float64), lm, lm_goal, tail)
        return astar_ws(self.indptr, self.indices, self.costs(w), H, np.asarray(src, dtype=np.int64),
                        np.asarray(src_cost, dtype=np.float64), dst, np.asarray(dst_cost, dtype=np.float64), ws,
                        stamp)

    def _landmark_table(self, w: np.ndarray) -> np.ndarray:
        """The (n, LANDMARKS) costs from the landmark nodes for weights ``w``, measured on the first query with
        them (under a lock: threads planning at once measure it once; a table dropped from the cache is the same
        when measured again)."""
        key = tuple(float(v) for v in w)
        table = self._landmarks.get(key)
        if table is None:
            with self._lock:
                table = self._landmarks.get(key)
                if table is None:
                    ws, stamp = self._workspace()
                    self._local.ws[1] += LANDMARKS
                    table = landmarks(self.indptr, self.indices, self.costs(w), LANDMARKS, ws, stamp)
                    if len(self._landmarks) > 16:
                        self._landmarks.clear()
                    self._landmarks[key] = table
        return table

    def _workspace(self) -> tuple[tuple, int]:
        """This thread's search workspace and a fresh stamp (queries reuse the arrays; threads never share)."""
        ws = getattr(self._local, "ws", None)
        if ws is None:
            ws = self._local.ws = [new_workspace(self.n, len(self.indices)), 0]
        ws[1] += 1
        return ws[0], ws[1]

    def path_points(self, nodes: np.ndarray) -> np.ndarray:
        """(k, 2) points of a node path: each node's point with the edges' crossing points between them."""
        nodes = np.asarray(nodes, dtype=np.int64)
        if len(nodes) == 0:
            return np.zeros((0, 2))
        slots = edge_slots(self.indptr, self.indices, nodes)
        out = np.empty((2 * len(nodes) - 1, 2))
        out[0::2] = self.xy[nodes]
        out[1::2] = self.via[slots]
        return out[~np.isnan(out[:, 0])]


@jit
def edge_slots(indptr, indices, nodes):
    """(k - 1,) int64 CSR slot of each edge nodes[i] -> nodes[i + 1] of a path (-1 where there is none)."""
    out = np.full(max(nodes.shape[0] - 1, 0), -1, dtype=np.int64)
    for i in range(nodes.shape[0] - 1):
        u = nodes[i]
        for e in range(indptr[u], indptr[u + 1]):
            if indices[e] == nodes[i + 1]:
                out[i] = e
                break
    return out
