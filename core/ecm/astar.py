"""A* over the ECM graph between the retractions of a start and a goal (Euclidean heuristic), skipping edges whose
clearance is below the one asked for (ECM section II-C: the corridor follows the path of least medial-axis length).

The graph has the map's vertices 0..nv-1, the start's retraction nv and the goal's nv + 1. ``search.corridor_search``
shares the setup (``ends_clearance``) and the way a path is read back (``core.kernels.paths.path_between``).
"""

from __future__ import annotations

import numpy as np

from core.jitcache import jit
from core.kernels.heap import heap_pop, heap_push
from core.kernels.paths import path_between

from .retract import partial_clearance


@jit(inline=True)
def ends_clearance(ecm, start, goal, clearance):
    """Whether both ends keep ``clearance``, and the least clearance from each end to either end of its own edge:
    (ok, start back, start forward, goal back, goal forward) as ``retract.partial_clearance``."""
    if start.R < clearance or goal.R < clearance:
        return False, 0.0, 0.0, 0.0, 0.0
    s_back, s_fwd = partial_clearance(ecm.edge_ptr, ecm.ev_R, start.k, start.i, start.R)
    g_back, g_fwd = partial_clearance(ecm.edge_ptr, ecm.ev_R, goal.k, goal.i, goal.R)
    return True, s_back, s_fwd, g_back, g_fwd


@jit
def same_edge_clearance(ecm, start, goal):
    """Least clearance along the common edge between the two ends (meaningful when ``start.k == goal.k``)."""
    lo = min(start.i, goal.i)
    hi = max(start.i, goal.i)
    m = min(start.R, goal.R)
    for q in range(lo + 1, hi + 1):
        m = min(m, ecm.ev_R[q])
    return m


@jit(noalloc=True)
def pop_open(hk, hv, nh, closed):
    """Pop the heap until a node not closed yet comes out, and close it: (node, new size); node -1 once the heap is
    empty (A*'s lazy deletion: a node pushed again with a better key leaves its old entries behind)."""
    while nh > 0:
        u = hv[0]
        nh = heap_pop(hk, hv, nh)
        if not closed[u]:
            closed[u] = True
            return u, nh
    return -1, nh


@jit
def astar(ecm, work, start, goal, clearance):
    """A* from the retraction of the start (``arrays.End``) to that of the goal on ``work`` (``arrays.QueryWork``,
    reset). Returns (nodes, edges, found): the node path from start to goal and the ECM edge used to reach each
    node (-1 for the start, -2 for a direct step along one edge from start to goal).
    """
    vert_xy, edge_uv, edge_len, edge_minR = ecm.vert_xy, ecm.edge_uv, ecm.edge_len, ecm.edge_minR
    adj_ptr, adj_edge, adj_other = ecm.adj_ptr, ecm.adj_edge, ecm.adj_other
    g, parent, via, closed, hk, hv = work.best, work.parent, work.via, work.closed, work.hk, work.hv
    ks, ss, kg, sg = start.k, start.s, goal.k, goal.s
    gx, gy = goal.x, goal.y
    nv = vert_xy.shape[0]
    S = nv
    G = nv + 1
    nh = 0
    ok, min_back, min_fwd, g_back, g_fwd = ends_clearance(ecm, start, goal, clearance)
    if not ok:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), False
    g[S] = 0.0
    nh = heap_push(hk, hv, nh, np.hypot(gx - start.x, gy - start.y), S)
    while True:
        u, nh = pop_open(hk, hv, nh, closed)
        if u < 0 or u == G:
            break
        if u == S:
            # Start: along its edge to either end, or straight to the goal on the same edge.
            for end in range(2):
                w = edge_uv[ks, end]
                ok = min_back >= clearance if end == 0 else min_fwd >= clearance
                if not ok:
                    continue
                cost = ss if end == 0 else edge_len[ks] - ss
                if g[S] + cost < g[w]:
                    g[w] = g[S] + cost
                    parent[w] = S
                    via[w] = ks
                    nh = heap_push(hk, hv, nh, g[w] + np.hypot(gx - vert_xy[w, 0], gy - vert_xy[w, 1]), w)
            if kg == ks and same_edge_clearance(ecm, start, goal) >= clearance:
                cost = abs(sg - ss)
                if cost < g[G]:
                    g[G] = cost
                    parent[G] = S
                    via[G] = -2
                    nh = heap_push(hk, hv, nh, cost, G)
            continue
        for q in range(adj_ptr[u], adj_ptr[u + 1]):
            k = adj_edge[q]
            w = adj_other[q]
            if edge_minR[k] < clearance:
                continue
            cost = g[u] + edge_len[k]
            if cost < g[w]:
                g[w] = cost
                parent[w] = u
                via[w] = k
                nh = heap_push(hk, hv, nh, cost + np.hypot(gx - vert_xy[w, 0], gy - vert_xy[w, 1]), w)
        # Onto the goal's edge.
        if u == edge_uv[kg, 0] and g_back >= clearance:
            cost = g[u] + sg
            if cost < g[G]:
                g[G] = cost
                parent[G] = u
                via[G] = kg
                nh = heap_push(hk, hv, nh, cost, G)
        if u == edge_uv[kg, 1] and g_fwd >= clearance:
            cost = g[u] + edge_len[kg] - sg
            if cost < g[G]:
                g[G] = cost
                parent[G] = u
                via[G] = kg
                nh = heap_push(hk, hv, nh, cost, G)
    if not closed[G]:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), False
    nodes, edges = path_between(parent, via, S, G)
    return nodes, edges, True
