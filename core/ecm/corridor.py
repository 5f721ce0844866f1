"""Corridor queries on the ECM: retraction (IRM section 3.2), A* on the ECM graph, the Explicit Corridor (ECM II-C).

All kernels are numba functions over the arrays of ``ECM.kernel_args()``. A point is retracted onto the medial axis
by moving it away from its closest obstacle point until the closest point would change (IRM 3.2): the ECM already
knows, for every obstacle feature, the cells it bounds (``feat_cell``), so the retraction is one closed-form
bisector intersection along the point's spoke. The graph search runs A* (Euclidean heuristic) over the ECM's
vertices and two temporary vertices for the retracted start and goal, skipping edges whose clearance is below the
one asked for. The corridor is the sequence of event points (B_i, R_i, l_i, r_i) met along the path (ECM
Definition 2), each edge walked forward or backward (then left and right swap).
"""

from __future__ import annotations

import numpy as np
from core.jitcache import jit

from .annotate import interval_length
from .distance import feature_closest, ray_bisector, segment_closest


@jit
def nearest_feature(xy, ring_next, ring_prev, gx0, gy0, gsize, gnx, gny, gptr, gidx, px, py):
    """The obstacle point nearest to p over all ring edges (walls included): (distance, cx, cy, feature, free).

    ``free`` says whether p lies in the free space (closed): on the free side of its nearest edge, or in the
    normal cone of a convex obstacle vertex, and inside the bounds.
    """
    nv = xy.shape[0]
    ci = max(0, min(gnx - 1, int(np.floor((px - gx0) / gsize))))
    cj = max(0, min(gny - 1, int(np.floor((py - gy0) / gsize))))
    best = np.inf
    bx = 0.0
    by = 0.0
    feat = -1
    k = 0
    while True:
        if k >= 1 and (k - 1) * gsize > np.sqrt(best):
            break
        if k > gnx + gny:
            break
        for jj in range(cj - k, cj + k + 1):
            if jj < 0 or jj >= gny:
                continue
            step = 1 if (jj == cj - k or jj == cj + k or k == 0) else 2 * k
            ii = ci - k
            while ii <= ci + k:
                if 0 <= ii < gnx:
                    c = jj * gnx + ii
                    for q in range(gptr[c], gptr[c + 1]):
                        e = gidx[q]
                        f = ring_next[e]
                        d2, qx, qy, w = segment_closest(px, py, xy[e, 0], xy[e, 1], xy[f, 0], xy[f, 1])
                        if d2 < best:
                            best = d2
                            bx = qx
                            by = qy
                            feat = e if w == 0 else (f if w == 2 else nv + e)
                ii += step
        k += 1
    d = np.sqrt(best)
    if feat < 0:
        return d, bx, by, feat, False
    if d == 0.0:
        return d, bx, by, feat, True
    if feat >= nv:
        e = feat - nv
        f = ring_next[e]
        cr = (xy[f, 0] - xy[e, 0]) * (py - xy[e, 1]) - (xy[f, 1] - xy[e, 1]) * (px - xy[e, 0])
        return d, bx, by, feat, cr < 0.0
    # At a vertex: free where the vertex is convex for its obstacle (a left turn: the obstacle is on the left).
    v = feat
    a = ring_prev[v]
    b = ring_next[v]
    turn = (xy[v, 0] - xy[a, 0]) * (xy[b, 1] - xy[v, 1]) - (xy[v, 1] - xy[a, 1]) * (xy[b, 0] - xy[v, 0])
    return d, bx, by, feat, turn > 0.0


@jit
def _cross(ax, ay, bx, by):
    return ax * by - ay * bx


@jit
def _in_cell(i, side, feat, px, py, cx, cy, d, ev_B, ev_l, ev_r, ev_fl, ev_fr, xy, ring_next, normal, tol):
    """Retraction of p through cell (i, side) whose obstacle feature is ``feat``: (ok, Sx, Sy, R)."""
    nv = xy.shape[0]
    other = ev_fr[i] if side == 0 else ev_fl[i]
    if other < 0:
        return False, 0.0, 0.0, 0.0
    if feat < nv:
        vx = xy[feat, 0]
        vy = xy[feat, 1]
        if d <= 0.0:
            return False, 0.0, 0.0, 0.0
        ux = (px - vx) / d
        uy = (py - vy) / d
        ax = ev_B[i, 0] - vx
        ay = ev_B[i, 1] - vy
        bx = ev_B[i + 1, 0] - vx
        by = ev_B[i + 1, 1] - vy
        span = _cross(ax, ay, bx, by)
        c0 = _cross(ax, ay, ux, uy) * np.sqrt(bx * bx + by * by)
        c1 = _cross(ux, uy, bx, by) * np.sqrt(ax * ax + ay * ay)
        if span >= 0.0:
            inside = c0 >= -tol and c1 >= -tol
        else:
            inside = c0 <= tol and c1 <= tol
        # Both directions must also be on the spoke's side (not opposite).
        if ax * ux + ay * uy <= 0.0 and bx * ux + by * uy <= 0.0:
            inside = False
        if not inside:
            return False, 0.0, 0.0, 0.0
        rho = ray_bisector(xy, ring_next, normal, other, vx, vy, ux, uy)
        if not np.isfinite(rho) or rho < d - tol:
            return False, 0.0, 0.0, 0.0
        return True, vx + rho * ux, vy + rho * uy, rho
    e = feat - nv
    f = ring_next[e]
    ex = xy[f, 0] - xy[e, 0]
    ey = xy[f, 1] - xy[e, 1]
    ee = ex * ex + ey * ey
    if side == 0:
        u0 = ((ev_l[i, 0] - xy[e, 0]) * ex + (ev_l[i, 1] - xy[e, 1]) * ey) / ee
        u1 = ((ev_l[i + 1, 0] - xy[e, 0]) * ex + (ev_l[i + 1, 1] - xy[e, 1]) * ey) / ee
    else:
        u0 = ((ev_r[i, 0] - xy[e, 0]) * ex + (ev_r[i, 1] - xy[e, 1]) * ey) / ee
        u1 = ((ev_r[i + 1, 0] - xy[e, 0]) * ex + (ev_r[i + 1, 1] - xy[e, 1]) * ey) / ee
    u = ((cx - xy[e, 0]) * ex + (cy - xy[e, 1]) * ey) / ee
    slack = tol / np.sqrt(ee)
    if u < min(u0, u1) - slack or u > max(u0, u1) + slack:
        return False, 0.0, 0.0, 0.0
    nx = normal[e, 0]
    ny = normal[e, 1]
    rho = ray_bisector(xy, ring_next, normal, other, cx, cy, nx, ny)
    if not np.isfinite(rho) or rho < d - tol:
        return False, 0.0, 0.0, 0.0
    return True, cx + rho * nx, cy + rho * ny, rho


@jit
def retract(px, py, ev_B, ev_R, ev_l, ev_r, ev_fl, ev_fr, feat_ptr, feat_cell, xy, ring_next, ring_prev, normal,
            gx0, gy0, gsize, gnx, gny, gptr, gidx, scale):
    """Retract p onto the medial axis: (event index i of the piece, Sx, Sy, R, clearance of p); i = -1 if p is not
    free. The retraction S lies on the piece between events i and i + 1.
    """
    d, cx, cy, feat, free = nearest_feature(xy, ring_next, ring_prev, gx0, gy0, gsize, gnx, gny, gptr, gidx, px, py)
    if not free or feat < 0:
        return -1, px, py, 0.0, d
    tol = 1e-9 * scale
    nv = xy.shape[0]
    best_i = -1
    best_rho = np.inf
    bsx = px
    bsy = py
    # The cells of the nearest feature, then (at a vertex / edge end) of the features touching it.
    for attempt in range(3):
        for pass_feat in range(3):
            f = feat
            if pass_feat == 1:
                if feat < nv:
                    f = nv + feat
                else:
                    f = feat - nv
            elif pass_feat == 2:
                if feat < nv:
                    f = nv + ring_prev[feat]
                else:
                    f = ring_next[feat - nv]
            if pass_feat > 0 and attempt == 0:
                continue
            for q in range(feat_ptr[f], feat_ptr[f + 1]):
                cell = feat_cell[q]
                i = cell // 2
                side = cell % 2
                t = tol * (1.0 + 1e3 * attempt)
                ok, sx, sy, rho = _in_cell(i, side, f, px, py, cx, cy, d, ev_B, ev_l, ev_r, ev_fl, ev_fr, xy,
                                           ring_next, normal, t)
                if ok and rho < best_rho:
                    best_rho = rho
                    best_i = i
                    bsx = sx
                    bsy = sy
        if best_i >= 0:
            return best_i, bsx, bsy, best_rho, d
    # Fallback (the map lost an edge around p): the piece whose chord is nearest.
    bd = np.inf
    for i in range(ev_B.shape[0] - 1):
        if ev_fl[i] < 0:
            continue
        d2, qx, qy, w = segment_closest(px, py, ev_B[i, 0], ev_B[i, 1], ev_B[i + 1, 0], ev_B[i + 1, 1])
        if d2 < bd:
            bd = d2
            best_i = i
            bsx = qx
            bsy = qy
    if best_i < 0:
        return -1, px, py, 0.0, d
    return best_i, bsx, bsy, min(ev_R[best_i], ev_R[best_i + 1]), d


@jit
def closest_pair(i, sx, sy, ev_fl, ev_fr, xy, ring_next):
    """Left and right closest points of a point S on the piece after event i: (lx, ly, rx, ry)."""
    d, lx, ly = feature_closest(xy, ring_next, ev_fl[i], sx, sy)
    d, rx, ry = feature_closest(xy, ring_next, ev_fr[i], sx, sy)
    return lx, ly, rx, ry


@jit
def _heap_push(hk, hv, n, key, val):
    i = n
    hk[i] = key
    hv[i] = val
    while i > 0:
        p = (i - 1) // 2
        if hk[p] <= hk[i]:
            break
        hk[p], hk[i] = hk[i], hk[p]
        hv[p], hv[i] = hv[i], hv[p]
        i = p
    return n + 1


@jit
def _heap_pop(hk, hv, n):
    key = hk[0]
    val = hv[0]
    n -= 1
    hk[0] = hk[n]
    hv[0] = hv[n]
    i = 0
    while True:
        l = 2 * i + 1
        r = l + 1
        m = i
        if l < n and hk[l] < hk[m]:
            m = l
        if r < n and hk[r] < hk[m]:
            m = r
        if m == i:
            break
        hk[m], hk[i] = hk[i], hk[m]
        hv[m], hv[i] = hv[i], hv[m]
        i = m
    return key, val, n


@jit
def edge_of_event(edge_ptr, i):
    """The edge whose event rows hold row i (binary search)."""
    return np.searchsorted(edge_ptr, i, side="right") - 1


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
    a = edge_ptr[ks]
    b = edge_ptr[ks + 1]
    min_back = Rs
    for q in range(a, is_ + 1):
        min_back = min(min_back, ev_R[q])
    min_fwd = Rs
    for q in range(is_ + 1, b):
        min_fwd = min(min_fwd, ev_R[q])
    ga = edge_ptr[kg]
    gb = edge_ptr[kg + 1]
    g_back = Rg
    for q in range(ga, ig + 1):
        g_back = min(g_back, ev_R[q])
    g_fwd = Rg
    for q in range(ig + 1, gb):
        g_fwd = min(g_fwd, ev_R[q])
    g[S] = 0.0
    nh = _heap_push(hk, hv, nh, np.hypot(gx - sx, gy - sy), S)
    while nh > 0:
        f, u, nh = _heap_pop(hk, hv, nh)
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
                    nh = _heap_push(hk, hv, nh, g[w] + np.hypot(gx - vert_xy[w, 0], gy - vert_xy[w, 1]), w)
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
                        nh = _heap_push(hk, hv, nh, cost, G)
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
                nh = _heap_push(hk, hv, nh, cost + np.hypot(gx - vert_xy[w, 0], gy - vert_xy[w, 1]), w)
        # Onto the goal's edge.
        if u == edge_uv[kg, 0] and g_back >= clearance:
            cost = g[u] + sg
            if cost < g[G]:
                g[G] = cost
                parent[G] = u
                via[G] = kg
                nh = _heap_push(hk, hv, nh, cost, G)
        if u == edge_uv[kg, 1] and g_fwd >= clearance:
            cost = g[u] + edge_len[kg] - sg
            if cost < g[G]:
                g[G] = cost
                parent[G] = u
                via[G] = kg
                nh = _heap_push(hk, hv, nh, cost, G)
    if not closed[G]:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), False
    n = 1
    w = G
    while w != S:
        w = parent[w]
        n += 1
    nodes = np.empty(n, dtype=np.int64)
    edges = np.empty(n, dtype=np.int64)
    w = G
    for q in range(n - 1, -1, -1):
        nodes[q] = w
        edges[q] = via[w]
        if w != S:
            w = parent[w]
    return nodes, edges, True


@jit
def _push_disk(cB, cR, cl, cr, cf, n, bx, by, R, lx, ly, rx, ry, fl, fr):
    if n >= cB.shape[0]:
        m = 2 * cB.shape[0]
        nB = np.empty((m, 2))
        nB[:n] = cB[:n]
        nR = np.empty(m)
        nR[:n] = cR[:n]
        nl = np.empty((m, 2))
        nl[:n] = cl[:n]
        nr = np.empty((m, 2))
        nr[:n] = cr[:n]
        nf = np.empty((m, 2), dtype=np.int64)
        nf[:n] = cf[:n]
        cB, cR, cl, cr, cf = nB, nR, nl, nr, nf
    cB[n, 0] = bx
    cB[n, 1] = by
    cR[n] = R
    cl[n, 0] = lx
    cl[n, 1] = ly
    cr[n, 0] = rx
    cr[n, 1] = ry
    cf[n, 0] = fl
    cf[n, 1] = fr
    return cB, cR, cl, cr, cf, n + 1


@jit
def _walk_edge(cB, cR, cl, cr, cf, n, k, forward, first, last, ev_B, ev_R, ev_l, ev_r, ev_fl, ev_fr):
    """Append the events first..last (inclusive, in walking order) of edge k; the piece after each is recorded."""
    if forward:
        for q in range(first, last + 1):
            fl = ev_fl[q] if q < last else -1
            fr = ev_fr[q] if q < last else -1
            cB, cR, cl, cr, cf, n = _push_disk(cB, cR, cl, cr, cf, n, ev_B[q, 0], ev_B[q, 1], ev_R[q], ev_l[q, 0],
                                               ev_l[q, 1], ev_r[q, 0], ev_r[q, 1], fl, fr)
    else:
        for q in range(first, last - 1, -1):
            fl = ev_fr[q - 1] if q > last else -1
            fr = ev_fl[q - 1] if q > last else -1
            cB, cR, cl, cr, cf, n = _push_disk(cB, cR, cl, cr, cf, n, ev_B[q, 0], ev_B[q, 1], ev_R[q], ev_r[q, 0],
                                               ev_r[q, 1], ev_l[q, 0], ev_l[q, 1], fl, fr)
    return cB, cR, cl, cr, cf, n


@jit
def explicit_corridor(nodes, edges, edge_uv, edge_ptr, ev_B, ev_R, ev_l, ev_r, ev_fl, ev_fr, xy, ring_next,
                      ks, is_, ss, Sx, Sy, Rs, kg, ig, sg, Gx, Gy, Rg):
    """The Explicit Corridor (B_i, R_i, l_i, r_i) along an A* path, with the features of each piece.

    Returns (B (n, 2), R (n,), l (n, 2), r (n, 2), f (n, 2) int64). ``f[i]`` holds the left and right obstacle
    features of the curve from disk i to disk i + 1, or (-1, -1) where disks i and i + 1 share their centre (a
    Voronoi vertex where the corridor turns onto another edge: its boundary is an arc of that disk).
    """
    cap = 64
    cB = np.empty((cap, 2))
    cR = np.empty(cap)
    cl = np.empty((cap, 2))
    cr = np.empty((cap, 2))
    cf = np.empty((cap, 2), dtype=np.int64)
    n = 0
    m = nodes.shape[0]
    # Direct step along one edge.
    if m == 2 and edges[1] == -2:
        lsx, lsy, rsx, rsy = closest_pair(is_, Sx, Sy, ev_fl, ev_fr, xy, ring_next)
        lgx, lgy, rgx, rgy = closest_pair(ig, Gx, Gy, ev_fl, ev_fr, xy, ring_next)
        if is_ < ig or (is_ == ig and ss <= sg):
            cB, cR, cl, cr, cf, n = _push_disk(cB, cR, cl, cr, cf, n, Sx, Sy, Rs, lsx, lsy, rsx, rsy, ev_fl[is_],
                                               ev_fr[is_])
            if ig > is_:
                cB, cR, cl, cr, cf, n = _walk_edge(cB, cR, cl, cr, cf, n, ks, True, is_ + 1, ig, ev_B, ev_R, ev_l,
                                                   ev_r, ev_fl, ev_fr)
                cf[n - 1, 0] = ev_fl[ig]
                cf[n - 1, 1] = ev_fr[ig]
            cB, cR, cl, cr, cf, n = _push_disk(cB, cR, cl, cr, cf, n, Gx, Gy, Rg, lgx, lgy, rgx, rgy, -1, -1)
        else:
            cB, cR, cl, cr, cf, n = _push_disk(cB, cR, cl, cr, cf, n, Sx, Sy, Rs, rsx, rsy, lsx, lsy, ev_fr[is_],
                                               ev_fl[is_])
            cB, cR, cl, cr, cf, n = _walk_edge(cB, cR, cl, cr, cf, n, ks, False, is_, ig + 1, ev_B, ev_R, ev_l,
                                               ev_r, ev_fl, ev_fr)
            cf[n - 1, 0] = ev_fr[ig]
            cf[n - 1, 1] = ev_fl[ig]
            cB, cR, cl, cr, cf, n = _push_disk(cB, cR, cl, cr, cf, n, Gx, Gy, Rg, rgx, rgy, lgx, lgy, -1, -1)
        return cB[:n].copy(), cR[:n].copy(), cl[:n].copy(), cr[:n].copy(), cf[:n].copy()
    # Start: from S along edge ks to the first vertex of the path.
    lsx, lsy, rsx, rsy = closest_pair(is_, Sx, Sy, ev_fl, ev_fr, xy, ring_next)
    w1 = nodes[1]
    a = edge_ptr[ks]
    b = edge_ptr[ks + 1]
    if w1 == edge_uv[ks, 1]:
        cB, cR, cl, cr, cf, n = _push_disk(cB, cR, cl, cr, cf, n, Sx, Sy, Rs, lsx, lsy, rsx, rsy, ev_fl[is_],
                                           ev_fr[is_])
        cB, cR, cl, cr, cf, n = _walk_edge(cB, cR, cl, cr, cf, n, ks, True, is_ + 1, b - 1, ev_B, ev_R, ev_l, ev_r,
                                           ev_fl, ev_fr)
    else:
        cB, cR, cl, cr, cf, n = _push_disk(cB, cR, cl, cr, cf, n, Sx, Sy, Rs, rsx, rsy, lsx, lsy, ev_fr[is_],
                                           ev_fl[is_])
        cB, cR, cl, cr, cf, n = _walk_edge(cB, cR, cl, cr, cf, n, ks, False, is_, a, ev_B, ev_R, ev_l, ev_r, ev_fl,
                                           ev_fr)
    # Whole edges between vertices.
    for q in range(2, m - 1):
        k = edges[q]
        u = nodes[q - 1]
        a = edge_ptr[k]
        b = edge_ptr[k + 1]
        if u == edge_uv[k, 0]:
            cB, cR, cl, cr, cf, n = _walk_edge(cB, cR, cl, cr, cf, n, k, True, a, b - 1, ev_B, ev_R, ev_l, ev_r,
                                               ev_fl, ev_fr)
        else:
            cB, cR, cl, cr, cf, n = _walk_edge(cB, cR, cl, cr, cf, n, k, False, b - 1, a, ev_B, ev_R, ev_l, ev_r,
                                               ev_fl, ev_fr)
    # Goal: from the last vertex along edge kg to G.
    u = nodes[m - 2]
    lgx, lgy, rgx, rgy = closest_pair(ig, Gx, Gy, ev_fl, ev_fr, xy, ring_next)
    a = edge_ptr[kg]
    b = edge_ptr[kg + 1]
    if u == edge_uv[kg, 0]:
        cB, cR, cl, cr, cf, n = _walk_edge(cB, cR, cl, cr, cf, n, kg, True, a, ig, ev_B, ev_R, ev_l, ev_r, ev_fl,
                                           ev_fr)
        cf[n - 1, 0] = ev_fl[ig]
        cf[n - 1, 1] = ev_fr[ig]
        cB, cR, cl, cr, cf, n = _push_disk(cB, cR, cl, cr, cf, n, Gx, Gy, Rg, lgx, lgy, rgx, rgy, -1, -1)
    else:
        cB, cR, cl, cr, cf, n = _walk_edge(cB, cR, cl, cr, cf, n, kg, False, b - 1, ig + 1, ev_B, ev_R, ev_l, ev_r,
                                           ev_fl, ev_fr)
        cf[n - 1, 0] = ev_fr[ig]
        cf[n - 1, 1] = ev_fl[ig]
        cB, cR, cl, cr, cf, n = _push_disk(cB, cR, cl, cr, cf, n, Gx, Gy, Rg, rgx, rgy, lgx, lgy, -1, -1)
    return cB[:n].copy(), cR[:n].copy(), cl[:n].copy(), cr[:n].copy(), cf[:n].copy()


@jit
def partial_length(i, sx, sy, ev_B, ev_l, ev_r, ev_s, ev_fl, ev_fr, xy, ring_next, normal):
    """Arc length from the start of the edge holding event i to the point S on the piece after event i."""
    lx, ly, rx, ry = closest_pair(i, sx, sy, ev_fl, ev_fr, xy, ring_next)
    return ev_s[i] + interval_length(ev_fl[i], ev_fr[i], ev_B[i, 0], ev_B[i, 1], sx, sy, ev_l[i, 0], ev_l[i, 1], lx,
                                     ly, ev_r[i, 0], ev_r[i, 1], rx, ry, xy, ring_next, normal)
