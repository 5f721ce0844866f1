"""A* over the ECM graph between the retractions of a start and a goal (Euclidean heuristic), skipping edges whose
clearance is below the one asked for."""

from __future__ import annotations

import numpy as np

from core.jitcache import jit
from core.kernels.heap import heap_pop, heap_push
from core.kernels.paths import path_between

from .retract import partial_clearance


@jit
def astar(vert_xy, edge_uv, edge_len, edge_minR, edge_ptr, ev_R, ev_s, adj_ptr, adj_edge, adj_other,
          ks, is_, ss, Rs, kg, ig, sg, Rg, sx, sy, gx, gy, clearance):
    """A* from the retraction of the start (edge ks, piece is_, arc length ss, clearance Rs) to that of the goal.

    Nodes 0..nv-1 are the ECM vertices, nv the start and nv+1 the goal. Returns (nodes, edges, found): the node
    path from start to goal and the ECM edge used to reach each node (-1 for the start, -2 for a direct step
    along one edge from start to goal).
    """
    nv = vert_xy.shape[0]
    S = nv
    G = nv + 1
    g = np.full(nv + 2, np.inf)
    parent = np.full(nv + 2, -1, dtype=np.int64)
    via = np.full(nv + 2, -1, dtype=np.int64)
    closed = np.zeros(nv + 2, dtype=np.bool_)
    cap = 4 * (edge_uv.shape[0] + nv) + 16
    hk = np.empty(cap, dtype=np.float64)
    hv = np.empty(cap, dtype=np.int64)
    nh = 0
    if Rs < clearance or Rg < clearance:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), False
    # Clearance of the partial edges: from the start retraction back to the edge's first vertex, and on to its last.
    min_back, min_fwd = partial_clearance(edge_ptr, ev_R, ks, is_, Rs)
    g_back, g_fwd = partial_clearance(edge_ptr, ev_R, kg, ig, Rg)
    g[S] = 0.0
    nh = heap_push(hk, hv, nh, np.hypot(gx - sx, gy - sy), S)
    while nh > 0:
        u = hv[0]
        nh = heap_pop(hk, hv, nh)
        if closed[u]:
            continue
        closed[u] = True
        if u == G:
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
            if kg == ks:
                lo = min(is_, ig)
                hi = max(is_, ig)
                m = min(Rs, Rg)
                for q in range(lo + 1, hi + 1):
                    m = min(m, ev_R[q])
                if m >= clearance:
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
