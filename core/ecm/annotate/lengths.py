"""Arc length of a piece of a Voronoi edge between two consecutive events (ECM section II-B: a line segment
between two vertices or two edges, a parabolic arc between a vertex and an edge).

A piece is given by its left and right features ``fl``, ``fr`` (``distance`` coding), its two event points
``b0``, ``b1`` and the left and right closest points at both, ``l0``, ``l1``, ``r0``, ``r1``, each an (x, y) tuple.
"""

from __future__ import annotations

import numpy as np
from core.jitcache import jit


@jit(noalloc=True)
def parabola_length(v, e, u0, u1, xy, ring_next, normal, pieces):
    """Length of the bisector of vertex v and edge e between feet at parameters u0 and u1 along e (a polyline of
    ``pieces`` chords through points of the parabola)."""
    ax = xy[e, 0]
    ay = xy[e, 1]
    f = ring_next[e]
    dx = xy[f, 0] - ax
    dy = xy[f, 1] - ay
    nx = normal[e, 0]
    ny = normal[e, 1]
    total = 0.0
    px = 0.0
    py = 0.0
    for k in range(pieces + 1):
        u = u0 + (u1 - u0) * k / pieces
        fx = ax + u * dx
        fy = ay + u * dy
        wx = xy[v, 0] - fx
        wy = xy[v, 1] - fy
        # The point above foot F at height rho is as far from v: |F + rho n - v| = rho.
        den = 2.0 * (nx * wx + ny * wy)
        rho = (wx * wx + wy * wy) / den if den > 0.0 else 0.0
        bx = fx + rho * nx
        by = fy + rho * ny
        if k > 0:
            total += np.hypot(bx - px, by - py)
        px = bx
        py = by
    return total


@jit(inline=True, noalloc=True)
def edge_param(e, x, y, xy, ring_next):
    """Parameter of the projection of (x, y) on the line of ring edge e (0 at its start, 1 at its end)."""
    f = ring_next[e]
    dx = xy[f, 0] - xy[e, 0]
    dy = xy[f, 1] - xy[e, 1]
    return ((x - xy[e, 0]) * dx + (y - xy[e, 1]) * dy) / (dx * dx + dy * dy)


@jit(noalloc=True)
def interval_length(fl, fr, b0, b1, l0, l1, r0, r1, xy, ring_next, normal):
    """Length of the Voronoi edge between two consecutive events with features fl, fr (exact for lines)."""
    nv = xy.shape[0]
    chord = np.hypot(b1[0] - b0[0], b1[1] - b0[1])
    if fl < 0 or fr < 0 or (fl < nv) == (fr < nv):
        return chord
    if fl < nv:
        v = fl
        e = fr - nv
        u0 = edge_param(e, r0[0], r0[1], xy, ring_next)
        u1 = edge_param(e, r1[0], r1[1], xy, ring_next)
    else:
        v = fr
        e = fl - nv
        u0 = edge_param(e, l0[0], l0[1], xy, ring_next)
        u1 = edge_param(e, l1[0], l1[1], xy, ring_next)
    length = parabola_length(v, e, u0, u1, xy, ring_next, normal, 16)
    if not np.isfinite(length) or length < chord:
        return chord
    return length
