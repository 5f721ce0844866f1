"""Traversal cost of a sweeping disc (Kremyzas 2014, chapter 3).

A disc of radius r moves with its centre on s -> g. In the local frame of section 3.2 (origin s, primary axis
along s -> g, secondary axis to its left) the centre is at (x, 0), x in [0, L]. The *overlap interval* of a
triangle is the set of x at which the closed disc meets the closed triangle: the line y = 0 cut by the Minkowski
sum of the triangle and the disc, i.e. the union of the vertex discs (3.2.1, eq. 3.14/3.15), the edge bands
(3.2.2, eq. 3.18-3.23) and the triangle itself, which is one interval because the sum is convex.

Triangles are found as in Algorithm 4: a triangle-disc walk at s and at g (Algorithm 6, an edge is crossed when
its distance to the centre is at most r) and a triangle-box walk over the intermediate box [0, L] x [-r, r]
(Algorithm 7, an edge is crossed when it meets the box). The walks run on the complete triangulation, which
covers the convex bounds, so every triangle the swept stadium meets is found, also across thin obstacles.
The walks write into the caller's arrays (a ``disc_work.DiscWork``) and report a full one rather than grow it, so
a sweep allocates nothing in the usual case.

Cost (Algorithms 2 and 3, the max-weight rule): at each x the rate is the largest weight among the *free*
triangles the disc meets (obstacle triangles weigh nothing; 0 where the disc meets no free triangle), and the
cost is the integral of that rate over x in [0, L]. For r = 0 this is the point cost sum_T w(T) l^T (eq. 3.1).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from core.jitcache import jit

from .clearance import segment_segment_distance
from .disc_work import DISC_WORK_TRIANGLES, DiscWork, disc_work
from .grids import seg_meets_box
from .predicates import norm2d
from .segments import segment_cost
from .walk import in_bounds, locate_any

# Relative slack of the walks' overlap tests (finding an extra triangle is harmless: its interval is exact).
_SLACK = 1e-9


class SweepFrame(NamedTuple):
    """The local frame of a sweep p -> q (Kremyzas 3.2): origin p, unit primary axis e, length L = |q - p|."""

    px: float
    py: float
    ex: float
    ey: float
    length: float


@jit(inline=True)
def _halfline(a, b, lo, hi):
    """Restrict [lo, hi] to {s : a s + b >= 0}."""
    if a > 0.0:
        return max(lo, -b / a), hi
    if a < 0.0:
        return lo, min(hi, -b / a)
    if b >= 0.0:
        return lo, hi
    return 1.0, 0.0


@jit(inline=True)
def triangle_overlap_interval(V, T, t, px, py, ex, ey, r):
    """(lo, hi): the x-range where the disc centred at p + x e (e unit) meets triangle t; lo > hi when never.
    Inlined into the sweep cost (a call per triangle copied its arguments: 7 % of a disc candidate's sweep)."""
    lo = math.inf
    hi = -math.inf
    a, b, c = T[t, 0], T[t, 1], T[t, 2]
    # Local frame of section 3.2: x along e, y to its left (tuples, not arrays: no allocation per triangle).
    xs = ((V[a, 0] - px) * ex + (V[a, 1] - py) * ey, (V[b, 0] - px) * ex + (V[b, 1] - py) * ey,
          (V[c, 0] - px) * ex + (V[c, 1] - py) * ey)
    ys = (ex * (V[a, 1] - py) - ey * (V[a, 0] - px), ex * (V[b, 1] - py) - ey * (V[b, 0] - px),
          ex * (V[c, 1] - py) - ey * (V[c, 0] - px))
    r2 = r * r
    for k in range(3):
        # Vertex disc (Kremyzas 3.2.1): |(x_v - x, y_v)| <= r.
        if ys[k] * ys[k] <= r2:
            h = math.sqrt(r2 - ys[k] * ys[k])
            lo = min(lo, xs[k] - h)
            hi = max(hi, xs[k] + h)
    for k in range(3):
        xa, ya = xs[k], ys[k]
        xb, yb = xs[(k + 1) % 3], ys[(k + 1) % 3]
        dx = xb - xa
        dy = yb - ya
        len2 = dx * dx + dy * dy
        if len2 == 0.0:
            continue
        # Edge band (Kremyzas 3.2.2): projection parameter in [0, 1] and distance to the edge's line <= r.
        a0, a1 = -1e300, 1e300
        al = dx / len2
        be = (-xa * dx - ya * dy) / len2
        a0, a1 = _halfline(al, be, a0, a1)
        a0, a1 = _halfline(-al, 1.0 - be, a0, a1)
        ln = math.sqrt(len2)
        ga = -dy / ln
        de = (-dx * ya + dy * xa) / ln
        a0, a1 = _halfline(ga, de + r, a0, a1)
        a0, a1 = _halfline(-ga, r - de, a0, a1)
        if a0 <= a1:
            lo = min(lo, a0)
            hi = max(hi, a1)
    # The triangle itself: inside all three edges' half-planes (counter-clockwise).
    b0, b1 = -1e300, 1e300
    for k in range(3):
        xa, ya = xs[k], ys[k]
        xb, yb = xs[(k + 1) % 3], ys[(k + 1) % 3]
        # cross(B - A, (x, 0) - A) = (xb - xa)(-ya) - (yb - ya)(x - xa) >= 0
        b0, b1 = _halfline(-(yb - ya), -(xb - xa) * ya + (yb - ya) * xa, b0, b1)
    if b0 <= b1:
        lo = min(lo, b0)
        hi = max(hi, b1)
    return lo, hi


@jit(inline=True)
def _seg_point_dist2(x, y, ax, ay, bx, by) -> float:
    dx = bx - ax
    dy = by - ay
    den = dx * dx + dy * dy
    t = 0.0
    if den > 0.0:
        t = min(max(((x - ax) * dx + (y - ay) * dy) / den, 0.0), 1.0)
    cx = ax + t * dx - x
    cy = ay + t * dy - y
    return cx * cx + cy * cy


@jit(inline=True)
def _cell_span(lo, hi, pad, origin, size, n):
    """The index range [k0, k1] of the n grid cells origin + k size that [lo - pad, hi + pad] meets (clamped)."""
    k0 = min(max(int(math.floor((lo - pad - origin) / size)), 0), n - 1)
    k1 = min(max(int(math.floor((hi + pad - origin) / size)), 0), n - 1)
    return k0, k1


@jit(inline=True)
def _edge_closer(C, c, px, py, qx, qy, need) -> bool:
    """Does an obstacle edge listed in the clearance grid's cell c come closer than ``need`` to p-q?"""
    E, ES, EI = C.E, C.ES, C.EI
    for m in range(ES[c], ES[c + 1]):
        e = EI[m]
        if segment_segment_distance(px, py, qx, qy, E[e, 0], E[e, 1], E[e, 2], E[e, 3]) < need:
            return True
    return False


@jit(noalloc=True)
def sweep_blocked(C, px, py, qx, qy, need) -> bool:
    """Is ``clearance.segment_clearance(p, q) < need``: does an obstacle edge come closer than ``need`` to p-q? The
    same decision, by the same edge distances, without the minimum: only cells within ``need`` of the segment are
    searched, and the first edge closer than ``need`` ends the search (the sweep test of disc MIRAN's choice)."""
    E, EG = C.E, C.EG
    if E.shape[0] == 0 or not need > 0.0:
        return False
    ncols = int(EG[4])
    i0, i1 = _cell_span(min(px, qx), max(px, qx), need, EG[0], EG[2], ncols)
    j0, j1 = _cell_span(min(py, qy), max(py, qy), need, EG[1], EG[3], int(EG[5]))
    half = 0.5 * norm2d(EG[2], EG[3])
    for j in range(j0, j1 + 1):
        for i in range(i0, i1 + 1):
            # Only a cell whose centre lies within need plus half its diagonal of p-q can hold a closer edge.
            d = math.sqrt(_seg_point_dist2(EG[0] + (i + 0.5) * EG[2], EG[1] + (j + 0.5) * EG[3], px, py, qx, qy))
            if d - half <= need and _edge_closer(C, j * ncols + i, px, py, qx, qy, need):
                return True
    return False


@jit(inline=True)
def _has(found, n0, n, t) -> bool:
    """Is t in found[n0:n]? (A walk's own finds only: tens of triangles, a scan beats a mark array.)"""
    for i in range(n0, n):
        if found[i] == t:
            return True
    return False


@jit(noalloc=True)
def triangle_disc_walk(V, T, N, start, cx, cy, r, found, n, stack) -> int:
    """Kremyzas Algorithm 6: append to found[:n] every triangle the closed disc (c, r) meets, walking from
    ``start`` (which contains c) across edges within distance r of c; a triangle found by an earlier walk may appear
    again. Returns the new n, or -1 when ``found`` is full (``stack`` is at least as long; the caller retries with
    longer arrays and gets the same triangles in the same order)."""
    n0 = n
    if n >= found.shape[0]:
        return -1
    found[n] = start
    n += 1
    top = 0
    stack[top] = start
    top += 1
    lim = (r * (1.0 + _SLACK)) ** 2 + 1e-300
    while top > 0:
        top -= 1
        t = stack[top]
        for k in range(3):
            nb = N[t, k]
            if nb < 0:
                continue
            a = T[t, k]
            b = T[t, (k + 1) % 3]
            if _seg_point_dist2(cx, cy, V[a, 0], V[a, 1], V[b, 0], V[b, 1]) <= lim and not _has(found, n0, n, nb):
                if n >= found.shape[0]:
                    return -1
                found[n] = nb
                n += 1
                stack[top] = nb
                top += 1
    return n


@jit(noalloc=True)
def triangle_box_walk(V, T, N, start, frame, r, found, n, stack) -> int:
    """Kremyzas Algorithm 7: append every triangle meeting the intermediate box [0, L] x [-r, r] of the SweepFrame
    ``frame``, walking from ``start`` (which meets the box) across edges that meet it. Returns the new n, or -1 when
    ``found`` is full (as ``triangle_disc_walk``)."""
    px, py, ex, ey, length = frame
    n0 = n
    if n >= found.shape[0]:
        return -1
    found[n] = start
    n += 1
    top = 0
    stack[top] = start
    top += 1
    pad = _SLACK * (r + length) + 1e-300
    while top > 0:
        top -= 1
        t = stack[top]
        for k in range(3):
            nb = N[t, k]
            if nb < 0:
                continue
            a = T[t, k]
            b = T[t, (k + 1) % 3]
            ax = (V[a, 0] - px) * ex + (V[a, 1] - py) * ey
            ay = ex * (V[a, 1] - py) - ey * (V[a, 0] - px)
            bx = (V[b, 0] - px) * ex + (V[b, 1] - py) * ey
            by = ex * (V[b, 1] - py) - ey * (V[b, 0] - px)
            if seg_meets_box(ax, ay, bx, by, -pad, -r - pad, length + pad, r + pad) and not _has(found, n0, n, nb):
                if n >= found.shape[0]:
                    return -1
                found[n] = nb
                n += 1
                stack[top] = nb
                top += 1
    return n


@jit(inline=True)
def _overlaps(W, ts, px, py, qx, qy, r, weights, work: DiscWork):
    """Overlap intervals of the free triangles met by the sweep: (iv (k, 3) rows [lo, hi, weight], ty (k,), k), each
    triangle once (in the order the walks first find it); ``ts`` is ``locate_any``'s triangle of p.

    iv and ty are ``work``'s arrays, or larger copies where the sweep meets more triangles than the work holds."""
    V, T, N, TT = W.V, W.T, W.N, W.TT
    length = math.hypot(qx - px, qy - py)
    ex = (qx - px) / length
    ey = (qy - py) / length
    found = work.found
    stack = work.stack
    tg = locate_any(W, qx, qy)
    frame = SweepFrame(px, py, ex, ey, length)
    while True:
        n = triangle_disc_walk(V, T, N, ts, px, py, r, found, 0, stack)
        if n >= 0:
            n = triangle_box_walk(V, T, N, ts, frame, r, found, n, stack)
        if n >= 0:
            n = triangle_disc_walk(V, T, N, tg, qx, qy, r, found, n, stack)
        if n >= 0:
            break
        found = np.empty(2 * found.shape[0], dtype=np.int64)
        stack = np.empty(found.shape[0], dtype=np.int64)
    iv = work.iv
    ty = work.ty
    if n > iv.shape[0]:
        iv = np.empty((n, 3))
        ty = np.empty(n, dtype=np.int64)
    k = 0
    for i in range(n):
        t = found[i]
        # A triangle found again by a later walk repeats its interval, which would add exactly 0 to the cost.
        if TT[t] < 0 or _has(found, 0, i, t):
            continue
        lo, hi = triangle_overlap_interval(V, T, t, px, py, ex, ey, r)
        lo = max(lo, 0.0)
        hi = min(hi, length)
        if lo < hi:
            iv[k, 0] = lo
            iv[k, 1] = hi
            iv[k, 2] = weights[TT[t]]
            ty[k] = TT[t]
            k += 1
    return iv, ty, k


@jit(inline=True)
def _heaviest_first(iv, k, order) -> None:
    """order[:k] = the rows of iv[:k] by decreasing weight, equal weights in row order (a stable sort, as
    ``np.argsort(-w, kind="mergesort")``), by insertion: k is tens of rows."""
    for i in range(k):
        w = iv[i, 2]
        j = i
        while j > 0 and iv[order[j - 1], 2] < w:
            order[j] = order[j - 1]
            j -= 1
        order[j] = i


@jit
def disc_cost_work(W, px, py, qx, qy, r, weights, work: DiscWork) -> float:
    """Traversal cost of a disc of radius r sweeping p -> q under the max-weight rule (Kremyzas Algorithms 2-3),
    with ``work``'s scratch (``disc_work``), so that repeated queries allocate nothing in the usual case.

    NaN when p or q is outside the bounds; 0 for p == q. r == 0 gives the point cost (one segment walk)."""
    return disc_cost_from(W, -1, px, py, qx, qy, r, weights, work)


@jit(shared=True)
def disc_cost_from(W, ts, px, py, qx, qy, r, weights, work: DiscWork) -> float:
    """``disc_cost_work`` with p's triangle ``ts`` as ``locate_any`` gives it (-1: locate it here), for many sweeps
    from one point (a disc character's candidates): bit for bit the same cost. Shared: it grows its work arrays
    when they fill, so it counts references, and the disc choice that calls it for every candidate does not."""
    B = W.B
    if not (in_bounds(B, px, py) and in_bounds(B, qx, qy)):
        return math.nan
    if px == qx and py == qy:
        return 0.0
    if r <= 0.0:
        return segment_cost(W, px, py, qx, qy, weights)
    if ts < 0:
        ts = locate_any(W, px, py)
    iv, ty, k = _overlaps(W, ts, px, py, qx, qy, r, weights, work)
    order = work.order
    cov = work.cov
    if k > order.shape[0]:
        order = np.empty(k, dtype=np.int64)
        cov = np.empty((k + 1, 2))
    # Heaviest first: each interval pays its weight on the part no heavier interval covered yet.
    _heaviest_first(iv, k, order)
    m = 0
    cost = 0.0
    for oi in range(k):
        i = order[oi]
        lo = iv[i, 0]
        hi = iv[i, 1]
        w = iv[i, 2]
        covered = 0.0
        for j in range(m):
            a = max(lo, cov[j, 0])
            b = min(hi, cov[j, 1])
            if b > a:
                covered += b - a
        cost += w * ((hi - lo) - covered)
        # Insert [lo, hi] into the sorted disjoint cover, merging the rows it touches (in place).
        j0 = 0
        while j0 < m and cov[j0, 1] < lo:
            j0 += 1
        j1 = j0
        while j1 < m and cov[j1, 0] <= hi:
            j1 += 1
        if j1 > j0:
            nlo = min(lo, cov[j0, 0])
            nhi = max(hi, cov[j1 - 1, 1])
            drop = j1 - j0 - 1
            for j in range(j0 + 1, m - drop):
                cov[j, 0] = cov[j + drop, 0]
                cov[j, 1] = cov[j + drop, 1]
            cov[j0, 0] = nlo
            cov[j0, 1] = nhi
            m -= drop
        else:
            for j in range(m, j0, -1):
                cov[j, 0] = cov[j - 1, 0]
                cov[j, 1] = cov[j - 1, 1]
            cov[j0, 0] = lo
            cov[j0, 1] = hi
            m += 1
    return cost


@jit
def disc_cost(W, px, py, qx, qy, r, weights) -> float:
    """``disc_cost_work`` with a scratch work of its own (one allocation per call): for single queries."""
    return disc_cost_work(W, px, py, qx, qy, r, weights, disc_work(DISC_WORK_TRIANGLES))


@jit
def disc_intervals(W, px, py, qx, qy, r, weights, out) -> int:
    """The max-weight overlap intervals of the sweep p -> q (Kremyzas Algorithm 3's list), written to out (k, 3)
    as rows [x_start, x_end, terrain index] (-1 where the disc meets no free triangle), ordered along the sweep
    and covering [0, L]. Returns k, or -1 when ``out`` is too small (0 for p == q or outside the bounds)."""
    B = W.B
    if not (in_bounds(B, px, py) and in_bounds(B, qx, qy)) or (px == qx and py == qy):
        return 0
    length = math.hypot(qx - px, qy - py)
    ts = locate_any(W, px, py)
    iv, ty, k = _overlaps(W, ts, px, py, qx, qy, max(r, 0.0), weights, disc_work(DISC_WORK_TRIANGLES))
    xs = np.empty(2 * k + 2)
    xs[0] = 0.0
    xs[1] = length
    for i in range(k):
        xs[2 + 2 * i] = iv[i, 0]
        xs[3 + 2 * i] = iv[i, 1]
    xs = np.unique(xs)
    n = 0
    for j in range(xs.shape[0] - 1):
        a = xs[j]
        b = xs[j + 1]
        if b <= a:
            continue
        mid = 0.5 * (a + b)
        best = -1
        bw = -math.inf
        for i in range(k):
            if iv[i, 0] <= mid <= iv[i, 1] and iv[i, 2] > bw:
                bw = iv[i, 2]
                best = ty[i]
        if n > 0 and out[n - 1, 2] == best and out[n - 1, 1] == a:
            out[n - 1, 1] = b
            continue
        if n >= out.shape[0]:
            return -1
        out[n, 0] = a
        out[n, 1] = b
        out[n, 2] = best
        n += 1
    return n


@jit
def disc_cost_batch(W, p, q, r, weights, out) -> None:
    """``out[i] = disc_cost(p[i], q[i], r, weights)`` for p, q (n, 2) float64, out (n,) float64."""
    work = disc_work(DISC_WORK_TRIANGLES)
    for i in range(p.shape[0]):
        out[i] = disc_cost_work(W, p[i, 0], p[i, 1], q[i, 0], q[i, 1], r, weights, work)


@jit
def polyline_disc_cost(W, pts, r, weights) -> float:
    """Sum of the disc traversal costs of the segments of pts (m, 2); NaN when a point is outside the bounds."""
    work = disc_work(DISC_WORK_TRIANGLES)
    total = 0.0
    for i in range(pts.shape[0] - 1):
        total += disc_cost_work(W, pts[i, 0], pts[i, 1], pts[i + 1, 0], pts[i + 1, 1], r, weights, work)
    return total
