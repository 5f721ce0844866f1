"""Exact ends of a chain at nodes of degree 1 or 2, and projection onto the bisector of its two sides."""

from __future__ import annotations

import numpy as np
from core.jitcache import jit

from ..distance import set_closest
from .kinds import NODE_OPEN, NODE_TOUCH, NODE_VERTEX
from .sides import closest


@jit(noalloc=True)
def bisector_point(sides, counts, edges, x, y, h):
    """The point near (x, y) where the distances to the two site sets agree (Newton along the gradient)."""
    real_ptr = edges.real_ptr
    real_edge = edges.real_edge
    xy = edges.xy
    ring_next = edges.ring_next
    L = sides[0]
    Rs = sides[1]
    nL = counts[0]
    nR = counts[1]
    for it in range(30):
        dl, lx, ly, fl = set_closest(real_ptr, real_edge, xy, ring_next, L, nL, x, y)
        dr, rx, ry, fr = set_closest(real_ptr, real_edge, xy, ring_next, Rs, nR, x, y)
        if dl <= 0.0 or dr <= 0.0:
            break
        gx = (x - lx) / dl - (x - rx) / dr
        gy = (y - ly) / dl - (y - ry) / dr
        gg = gx * gx + gy * gy
        g = dl - dr
        if abs(g) <= 1e-13 * (dl + dr) or gg <= 1e-300:
            break
        dx = -g * gx / gg
        dy = -g * gy / gg
        s = np.hypot(dx, dy)
        if s > h:
            dx *= h / s
            dy *= h / s
        x += dx
        y += dy
    return x, y


@jit(noalloc=True)
def _touch_point(sides, counts, edges, x, y, reach, tol):
    """A ring vertex of one side lying on the other side, nearest to (x, y) within ``reach``; -1 if none."""
    real_ptr = edges.real_ptr
    real_edge = edges.real_edge
    xy = edges.xy
    ring_next = edges.ring_next
    best = reach
    bv = -1
    for side in range(2):
        A = sides[side]
        nA = counts[side]
        B = sides[1 - side]
        nB = counts[1 - side]
        for a in range(nA):
            s = A[a]
            for k in range(real_ptr[s], real_ptr[s + 1]):
                for end in range(2):
                    v = real_edge[k] if end == 0 else ring_next[real_edge[k]]
                    dv = np.hypot(xy[v, 0] - x, xy[v, 1] - y)
                    if dv >= best:
                        continue
                    d, cx, cy, f = set_closest(real_ptr, real_edge, xy, ring_next, B, nB, xy[v, 0], xy[v, 1])
                    if d <= tol:
                        best = dv
                        bv = v
    return bv


@jit(inline=True, noalloc=True)
def _feature_has_vertex(f, v, nv, ring_next):
    """Whether feature f (``distance`` coding) is vertex v or a ring edge ending in v."""
    if f < 0:
        return False
    if f < nv:
        return f == v
    e = f - nv
    return e == v or ring_next[e] == v


@jit(noalloc=True)
def end_point(sides, counts, edges, cx, cy, h, scale, deg):
    """Exact end of a chain at a node of degree 1 or 2 near the pixel corner (cx, cy): (x, y, R, kind)."""
    xy = edges.xy
    x, y = bisector_point(sides, counts, edges, cx, cy, h)
    if deg == 1:
        v = _touch_point(sides, counts, edges, x, y, 3.0 * h, 1e-9 * scale)
        if v < 0:
            # The edge may run on, narrowing, into a sharp concave corner the pixels cannot follow: the
            # closest features at the end then both touch the shared vertex.
            dl, lx, ly, fl = closest(edges, sides[0], counts[0], x, y)
            dr, rx, ry, fr = closest(edges, sides[1], counts[1], x, y)
            v = _touch_point(sides, counts, edges, x, y, 40.0 * h, 1e-9 * scale)
            if v >= 0:
                nv = xy.shape[0]
                okl = _feature_has_vertex(fl, v, nv, edges.ring_next)
                okr = _feature_has_vertex(fr, v, nv, edges.ring_next)
                if not (okl and okr):
                    v = -1
        if v >= 0:
            return xy[v, 0], xy[v, 1], 0.0, NODE_TOUCH
    d, qx, qy, f = closest(edges, sides[0], counts[0], x, y)
    return x, y, d, NODE_OPEN if deg == 1 else NODE_VERTEX


@jit(noalloc=True)
def solve_ends(c, chains, nodes, done, sides, counts, edges, frame):
    """Place the not yet placed ends of chain c (nodes of degree 1 or 2) exactly; mark them done."""
    for end in range(2):
        node = chains.ends[c, end]
        if done[node]:
            continue
        cx = frame.x0 + nodes.ij[node, 1] * frame.h
        cy = frame.y0 + nodes.ij[node, 0] * frame.h
        x, y, R, kind = end_point(sides, counts, edges, cx, cy, frame.h, frame.scale, nodes.deg[node])
        nodes.xy[node, 0] = x
        nodes.xy[node, 1] = y
        nodes.R[node] = R
        nodes.kind[node] = kind
        done[node] = True
