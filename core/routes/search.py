"""A* over a graph in CSR form (numba), shared by the grid, cdt and network planners.

The graph: ``indptr`` (n + 1,) int64 and ``indices`` (m,) int64 (the neighbours of node u are
``indices[indptr[u]:indptr[u + 1]]``), ``costs`` (m,) float64 the cost of each directed edge, ``xy`` (n, 2) float64
the position of each node. The query's start and goal are not graph nodes: the start reaches the source nodes
``src`` at costs ``src_cost`` and the goal is reached from the target nodes ``dst`` at costs ``dst_cost``.

The heuristic is ``hscale * |xy[u] - goal|``. It is admissible and consistent when every edge costs at least
``hscale`` times the distance between its nodes and every target cost at least ``hscale`` times the distance to the
goal: with terrain weights that is ``hscale = min weight``, which keeps A* exact when weights are below 1 (MIRAN
section 4 asks for weights > 0, not >= 1).

Landmarks (ALT, Goldberg and Harrelson, "Computing the shortest path: A* search meets graph theory", SODA 2005):
on an undirected graph (every edge's cost equal both ways), the cost d(L, v) from a landmark L to every node gives
the bound d(v, t) >= |d(L, v) - d(L, t)| by the triangle inequality, consistent like the straight-line one; the
larger of the bounds is still admissible and consistent, so A* stays exact and expands fewer nodes where weights
below 1 make the straight-line bound weak. With a single target node t, every route ends t -> goal at the
target's cost c_t, so the landmark bound plus c_t bounds the whole rest of the route (a constant added to a
consistent bound keeps it consistent): without it A* would expand every node whose key is within c_t of the
optimum. ``landmarks`` picks them farthest-first and ``node_costs`` is the Dijkstra that measures them. The
landmark bound is shrunk by LANDMARK_SHRINK so that rounding in the Dijkstra sums cannot make it exceed the A*'s own
sums. The table is measured once per (graph, weights) by core.routes.graph, so routes never depend on the queries
answered before.
"""

from __future__ import annotations

import numpy as np
from core.jitcache import jit
from core.kernels.paths import path_to
from core.kernels.heap import heap_pop, heap_push

from .search_arrays import Heuristic, SearchWork

# The landmark bound times this (1 - 1e-9): rounding in sums of edge costs is far below it.
LANDMARK_SHRINK = 1.0 - 1e-9
# No landmarks: a Heuristic's ``lm`` and ``lm_goal`` when only the straight-line bound is used.
NO_LANDMARKS = (np.zeros((0, 0)), np.zeros(0))


@jit
def astar(indptr, indices, costs, xy, hscale, src, src_cost, dst, dst_cost, goal):
    """Cheapest start -> goal path; returns (nodes (k,) int64 from first to last graph node, cost).

    An unreachable goal gives an empty node array and cost inf. ``goal`` is (2,) float64. Allocates its own
    workspace; ``astar_ws`` reuses one across queries.
    """
    ws = new_workspace(indptr.shape[0] - 1, indices.shape[0])
    H = Heuristic(xy, hscale, goal, np.zeros((xy.shape[0], 0)), np.zeros(0), 0.0)
    return astar_ws(indptr, indices, costs, H, src, src_cost, dst, dst_cost, ws, 1)


@jit
def new_workspace(n, m) -> SearchWork:
    """Per-node and heap arrays for ``astar_ws`` (``SearchWork``) of a graph of n nodes and m edges."""
    cap = m + n + 64
    return SearchWork(np.empty(n), np.empty(n, dtype=np.int64), np.zeros(n, dtype=np.int64),
                      np.zeros(n, dtype=np.int64), np.empty(cap), np.empty(cap, dtype=np.int64))


@jit(inline=True, noalloc=True)
def lower_bound(H: Heuristic, v: int) -> float:
    """The heuristic of node v: the straight-line bound, raised to the landmark bound plus the target's cost to the
    goal (module docstring)."""
    dx = H.xy[v, 0] - H.goal[0]
    dy = H.xy[v, 1] - H.goal[1]
    h = H.hscale * np.sqrt(dx * dx + dy * dy)
    if H.lm_goal.shape[0] > 0:
        a = 0.0
        for k in range(H.lm_goal.shape[0]):
            d = abs(H.lm[v, k] - H.lm_goal[k])
            if d > a:
                a = d
        a = a * LANDMARK_SHRINK + H.lm_tail
        if a > h:
            h = a
    return h


@jit
def astar_ws(indptr, indices, costs, H: Heuristic, src, src_cost, dst, dst_cost, ws: SearchWork, stamp):
    """``astar`` on a reused workspace ``ws`` with the heuristic ``H``: node u's ``g`` and ``parent`` count only
    where ``seen[u] == stamp`` and it is closed where ``closed[u] == stamp``, so a query costs what it visits, not
    the size of the graph. ``stamp`` must differ from every stamp used before on this workspace (and be > 0)."""
    g, parent, seen, closed, hk, hv = ws
    n = indptr.shape[0] - 1
    size = 0
    for k in range(src.shape[0]):
        u = src[k]
        if seen[u] != stamp or src_cost[k] < g[u]:
            seen[u] = stamp
            g[u] = src_cost[k]
            parent[u] = -1
            size = heap_push(hk, hv, size, g[u] + lower_bound(H, u), u)
    best = np.inf
    best_node = -1
    cap = hk.shape[0]
    while size > 0:
        u = hv[0]
        size = heap_pop(hk, hv, size)
        if u == n:
            break  # the virtual goal node: its key is the optimal cost
        if closed[u] == stamp:
            continue
        closed[u] = stamp
        for k in range(dst.shape[0]):
            if dst[k] == u:
                c = g[u] + dst_cost[k]
                if c < best:
                    best = c
                    best_node = u
                    size = heap_push(hk, hv, size, c, n)
        gu = g[u]
        if size + indptr[u + 1] - indptr[u] >= cap:
            break  # cannot happen with the workspace's capacity (m + n + 64); guards the heap arrays
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            if closed[v] == stamp:
                continue
            nv = gu + costs[e]
            if seen[v] != stamp or nv < g[v]:
                seen[v] = stamp
                g[v] = nv
                parent[v] = u
                size = heap_push(hk, hv, size, nv + lower_bound(H, v), v)
    if best_node < 0:
        return np.zeros(0, dtype=np.int64), np.inf
    return path_to(parent, best_node), best


@jit
def node_costs(indptr, indices, costs, src: int, ws: SearchWork, stamp: int, out) -> None:
    """Dijkstra from node ``src``: the cheapest cost to every node into ``out`` (n,) (inf where unreachable), on
    the reused workspace ``ws`` with a fresh ``stamp`` (as ``astar_ws``)."""
    g, parent, seen, closed, hk, hv = ws
    out[:] = np.inf
    out[src] = 0.0
    size = heap_push(hk, hv, 0, 0.0, src)
    while size > 0:
        u = hv[0]
        size = heap_pop(hk, hv, size)
        if closed[u] == stamp:
            continue
        closed[u] = stamp
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            nv = out[u] + costs[e]
            if closed[v] != stamp and nv < out[v]:
                out[v] = nv
                size = heap_push(hk, hv, size, nv, v)


@jit
def landmarks(indptr, indices, costs, count: int, ws: SearchWork, stamp: int):
    """(n, count) costs from ``count`` landmark nodes to every node, the landmarks picked farthest-first (each the
    node whose nearest landmark so far is the farthest, the first the node farthest from node 0; unreachable nodes
    are never picked), using stamps ``stamp .. stamp + count`` of ``ws``."""
    n = indptr.shape[0] - 1
    lm = np.empty((n, count))
    col = np.empty(n)
    near = np.full(n, np.inf)
    node_costs(indptr, indices, costs, 0, ws, stamp, col)
    for k in range(count):
        best = 0
        for v in range(n):
            d = col[v] if k == 0 else near[v]
            if np.isfinite(d) and d > (col[best] if k == 0 else near[best]):
                best = v
        node_costs(indptr, indices, costs, best, ws, stamp + k + 1, col)
        for v in range(n):
            lm[v, k] = col[v]
            if col[v] < near[v]:
                near[v] = col[v]
    return lm


def csr_from_edges(n: int, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR of the directed edges a[k] -> b[k]; returns (indptr (n+1,), indices (m,), order (m,)).

    ``order[j]`` is the input edge stored at CSR slot j, so per-edge data is reordered with ``data[order]``.
    """
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    order = np.argsort(a, kind="stable")
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(a, minlength=n), out=indptr[1:])
    return indptr, np.ascontiguousarray(b[order]), order
