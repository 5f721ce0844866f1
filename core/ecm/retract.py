"""Retraction onto the medial axis (IRM section 3.2) and positions along the ECM's edges.

A point is retracted onto the medial axis by moving it away from its closest obstacle point until the closest point
would change: the ECM already knows, for every obstacle feature, the cells it bounds (``feat_cell``), so the
retraction is one closed-form bisector intersection along the point's spoke. ``partial_length`` and
``partial_clearance`` describe where a retraction lies on its edge, for the searches.
"""

from __future__ import annotations

import numpy as np

from core.jitcache import jit
from core.kernels.geometry import cross

from .annotate import interval_length
from .arrays import End
from .distance import feature_closest, ray_bisector, segment_closest
from .feature_grid import nearest_feature


@jit(inline=True)
def _in_cell(i, side, feat, px, py, cx, cy, d, ecm, tol):
    """Retraction of p through cell (i, side) whose obstacle feature is ``feat`` (closest point c at distance d):
    (ok, Sx, Sy, R)."""
    ev_B, ev_l, ev_r, ev_fl, ev_fr = ecm.ev_B, ecm.ev_l, ecm.ev_r, ecm.ev_fl, ecm.ev_fr
    xy, ring_next, normal = ecm.xy, ecm.ring_next, ecm.normal
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
        span = cross(ax, ay, bx, by)
        c0 = cross(ax, ay, ux, uy) * np.sqrt(bx * bx + by * by)
        c1 = cross(ux, uy, bx, by) * np.sqrt(ax * ax + ay * ay)
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
def retract(px, py, ecm, scale):
    """Retract p onto the medial axis: (event index i of the piece, Sx, Sy, R, clearance of p); i = -1 if p is not
    free. The retraction S lies on the piece between events i and i + 1; ``ecm`` is ``arrays.EcmArrays``, ``scale``
    the bounds' diagonal (tolerances).
    """
    ev_B, ev_R, ev_fl = ecm.ev_B, ecm.ev_R, ecm.ev_fl
    feat_ptr, feat_cell, xy, ring_next, ring_prev = ecm.feat_ptr, ecm.feat_cell, ecm.xy, ecm.ring_next, ecm.ring_prev
    d, cx, cy, feat, free = nearest_feature(xy, ring_next, ring_prev, ecm.grid_x0, ecm.grid_y0, ecm.grid_size,
                                            ecm.grid_nx, ecm.grid_ny, ecm.grid_ptr, ecm.grid_idx, px, py)
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
                ok, sx, sy, rho = _in_cell(i, side, f, px, py, cx, cy, d, ecm, t)
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
def retract_end(px, py, ecm, scale):
    """Retraction of p with its place on the ECM: (``arrays.End``, clearance of p); ``End.i`` = -1 (and the point
    p) when p is not free."""
    i, sx, sy, R, d = retract(px, py, ecm, scale)
    if i < 0:
        return End(i, -1, 0.0, sx, sy, R), d
    k = edge_of_event(ecm.edge_ptr, i)
    s = partial_length(i, sx, sy, ecm.ev_B, ecm.ev_l, ecm.ev_r, ecm.ev_s, ecm.ev_fl, ecm.ev_fr, ecm.xy,
                       ecm.ring_next, ecm.normal)
    return End(i, k, s, sx, sy, R), d


@jit
def closest_pair(i, sx, sy, ev_fl, ev_fr, xy, ring_next):
    """Left and right closest points of a point S on the piece after event i: (lx, ly, rx, ry)."""
    d, lx, ly = feature_closest(xy, ring_next, ev_fl[i], sx, sy)
    d, rx, ry = feature_closest(xy, ring_next, ev_fr[i], sx, sy)
    return lx, ly, rx, ry


@jit
def edge_of_event(edge_ptr, i):
    """The edge whose event rows hold row i (binary search)."""
    return np.searchsorted(edge_ptr, i, side="right") - 1


@jit
def partial_length(i, sx, sy, ev_B, ev_l, ev_r, ev_s, ev_fl, ev_fr, xy, ring_next, normal):
    """Arc length from the start of the edge holding event i to the point S on the piece after event i."""
    lx, ly, rx, ry = closest_pair(i, sx, sy, ev_fl, ev_fr, xy, ring_next)
    return ev_s[i] + interval_length(ev_fl[i], ev_fr[i], (ev_B[i, 0], ev_B[i, 1]), (sx, sy), (ev_l[i, 0], ev_l[i, 1]),
                                     (lx, ly), (ev_r[i, 0], ev_r[i, 1]), (rx, ry), xy, ring_next, normal)


@jit(noalloc=True)
def partial_clearance(edge_ptr, ev_R, k, i, R):
    """Least clearance of edge k from a retraction on its piece after event i (clearance R) back to the edge's first
    vertex, and on to its last: (back, forward)."""
    back = R
    for q in range(edge_ptr[k], i + 1):
        back = min(back, ev_R[q])
    fwd = R
    for q in range(i + 1, edge_ptr[k + 1]):
        fwd = min(fwd, ev_R[q])
    return back, fwd
