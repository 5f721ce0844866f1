"""Weighted length of a visible segment from its crossings of terrain boundaries (MIRAN 2013, section 3.3).

MIRAN weighs every candidate attraction point by omega = sum_T w(T) l^T / d_ij, where l^T is the length of x -> q
on terrain type T; the segment is visible (it comes from a visible interval), so only the boundaries between
terrain types cut it. Walking the triangulation crosses every triangle on the way, and where terrain polygons are
long and thin (sidewalks) those are many; the boundaries between terrain types are few. This kernel takes the
terrain boundary edges from a uniform grid (``terrain_edges`` of the mesh: free triangle edges with a different
terrain type on each side, [left, right] types in ``sides``), finds the ones x -> q properly crosses with exact
orientation signs, sorts the crossings along the segment and adds w(T) times the length of each piece, starting
from the type of the triangle x lies in.

Where the crossings do not decide the terrain alone, the cost is NaN and the caller walks the triangulation
instead (``segments.walk_cost``): x on a terrain boundary, the segment through a boundary vertex or along a
boundary edge, crossings that disagree with the type they leave (float order of nearly coincident crossings), or
more than ``MAX_CROSSINGS`` crossings. Crossings at q itself change nothing and are left out.
"""

from __future__ import annotations

import math

import numpy as np
from core.jitcache import jit

from .arrays import EdgeGrid
from .predicates import norm2d, orient
from .shadows import collect_edges, edge_misses_box
from .visibility import sort_rows

# Crossings one segment may collect before the triangle walk takes over.
MAX_CROSSINGS = 128


@jit
def crossing_work(n_edges: int) -> tuple:
    """Work arrays of ``crossing_cost``: the window's edges (n_edges,) int64, the edge stamp (n_edges + 1,) int64
    and the crossings (MAX_CROSSINGS, 3) float64 [t, type left, type entered]. One set per thread."""
    return (np.empty(max(n_edges, 1), dtype=np.int64), np.zeros(n_edges + 1, dtype=np.int64),
            np.empty((MAX_CROSSINGS, 3), dtype=np.float64))


@jit(noalloc=True)
def window_terrain_edges(grid: EdgeGrid, xmin, ymin, xmax, ymax, work) -> int:
    """Collect the terrain boundary edges meeting the box into ``work[0]``; returns their number. ``grid`` is
    ``EdgeGrid(TE, TG, TS, TI)``, the terrain boundaries in their grid."""
    return collect_edges(grid, xmin, ymin, xmax, ymax, work[0], work[1])


@jit(noalloc=True)
def crossing_cost(TE, TD, nc, x, y, type_x, qx, qy, weights, work) -> float:
    """sum_T w(T) l^T of the visible segment x -> q from its terrain boundary crossings, or NaN where they do not
    decide it (see the module docstring). ``work[0][:nc]`` are the boundary edges that may meet the segment
    (``window_terrain_edges`` over a box containing it); ``type_x`` is the terrain type of x's triangle; ``TD``
    (nte, 2) int32 holds each edge's [left, right] terrain types."""
    cand = work[0]
    cr = work[2]
    dx = qx - x
    dy = qy - y
    length = norm2d(dx, dy)
    if length == 0.0:
        return 0.0
    xmin = min(x, qx)
    xmax = max(x, qx)
    ymin = min(y, qy)
    ymax = max(y, qy)
    k = 0
    for c in range(nc):
        e = cand[c]
        if edge_misses_box(TE, e, xmin, ymin, xmax, ymax):
            continue
        px, py, ex, ey = TE[e, 0], TE[e, 1], TE[e, 2], TE[e, 3]
        o1 = orient(x, y, qx, qy, px, py)
        o2 = orient(x, y, qx, qy, ex, ey)
        if o1 * o2 > 0:
            continue  # both ends on one side of the segment's line
        ox = orient(px, py, ex, ey, x, y)
        oq = orient(px, py, ex, ey, qx, qy)
        if ox * oq > 0:
            continue  # the segment lies on one side of the edge's line
        if o1 == 0 and o2 == 0:
            return math.nan  # along a boundary edge (the boxes meet, so the collinear pieces touch)
        if oq == 0:
            continue  # the edge meets the segment at q: a crossing there changes nothing
        if ox == 0 or o1 == 0 or o2 == 0:
            return math.nan  # x on a boundary, or the segment through a boundary vertex
        if k >= cr.shape[0]:
            return math.nan
        den = dx * (ey - py) - dy * (ex - px)
        cr[k, 0] = ((px - x) * (ey - py) - (py - y) * (ex - px)) / den
        # x left of p -> e: the segment leaves the left type for the right one.
        cr[k, 1] = TD[e, 0] if ox > 0 else TD[e, 1]
        cr[k, 2] = TD[e, 1] if ox > 0 else TD[e, 0]
        k += 1
    sort_rows(cr, k)
    cost = 0.0
    cur = type_x
    prev = 0.0
    for i in range(k):
        if int(cr[i, 1]) != cur:
            return math.nan  # crossings out of order (nearly coincident): the walk decides
        t = min(max(cr[i, 0], prev), 1.0)
        cost += weights[cur] * (t - prev)
        prev = t
        cur = int(cr[i, 2])
    cost += weights[cur] * (1.0 - prev)
    return cost * length
