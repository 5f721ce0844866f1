"""Disc MIRAN (Kremyzas 2014, chapter 4): candidate interval ends adjusted for a disc of radius R.

For each visible interval [a_j, b_j] of the route window (the point-visibility of MIRAN 3.2), an end whose sight
line x -> pi(end) touches an obstacle at p is moved: p is rotated about x by theta = arccos(1 - (R / |x p|)^2 / 2)
(eq. 4.3-4.4, the law of cosines with |p p'| = R) towards the visible side, a ray from x through p' is cast back
to the route, and the intersection q closest along the route to the old end, inside (a_j, b_j) and [r_i, sigma_i],
becomes the new end, provided the ray reaches q before any obstacle. a'_1 = r_i, and b'_n = sigma_i when the last
interval reaches sigma_i. A pair with a'_j >= b'_j, or an end that cannot be moved, drops the interval.
Candidates are then sampled on the adjusted intervals and weighed by the disc traversal cost (eq. 4.5), only
those that can win (``pick_disc_candidate``: the point cost bounds the disc cost from below). Nothing is
precomputed for R, so the radius may change between steps (chapter 5).

The kernels take the mesh as one ``MeshArrays`` ``M`` (core.navmesh.kernels.arrays), or only what they use of it
(its triangulation ``W`` or its obstacle edges ``C``), and the structures of ``disc_query``: the agent's
``RouteSpan`` ``R``, its ``DiscQuery`` ``Q`` and the ``DiscChoiceWork`` scratch.
"""

from __future__ import annotations

import math

import numpy as np
from core.jitcache import jit

from core.navmesh.kernels.clearance import point_clearance
from core.navmesh.kernels.disc import disc_cost_from, sweep_blocked
from core.navmesh.kernels.predicates import norm2d, orient
from core.navmesh.kernels.segments import segment_cost, segment_first_block, walk_cost, walk_cost_visible
from core.navmesh.kernels.walk import in_bounds, locate_any
from core.routes.kernels import point_at_into, segment_of

from .candidates import omega_of, pick_best, sample_at, sample_count, strictly_worse
from .disc_query import ChoiceBatch, DiscChoiceWork, DiscQuery, RouteSpan, disc_choice_work
from .miran import KEPT_PREVIOUS, SWEEP_SEARCH, TO_REFERENCE, fallback

# Arc-length nudges, relative to the route length (plus 1), used to step just outside / inside an interval end.
_NUDGE_RTOL = 1e-9
_NUDGE_TRIES = 8
# The rotated ray passes the occluder this relative amount beyond R, so that round-off cannot make the sweep touch.
_CLEAR_MARGIN = 1e-6
# A sweep keeps min(R, clearance at x) less this relative amount (the disc may already stand closer than R).
NEED_RTOL = 1e-9


@jit(noalloc=True)
def sweep_need(C, x, radius, c_last, at, tol) -> float:
    """The clearance every sweep of a disc of radius R at x must keep: min(R, clearance(x)) (1 - NEED_RTOL).

    ``c_last`` is the clearance measured at ``at`` (2,) (NaN: never). The distance to the obstacles is 1-Lipschitz,
    so where c_last - |x - at| - tol >= R the clearance at x is at least R and min(R, .) is R without the
    nearest-obstacle query; ``tol`` (1e-9 of the scene's size) covers the rounding of both measures."""
    if c_last - norm2d(x[0] - at[0], x[1] - at[1]) - tol >= radius:
        return radius * (1.0 - NEED_RTOL)
    c0, _, _, _ = point_clearance(C, x[0], x[1])
    return min(radius, c0) * (1.0 - NEED_RTOL)


@jit(noalloc=True)
def located(W, hint, x, y) -> int:
    """``locate_any``'s triangle of (x, y), taken from ``hint`` (a triangle containing it, -1: unknown) where (x, y)
    lies strictly inside the hint: then no other triangle contains it, so ``locate_any`` returns the hint too
    (exact orientation signs); else located afresh. Not inlined, as ``sweep_need``: compiled apart without numba's
    reference counting, it reads its arrays without counting them where its caller counts (the attraction phase's
    rest), about 0.1 us a call less there."""
    V, T = W.V, W.T
    if hint >= 0:
        a, b, c = T[hint, 0], T[hint, 1], T[hint, 2]
        if (orient(V[a, 0], V[a, 1], V[b, 0], V[b, 1], x, y) > 0
                and orient(V[b, 0], V[b, 1], V[c, 0], V[c, 1], x, y) > 0
                and orient(V[c, 0], V[c, 1], V[a, 0], V[a, 1], x, y) > 0):
            return hint
    return locate_any(W, x, y)


@jit(noalloc=True)
def rotation_angle(radius: float, dist: float) -> float:
    """Kremyzas eq. 4.3: theta = arccos(1 - (R / |x p|)^2 / 2); NaN when R > 2 |x p| (no such rotation).

    Evaluated as the equal 2 arcsin(R / (2 |x p|)) (the chord of length R), which keeps its precision when R is
    small against |x p|, where 1 - (R / |x p|)^2 / 2 rounds towards 1."""
    if dist <= 0.0 or radius > 2.0 * dist:
        return math.nan
    return 2.0 * math.asin(0.5 * radius / dist)


@jit(noalloc=True)
def tangent_angle(radius: float, dist: float) -> float:
    """The rotation that makes the ray from x pass p at distance exactly R: arcsin(R / |x p|); NaN when R > |x p|.

    Eq. 4.3 puts the disc centre p' at distance R from p, but the sweep x -> p' -> q then passes p at
    |x p| sin(theta) = R cos(theta / 2) < R, so the disc would graze the obstacle on the way and the adjusted end
    would fail the validity check that the ray reach the route before any obstacle. This is the smallest angle that
    passes; it differs from eq. 4.3 by O((R / |x p|)^3)."""
    if dist <= 0.0 or radius > dist:
        return math.nan
    return math.asin(radius / dist)


@jit(noalloc=True)
def occluder(W, R: RouteSpan, x, end, outward, q) -> tuple:
    """The point p where the sight line x -> pi(end) touches an obstacle: the limit of the first obstacle point of
    x -> pi(end + outward * delta) as delta -> 0 (the route beyond the end is hidden). Returns (ok, px, py)."""
    rp, rs, lo, hi = R
    total = rs[hi - 1]
    delta = _NUDGE_RTOL * (1.0 + total)
    for _ in range(_NUDGE_TRIES):
        t = end + outward * delta
        if t < 0.0 or t > total:
            break
        point_at_into(rp, rs, lo, hi, t, q)
        th = segment_first_block(W, x[0], x[1], q[0], q[1])
        if th <= 1.0:
            return True, x[0] + th * (q[0] - x[0]), x[1] + th * (q[1] - x[1])
        delta *= 10.0
    # The end is an end of the route itself or the hidden part is out of reach: the sight line ends on the route.
    point_at_into(rp, rs, lo, hi, end, q)
    return False, q[0], q[1]


@jit(noalloc=True)
def ray_to_route(R: RouteSpan, x, ux, uy, s_lo, s_hi, end) -> float:
    """Arc length of the intersection of the ray x + lambda u (lambda > 0) with the route strictly inside
    (s_lo, s_hi) that is closest along the route to ``end``; -1 when the ray misses that part."""
    rp, rs, lo, hi = R
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


@jit(noalloc=True)
def adjust_end(W, R: RouteSpan, Q: DiscQuery, tx, end, a, b, is_start, q) -> tuple:
    """(arc length, point cost x -> pi(end')) of the adjusted end pi(a'_j) or pi(b'_j) of interval [a, b] (Kremyzas
    4.1); (-1, NaN) when it does not exist. ``tx`` is ``locate_any``'s triangle of the disc's position (-1: outside
    the bounds). The visibility walk also sums the point cost (MIRAN 3.3), which the candidate there reuses."""
    V, T, N, TT, B = W.V, W.T, W.N, W.TT, W.B
    rp, rs, lo, hi = R
    x = Q.x
    outward = -1.0 if is_start else 1.0
    _, px, py = occluder(W, R, x, end, outward, q)
    dx = px - x[0]
    dy = py - x[1]
    dist = norm2d(dx, dy)
    theta = tangent_angle(Q.radius * (1.0 + _CLEAR_MARGIN), dist)
    if theta != theta:
        return -1.0, np.nan
    # Rotate towards the visible side: the side of a route point just inside the interval.
    inner = end - outward * 0.25 * (b - a)
    point_at_into(rp, rs, lo, hi, inner, q)
    side = dx * (q[1] - x[1]) - dy * (q[0] - x[0])
    if side == 0.0:
        return -1.0, np.nan
    if side < 0.0:
        theta = -theta
    c = math.cos(theta)
    s = math.sin(theta)
    ux = c * dx - s * dy
    uy = s * dx + c * dy
    t = ray_to_route(R, x, ux, uy, max(a, Q.s_r), min(b, Q.s1), end)
    if t < 0.0:
        return -1.0, np.nan
    point_at_into(rp, rs, lo, hi, t, q)
    # segment_visible's test, from the triangle located once for all the ends.
    if tx < 0 or not in_bounds(B, q[0], q[1]):
        return -1.0, np.nan
    c, vis = walk_cost_visible(V, T, N, TT, tx, x[0], x[1], q[0], q[1], Q.weights)
    if not vis:
        return -1.0, np.nan
    return t, c


@jit(noalloc=True)
def adjust_intervals(W, R: RouteSpan, Q: DiscQuery, intervals, n_int, out, work: DiscChoiceWork,
                     hint: int = -1) -> int:
    """Write the disc-adjusted intervals [a'_j, b'_j] into ``out`` (k, 2); return how many (Kremyzas 4.1).
    ``hint``: a triangle containing the disc's position (the step's ``locate_near``), -1 when unknown.

    Also leaves in ``work.ends`` / ``work.memo`` what the next ``pick_disc_candidate`` of the same query reuses
    instead of walking again: the point cost to each adjusted end (a candidate) and the disc's triangle."""
    q = work.q
    ends = work.ends
    total = R.rs[R.hi - 1]
    tol = _NUDGE_RTOL * (1.0 + total)
    s_r = Q.s_r
    s1 = Q.s1
    tx = located(W, hint, Q.x[0], Q.x[1])
    m = 0
    for j in range(n_int):
        a = intervals[j, 0]
        b = intervals[j, 1]
        if b <= a:
            continue
        ca = np.nan
        cb = np.nan
        if j == 0 and a <= s_r + tol:
            a2 = s_r
        else:
            a2, ca = adjust_end(W, R, Q, tx, a, a, b, True, q)
            if a2 < 0.0:
                continue
        if j == n_int - 1 and b >= s1 - tol:
            b2 = s1
        else:
            b2, cb = adjust_end(W, R, Q, tx, b, a, b, False, q)
            if b2 < 0.0:
                continue
        if a2 < b2 and m < out.shape[0]:
            out[m, 0] = a2
            out[m, 1] = b2
            if m < ends.shape[0]:
                ends[m, 0] = a2
                ends[m, 1] = b2
                ends[m, 2] = ca
                ends[m, 3] = cb
            m += 1
    memo = work.memo
    memo[0] = min(m, ends.shape[0])
    memo[1] = Q.x[0]
    memo[2] = Q.x[1]
    memo[3] = tx
    return m


@jit(inline=True, noalloc=True)
def sweep_from(M, Q: DiscQuery, tx, qx, qy, work: DiscChoiceWork) -> float:
    """Kremyzas eq. 4.5's COMPUTETRAVERSALCOST of the disc sweeping from its position to q, +inf ("a very large
    omega", section 4.1) where the sweep would come closer than ``Q.need`` to an obstacle (the exact
    segment-to-obstacle distance decides). The values of ``miran.sweep_cost``, with ``work``'s scratch; ``tx`` is
    ``locate_any``'s triangle of the disc's position (-1: unknown)."""
    W = M.walk
    C = M.edges
    x = Q.x
    if sweep_blocked(C, x[0], x[1], qx, qy, Q.need):
        return np.inf
    c = disc_cost_from(W, tx, x[0], x[1], qx, qy, Q.radius, Q.weights, work.disc)
    return np.inf if c != c else c


@jit(inline=True, noalloc=True)
def _point_cost(W, x, start, qx, qy, weights) -> float:
    """sum_T w(T) l^T of x -> q (MIRAN 3.3), walked from x's triangle ``start`` where both are in the bounds."""
    V, T, N, TT, B = W.V, W.T, W.N, W.TT, W.B
    if start >= 0 and in_bounds(B, qx, qy):
        return walk_cost(V, T, N, TT, start, x[0], x[1], qx, qy, weights)
    return segment_cost(W, x[0], x[1], qx, qy, weights)


@jit(inline=True, noalloc=True)
def _candidate_bounds(W, R: RouteSpan, Q: DiscQuery, intervals, n_int, d, skip_first, cwork,
                      work: DiscChoiceWork) -> tuple:
    """Sample the intervals every d as ``miran.pick_candidate`` does (arc lengths into cwork[0], route order, the
    nearest left out beyond its capacity) and write each candidate's lower bound on omega into ``work.bound``:
    its point cost sum_T w(T) l^T (MIRAN 3.3) over d_ij; +inf at d_ij <= 0, 0 where the walk gives no cost.
    Returns (the number of candidates, ``locate_any``'s triangle of the disc's position or -1).

    After ``adjust_intervals`` of the same query (same position; ``work.memo``), its triangle and the point costs to
    the adjusted ends, the same walks from the same triangle, are taken instead of walked again; the memo is used
    once."""
    B = W.B
    rp, rs, lo, hi = R
    x = Q.x
    q = work.q
    ends = work.ends
    memo = work.memo
    known = 0
    if memo[0] >= 0.0 and memo[1] == x[0] and memo[2] == x[1]:
        known = int(memo[0])
        start = int(memo[3])
    else:
        start = locate_any(W, x[0], x[1]) if in_bounds(B, x[0], x[1]) else -1
    memo[0] = -1.0
    total = 0
    for j in range(n_int):
        total += sample_count(intervals[j, 0], intervals[j, 1], d)
    if skip_first and n_int > 0:
        total -= 1
    if total <= 0:
        return 0, start
    total = min(total, cwork.shape[1], work.bound.shape[0])
    m = total
    for jj in range(n_int):
        j = n_int - 1 - jj
        a = intervals[j, 0]
        b = intervals[j, 1]
        count = sample_count(a, b, d)
        same = j < known and ends[j, 0] == a and ends[j, 1] == b
        for kk in range(count):
            k = count - 1 - kk
            if j == 0 and k == 0 and skip_first:
                continue
            m -= 1
            if m < 0:
                break
            t = sample_at(a, b, d, k, count)
            cwork[0, m] = t
            dij = t - Q.s_r
            if dij <= 0.0:
                work.bound[m] = np.inf
                continue
            # The disc meets the triangle its centre is in, so at every centre position its rate is at least that
            # triangle's weight (Kremyzas 3.1's max-weight rule); obstacles add 0 to both costs.
            if same and k == 0 and ends[j, 2] == ends[j, 2]:
                pc = ends[j, 2]
            elif same and k == count - 1 and ends[j, 3] == ends[j, 3]:
                pc = ends[j, 3]
            else:
                point_at_into(rp, rs, lo, hi, t, q)
                pc = _point_cost(W, x, start, q[0], q[1], Q.weights)
            # Not w_min |x - q|: where a sweep may cross an obstacle (a disc already touching one has need 0), the
            # disc can pay less than that, never less than the point cost.
            work.bound[m] = pc / dij if pc == pc else 0.0
        if m < 0:
            break
    return total, start


@jit(noalloc=True)
def pick_disc_candidate(M, R: RouteSpan, Q: DiscQuery, intervals, n_int, d, skip_first, cwork,
                        work: DiscChoiceWork, every: bool = False) -> tuple:
    """Disc MIRAN's candidate choice (Kremyzas 4.2, MIRAN 3.3's rule): the same (arc length, number of candidates)
    as ``miran.pick_candidate`` with the sweep cost, evaluating the disc traversal cost only for candidates that
    can win: in increasing order of a lower bound on omega (the point cost, ``_candidate_bounds``), stopping once
    the bound loses to the best exact omega even as a tie (exact pruning). Arc length -1 when there is none.
    cwork (2, m) receives the arc lengths and omegas (NaN: never evaluated, or the disc cannot pass). ``every``
    evaluates every candidate (the unpruned reference the bench compares with)."""
    W = M.walk
    total, start = _candidate_bounds(W, R, Q, intervals, n_int, d, skip_first, cwork, work)
    if total <= 0:
        return -1.0, total
    rp, rs, lo, hi = R
    ts = cwork[0]
    ws = cwork[1]
    bound = work.bound
    order = work.order
    q = work.q
    # Increasing bound (insertion sort: tens of candidates); equal bounds keep the farther candidate first.
    for n in range(total):
        i = total - 1 - n
        lb = bound[i]
        j = n
        while j > 0 and bound[order[j - 1]] > lb:
            order[j] = order[j - 1]
            j -= 1
        order[j] = i
        ws[i] = np.nan
    best_w = np.inf
    for n in range(total):
        i = order[n]
        if not every and strictly_worse(bound[i], best_w):
            break  # every later candidate's bound is at least as large
        point_at_into(rp, rs, lo, hi, ts[i], q)
        cost = sweep_from(M, Q, start, q[0], q[1], work)
        if cost == np.inf:
            continue
        om = omega_of(cost, ts[i] - Q.s_r)
        ws[i] = om
        if om < best_w:
            best_w = om
    best = pick_best(ws, total)
    if best < 0:
        return -1.0, total
    return ts[best], total


@jit
def choice_batch(M, batch: ChoiceBatch, every: bool, out) -> None:
    """``pick_disc_candidate`` for each agent of ``batch``: out[i] = [arc length, candidates, candidates given an
    exact (finite) omega] (out (n, 3) float64), with one DiscChoiceWork for all; ``every`` as there."""
    cap = 16
    for i in range(batch.x.shape[0]):
        for j in range(batch.n_int[i]):
            cap += sample_count(batch.intervals[i, j, 0], batch.intervals[i, j, 1], batch.d[i])
    cwork = np.empty((2, cap))
    work = disc_choice_work(cap)
    for i in range(batch.x.shape[0]):
        w = batch.weights[i]
        R = RouteSpan(batch.rp, batch.rs, batch.lo[i], batch.hi[i])
        Q = DiscQuery(batch.x[i], batch.radius[i], batch.need[i], w, batch.s_r[i], batch.s1[i], batch.r_pt[i],
                      batch.scale)
        t, m = pick_disc_candidate(M, R, Q, batch.intervals[i], batch.n_int[i], batch.d[i], batch.skip_first[i],
                                   cwork, work, every)
        evaluated = 0
        for k in range(m):
            if cwork[1, k] == cwork[1, k]:
                evaluated += 1
        out[i, 0] = t
        out[i, 1] = m
        out[i, 2] = evaluated


@jit(inline=True, noalloc=True)
def _can_sweep(M, Q: DiscQuery, tx, qx, qy, finite, work: DiscChoiceWork) -> bool:
    """``sweep_from(...) < inf``. With finite weights (``finite``) the disc cost is a finite sum wherever both ends
    are in the bounds (``disc_cost_from`` is NaN only outside them), so the clearance test and the bounds decide
    without the cost's walks: the same answer."""
    W = M.walk
    C = M.edges
    B = W.B
    x = Q.x
    if finite:
        return in_bounds(B, x[0], x[1]) and in_bounds(B, qx, qy) and not sweep_blocked(C, x[0], x[1], qx, qy,
                                                                                         Q.need)
    return sweep_from(M, Q, tx, qx, qy, work) < math.inf


@jit(noalloc=True)
def farthest_sweepable(M, R: RouteSpan, Q: DiscQuery, s_lo, s_hi, work: DiscChoiceWork) -> float:
    """The farthest arc length t in (s_lo, s_hi] whose route point the disc can sweep to from x, by bisection on
    the boundary between a sweepable and a blocked point (40 halvings); -1 when none is found."""
    W = M.walk
    B = W.B
    rp, rs, lo, hi = R
    q = work.q
    x = Q.x
    tx = locate_any(W, x[0], x[1]) if in_bounds(B, x[0], x[1]) else -1
    finite = True
    for k in range(Q.weights.shape[0]):
        finite = finite and math.isfinite(Q.weights[k])
    point_at_into(rp, rs, lo, hi, s_hi, q)
    if _can_sweep(M, Q, tx, q[0], q[1], finite, work):
        return s_hi
    a = s_lo
    b = s_hi
    found = -1.0
    for _ in range(40):
        m = 0.5 * (a + b)
        point_at_into(rp, rs, lo, hi, m, q)
        if _can_sweep(M, Q, tx, q[0], q[1], finite, work):
            found = m
            a = m
        else:
            b = m
    return found


@jit(noalloc=True)
def disc_fallback(M, R: RouteSpan, Q: DiscQuery, s_end, s_attr_prev, attr_prev, out_s, work: DiscChoiceWork) -> int:
    """Disc MIRAN when no candidate but r_i itself can be swept to (the samples every d lie round a corner the
    disc cannot cut): head for the farthest route point up to ``s_end`` (the end of the first visible interval)
    that the disc can sweep to (SWEEP_SEARCH); else keep the previous attraction point or take the reference
    point if the disc can sweep there and it is not where the disc stands; failing all, fall back to point
    visibility (the forces and the collision guard keep the disc off the obstacles)."""
    rp, rs, lo, hi = R
    x = Q.x
    s_r = Q.s_r
    r_pt = Q.r_pt
    q = work.q
    tol = 1e-9 * Q.scale
    if s_end > s_r + tol:
        t = farthest_sweepable(M, R, Q, s_r, s_end, work)
        point_at_into(rp, rs, lo, hi, t, q)
        if t > s_r + tol and norm2d(q[0] - x[0], q[1] - x[1]) > tol:
            out_s[0] = t
            return SWEEP_SEARCH
    if (s_attr_prev >= s_r and norm2d(attr_prev[0] - x[0], attr_prev[1] - x[1]) > tol
            and sweep_from(M, Q, -1, attr_prev[0], attr_prev[1], work) < math.inf):
        out_s[0] = s_attr_prev
        return KEPT_PREVIOUS
    if (norm2d(r_pt[0] - x[0], r_pt[1] - x[1]) > tol
            and sweep_from(M, Q, -1, r_pt[0], r_pt[1], work) < math.inf):
        out_s[0] = s_r
        return TO_REFERENCE
    return fallback(M, x, s_r, r_pt, s_attr_prev, attr_prev, out_s)
