"""MIRAN (Jaklin, Cook and Geraerts 2013, section 3) for one point character: reference point, candidates, choice.

Called by the simulation's attraction phase for each walking agent. Routes are the packed arrays of
core.routes.kernels (``rp`` (N, 2) float64 points, ``rs`` (N,) float64 arc lengths, the agent's route the rows
[lo, hi)); the navigation mesh enters as one ``MeshArrays`` (core.navmesh.kernels.arrays).
Visibility and terrain lengths are the mesh's exact triangle walks, never a grid.
"""

from __future__ import annotations

import math

import numpy as np
from core.jitcache import jit

from core.navmesh.kernels.arrays import EdgeGrid, MeshArrays, RouteSpan
from core.navmesh.kernels.clearance import segment_clearance
from core.navmesh.kernels.crossings import crossing_cost, window_terrain_edges
from core.navmesh.kernels.disc import disc_cost
from core.navmesh.kernels.kept_edges import collect_kept
from core.navmesh.kernels.predicates import norm2d
from core.navmesh.kernels.segments import segment_cost, segment_visible, walk_cost
from core.navmesh.kernels.shadows import box_meets_any
from core.navmesh.kernels.walk import in_bounds, locate_any
from core.routes.kernels import closest_point, point_at_into

from .candidates import omega_of, pick_best, sample_at, sample_count, strictly_worse
from .choice import ChoiceParams, ChoiceWork

# Two points closer than this, relative to the scene's size, are "the same point" (x_i = r_i in MIRAN 3.2).
SAME_POINT_RTOL = 1e-9

# Fallback codes when the candidate set is empty (MIRAN 3.5: only when other forces pushed the character).
CHOSEN = 0
KEPT_PREVIOUS = 1
TO_REFERENCE = 2
NOTHING_VISIBLE = 3
SWEEP_SEARCH = 4


@jit(noalloc=True)
def reference_point(rp, rs, lo, hi, x, s_ref_prev, s_attr_prev) -> float:
    """MIRAN 3.1: arc length of the first closest route point to x between r_{i-1} and alpha_{i-1}."""
    s1 = s_attr_prev if s_attr_prev > s_ref_prev else s_ref_prev
    return closest_point(rp, rs, lo, hi, x, s_ref_prev, s1)


@jit(noalloc=True)
def same_point(ax, ay, bx, by, scale) -> bool:
    """Are two points equal up to SAME_POINT_RTOL * scale?"""
    return norm2d(ax - bx, ay - by) <= SAME_POINT_RTOL * scale


@jit(inline=True)
def pick_candidate(M: MeshArrays, TX, R: RouteSpan, x, s_r, intervals, n_int, cp: ChoiceParams, cw: ChoiceWork,
                   tri, sweep) -> tuple:
    """Sample the intervals every ``cp.d`` and return (best arc length, its omega, number of candidates) (MIRAN
    3.2-3.3). ``M`` is the mesh, ``R`` the agent's route; ``cp`` the choice's parameters and ``cw`` its work arrays
    (``choice``: ``q``, ``trace`` named ``tr_c`` below, ``cands`` named ``cwork``, and the kept terrain edges of
    a crowd's agent, ``kept`` and ``agent``).

    omega = sum_T w(T) l^T / d_ij with the exact terrain lengths of x -> candidate: from the segment's crossings
    of terrain boundaries (``crossings.crossing_cost``; ``TX`` is (TE, TD, TG, TS, TI, work) of the mesh's
    ``terrain_args()`` and ``crossings.crossing_work``), or one triangle walk from x's triangle, located once, where
    those do not decide it; where the profile weighs every terrain alike, sum_T w(T) l^T is w |x - candidate|
    exactly (the segment is visible), so neither is needed. ``disc_radius > 0`` switches to the disc traversal
    cost ``sweep`` (``sweep_cost``: Kremyzas eq. 4.5), infinite where the disc would come closer than ``disc_need``
    to an obstacle; such candidates cannot be chosen. Point agents pass ``no_sweep``: compiled with it, this kernel
    allocates nothing (the disc cost does) and runs without numba's reference counting. It is inlined into its
    callers, so ``sweep`` is resolved when they compile (a function passed at run time would keep them out of
    numba's cache).

    The choice is the farthest candidate whose omega is within TIE_RTOL of the minimum (MIRAN 3.3: minimum weight,
    ties to the greatest curve length distance). Candidates are weighed farthest first, and one whose lower bound
    w_min |x - q| / d_ij already exceeds the best by more than the tie tolerance is never walked (exact pruning;
    the far candidates usually win). Not when tracing: ``tr_c`` (m, 4) then receives every [s, x, y, omega] row in
    route order. Best is -1 when there is no candidate. ``cwork`` (2, m) float64 holds the candidates' arc lengths
    and omegas (m at least sigma / d + 2 n_int + 2); ``tri`` is a triangle containing x (-1 when unknown).
    """
    d, w, w_min, uniform, skip_first, disc_radius, disc_need = cp
    q, tr_c, cwork, kept, agent = cw
    rp, rs, lo, hi = R
    tracing = tr_c.shape[0] > 0
    total = 0
    for j in range(n_int):
        total += sample_count(intervals[j, 0], intervals[j, 1], d)
    if skip_first and n_int > 0:
        total -= 1
    if total <= 0:
        return -1.0, np.inf, 0
    if total > cwork.shape[1]:
        total = cwork.shape[1]  # work_buffers sizes cwork for sigma / d: only past MAX_INTERVALS intervals
    ts = cwork[0]
    ws = cwork[1]
    W = M.walk
    V, T, N, TT, B = W.V, W.T, W.N, W.TT, W.B
    start = -1
    nc = -1
    TE, TD, TG, TS, TI, xwork = TX
    if not uniform and disc_radius <= 0.0 and in_bounds(B, x[0], x[1]):
        start = tri if tri >= 0 else locate_any(W, x[0], x[1])
        if start >= 0 and TT[start] >= 0 and n_int > 0:
            x0, y0, x1, y1 = window_box(rp, rs, lo, hi, intervals[0, 0], intervals[n_int - 1, 1], x[0], x[1])
            grid = EdgeGrid(TE, TG, TS, TI)
            if agent >= 0:
                nc = collect_kept(grid, x0, y0, x1, y1, xwork[0], xwork[1], kept, agent)
            else:
                nc = window_terrain_edges(grid, x0, y0, x1, y1, xwork)
    best_w = np.inf
    m = total
    for jj in range(n_int):
        j = n_int - 1 - jj
        a = intervals[j, 0]
        b = intervals[j, 1]
        count = sample_count(a, b, d)
        for kk in range(count):
            k = count - 1 - kk
            if j == 0 and k == 0 and skip_first:
                continue
            m -= 1
            if m < 0:
                break  # the nearest candidates beyond cwork's capacity are left out
            t = sample_at(a, b, d, k, count)
            ts[m] = t
            point_at_into(rp, rs, lo, hi, t, q)
            dij = t - s_r
            dist = norm2d(q[0] - x[0], q[1] - x[1])
            if not tracing and dij > 0.0 and strictly_worse(w_min * dist / dij, best_w):
                ws[m] = np.nan
                continue
            if disc_radius > 0.0:
                cost = sweep(M, x[0], x[1], q[0], q[1], disc_radius, disc_need, w)
            elif uniform:
                cost = w_min * dist
            elif start >= 0 and in_bounds(B, q[0], q[1]):
                cost = math.nan
                if nc >= 0 and not box_meets_any(TE, xwork[0], nc, min(x[0], q[0]), min(x[1], q[1]),
                                                 max(x[0], q[0]), max(x[1], q[1])):
                    cost = w[TT[start]] * dist  # no terrain boundary near x -> q: one type all along
                elif nc >= 0:
                    cost = crossing_cost(TE, TD, nc, x[0], x[1], TT[start], q[0], q[1], w, xwork)
                if cost != cost:
                    cost = walk_cost(V, T, N, TT, start, x[0], x[1], q[0], q[1], w)
            else:
                cost = segment_cost(W, x[0], x[1], q[0], q[1], w)
            om = omega_of(cost, dij)
            if tracing and m < tr_c.shape[0]:
                tr_c[m, 0] = t
                tr_c[m, 1] = q[0]
                tr_c[m, 2] = q[1]
                tr_c[m, 3] = om
            if disc_radius > 0.0 and cost == np.inf:
                ws[m] = np.nan
                continue
            ws[m] = om
            if om < best_w:
                best_w = om
        if m < 0:
            break
    # A lone r_i (omega infinite) is still a candidate (MIRAN 3.2), unless it is a disc the sweep ruled out.
    best = pick_best(ws, total)
    if best < 0:
        return -1.0, np.inf, total
    return ts[best], ws[best], total


@jit(noalloc=True)
def window_box(rp, rs, lo, hi, s0, s1, x, y) -> tuple:
    """(xmin, ymin, xmax, ymax) of the route between arc lengths s0 and s1 and the point (x, y)."""
    xmin = xmax = x
    ymin = ymax = y
    j = lo
    while j < hi - 1 and rs[j + 1] < s0:
        j += 1
    while j < hi and rs[j] <= s1:
        xmin = min(xmin, rp[j, 0])
        xmax = max(xmax, rp[j, 0])
        ymin = min(ymin, rp[j, 1])
        ymax = max(ymax, rp[j, 1])
        j += 1
    if j < hi:
        xmin = min(xmin, rp[j, 0])
        xmax = max(xmax, rp[j, 0])
        ymin = min(ymin, rp[j, 1])
        ymax = max(ymax, rp[j, 1])
    return xmin, ymin, xmax, ymax


@jit
def sweep_cost(M, px, py, qx, qy, radius, need, w) -> float:
    """Kremyzas eq. 4.5's COMPUTETRAVERSALCOST for a disc of this radius sweeping p -> q (max-weight rule, ch. 3),
    and +inf ("a very large omega", section 4.1) when the sweep would come closer than ``need`` to an obstacle:
    the exact segment-to-obstacle distance decides, so an infinite cost means the disc cannot pass."""
    if segment_clearance(M.edges, px, py, qx, qy) < need:
        return np.inf
    c = disc_cost(M.walk, px, py, qx, qy, radius, w)
    return np.inf if c != c else c


@jit(noalloc=True)
def no_sweep(M, px, py, qx, qy, radius, need, w) -> float:
    """``pick_candidate``'s disc cost for point agents, which never ask for one (their radius is 0): no disc can
    pass, as no disc is being swept."""
    return np.inf


@jit(noalloc=True)
def fallback(M: MeshArrays, x, s_r, r_pt, s_attr_prev, attr_prev, out_s) -> int:
    """No candidate (only possible once other forces pushed the character off its line of sight, MIRAN 3.5):
    keep the previous attraction point if it is still visible, else head for the reference point if visible,
    else report NOTHING_VISIBLE (the route must be replanned). Writes the arc length into ``out_s[0]``."""
    W = M.walk
    if s_attr_prev >= s_r and segment_visible(W, x[0], x[1], attr_prev[0], attr_prev[1]):
        out_s[0] = s_attr_prev
        return KEPT_PREVIOUS
    if segment_visible(W, x[0], x[1], r_pt[0], r_pt[1]):
        out_s[0] = s_r
        return TO_REFERENCE
    out_s[0] = s_r
    return NOTHING_VISIBLE
