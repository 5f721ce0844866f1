"""Exact distances and closest obstacle features (numba kernels over the flat arrays of ``Sites``).

A *feature* is a ring vertex or a ring edge, coded as one integer: ``f < nv`` is vertex f, ``f >= nv`` is ring
edge ``f - nv`` (from vertex ``f - nv`` to ``ring_next[f - nv]``). The closest point of a point outside the
obstacles lies in the interior of an edge or on a vertex; which one decides the shape of the Voronoi edge between
two event points (ECM section II-B: line segment or parabolic arc).
"""

from __future__ import annotations

import numpy as np
from core.jitcache import jit


@jit
def segment_closest(px, py, ax, ay, bx, by):
    """Closest point of segment ab to p: (squared distance, qx, qy, where) with where 0 = a, 1 = interior, 2 = b.

    The end points are returned exactly (not as ``a + 1.0 * (b - a)``) so that two sites sharing a vertex give
    bit-identical distances there.
    """
    ex = bx - ax
    ey = by - ay
    ee = ex * ex + ey * ey
    t = ((px - ax) * ex + (py - ay) * ey) / ee if ee > 0.0 else 0.0
    if t <= 0.0:
        qx, qy, w = ax, ay, 0
    elif t >= 1.0:
        qx, qy, w = bx, by, 2
    else:
        qx, qy, w = ax + t * ex, ay + t * ey, 1
    dx = px - qx
    dy = py - qy
    return dx * dx + dy * dy, qx, qy, w


@jit
def convex_distance(piece_ptr, piece_vert, xy, s, px, py):
    """Distance from p to convex site s (0 inside); the quantity the GPU renders for site s."""
    a = piece_ptr[s]
    b = piece_ptr[s + 1]
    n = b - a
    best = np.inf
    inside = n >= 3
    for k in range(n):
        i = piece_vert[a + (k + n - 1) % n]
        j = piece_vert[a + k]
        ax, ay = xy[i, 0], xy[i, 1]
        bx, by = xy[j, 0], xy[j, 1]
        if (bx - ax) * (py - ay) - (by - ay) * (px - ax) < 0.0:
            inside = False
        d2, qx, qy, w = segment_closest(px, py, ax, ay, bx, by)
        if d2 < best:
            best = d2
    if inside:
        return 0.0
    return np.sqrt(best)


@jit
def site_closest(real_ptr, real_edge, xy, ring_next, s, px, py):
    """Closest point of p on the real (ring) edges of site s: (distance, cx, cy, feature)."""
    nv = xy.shape[0]
    best = np.inf
    cx = 0.0
    cy = 0.0
    feat = -1
    for k in range(real_ptr[s], real_ptr[s + 1]):
        e = real_edge[k]
        f = ring_next[e]
        d2, qx, qy, w = segment_closest(px, py, xy[e, 0], xy[e, 1], xy[f, 0], xy[f, 1])
        if d2 < best:
            best = d2
            cx = qx
            cy = qy
            if w == 0:
                feat = e
            elif w == 2:
                feat = f
            else:
                feat = nv + e
    return np.sqrt(best), cx, cy, feat


@jit
def set_closest(real_ptr, real_edge, xy, ring_next, sites, n, px, py):
    """Closest point of p on the union of sites ``sites[:n]``: (distance, cx, cy, feature)."""
    best = np.inf
    cx = 0.0
    cy = 0.0
    feat = -1
    for k in range(n):
        d, qx, qy, f = site_closest(real_ptr, real_edge, xy, ring_next, sites[k], px, py)
        if d < best:
            best = d
            cx = qx
            cy = qy
            feat = f
    return best, cx, cy, feat


@jit
def feature_closest(xy, ring_next, feat, px, py):
    """Closest point of p on one feature (a vertex, or the whole ring edge): (distance, cx, cy)."""
    nv = xy.shape[0]
    if feat < nv:
        cx = xy[feat, 0]
        cy = xy[feat, 1]
    else:
        e = feat - nv
        f = ring_next[e]
        d2, cx, cy, w = segment_closest(px, py, xy[e, 0], xy[e, 1], xy[f, 0], xy[f, 1])
    return np.hypot(px - cx, py - cy), cx, cy


@jit
def ray_bisector(xy, ring_next, normal, feat, ox, oy, ux, uy):
    """Distance t >= 0 along the ray o + t u (u a unit vector) at which the point is as far from ``feat`` as from o.

    Closed forms (ECM section II-B): against a vertex w, |o + t u - w| = t gives t = |o - w|^2 / (2 u.(w - o));
    against the line of edge e with free normal n through a, n.(o + t u - a) = t gives t = n.(o - a) / (1 - n.u).
    Returns inf where the ray never meets the bisector.
    """
    nv = xy.shape[0]
    if feat < nv:
        wx = xy[feat, 0] - ox
        wy = xy[feat, 1] - oy
        den = 2.0 * (ux * wx + uy * wy)
        if den <= 0.0:
            return np.inf
        return (wx * wx + wy * wy) / den
    e = feat - nv
    nx = normal[e, 0]
    ny = normal[e, 1]
    h = nx * (ox - xy[e, 0]) + ny * (oy - xy[e, 1])
    den = 1.0 - (nx * ux + ny * uy)
    if den <= 0.0:
        return np.inf
    return h / den
