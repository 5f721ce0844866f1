"""Clearance: distance to the nearest obstacle edge through a uniform grid of edges (the boundary force's b(x)).

The kernels take the edges as one ``arrays.EdgeGrid`` ``C`` (the obstacle edges: ``NavMesh.arrays.edges``):

- ``E`` (ne, 4) float64: obstacle edges [x0, y0, x1, y1] (obstacle outlines and the bounds; free space on the
  left).
- ``EG`` (6,) float64: grid metadata [x0, y0, cell_w, cell_h, ncols, nrows] over the bounds.
- ``ES`` (ncells + 1,) int32 and ``EI`` int32: CSR lists of the edges meeting each cell.
"""

from __future__ import annotations

import math

from core.jitcache import jit

from .arrays import EdgeGrid
from .predicates import norm2d, orient


@jit(inline=True, noalloc=True)
def _point_seg(x, y, ax, ay, bx, by):
    """Squared distance from (x, y) to segment a-b and the closest point."""
    dx = bx - ax
    dy = by - ay
    den = dx * dx + dy * dy
    t = 0.0
    if den > 0.0:
        t = ((x - ax) * dx + (y - ay) * dy) / den
        t = min(max(t, 0.0), 1.0)
    cx = ax + t * dx
    cy = ay + t * dy
    return (x - cx) * (x - cx) + (y - cy) * (y - cy), cx, cy


@jit(noalloc=True)
def point_clearance(C: EdgeGrid, x, y):
    """(distance, nearest x, nearest y, edge index) from (x, y) to the nearest obstacle edge; (inf, nan, nan, -1)
    when there is none. Searches rings of cells around the point's cell until no closer edge can exist."""
    E, EG, ES, EI = C
    if E.shape[0] == 0:
        return math.inf, math.nan, math.nan, -1
    if not (math.isfinite(x) and math.isfinite(y)):
        return math.nan, math.nan, math.nan, -1
    ncols = int(EG[4])
    nrows = int(EG[5])
    ci = min(max(int(math.floor((x - EG[0]) / EG[2])), 0), ncols - 1)
    cj = min(max(int(math.floor((y - EG[1]) / EG[3])), 0), nrows - 1)
    hmin = min(EG[2], EG[3])
    best = math.inf
    bx = math.nan
    by = math.nan
    be = -1
    rmax = max(ncols, nrows)
    # Inside the grid, an edge not met in rings 0..r-1 lies wholly outside their block of cells: at least the
    # point's distance to the block's border away.
    inside = EG[0] <= x <= EG[0] + ncols * EG[2] and EG[1] <= y <= EG[1] + nrows * EG[3]
    for r in range(rmax + 1):
        if r >= 1:
            # Every cell of ring r is at least (r - 1) * hmin away (also for points outside the grid, by projection).
            bound = (r - 1) * hmin
            if inside:
                bound = min(x - (EG[0] + (ci - r + 1) * EG[2]), EG[0] + (ci + r) * EG[2] - x,
                            y - (EG[1] + (cj - r + 1) * EG[3]), EG[1] + (cj + r) * EG[3] - y)
            if bound > 0.0 and bound * bound > best:
                break
        for j in range(cj - r, cj + r + 1):
            if j < 0 or j >= nrows:
                continue
            step = 1 if (j == cj - r or j == cj + r) else 2 * r
            i = ci - r
            while i <= ci + r:
                if 0 <= i < ncols:
                    c = j * ncols + i
                    for m in range(ES[c], ES[c + 1]):
                        e = EI[m]
                        d2, cx, cy = _point_seg(x, y, E[e, 0], E[e, 1], E[e, 2], E[e, 3])
                        if d2 < best:
                            best = d2
                            bx = cx
                            by = cy
                            be = e
                i += step
    return math.sqrt(best), bx, by, be


@jit(noalloc=True)
def clearance_batch(C: EdgeGrid, pts, dist, near) -> None:
    """dist (n,) and near (n, 2) for points pts (n, 2): distance to and nearest point on the obstacle edges."""
    for i in range(pts.shape[0]):
        d, cx, cy, e = point_clearance(C, pts[i, 0], pts[i, 1])
        dist[i] = d
        near[i, 0] = cx
        near[i, 1] = cy


@jit(noalloc=True)
def _segments_meet(ax, ay, bx, by, cx, cy, dx, dy) -> bool:
    """Do the closed segments a-b and c-d intersect? (exact)"""
    o1 = orient(ax, ay, bx, by, cx, cy)
    o2 = orient(ax, ay, bx, by, dx, dy)
    o3 = orient(cx, cy, dx, dy, ax, ay)
    o4 = orient(cx, cy, dx, dy, bx, by)
    if o1 * o2 < 0 and o3 * o4 < 0:
        return True
    if o1 == 0 and min(ax, bx) <= cx <= max(ax, bx) and min(ay, by) <= cy <= max(ay, by):
        return True
    if o2 == 0 and min(ax, bx) <= dx <= max(ax, bx) and min(ay, by) <= dy <= max(ay, by):
        return True
    if o3 == 0 and min(cx, dx) <= ax <= max(cx, dx) and min(cy, dy) <= ay <= max(cy, dy):
        return True
    if o4 == 0 and min(cx, dx) <= bx <= max(cx, dx) and min(cy, dy) <= by <= max(cy, dy):
        return True
    return False


@jit(noalloc=True)
def segment_segment_distance(ax, ay, bx, by, cx, cy, dx, dy) -> float:
    """Distance between the closed segments a-b and c-d (0 when they meet)."""
    if _segments_meet(ax, ay, bx, by, cx, cy, dx, dy):
        return 0.0
    d1, _, _ = _point_seg(ax, ay, cx, cy, dx, dy)
    d2, _, _ = _point_seg(bx, by, cx, cy, dx, dy)
    d3, _, _ = _point_seg(cx, cy, ax, ay, bx, by)
    d4, _, _ = _point_seg(dx, dy, ax, ay, bx, by)
    return math.sqrt(min(min(d1, d2), min(d3, d4)))


@jit(noalloc=True)
def segment_clearance(C: EdgeGrid, px, py, qx, qy) -> float:
    """Smallest distance between segment p-q and any obstacle edge (0 when it touches or crosses one)."""
    E, EG, ES, EI = C
    if E.shape[0] == 0:
        return math.inf
    d0, _, _, _ = point_clearance(C, px, py)
    d1, _, _, _ = point_clearance(C, qx, qy)
    if math.isnan(d0) or math.isnan(d1):
        return math.nan
    best = min(d0, d1)
    if best == 0.0 or (px == qx and py == qy):
        return best
    ncols = int(EG[4])
    nrows = int(EG[5])
    pad = best
    i0 = min(max(int(math.floor((min(px, qx) - pad - EG[0]) / EG[2])), 0), ncols - 1)
    i1 = min(max(int(math.floor((max(px, qx) + pad - EG[0]) / EG[2])), 0), ncols - 1)
    j0 = min(max(int(math.floor((min(py, qy) - pad - EG[1]) / EG[3])), 0), nrows - 1)
    j1 = min(max(int(math.floor((max(py, qy) + pad - EG[1]) / EG[3])), 0), nrows - 1)
    # Only cells within `best` of the segment can hold a closer edge.
    half = 0.5 * norm2d(EG[2], EG[3])
    for j in range(j0, j1 + 1):
        ymid = EG[1] + (j + 0.5) * EG[3]
        for i in range(i0, i1 + 1):
            xmid = EG[0] + (i + 0.5) * EG[2]
            dline, _, _ = _point_seg(xmid, ymid, px, py, qx, qy)
            if math.sqrt(dline) - half > best:
                continue
            c = j * ncols + i
            for m in range(ES[c], ES[c + 1]):
                e = EI[m]
                d = segment_segment_distance(px, py, qx, qy, E[e, 0], E[e, 1], E[e, 2], E[e, 3])
                if d < best:
                    best = d
                    if best == 0.0:
                        return 0.0
    return best


@jit(noalloc=True)
def polyline_clearance(C: EdgeGrid, pts) -> float:
    """Smallest distance between the polyline pts (m, 2) and any obstacle edge."""
    if pts.shape[0] == 1:
        d, _, _, _ = point_clearance(C, pts[0, 0], pts[0, 1])
        return d
    best = math.inf
    for i in range(pts.shape[0] - 1):
        d = segment_clearance(C, pts[i, 0], pts[i, 1], pts[i + 1, 0], pts[i + 1, 1])
        if d < best:
            best = d
            if best == 0.0:
                break
    return best
