"""The ECM's feature grid query: the obstacle point nearest to a point (IRM section 3.2's first step).

The ring edges of the obstacles are bucketed in a uniform grid (``EcmArrays.grid_*``: x0, y0, size, nx, ny,
gptr, gidx); the query scans the rings of cells around p outwards until no closer edge can lie further out.
"""

from __future__ import annotations

import numpy as np

from core.jitcache import jit

from .distance import segment_closest


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
