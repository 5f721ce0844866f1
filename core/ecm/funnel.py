"""Shrinking an Explicit Corridor and the shortest path inside it (ECM sections III and IV).

Shrinking by a clearance c (ECM III) moves every closest point c towards its disk's centre: l_i + c (B_i - l_i)
/ R_i. Where consecutive closest points are the same obstacle vertex v, the shrunk boundary is a circular arc of
radius c around v. The path must not cut that arc, so the arc is replaced by a polyline *outside* the circle:

    Arc approximation. Around a vertex, the boundary points are placed at angular steps of at most ``ARC_STEP``
    (10 degrees) and, except for the two tangent points where the arc meets a straight boundary, at radius
    c / cos(ARC_STEP) instead of c. Every chord between consecutive points then stays at distance >= c from v
    (between two inflated points it is at least c cos(5 deg) / cos(10 deg) away; from a tangent point at radius c
    to a point at most 10 deg away at radius c / cos(10 deg) it is tangent or outside), so the path keeps clearance
    c exactly. The price: where the path wraps around v it runs at most c (1 / cos(10 deg) - 1) = 1.6 % of c
    farther out and is at most 1.6 % longer than the true arc over that stretch (for c = 1 m and a 90 degree
    corner, under 2.5 cm). Each added boundary point sits on the spoke of its own Voronoi point (solved in closed
    form), so it stays inside that point's empty disk shrunk by c. Where the corridor is narrower than
    c / cos(10 deg) on that side (R < c / cos(10 deg)), the point is clamped to the Voronoi point itself; only there
    can a chord dip below c, by at most 1.6 % of c.

The corridor's cross-sections at the event points and at those added points are the portals l_i' -> r_i' (each a
chord of the shrunk disk (B_i, R_i - c), so inside the free space with clearance >= c); consecutive portals and the
boundary pieces between them form the paper's triangle strip (ECM IV: triangles (l_j, r_j, l_j+1) and
(r_j, l_j+1, r_j+1), a list whose dual graph needs no search). The shortest path through the strip is the funnel
algorithm (Lee and Preparata; here the "simple stupid funnel" form over the portal list), from the start point to
the goal point.
"""

from __future__ import annotations

import numpy as np
from core.jitcache import jit

from core.kernels.buffers import reserve

from .distance import feature_closest, ray_bisector
from .portal_cache import arc_cache, cached_rows, keep_rows

ARC_STEP = np.deg2rad(10.0)


@jit(inline=True)
def _vertex_at(p, f, xy, nv):
    """Vertex f if f is a vertex feature located exactly at point p, else -1."""
    if f >= 0 and f < nv and xy[f, 0] == p[0] and xy[f, 1] == p[1]:
        return f
    return -1


@jit(inline=True)
def _side_point(bx, by, R, cx, cy, vert, interior, c, c_out):
    """Shrunk boundary point of a disk (B, R) whose closest point on this side is (cx, cy)."""
    if R <= 0.0:
        return bx, by
    ux = (bx - cx) / R
    uy = (by - cy) / R
    rad = c
    if vert >= 0 and interior:
        rad = c_out
    rad = min(rad, R)
    return cx + rad * ux, cy + rad * uy


@jit(inline=True)
def _emit(out, m, lx, ly, rx, ry, bx, by, rad):
    """Append portal (l, r) with its disk (B, rad) to ``out`` (rows [lx, ly, rx, ry, bx, by, rad])."""
    if m >= out.shape[0]:
        o2 = np.empty((2 * out.shape[0], 7))
        o2[:m] = out[:m]
        out = o2
    out[m, 0] = lx
    out[m, 1] = ly
    out[m, 2] = rx
    out[m, 3] = ry
    out[m, 4] = bx
    out[m, 5] = by
    out[m, 6] = rad
    return out, m + 1


@jit
def _wrap(a):
    while a > np.pi:
        a -= 2.0 * np.pi
    while a <= -np.pi:
        a += 2.0 * np.pi
    return a


@jit
def portals(cB, cR, cl, cr, cf, c, xy, ring_next, normal, step):
    """The portals of the corridor shrunk by c: one per disk and one per added arc point.

    Returns (m, 7) float64 rows [lx, ly, rx, ry, Bx, By, rad]: portal k runs from l to r and lies in the disk
    (B, rad) of radius R - c, which holds the corridor's free space around it. Where the corridor turns at a
    Voronoi vertex, the strip between the two chords of the vertex's disk leaves out the rest of that disk; its
    boundary there is concave (a path never touches it), and a start or goal lying there is found by the disk
    tests of ``enter_index`` and ``exit_index``.
    """
    n = cB.shape[0]
    return cached_portals(cB, cR, cl, cr, cf, np.full(n, -1, dtype=np.int64), c, xy, ring_next, normal, step,
                          arc_cache(0, 0))


@jit
def cached_portals(cB, cR, cl, cr, cf, cp, c, xy, ring_next, normal, step, cache):
    """``portals``, taking the arc portals of event pieces from a batch's ``portal_cache.ArcCache``: ``cp[i]`` is
    the cache entry of the piece after disk i (``corridor.Disks.p``; -1 for a piece that is not between two event
    points of one edge). The rows are those ``portals`` computes, to the bit."""
    nv = xy.shape[0]
    n = cB.shape[0]
    c_out = c / np.cos(step) if c > 0.0 else 0.0
    # Vertex (or -1) at each disk's left/right closest point, and the vertex feature of each piece.
    lv = np.full(n, -1, dtype=np.int64)
    rv = np.full(n, -1, dtype=np.int64)
    for i in range(n):
        for f in (cf[i, 0], cf[i - 1, 0] if i > 0 else -1):
            v = _vertex_at(cl[i], f, xy, nv)
            if v >= 0:
                lv[i] = v
        for f in (cf[i, 1], cf[i - 1, 1] if i > 0 else -1):
            v = _vertex_at(cr[i], f, xy, nv)
            if v >= 0:
                rv[i] = v
    pl = np.full(n, -1, dtype=np.int64)
    pr = np.full(n, -1, dtype=np.int64)
    for i in range(n - 1):
        if cf[i, 0] >= 0:
            pl[i] = cf[i, 0]
            pr[i] = cf[i, 1]
        else:
            if lv[i] >= 0 and lv[i] == lv[i + 1]:
                pl[i] = lv[i]
            if rv[i] >= 0 and rv[i] == rv[i + 1]:
                pr[i] = rv[i]
    out = np.empty((2 * n + 16, 7))
    m = 0
    samp = np.empty((64, 3))
    for i in range(n):
        inl = lv[i] >= 0 and 0 < i < n - 1 and pl[i - 1] == lv[i] and pl[i] == lv[i]
        inr = rv[i] >= 0 and 0 < i < n - 1 and pr[i - 1] == rv[i] and pr[i] == rv[i]
        lx, ly = _side_point(cB[i, 0], cB[i, 1], cR[i], cl[i, 0], cl[i, 1], lv[i], inl, c, c_out)
        rx, ry = _side_point(cB[i, 0], cB[i, 1], cR[i], cr[i, 0], cr[i, 1], rv[i], inr, c, c_out)
        rad = max(cR[i] - c, 0.0)
        out, m = _emit(out, m, lx, ly, rx, ry, cB[i, 0], cB[i, 1], rad)
        if i == n - 1:
            continue
        fl = cf[i, 0]
        fr = cf[i, 1]
        if c <= 0.0 or fl < 0 or fr < 0 or (fl >= nv and fr >= nv):
            continue
        k = cached_rows(cache, cp[i], c)
        if k >= 0:
            out = reserve(out, m + k)
            a = cache.ptr[cp[i]]
            out[m:m + k] = cache.rows[a:a + k]
            m += k
            continue
        m0 = m
        out, m, samp = _arc_portals(cB, cf, i, c, c_out, xy, ring_next, normal, step, out, m, samp)
        keep_rows(cache, cp[i], c, out, m0, m)
    return out[:m].copy()


@jit
def _arc_portals(cB, cf, i, c, c_out, xy, ring_next, normal, step, out, m, samp):
    """Append the portals added inside the piece after disk i, at angular steps around its vertex side(s), in
    their order along the piece: (out, m, samp) with the scratch ``samp`` (ns, 3) grown as needed."""
    nv = xy.shape[0]
    fl = cf[i, 0]
    fr = cf[i, 1]
    ns = 0
    dx = cB[i + 1, 0] - cB[i, 0]
    dy = cB[i + 1, 1] - cB[i, 1]
    for side in range(2):
        v = fl if side == 0 else fr
        other = fr if side == 0 else fl
        if v >= nv:
            continue
        a0 = np.arctan2(cB[i, 1] - xy[v, 1], cB[i, 0] - xy[v, 0])
        a1 = np.arctan2(cB[i + 1, 1] - xy[v, 1], cB[i + 1, 0] - xy[v, 0])
        delta = _wrap(a1 - a0)
        K = int(np.ceil(abs(delta) / step))
        for k in range(1, K):
            a = a0 + delta * k / K
            ux = np.cos(a)
            uy = np.sin(a)
            rho = ray_bisector(xy, ring_next, normal, other, xy[v, 0], xy[v, 1], ux, uy)
            if not np.isfinite(rho):
                continue
            if ns >= samp.shape[0]:
                nsamp = np.empty((2 * samp.shape[0], 3))
                nsamp[:ns] = samp[:ns]
                samp = nsamp
            bx = xy[v, 0] + rho * ux
            by = xy[v, 1] + rho * uy
            samp[ns, 0] = (bx - cB[i, 0]) * dx + (by - cB[i, 1]) * dy
            samp[ns, 1] = bx
            samp[ns, 2] = by
            ns += 1
    if ns == 0:
        return out, m, samp
    order = np.argsort(samp[:ns, 0])
    for q in range(ns):
        j = order[q]
        bx = samp[j, 1]
        by = samp[j, 2]
        dl, qlx, qly = feature_closest(xy, ring_next, fl, bx, by)
        dr, qrx, qry = feature_closest(xy, ring_next, fr, bx, by)
        plx, ply = _side_point(bx, by, dl, qlx, qly, fl if fl < nv else -1, True, c, c_out)
        prx, pry = _side_point(bx, by, dr, qrx, qry, fr if fr < nv else -1, True, c, c_out)
        out, m = _emit(out, m, plx, ply, prx, pry, bx, by, max(0.5 * (dl + dr) - c, 0.0))
    return out, m, samp


@jit
def _area2(ax, ay, bx, by, cx, cy):
    """Twice the signed area of (a, b, c): positive when c lies left of a -> b."""
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)


@jit
def _same(ax, ay, bx, by, eps):
    return abs(ax - bx) <= eps and abs(ay - by) <= eps


@jit
def in_triangle(px, py, ax, ay, bx, by, cx, cy, eps):
    """p in the closed triangle (a, b, c), with slack eps^2 on the areas; False for a degenerate triangle."""
    area = _area2(ax, ay, bx, by, cx, cy)
    if abs(area) <= eps * eps:
        return False
    d1 = _area2(ax, ay, bx, by, px, py)
    d2 = _area2(bx, by, cx, cy, px, py)
    d3 = _area2(cx, cy, ax, ay, px, py)
    if area > 0.0:
        return d1 >= -eps * eps and d2 >= -eps * eps and d3 >= -eps * eps
    return d1 <= eps * eps and d2 <= eps * eps and d3 <= eps * eps


@jit(inline=True)
def in_piece(P, z, px, py, eps):
    """p in the strip piece between portals z and z + 1 of P (rows of ``portals``): ECM IV's triangles
    (l_z, r_z, l_z+1) and (r_z, l_z+1, r_z+1)."""
    return (in_triangle(px, py, P[z, 0], P[z, 1], P[z, 2], P[z, 3], P[z + 1, 0], P[z + 1, 1], eps)
            or in_triangle(px, py, P[z, 2], P[z, 3], P[z + 1, 0], P[z + 1, 1], P[z + 1, 2], P[z + 1, 3], eps))


# Relative margin of the squared-distance filter of ``within``: far above the rounding of d^2 and t^2 (a few 2^-53)
# and of ``np.hypot`` (under one unit in the last place).
FILTER = 1e-12


@jit(inline=True)
def within(dx, dy, t):
    """``np.hypot(dx, dy) <= t``, the same answer at a tenth of the cost: the squared distance decides unless it lies
    within ``FILTER`` of t^2, and only then is ``hypot`` (some 25 ns a call) computed. A floating-point filter: outside
    the band, rounding cannot change the comparison, so every query answers bit for bit as before."""
    d2 = dx * dx + dy * dy
    t2 = t * t
    if d2 < t2 * (1.0 - FILTER):
        return True
    if d2 > t2 * (1.0 + FILTER):
        return False
    return np.hypot(dx, dy) <= t


@jit(inline=True)
def in_disk(P, k, px, py, eps):
    """p in portal k's disk (row k of ``portals``: centre P[k, 4:6], radius P[k, 6]), with slack eps."""
    return within(px - P[k, 4], py - P[k, 5], P[k, 6] + eps)


@jit
def enter_index(P, px, py, eps):
    """The last portal the start p is already past (-1: before the first; ECM IV's triangle (s, l_1, r_1)).

    Walking from the first portal while p lies in portal k's disk or in the strip piece after it: p sees the whole
    of those, so the path starts after the last such k. The walk stops at the first portal that fails, so a
    corridor that comes back near the start later does not pull the entry there.
    """
    n = P.shape[0]
    ks = -1
    for k in range(n):
        if in_disk(P, k, px, py, eps) or (k < n - 1 and in_piece(P, k, px, py, eps)):
            ks = k
        else:
            break
    return ks


@jit
def exit_index(P, px, py, ks, eps):
    """The last portal the path to the goal p crosses, after the start's entry ``ks``: the first portal after ks
    whose disk holds p, or whose strip piece before it does, ends the crossing; the last portal if none."""
    n = P.shape[0]
    if ks >= 0 and in_disk(P, ks, px, py, eps):
        return ks
    for j in range(ks + 1, n):
        if in_disk(P, j, px, py, eps) or (j >= 1 and in_piece(P, j - 1, px, py, eps)):
            return max(j - 1, ks)
    return n - 1


@jit
def corridor_path(P, sx, sy, gx, gy, eps):
    """Shortest path from s to g through the corridor's portals P (rows of ``portals``): s enters after the last
    portal it is past (ECM IV's triangle (s, l_1, r_1) when it is before the first), g leaves after the last portal
    before it. Returns (points (p, 2), length)."""
    ks = enter_index(P, sx, sy, eps)
    kg = exit_index(P, gx, gy, ks, eps)
    m = kg - ks
    if m < 0:
        m = 0
    PL = np.empty((m + 2, 2))
    PR = np.empty((m + 2, 2))
    PL[0, 0] = sx
    PL[0, 1] = sy
    PR[0, 0] = sx
    PR[0, 1] = sy
    for q in range(m):
        PL[q + 1, 0] = P[ks + 1 + q, 0]
        PL[q + 1, 1] = P[ks + 1 + q, 1]
        PR[q + 1, 0] = P[ks + 1 + q, 2]
        PR[q + 1, 1] = P[ks + 1 + q, 3]
    PL[m + 1, 0] = gx
    PL[m + 1, 1] = gy
    PR[m + 1, 0] = gx
    PR[m + 1, 1] = gy
    return funnel(PL, PR, eps)


@jit
def funnel(L, R, eps):
    """Shortest path through the portal sequence (L[k] left, R[k] right end of portal k; first and last portals are
    the start and the goal): the funnel algorithm. Returns (points (p, 2), length)."""
    n = L.shape[0]
    out = np.empty((n + 2, 2))
    m = 0
    ax = L[0, 0]
    ay = L[0, 1]
    out[0, 0] = ax
    out[0, 1] = ay
    m = 1
    lx = ax
    ly = ay
    rx = ax
    ry = ay
    apex_i = 0
    left_i = 0
    right_i = 0
    i = 1
    guard = 0
    while i < n and guard < 4 * n * n + 16:
        guard += 1
        nlx = L[i, 0]
        nly = L[i, 1]
        nrx = R[i, 0]
        nry = R[i, 1]
        # Right side: does the new right point narrow the funnel? A side sitting on the apex has no ray yet; a
        # new point on the apex itself (a corridor point shared with the last corner) changes nothing.
        if not _same(ax, ay, nrx, nry, eps) and (_same(ax, ay, rx, ry, eps) or _area2(ax, ay, rx, ry, nrx, nry) >= 0.0):
            if _same(ax, ay, lx, ly, eps) or _area2(ax, ay, lx, ly, nrx, nry) < 0.0:
                rx = nrx
                ry = nry
                right_i = i
            else:
                # The right side crossed the left one: the left point is a corner of the path.
                ax = lx
                ay = ly
                apex_i = left_i
                if not _same(out[m - 1, 0], out[m - 1, 1], ax, ay, eps):
                    out[m, 0] = ax
                    out[m, 1] = ay
                    m += 1
                lx = ax
                ly = ay
                rx = ax
                ry = ay
                left_i = apex_i
                right_i = apex_i
                i = apex_i + 1
                continue
        # Left side.
        if not _same(ax, ay, nlx, nly, eps) and (_same(ax, ay, lx, ly, eps) or _area2(ax, ay, lx, ly, nlx, nly) <= 0.0):
            if _same(ax, ay, rx, ry, eps) or _area2(ax, ay, rx, ry, nlx, nly) > 0.0:
                lx = nlx
                ly = nly
                left_i = i
            else:
                ax = rx
                ay = ry
                apex_i = right_i
                if not _same(out[m - 1, 0], out[m - 1, 1], ax, ay, eps):
                    out[m, 0] = ax
                    out[m, 1] = ay
                    m += 1
                lx = ax
                ly = ay
                rx = ax
                ry = ay
                left_i = apex_i
                right_i = apex_i
                i = apex_i + 1
                continue
        i += 1
    gx = L[n - 1, 0]
    gy = L[n - 1, 1]
    if not _same(out[m - 1, 0], out[m - 1, 1], gx, gy, eps) or m == 1:
        out[m, 0] = gx
        out[m, 1] = gy
        m += 1
    length = 0.0
    for k in range(1, m):
        length += np.hypot(out[k, 0] - out[k - 1, 0], out[k, 1] - out[k - 1, 1])
    return out[:m].copy(), length
