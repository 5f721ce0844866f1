"""The Explicit Corridor (ECM II-C) along a path of the ECM graph.

The corridor is the sequence of event points (B_i, R_i, l_i, r_i) met along a path of ``astar`` (ECM Definition 2),
each edge walked forward or backward (then left and right swap), framed by the disks of the start and goal
retractions. The other query phases: ``feature_grid`` (nearest obstacle point), ``retract`` (onto the medial axis),
``astar`` and ``search`` (the graph searches).
"""

from __future__ import annotations

import numpy as np

from core.jitcache import jit

from .retract import closest_pair


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
