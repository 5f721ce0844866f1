"""Voronoi vertices: the exact point equidistant from the three or more site sets around a traced node.

Solved by damped Gauss-Newton on d_k - d_0 = 0 (ECM section II-B: a vertex has equal clearance to its sites)
from the pixel corner where the cracks meet.
"""

from __future__ import annotations

import numpy as np
from core.jitcache import jit

from ..distance import set_closest
from .kinds import NODE_INEXACT, NODE_OPEN, NODE_VERTEX
from .sides import add_unique, closest


@jit(noalloc=True)
def _residual(sides, counts, m, edges, x, y):
    """Largest |d_k - d_0| over the sides at (x, y), and the mean distance; inf if (x, y) lies in a side."""
    real_ptr = edges.real_ptr
    real_edge = edges.real_edge
    xy = edges.xy
    ring_next = edges.ring_next
    d0, c0x, c0y, f0 = set_closest(real_ptr, real_edge, xy, ring_next, sides[0], counts[0], x, y)
    if d0 <= 0.0:
        return np.inf, 0.0
    worst = 0.0
    total = d0
    for k in range(1, m):
        d, cx, cy, f = set_closest(real_ptr, real_edge, xy, ring_next, sides[k], counts[k], x, y)
        if d <= 0.0:
            return np.inf, 0.0
        worst = max(worst, abs(d - d0))
        total += d
    return worst, total / m


@jit(noalloc=True)
def _gauss_newton(sides, counts, m, edges, x, y, h, scale, ox, oy):
    """Damped Gauss-Newton on d_k - d_0 = 0 from (x, y), staying within 6 pixels of (ox, oy): (x, y, R, residual)."""
    real_ptr = edges.real_ptr
    real_edge = edges.real_edge
    xy = edges.xy
    ring_next = edges.ring_next
    best, R = _residual(sides, counts, m, edges, x, y)
    for it in range(60):
        if best <= 1e-13 * scale:
            break
        d0, c0x, c0y, f0 = set_closest(real_ptr, real_edge, xy, ring_next, sides[0], counts[0], x, y)
        g0x = (x - c0x) / d0
        g0y = (y - c0y) / d0
        a11 = 0.0
        a12 = 0.0
        a22 = 0.0
        r1 = 0.0
        r2 = 0.0
        for k in range(1, m):
            d, cx, cy, f = set_closest(real_ptr, real_edge, xy, ring_next, sides[k], counts[k], x, y)
            jx = (x - cx) / d - g0x
            jy = (y - cy) / d - g0y
            r = d - d0
            a11 += jx * jx
            a12 += jx * jy
            a22 += jy * jy
            r1 += jx * r
            r2 += jy * r
        det = a11 * a22 - a12 * a12
        if abs(det) <= 1e-300:
            break
        dx = -(a22 * r1 - a12 * r2) / det
        dy = -(-a12 * r1 + a11 * r2) / det
        step = np.hypot(dx, dy)
        if step > 2.0 * h:
            dx *= 2.0 * h / step
            dy *= 2.0 * h / step
        # Halve the step until the residual drops (and the point stays out of the sites and near the node).
        moved = False
        for half in range(30):
            nx = x + dx
            ny = y + dy
            if np.hypot(nx - ox, ny - oy) <= 6.0 * h:
                w, Rn = _residual(sides, counts, m, edges, nx, ny)
                if w < best:
                    best = w
                    R = Rn
                    x = nx
                    y = ny
                    moved = True
                    break
            dx *= 0.5
            dy *= 0.5
        if not moved:
            break
    return x, y, R, best


@jit(noalloc=True)
def solve_vertex(sides, counts, m, edges, x, y, h, scale):
    """The point equidistant from m >= 3 site sets nearest the node corner (x, y): (x, y, R, ok).

    Gauss-Newton from the corner and from the four pixel centres around it; the converged solution nearest the
    corner (within 4 pixels) wins.
    """
    bx = x
    by = y
    bR = 0.0
    bd = np.inf
    ok = False
    for start in range(5):
        sx = x + (0.0 if start == 0 else (0.5 if start in (1, 4) else -0.5) * h)
        sy = y + (0.0 if start == 0 else (0.5 if start in (1, 2) else -0.5) * h)
        px, py, R, res = _gauss_newton(sides, counts, m, edges, sx, sy, h, scale, x, y)
        if res <= 1e-9 * scale:
            d = np.hypot(px - x, py - y)
            if d <= 4.0 * h and d < bd:
                bd = d
                bx = px
                by = py
                bR = R
                ok = True
        if ok and start == 0:
            break
    return bx, by, bR, ok


@jit(noalloc=True)
def _node_sides(pixels, ci, cj, sides, counts, pix, bnd):
    """The site sets around the crack corner (ci, cj), counter-clockwise between its cracks: their number m."""
    labels = pixels.labels
    vb = pixels.vb
    hb = pixels.hb
    H, Wd = labels.shape
    # Pixels NE, NW, SW, SE (counter-clockwise) and the cracks after each: N, W, S, E.
    for q in range(4):
        i = ci if q < 2 else ci - 1
        j = cj if (q == 0 or q == 3) else cj - 1
        pix[q] = labels[i, j] if (0 <= i < H and 0 <= j < Wd) else -1
    bnd[0] = 1 if (ci < H and vb[ci, cj] != 0) else 0
    bnd[1] = 1 if (cj >= 1 and hb[ci, cj - 1] != 0) else 0
    bnd[2] = 1 if (ci >= 1 and vb[ci - 1, cj] != 0) else 0
    bnd[3] = 1 if (cj < Wd and hb[ci, cj] != 0) else 0
    first = 0
    while bnd[first] == 0:
        first += 1
    m = 0
    counts[:] = 0
    q = (first + 1) % 4
    for step in range(4):
        counts[m] = add_unique(sides[m], counts[m], pix[q], 4)
        if bnd[q] != 0:
            m += 1
        q = (q + 1) % 4
    return m


@jit
def node_vertices(node_ij, node_deg, pixels, edges, frame):
    """Exact positions of the nodes where three or more cracks meet.

    Returns (node_xy (nn, 2) float64, node_R (nn,) float64, node_kind (nn,) int32); nodes of degree 1 and 2 are
    left to the chain annotation (their position depends on their one chain).
    """
    nn = node_ij.shape[0]
    node_xy = np.empty((nn, 2), dtype=np.float64)
    node_R = np.zeros(nn, dtype=np.float64)
    node_kind = np.full(nn, NODE_OPEN, dtype=np.int32)
    sides = np.empty((4, 4), dtype=np.int32)
    counts = np.zeros(4, dtype=np.int32)
    pix = np.empty(4, dtype=np.int32)
    bnd = np.empty(4, dtype=np.uint8)
    for k in range(nn):
        ci = node_ij[k, 0]
        cj = node_ij[k, 1]
        node_xy[k, 0] = frame.x0 + cj * frame.h
        node_xy[k, 1] = frame.y0 + ci * frame.h
        if node_deg[k] < 3:
            continue
        m = _node_sides(pixels, ci, cj, sides, counts, pix, bnd)
        usable = 0
        for s in range(m):
            if counts[s] > 0:
                usable += 1
        if usable < m:
            node_kind[k] = NODE_INEXACT
            continue
        x, y, R, ok = solve_vertex(sides, counts, m, edges, node_xy[k, 0], node_xy[k, 1], frame.h, frame.scale)
        if ok:
            node_xy[k, 0] = x
            node_xy[k, 1] = y
            node_R[k] = R
            node_kind[k] = NODE_VERTEX
        else:
            node_kind[k] = NODE_INEXACT
            d, cx, cy, f = closest(edges, sides[0], counts[0], node_xy[k, 0], node_xy[k, 1])
            node_R[k] = d
    return node_xy, node_R, node_kind
