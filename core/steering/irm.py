"""The Indicative Route Method (Karamouzas, Geraerts and Overmars 2009, sections 3-4) for one character at a time.

**Corridor (IRM 3.2).** The indicative route is sampled densely and every sample p is *retracted* onto the medial
axis of the free space: from its closest obstacle point c it moves away along c -> p until the closest obstacle
point changes (IRM 3.2, after Wein et al. [18]). The retracted point B is a centre of a maximum-clearance disc of
radius R = clearance(B), touching the obstacles at c and at the new closest point c'. The corridor of the route
is the sequence of these discs K(B_k, R_k) with their two closest points, sorted into the left one L_k and the
right one Q_k as seen walking the route (the ECM's event points with their left and right closest points, ECM
section II); the left and right points draw the corridor's explicit boundary. Where a disc sits in a side opening
(both closest points on one side) the open side's point is the disc's own boundary point square to the route.

Exactness: the closest points come from the navigation mesh's exact nearest-obstacle query (obstacle outlines and
the scene bounds); the retraction distance is found by bisection to a relative 1e-4 of R.

**Per step (IRM 4.1-4.3).** The agent's disc is the corridor disc it lies deepest in, searched forward from the
previous one (``deepest_disc``; the retraction of x onto the backbone). The attraction point is the farthest route
point on the boundary of that disc, or the goal when the goal lies inside it (eq. 4, ``attraction_on_disc``), taken
on the stretch of route that crosses the disc (up to the first vertex 2R from its centre, so that a closed route is
walked round rather than cut at its start, where its goal lies in the first disc); it is always visible, since the
disc is free and holds x. The corridor is the union of its discs; the boundary point b(x) of eq. 1 is the nearest
point of the union's boundary (``union_boundary_point``: the nearest uncovered point of the discs around x's, or a
point where two of their circles cross), so d_b is x's depth in the corridor, also across side openings where no
obstacle is near. The safe distance is clamped to the admissible set D of eq. 2 (``admissible_safe_distance``), and
per step below R - r of x's disc (``core.sim.crowd.irm_boundary``).

Arrays: route arrays as in core.routes.kernels (``rp`` (N, 2), ``rs`` (N,), a route the rows [lo, hi)); corridor
arrays ``cB`` (M, 2) disc centres, ``cR`` (M,) radii, ``cL`` / ``cQ`` (M, 2) left / right closest points, ``cS``
(M,) the route arc length of the sample each disc was retracted from (non-decreasing within a corridor); a corridor
is the rows [clo, chi). All in scene units.
"""

from __future__ import annotations

import math

import numpy as np
from core.jitcache import jit
from core.kernels.buffers import doubled

from core.navmesh.kernels.arrays import EdgeGrid
from core.navmesh.kernels.clearance import point_clearance
from core.navmesh.kernels.predicates import norm2d
from core.routes.kernels import point_at_into, segment_of

# Bisection tolerance of the retraction, relative to the disc radius.
RETRACT_RTOL = 1e-4
# Route sampling step for the corridor: this fraction of the last disc's radius, within [min_step, max_step], and
# never longer than the route stays inside that disc (``covered_step``).
SAMPLE_FRACTION = 0.5


@jit
def retract(C: EdgeGrid, px: float, py: float, scale: float, out: np.ndarray) -> bool:
    """Retract (px, py) onto the medial axis (IRM 3.2). ``out`` (7,) receives [Bx, By, R, c1x, c1y, c2x, c2y]: the
    disc centre, its radius and the two closest obstacle points (c1 the one of p, c2 the one that takes over).
    False when p has no clearance (on or inside an obstacle)."""
    d0, cx, cy, e0 = point_clearance(C, px, py)
    if e0 < 0 or not d0 > 1e-12 * scale:
        return False
    ux = (px - cx) / d0
    uy = (py - cy) / d0
    lo = 0.0
    hi = max(d0, 1e-6 * scale)
    # Grow the bracket until the closest point has changed: clearance(p + t u) < d0 + t.
    for _ in range(64):
        d, _, _, _ = point_clearance(C, px + hi * ux, py + hi * uy)
        if d < d0 + hi - RETRACT_RTOL * (d0 + hi):
            break
        lo = hi
        hi *= 2.0
        if hi > 4.0 * scale:
            break
    for _ in range(60):
        if hi - lo <= RETRACT_RTOL * (d0 + lo):
            break
        m = 0.5 * (lo + hi)
        d, _, _, _ = point_clearance(C, px + m * ux, py + m * uy)
        if d < d0 + m - RETRACT_RTOL * (d0 + m):
            hi = m
        else:
            lo = m
    bx = px + lo * ux
    by = py + lo * uy
    r, _, _, _ = point_clearance(C, bx, by)
    _, c2x, c2y, _ = point_clearance(C, px + hi * ux, py + hi * uy)
    out[0] = bx
    out[1] = by
    out[2] = r
    out[3] = cx
    out[4] = cy
    out[5] = c2x
    out[6] = c2y
    return True


@jit
def side_points(disc: np.ndarray, tx: float, ty: float, left: np.ndarray, right: np.ndarray) -> None:
    """Sort a retracted disc's closest points into the left and right boundary points, seen along the route
    tangent (tx, ty): left is where cross(tangent, c - B) > 0. Where both lie on one side (the disc sits in a
    side opening, between two obstacles of the same side), the other side's point is the disc's own boundary point
    square to the tangent, B + R n, and the one side keeps the point farther out to it."""
    bx, by, r = disc[0], disc[1], disc[2]
    tl = norm2d(tx, ty)
    nx = -ty / tl if tl > 0.0 else 0.0
    ny = tx / tl if tl > 0.0 else 0.0
    s1 = nx * (disc[3] - bx) + ny * (disc[4] - by)
    s2 = nx * (disc[5] - bx) + ny * (disc[6] - by)
    if s1 > 0.0 and s2 <= 0.0 or s1 <= 0.0 and s2 > 0.0:
        a = 3 if s1 > s2 else 5
        left[0] = disc[a]
        left[1] = disc[a + 1]
        right[0] = disc[8 - a]
        right[1] = disc[9 - a]
    elif s1 > 0.0:
        a = 3 if s1 >= s2 else 5
        left[0] = disc[a]
        left[1] = disc[a + 1]
        right[0] = bx - r * nx
        right[1] = by - r * ny
    else:
        a = 3 if s1 <= s2 else 5
        right[0] = disc[a]
        right[1] = disc[a + 1]
        left[0] = bx + r * nx
        left[1] = by + r * ny


@jit(inline=True)
def covered_step(px: float, py: float, ux: float, uy: float, bx: float, by: float, radius: float) -> float:
    """How far the route, from (px, py) along the unit direction (ux, uy), stays inside the disc (B, radius): the
    h >= 0 where |p + h u - B| = radius. IRM 3.2's corridor is continuous, so every route point lies in its own
    backbone disc; sampled discs keep that only if the route passes from one disc into the next (a route 0.26 m off
    a wall left 11 m discs sampled every R / 2 between them, and a character walking it found no disc ahead)."""
    dx = px - bx
    dy = py - by
    along = dx * ux + dy * uy
    inside = radius * radius - (dx * dx + dy * dy)
    return max(-along + np.sqrt(max(along * along + inside, 0.0)), 0.0)


@jit
def build_corridor(C: EdgeGrid, rp, rs, lo: int, hi: int, min_step: float, max_step: float, scale: float):
    """The corridor of route [lo, hi): arrays (B (m, 2), R (m,), L (m, 2), Q (m, 2), S (m,)) of the retracted
    samples, taken every SAMPLE_FRACTION * R (within [min_step, max_step]), no farther apart than the route stays
    in the last disc, and at every route vertex. Samples that cannot be retracted (a route point on an obstacle's
    boundary) are skipped."""
    total = rs[hi - 1]
    cap = 64
    B = np.empty((cap, 2), dtype=np.float64)
    R = np.empty(cap, dtype=np.float64)
    L = np.empty((cap, 2), dtype=np.float64)
    Q = np.empty((cap, 2), dtype=np.float64)
    S = np.empty(cap, dtype=np.float64)
    tmp = np.empty(7, dtype=np.float64)
    p = np.empty(2, dtype=np.float64)
    m = 0
    t = 0.0
    step = min_step
    nxt_vertex = lo + 1
    while True:
        point_at_into(rp, rs, lo, hi, t, p)
        if retract(C, p[0], p[1], scale, tmp):
            if m == B.shape[0]:
                B = doubled(B, m)
                R = doubled(R, m)
                L = doubled(L, m)
                Q = doubled(Q, m)
                S = doubled(S, m)
            j = segment_of(rs, lo, hi, t)
            tx = rp[j + 1, 0] - rp[j, 0]
            ty = rp[j + 1, 1] - rp[j, 1]
            B[m, 0] = tmp[0]
            B[m, 1] = tmp[1]
            R[m] = tmp[2]
            side_points(tmp, tx, ty, L[m], Q[m])
            S[m] = t
            m += 1
            tl = max(norm2d(tx, ty), 1e-300)
            within = covered_step(p[0], p[1], tx / tl, ty / tl, tmp[0], tmp[1], tmp[2])
            step = min(max(min(SAMPLE_FRACTION * tmp[2], within), min_step), max_step)
        if t >= total:
            break
        nt = t + step
        # Never step over a route vertex: corners are where the route turns.
        while nxt_vertex < hi and rs[nxt_vertex] <= t:
            nxt_vertex += 1
        if nxt_vertex < hi and rs[nxt_vertex] < nt:
            nt = rs[nxt_vertex]
        t = min(nt, total)
    return B[:m].copy(), R[:m].copy(), L[:m].copy(), Q[:m].copy(), S[:m].copy()


@jit(noalloc=True)
def deepest_disc(cB, cR, cS, clo: int, chi: int, k: int, x: np.ndarray, reach: float) -> int:
    """Retraction of x onto the corridor's backbone: the disc x lies deepest in (largest R_j - |x - B_j|) among the
    discs from k on whose route arc length is within ``reach`` of disc k's; ties go to the later disc."""
    if k < clo:
        k = clo
    if k >= chi:
        k = chi - 1
    best = k
    best_depth = cR[k] - norm2d(x[0] - cB[k, 0], x[1] - cB[k, 1])
    s_end = cS[k] + reach
    j = k + 1
    while j < chi and cS[j] <= s_end:
        dep = cR[j] - norm2d(x[0] - cB[j, 0], x[1] - cB[j, 1])
        if dep >= best_depth:
            best_depth = dep
            best = j
        j += 1
    return best


@jit(noalloc=True)
def attraction_on_disc(rp, rs, lo: int, hi: int, bx: float, by: float, r: float, s_from: float,
                       s_to: float) -> float:
    """IRM eq. 4: the largest route arc length s' in [s_from, s_to] whose point lies on the circle of centre
    (bx, by) and radius r; the route's length when the goal lies inside the disc and within s_to; -1 when the
    route meets no such point.

    ``s_to`` bounds the stretch of the route that passes through the disc (``disc_stretch``): a route that comes
    back to the disc much later (a closed route, a lap) is not a shortcut the disc offers, so its end is not "the
    goal inside the disc" at the start."""
    total = rs[hi - 1]
    gx = rp[hi - 1, 0] - bx
    gy = rp[hi - 1, 1] - by
    if gx * gx + gy * gy <= r * r and total <= s_to:
        return total
    j0 = segment_of(rs, lo, hi, s_from)
    j = segment_of(rs, lo, hi, s_to)
    while j >= j0:
        ax = rp[j, 0] - bx
        ay = rp[j, 1] - by
        dx = rp[j + 1, 0] - rp[j, 0]
        dy = rp[j + 1, 1] - rp[j, 1]
        a = dx * dx + dy * dy
        if a > 0.0:
            b = ax * dx + ay * dy
            c = ax * ax + ay * ay - r * r
            disc = b * b - a * c
            if disc >= 0.0:
                sq = math.sqrt(disc)
                seg_len = rs[j + 1] - rs[j]
                for u in ((-b + sq) / a, (-b - sq) / a):
                    if 0.0 <= u <= 1.0:
                        s = rs[j] + u * seg_len
                        if s_from <= s <= s_to:
                            return s
        j -= 1
    return -1.0


@jit(noalloc=True)
def disc_stretch(rp, rs, lo: int, hi: int, bx: float, by: float, r: float, s_from: float) -> float:
    """The end of the route stretch that eq. 4 searches on the disc (bx, by, r) whose sample lies at arc length
    s_from: the first route vertex after s_from farther than 2r from the disc's centre (r outside its circle), or
    the route's end. A route that goes that far and comes back (a closed route, a lap) is on another visit, not a
    shortcut the disc offers; one that winds inside the disc is searched whole. (The stretch was pi r long, which
    a route winding inside a large disc outran: eq. 4 then found no point and the character stood at its start.)"""
    far = 4.0 * r * r
    j = segment_of(rs, lo, hi, s_from) + 1
    while j < hi - 1:
        dx = rp[j, 0] - bx
        dy = rp[j, 1] - by
        if dx * dx + dy * dy > far:
            return rs[j]
        j += 1
    return rs[hi - 1]


@jit(noalloc=True)
def disc_boundary_point(bx: float, by: float, r: float, x: np.ndarray, out: np.ndarray) -> float:
    """b(x) on the boundary of the corridor disc (bx, by, r) that x lies deepest in: the disc's boundary point
    nearest to x, written into ``out`` (2,); returns the depth r - |x - B| (the distance d_b inside the disc,
    negative outside). At the centre itself there is no nearest point: ``out`` is x and the depth r."""
    dx = x[0] - bx
    dy = x[1] - by
    g = norm2d(dx, dy)
    if g <= 0.0:
        out[0] = x[0]
        out[1] = x[1]
        return r
    out[0] = bx + r * dx / g
    out[1] = by + r * dy / g
    return r - g


# The most corridor discs on either side of the deepest one that ``union_boundary_point`` looks at.
UNION_WINDOW = 16


@jit(noalloc=True)
def _near(cB, cR, j: int, x: np.ndarray, rho: float) -> bool:
    """Whether disc j comes within rho of x."""
    return norm2d(x[0] - cB[j, 0], x[1] - cB[j, 1]) - cR[j] < rho


@jit(noalloc=True)
def _covered(cB, cR, j0: int, j1: int, x: np.ndarray, rho: float, a: int, b: int, px: float, py: float) -> bool:
    """Whether (px, py) lies strictly inside one of the discs [j0, j1) that come within rho of x, other than discs
    a and b."""
    for j in range(j0, j1):
        if j == a or j == b or not _near(cB, cR, j, x, rho):
            continue
        if norm2d(px - cB[j, 0], py - cB[j, 1]) < cR[j] * (1.0 - 1e-12):
            return True
    return False


@jit(noalloc=True)
def union_boundary_point(cB, cR, clo: int, chi: int, k: int, x: np.ndarray, out: np.ndarray) -> float:
    """b(x) of IRM eq. 1: the nearest point to x on the boundary of the corridor, the union of its discs (IRM 3.2),
    written into ``out`` (2,); returns its distance d_b from x. x lies in disc k (the deepest, ``deepest_disc``).

    The union's boundary is made of arcs of its circles; the nearest point of an arc to x is the circle's point
    nearest to x when no other disc covers it, else an end of the arc, where two circles cross. Both kinds of
    candidate are taken over the discs within UNION_WINDOW of k that come within rho = R_k + |x - B_k| of x: d_b is
    at most x's clearance, itself at most rho (B_k's clearance is R_k), so a disc farther away neither holds the
    nearest point nor covers it. One disc's own boundary point, the earlier rule, put b(x) a few centimetres ahead
    of an agent walking a corridor barely wider than its disc, where the discs are small and x is never at one's
    centre: its boundary force then pulled the agent back towards that centre, and it walked back and forth."""
    rho = cR[k] + norm2d(x[0] - cB[k, 0], x[1] - cB[k, 1])
    j0 = max(clo, k - UNION_WINDOW)
    j1 = min(chi, k + UNION_WINDOW + 1)
    best = np.inf
    for j in range(j0, j1):
        if not _near(cB, cR, j, x, rho):
            continue
        dx = x[0] - cB[j, 0]
        dy = x[1] - cB[j, 1]
        g = norm2d(dx, dy)
        # Every point of circle j is at least |g - R_j| from x: no nearer candidate on it.
        if g <= 0.0 or abs(g - cR[j]) >= best:
            continue
        px = cB[j, 0] + cR[j] * dx / g
        py = cB[j, 1] + cR[j] * dy / g
        if not _covered(cB, cR, j0, j1, x, rho, j, j, px, py):
            best = abs(g - cR[j])
            out[0] = px
            out[1] = py
        for m in range(j + 1, j1):
            if not _near(cB, cR, m, x, rho):
                continue
            # The points where circles j and m cross (the ends of their arcs on the union's boundary).
            ex = cB[m, 0] - cB[j, 0]
            ey = cB[m, 1] - cB[j, 1]
            e = norm2d(ex, ey)
            if e <= 0.0 or e >= cR[j] + cR[m] or e <= abs(cR[j] - cR[m]):
                continue
            a = (cR[j] * cR[j] - cR[m] * cR[m] + e * e) / (2.0 * e)
            h2 = cR[j] * cR[j] - a * a
            if h2 <= 0.0:
                continue
            h = math.sqrt(h2)
            mx = cB[j, 0] + a * ex / e
            my = cB[j, 1] + a * ey / e
            for sgn in (-1.0, 1.0):
                px = mx - sgn * h * ey / e
                py = my + sgn * h * ex / e
                d = norm2d(px - x[0], py - x[1])
                if d < best and not _covered(cB, cR, j0, j1, x, rho, j, m, px, py):
                    best = d
                    out[0] = px
                    out[1] = py
    if best == np.inf:
        # x at the centre of every disc near it, or every candidate covered: x's own disc.
        return disc_boundary_point(cB[k, 0], cB[k, 1], cR[k], x, out)
    return best


@jit(noalloc=True)
def admissible_safe_distance(ds: float, vmax: float, dt: float, r_min: float, r: float) -> float:
    """IRM eq. 2: clamp the safe distance into D = (vmax dt, R_min - r); where D is empty, vmax dt (the lower
    bound, which keeps the step from colliding, matters more than the one against oscillation)."""
    lo = vmax * dt
    up = r_min - r
    if up <= lo:
        return lo
    eps = 1e-6 * (up - lo)
    return min(max(ds, lo + eps), up - eps)
