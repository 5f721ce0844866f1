"""Disc MIRAN (Kremyzas 2014, chapter 4): candidate interval ends adjusted for a disc of radius R.

For each visible interval [a_j, b_j] of the route window (the point-visibility of MIRAN 3.2), an end whose sight
line x -> pi(end) touches an obstacle at p is moved: p is rotated about x by theta = arccos(1 - (R / |x p|)^2 / 2)
(eq. 4.3-4.4, the law of cosines with |p p'| = R) towards the visible side, a ray from x through p' is cast back
to the route, and the intersection q closest along the route to the old end, inside (a_j, b_j) and [r_i, sigma_i],
becomes the new end, provided the ray reaches q before any obstacle. a'_1 = r_i, and b'_n = sigma_i when the last
interval reaches sigma_i. A pair with a'_j >= b'_j, or an end that cannot be moved, drops the interval.
Candidates are then sampled on the adjusted intervals and weighed by the disc traversal cost (eq. 4.5).
Nothing is precomputed for R, so the radius may change between steps (chapter 5).
"""

from __future__ import annotations

import math

from core.jitcache import jit

from core.navmesh.kernels.arrays import mesh_of
from core.navmesh.kernels.predicates import norm2d
from core.navmesh.kernels.segments import segment_first_block, segment_visible
from core.routes.kernels import point_at_into, segment_of

from .miran import KEPT_PREVIOUS, SWEEP_SEARCH, TO_REFERENCE, fallback, sweep_cost

# Arc-length nudges, relative to the route length (plus 1), used to step just outside / inside an interval end.
_NUDGE_RTOL = 1e-9
_NUDGE_TRIES = 8
# The rotated ray passes the occluder this relative amount beyond R, so that round-off cannot make the sweep touch.
_CLEAR_MARGIN = 1e-6


@jit
def rotation_angle(radius: float, dist: float) -> float:
    """Kremyzas eq. 4.3: theta = arccos(1 - (R / |x p|)^2 / 2); NaN when R > 2 |x p| (no such rotation).

    Evaluated as the equal 2 arcsin(R / (2 |x p|)) (the chord of length R), which keeps its precision when R is
    small against |x p|, where 1 - (R / |x p|)^2 / 2 rounds towards 1."""
    if dist <= 0.0 or radius > 2.0 * dist:
        return math.nan
    return 2.0 * math.asin(0.5 * radius / dist)


@jit
def tangent_angle(radius: float, dist: float) -> float:
    """The rotation that makes the ray from x pass p at distance exactly R: arcsin(R / |x p|); NaN when R > |x p|.

    Eq. 4.3 puts the disc centre p' at distance R from p, but the sweep x -> p' -> q then passes p at
    |x p| sin(theta) = R cos(theta / 2) < R, so the disc would graze the obstacle on the way and the adjusted end
    would fail the validity check that the ray reach the route before any obstacle. This is the smallest angle that
    passes; it differs from eq. 4.3 by O((R / |x p|)^3)."""
    if dist <= 0.0 or radius > dist:
        return math.nan
    return math.asin(radius / dist)


@jit
def occluder(V, T, N, TT, B, G, S, rp, rs, lo, hi, x, end, outward, q) -> tuple:
    """The point p where the sight line x -> pi(end) touches an obstacle: the limit of the first obstacle point of
    x -> pi(end + outward * delta) as delta -> 0 (the route beyond the end is hidden). Returns (ok, px, py)."""
    total = rs[hi - 1]
    delta = _NUDGE_RTOL * (1.0 + total)
    for _ in range(_NUDGE_TRIES):
        t = end + outward * delta
        if t < 0.0 or t > total:
            break
        point_at_into(rp, rs, lo, hi, t, q)
        th = segment_first_block(V, T, N, TT, B, G, S, x[0], x[1], q[0], q[1])
        if th <= 1.0:
            return True, x[0] + th * (q[0] - x[0]), x[1] + th * (q[1] - x[1])
        delta *= 10.0
    # The end is an end of the route itself or the hidden part is out of reach: the sight line ends on the route.
    point_at_into(rp, rs, lo, hi, end, q)
    return False, q[0], q[1]


@jit
def ray_to_route(rp, rs, lo, hi, x, ux, uy, s_lo, s_hi, end) -> float:
    """Arc length of the intersection of the ray x + lambda u (lambda > 0) with the route strictly inside
    (s_lo, s_hi) that is closest along the route to ``end``; -1 when the ray misses that part."""
    best = -1.0
    best_gap = math.inf
    j = segment_of(rs, lo, hi, s_lo)
    while j < hi - 1 and rs[j] < s_hi:
        ax = rp[j, 0]
        ay = rp[j, 1]
        ex = rp[j + 1, 0] - ax
        ey = rp[j + 1, 1] - ay
        den = ux * ey - uy * ex
        if den != 0.0:
            wx = ax - x[0]
            wy = ay - x[1]
            lam = (wx * ey - wy * ex) / den
            mu = (wx * uy - wy * ux) / den
            if lam > 0.0 and 0.0 <= mu <= 1.0:
                t = rs[j] + mu * (rs[j + 1] - rs[j])
                if s_lo < t < s_hi:
                    gap = abs(t - end)
                    if gap < best_gap:
                        best_gap = gap
                        best = t
        j += 1
    return best


@jit
def adjust_end(V, T, N, TT, B, G, S, rp, rs, lo, hi, x, radius, end, a, b, s_r, s1, is_start, q) -> float:
    """The adjusted end pi(a'_j) or pi(b'_j) of interval [a, b] (Kremyzas 4.1); -1 when it does not exist."""
    outward = -1.0 if is_start else 1.0
    _, px, py = occluder(V, T, N, TT, B, G, S, rp, rs, lo, hi, x, end, outward, q)
    dx = px - x[0]
    dy = py - x[1]
    dist = norm2d(dx, dy)
    theta = tangent_angle(radius * (1.0 + _CLEAR_MARGIN), dist)
    if theta != theta:
        return -1.0
    # Rotate towards the visible side: the side of a route point just inside the interval.
    inner = end - outward * 0.25 * (b - a)
    point_at_into(rp, rs, lo, hi, inner, q)
    side = dx * (q[1] - x[1]) - dy * (q[0] - x[0])
    if side == 0.0:
        return -1.0
    if side < 0.0:
        theta = -theta
    c = math.cos(theta)
    s = math.sin(theta)
    ux = c * dx - s * dy
    uy = s * dx + c * dy
    t = ray_to_route(rp, rs, lo, hi, x, ux, uy, max(a, s_r), min(b, s1), end)
    if t < 0.0:
        return -1.0
    point_at_into(rp, rs, lo, hi, t, q)
    if not segment_visible(V, T, N, TT, B, G, S, x[0], x[1], q[0], q[1]):
        return -1.0
    return t


@jit
def adjust_intervals(V, T, N, TT, B, G, S, rp, rs, lo, hi, x, radius, s_r, s1, intervals, n_int, out, q) -> int:
    """Write the disc-adjusted intervals [a'_j, b'_j] into ``out`` (k, 2); return how many (Kremyzas 4.1)."""
    total = rs[hi - 1]
    tol = _NUDGE_RTOL * (1.0 + total)
    m = 0
    for j in range(n_int):
        a = intervals[j, 0]
        b = intervals[j, 1]
        if b <= a:
            continue
        if j == 0 and a <= s_r + tol:
            a2 = s_r
        else:
            a2 = adjust_end(V, T, N, TT, B, G, S, rp, rs, lo, hi, x, radius, a, a, b, s_r, s1, True, q)
            if a2 < 0.0:
                continue
        if j == n_int - 1 and b >= s1 - tol:
            b2 = s1
        else:
            b2 = adjust_end(V, T, N, TT, B, G, S, rp, rs, lo, hi, x, radius, b, a, b, s_r, s1, False, q)
            if b2 < 0.0:
                continue
        if a2 < b2 and m < out.shape[0]:
            out[m, 0] = a2
            out[m, 1] = b2
            m += 1
    return m


@jit
def farthest_sweepable(W, C, rp, rs, lo, hi, x, radius, need, w, s_lo, s_hi, q) -> float:
    """The farthest arc length t in (s_lo, s_hi] whose route point the disc can sweep to from x, by bisection on
    the boundary between a sweepable and a blocked point (40 halvings); -1 when none is found."""
    point_at_into(rp, rs, lo, hi, s_hi, q)
    if sweep_cost(W, C, x[0], x[1], q[0], q[1], radius, need, w) < math.inf:
        return s_hi
    a = s_lo
    b = s_hi
    found = -1.0
    for _ in range(40):
        m = 0.5 * (a + b)
        point_at_into(rp, rs, lo, hi, m, q)
        if sweep_cost(W, C, x[0], x[1], q[0], q[1], radius, need, w) < math.inf:
            found = m
            a = m
        else:
            b = m
    return found


@jit
def disc_fallback(W, C, rp, rs, lo, hi, x, radius, need, w, s_r, r_pt, s_end, s_attr_prev, attr_prev, scale,
                  out_s, q) -> int:
    """Disc MIRAN when no candidate but r_i itself can be swept to (the samples every d lie round a corner the
    disc cannot cut): head for the farthest route point up to ``s_end`` (the end of the first visible interval)
    that the disc can sweep to (SWEEP_SEARCH); else keep the previous attraction point or take the reference
    point if the disc can sweep there and it is not where the disc stands; failing all, fall back to point
    visibility (the forces and the collision guard keep the disc off the obstacles)."""
    V, T, N, TT, B, G, S = W
    tol = 1e-9 * scale
    if s_end > s_r + tol:
        t = farthest_sweepable(W, C, rp, rs, lo, hi, x, radius, need, w, s_r, s_end, q)
        point_at_into(rp, rs, lo, hi, t, q)
        if t > s_r + tol and norm2d(q[0] - x[0], q[1] - x[1]) > tol:
            out_s[0] = t
            return SWEEP_SEARCH
    if (s_attr_prev >= s_r and norm2d(attr_prev[0] - x[0], attr_prev[1] - x[1]) > tol
            and sweep_cost(W, C, x[0], x[1], attr_prev[0], attr_prev[1], radius, need, w) < math.inf):
        out_s[0] = s_attr_prev
        return KEPT_PREVIOUS
    if (norm2d(r_pt[0] - x[0], r_pt[1] - x[1]) > tol
            and sweep_cost(W, C, x[0], x[1], r_pt[0], r_pt[1], radius, need, w) < math.inf):
        out_s[0] = s_r
        return TO_REFERENCE
    return fallback(mesh_of(W, C), x, s_r, r_pt, s_attr_prev, attr_prev, out_s)
