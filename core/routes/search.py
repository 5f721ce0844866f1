"""A* over a graph in CSR form (numba), shared by the grid, cdt and network planners.

The graph: ``indptr`` (n + 1,) int64 and ``indices`` (m,) int64 (the neighbours of node u are
``indices[indptr[u]:indptr[u + 1]]``), ``costs`` (m,) float64 the cost of each directed edge, ``xy`` (n, 2) float64
the position of each node. The query's start and goal are not graph nodes: the start reaches the source nodes
``src`` at costs ``src_cost`` and the goal is reached from the target nodes ``dst`` at costs ``dst_cost``.

The heuristic is ``hscale * |xy[u] - goal|``. It is admissible and consistent when every edge costs at least
``hscale`` times the distance between its nodes and every target cost at least ``hscale`` times the distance to the
goal: with terrain weights that is ``hscale = min weight``, which keeps A* exact when weights are below 1 (MIRAN
section 4 asks for weights > 0, not >= 1).
"""

from __future__ import annotations

import numpy as np
from core.jitcache import jit
from core.kernels.paths import path_to
from core.kernels.heap import heap_pop, heap_push

from .search_arrays import SearchWork


@jit
def astar(indptr, indices, costs, xy, hscale, src, src_cost, dst, dst_cost, goal):
    """Cheapest start -> goal path; returns (nodes (k,) int64 from first to last graph node, cost).

    An unreachable goal gives an empty node array and cost inf. ``goal`` is (2,) float64. Allocates its own
    workspace; ``astar_ws`` reuses one across queries.
    """
    ws = new_workspace(indptr.shape[0] - 1, indices.shape[0])
    return astar_ws(indptr, indices, costs, xy, hscale, src, src_cost, dst, dst_cost, goal, ws, 1)


@jit
def new_workspace(n, m) -> SearchWork:
    """Per-node and heap arrays for ``astar_ws`` (``SearchWork``) of a graph of n nodes and m edges."""
    cap = m + n + 64
    return SearchWork(np.empty(n), np.empty(n, dtype=np.int64), np.zeros(n, dtype=np.int64),
                      np.zeros(n, dtype=np.int64), np.empty(cap), np.empty(cap, dtype=np.int64))


@jit
def astar_ws(indptr, indices, costs, xy, hscale, src, src_cost, dst, dst_cost, goal, ws: SearchWork, stamp):
    """``astar`` on a reused workspace ``ws``: node u's ``g`` and ``parent`` count only where ``seen[u] == stamp``
    and it is closed where ``closed[u] == stamp``, so a query costs what it visits, not the size of the graph.
    ``stamp`` must differ from every stamp used before on this workspace (and be > 0)."""
    g, parent, seen, closed, hk, hv = ws
    n = indptr.shape[0] - 1
    size = 0
    gx = goal[0]
    gy = goal[1]
    for k in range(src.shape[0]):
        u = src[k]
        if seen[u] != stamp or src_cost[k] < g[u]:
            seen[u] = stamp
            g[u] = src_cost[k]
            parent[u] = -1
            dx = xy[u, 0] - gx
            dy = xy[u, 1] - gy
            size = heap_push(hk, hv, size, g[u] + hscale * np.sqrt(dx * dx + dy * dy), u)
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
                dx = xy[v, 0] - gx
                dy = xy[v, 1] - gy
                size = heap_push(hk, hv, size, nv + hscale * np.sqrt(dx * dx + dy * dy), v)
    if best_node < 0:
        return np.zeros(0, dtype=np.int64), np.inf
    return path_to(parent, best_node), best


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
