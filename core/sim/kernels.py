"""The simulation step as numba kernels, one per phase over all agents, driven by ``advance`` for many steps.

Phases of one step, one numba kernel per phase and not per agent (docs: Explanation, the kernel layer):

1. ``attraction_points`` then ``attraction_rest``: reference point, visible intervals, candidates and the
   attraction point of every walking MIRAN agent (MIRAN 3.1-3.3; disc MIRAN, Kremyzas 4.1-4.2). The first pass
   allocates nothing and so runs without numba's reference counting, which costs about half a microsecond per call
   for the arrays a phase receives; it leaves discs and windows that need the exact expansion to the second.
2. ``force_phase``: F = F_s + F_b + F_o at the positions all agents stood on (MIRAN 3.4, IRM eqs. 1, 3, 6), after
   the neighbour grid is rebuilt.
3. ``move_phase``: integration (integrators.py), the collision guard, arrival, the walked lengths, the log and
   the progress guarantee (progress.py: a stalled agent walks straight at its attraction point and then along its
   route, so that every agent arrives).

The collision guard keeps the path in the free space exactly: a step whose segment would enter an obstacle (or,
for a disc of disc MIRAN or IRM, come closer than its radius R to one) is replaced by a step of the same length
straight towards the attraction point, which is visible (disc: sweepable) by construction; if even that is refused
the agent waits, and if it waits too long the progress guarantee takes over.

Multi-core stepping: ``advance`` splits the agents into ``StepPlan.blocks`` ranges, one ``Work`` each
(core.sim.work), and runs each phase's blocks in parallel (numba ``prange``); the neighbour grid, the path log and
the counts are serial. Every per-agent write goes to that agent's rows only and no floating-point sum runs across
agents, so the same seed gives the same bytes whatever the number of threads.

Arguments: ``M`` the navigation mesh (``core.navmesh.kernels.arrays.MeshArrays``: ``W = M.walk`` its
triangulation, ``C = M.edges`` its obstacle edges); ``R`` the packed routes, ``P`` the parameters, ``X`` the crowd
extras (core.sim.kernel_inputs); ``A`` the agent arrays (core.sim.agent_arrays); ``wk`` a block's Work; ``rec``
the path log (agent, t, xy, cursor); ``tr`` the trace buffers (slot, scalars, intervals, adjusted, cands); ``nb``
the neighbour grid (core.sim.neighbors.Neighbours).
"""

from __future__ import annotations

import numpy as np
from numba import prange

from core.jitcache import jit
from core.jitref import by_ref, deref
from core.kernels.grid import cell_range

from core.navmesh.kernels.arrays import RouteSpan
from core.navmesh.kernels.clearance import point_clearance
from core.navmesh.kernels.disc import sweep_blocked
from core.navmesh.kernels.predicates import norm2d
from core.navmesh.kernels.segments import segment_terrain_lengths, walk_terrain_lengths
from core.navmesh.kernels.shadows import shadow_intervals_kept, visible_intervals_by_shadows
from core.navmesh.kernels.walk import in_bounds, locate_near
from core.routes.kernels import closest_point, point_at_into
from core.steering.choice import ChoiceParams, ChoiceWork
from core.steering.disc_miran import adjust_intervals, disc_fallback, pick_disc_candidate, sweep_need
from core.steering.disc_query import DiscQuery, disc_choice_work
from core.steering.forces import avoidance_term, boundary_force, steering_force
from core.steering.methods import DISC_MIRAN, IRM, MIRAN
from core.steering.miran import (
    CHOSEN,
    NOTHING_VISIBLE,
    fallback,
    no_sweep,
    pick_candidate,
    reference_point,
    same_point,
    sweep_cost,
)

from . import neighbors
from .crowd import crowd_needed, crowd_phase, fastest_walker
from .irm_phase import irm_attraction_phase
from .fidelity import FAST, KEEP_COSTLY, KEEP_KEPT, KEEP_RECOVERING, KeepRule, keeps_choice
from .integrators import integrate
from .work import MAX_INTERVALS, work_buffers
from .progress import (count_step, end_recovery, note_progress, passed_target, recovery_target, resume_forces,
                       stall_time)
from .state import ARRIVED, LOST, REASON_BLOCKED, WALKING
from .trace import (
    TS_ATTR_X,
    TS_ATTR_Y,
    TS_CLEAR,
    TS_F_X,
    TS_F_Y,
    TS_FALLBACK,
    TS_FB_X,
    TS_FB_Y,
    TS_FO_X,
    TS_FO_Y,
    TS_FS_X,
    TS_FS_Y,
    TS_KEEP,
    TS_N_ADJ,
    TS_N_CAND,
    TS_N_INT,
    TS_NEAR_X,
    TS_NEAR_Y,
    TS_POS_X,
    TS_POS_Y,
    TS_REF_X,
    TS_REF_Y,
    TS_S_ATTR,
    TS_S_END,
    TS_S_REF,
    TS_TIME,
)

# Stop flags of ``advance``.
STOP_ALL_DONE = 1
STOP_ON_LOST = 2
# What a step logs: nothing, the arrivals only, or every walker (``StepPlan.record`` = N > 0 logs every walker on
# each N-th step of the run and the arrivals on the others; 0 logs nothing).
RECORD_OFF = 0
RECORD_ARRIVALS = 1
RECORD_ALL = 2


@jit(inline=True, noalloc=True)
def _begin_choice(i, W, R, A, P, rpt) -> tuple:
    """What every MIRAN choice starts with: x's triangle, found from the one it stood in last step (most steps stay
    in it or step next door), the reference point r_i (MIRAN 3.1, its position into ``rpt``) and the window's end:
    (triangle, s_r, s1). Inlined, as ``_settle_choice``: a call copies every array of W, R, A and P onto the stack
    (numba passes each array's fields as arguments), about 50 ns per agent and step."""
    rp, rs = R.points, R.s
    x = A.pos[i]
    lo = A.route_lo[i]
    hi = A.route_hi[i]
    tx = locate_near(W, A.tri[i], x[0], x[1])
    A.tri[i] = tx
    s_r = reference_point(rp, rs, lo, hi, x, A.s_ref[i], A.s_attr[i])
    point_at_into(rp, rs, lo, hi, s_r, rpt)
    return tx, s_r, min(s_r + P.prof[A.profile[i]].sigma, rs[hi - 1])


@jit(inline=True, noalloc=True)
def _settle_choice(i, code, best_s, s_r, R, A, q) -> int:
    """Store agent i's choice: r_i and the attraction point, or LOST when no part of its route is visible (MIRAN
    3.5). Returns 1 when the agent became lost."""
    A.s_ref[i] = s_r
    A.attr_age[i] = 0
    if code == NOTHING_VISIBLE:
        A.status[i] = LOST
        return 1
    A.s_attr[i] = best_s
    point_at_into(R.points, R.s, A.route_lo[i], A.route_hi[i], best_s, q)
    A.attr[i, 0] = q[0]
    A.attr[i, 1] = q[1]
    return 0


@jit(noalloc=True)
def _trace_choice(i, tr, t_now, A, s_r, s1, rpt, ints, adj, m, code) -> None:
    """The traced agent's choice into its trace row (``tr`` as in ``advance``): ``ints`` (intervals, count) the
    visible intervals, ``adj`` (intervals, count) the disc-adjusted ones, count < 0 for point agents."""
    slot, tsc, tint, tadj, tcand = tr
    ibuf, n_int = ints
    abuf, n_adj = adj
    k = slot[i]
    row = tsc[k]
    row[TS_TIME] = t_now
    row[TS_POS_X] = A.pos[i, 0]
    row[TS_POS_Y] = A.pos[i, 1]
    row[TS_S_REF] = s_r
    row[TS_REF_X] = rpt[0]
    row[TS_REF_Y] = rpt[1]
    row[TS_S_END] = s1
    row[TS_S_ATTR] = A.s_attr[i]
    row[TS_ATTR_X] = A.attr[i, 0]
    row[TS_ATTR_Y] = A.attr[i, 1]
    row[TS_N_INT] = min(n_int, tint.shape[1])
    for j in range(min(n_int, tint.shape[1])):
        tint[k, j, 0] = ibuf[j, 0]
        tint[k, j, 1] = ibuf[j, 1]
    row[TS_N_ADJ] = 0.0
    if n_adj >= 0:
        row[TS_N_ADJ] = min(n_adj, tadj.shape[1])
        for j in range(min(n_adj, tadj.shape[1])):
            tadj[k, j, 0] = abuf[j, 0]
            tadj[k, j, 1] = abuf[j, 1]
    row[TS_N_CAND] = min(m, tcand.shape[1])
    row[TS_FALLBACK] = code


@jit(noalloc=True)
def _trace_kept(i, tr, t_now, A, R, P, rpt) -> None:
    """A traced agent's row for a step on its kept attraction point (fast mode, core.sim.fidelity): where it stands,
    its reference point and window as last chosen, the kept point; no intervals or candidates (none were
    computed)."""
    k = tr[0][i]
    row = tr[1][k]
    lo = A.route_lo[i]
    hi = A.route_hi[i]
    point_at_into(R.points, R.s, lo, hi, A.s_ref[i], rpt)
    row[TS_TIME] = t_now
    row[TS_POS_X] = A.pos[i, 0]
    row[TS_POS_Y] = A.pos[i, 1]
    row[TS_S_REF] = A.s_ref[i]
    row[TS_REF_X] = rpt[0]
    row[TS_REF_Y] = rpt[1]
    row[TS_S_END] = min(A.s_ref[i] + P.prof[A.profile[i]].sigma, R.s[hi - 1])
    row[TS_S_ATTR] = A.s_attr[i]
    row[TS_ATTR_X] = A.attr[i, 0]
    row[TS_ATTR_Y] = A.attr[i, 1]
    row[TS_N_INT] = 0.0
    row[TS_N_ADJ] = 0.0
    row[TS_N_CAND] = 0.0
    row[TS_FALLBACK] = CHOSEN


@jit(inline=True, noalloc=True)
def attraction_points(M, R, A, P, t_now, tr, wk) -> tuple:
    """The attraction phase's allocation-free pass over the block's agents [wk.lo, wk.hi): every walking point
    MIRAN agent whose window the shadows decide. The others (discs, windows that need the exact expansion or more
    room) go into ``wk.rest[wk.lo:]``. Returns (agents that became LOST, agents in rest). ``wk.tx`` holds the
    terrain boundaries and their work arrays (``core.steering.miran.pick_candidate``); ``wk.keep`` every agent's
    window edges kept between steps (core.sim.kernel_inputs.KeptWindows: the same edges in the same order as from
    the grids, which are visited only when a window leaves its kept box)."""
    W = M.walk
    TT = W.TT
    rp, rs = R.points, R.s
    prof, weights, wstat, scale = P.prof, P.weights, P.wstat, P.scale
    pos, route_lo, route_hi, profile, method, status = A.pos, A.route_lo, A.route_hi, A.profile, A.method, A.status
    slot, tcand = tr[0], tr[4]
    ibuf, q, rpt, no_trace, vwork, cwork, TX, rest = wk.ibuf, wk.q, wk.rpt, wk.no_trace, wk.vwork, wk.cwork, wk.tx, \
        wk.rest
    keep = wk.keep
    lost = 0
    n_rest = 0
    tol = 1e-9 * scale
    g = P.glob[0]
    fast = g.fidelity == FAST
    steps = int(g.fast_steps)
    age, rec_s = A.attr_age, A.prog.rec_s
    for i in range(wk.lo, wk.hi):
        if status[i] != WALKING or method[i] == IRM:
            continue
        if fast:
            # Fast mode (core.sim.fidelity): the attraction point kept while it stays in sight, on the character's
            # cheapest terrain; else chosen exactly, and why into a traced character's row.
            verdict = KEEP_RECOVERING
            if rec_s[i] < 0.0:
                p = profile[i]
                rule = KeepRule(steps, prof[p].max_speed, g.dt, prof[p].sigma, wstat[p, 1] > 0.0,
                                A.radius[i] if method[i] == DISC_MIRAN else 0.0, tol)
                # Costly ground where it stood a step ago (its last triangle) spares the walk to the point.
                t_last = A.tri[i]
                t_keep = -1
                if not rule.uniform and t_last >= 0 and TT[t_last] >= 0 and weights[p, TT[t_last]] > wstat[p, 0]:
                    verdict = KEEP_COSTLY
                else:
                    t_keep = keeps_choice(M, t_last, pos[i], A.attr[i], age[i], rule, wk.clear[i],
                                          wk.clear_at[i])
                    verdict = -t_keep if t_keep < 0 else KEEP_KEPT
                    if t_keep >= 0 and not rule.uniform and weights[p, TT[t_keep]] > wstat[p, 0]:
                        verdict = KEEP_COSTLY
                if verdict == KEEP_KEPT:
                    A.tri[i] = t_keep
                    age[i] += 1
            if slot.shape[0] > 0 and slot[i] >= 0:
                tr[1][slot[i], TS_KEEP] = verdict
                if verdict == KEEP_KEPT:
                    _trace_kept(i, tr, t_now, A, R, P, rpt)
            if verdict == KEEP_KEPT:
                continue
        if method[i] == DISC_MIRAN:
            rest[wk.lo + n_rest] = i
            n_rest += 1
            continue
        x = pos[i]
        lo = route_lo[i]
        hi = route_hi[i]
        tx, s_r, s1 = _begin_choice(i, W, R, A, P, rpt)
        n_int = shadow_intervals_kept(M, x[0], x[1], RouteSpan(rp, rs, lo, hi), s_r, s1, ibuf, vwork, tx,
                                      keep.obstacles, i)
        if n_int < 0:
            rest[wk.lo + n_rest] = i
            n_rest += 1
            continue
        p = profile[i]
        skip_first = n_int > 0 and ibuf[0, 0] <= s_r + tol and same_point(x[0], x[1], rpt[0], rpt[1], scale)
        k = slot[i] if slot.shape[0] > 0 else -1
        tc = tcand[k] if k >= 0 else no_trace
        best_s, _, m = pick_candidate(M, TX, RouteSpan(rp, rs, lo, hi), x, s_r, ibuf, n_int,
                                      ChoiceParams(prof[p].d, weights[p], wstat[p, 0], wstat[p, 1] > 0.0,
                                                   skip_first, 0.0, 0.0), ChoiceWork(q, tc, cwork, keep.terrain, i),
                                      tx, no_sweep)
        code = CHOSEN
        if best_s < 0.0:
            code = fallback(M, x, s_r, rpt, A.s_attr[i], A.attr[i], wk.outs)
            best_s = wk.outs[0]
        lost += _settle_choice(i, code, best_s, s_r, R, A, q)
        if k >= 0:
            _trace_choice(i, tr, t_now, A, s_r, s1, rpt, (ibuf, n_int), (ibuf, -1), m, code)
    return lost, n_rest


@jit(shared=True)
def attraction_rest(M, R, A, P, t_now, tr, wk, n_rest) -> int:
    """The attraction phase's full pass for the agents in ``wk.rest[wk.lo:wk.lo + n_rest]``: visible intervals with
    the exact triangle expansion where the shadows defer, buffers grown to any number of intervals, and disc MIRAN
    (Kremyzas 4.1-4.2: interval ends adjusted for the disc, the sweep cost, the disc fallback). Returns how many
    became LOST."""
    W = M.walk
    C = M.edges
    rp, rs = R.points, R.s
    prof, weights, wstat, scale = P.prof, P.weights, P.wstat, P.scale
    pos, attr, s_attr, route_lo, route_hi, profile, method, radius = A.pos, A.attr, A.s_attr, A.route_lo, \
        A.route_hi, A.profile, A.method, A.radius
    slot, tcand = tr[0], tr[4]
    ibuf, abuf, q, rpt, outs, no_trace, vwork, cwork, TX = wk.ibuf, wk.abuf, wk.q, wk.rpt, wk.outs, wk.no_trace, \
        wk.vwork, wk.cwork, wk.tx
    lost = 0
    tol = 1e-9 * scale
    dwork = disc_choice_work(cwork.shape[1])
    for j in range(n_rest):
        i = wk.rest[wk.lo + j]
        x = pos[i]
        lo = route_lo[i]
        hi = route_hi[i]
        p = profile[i]
        w = weights[p]
        rad = radius[i] if method[i] == DISC_MIRAN else 0.0
        need = sweep_need(C, x, rad, wk.clear[i], wk.clear_at[i], tol) if rad > 0.0 else 0.0
        tx, s_r, s1 = _begin_choice(i, W, R, A, P, rpt)
        span = RouteSpan(rp, rs, lo, hi)
        n_int = visible_intervals_by_shadows(M, x[0], x[1], span, s_r, s1, ibuf, vwork, tx)
        while n_int < 0:
            ibuf = np.empty((4 * ibuf.shape[0], 2), dtype=np.float64)
            abuf = np.empty((ibuf.shape[0], 2), dtype=np.float64)
            n_int = visible_intervals_by_shadows(M, x[0], x[1], span, s_r, s1, ibuf, vwork, tx)
        ints = ibuf
        n_use = n_int
        Q = DiscQuery(x, rad, need, w, s_r, s1, rpt, scale)
        if rad > 0.0:
            n_use = adjust_intervals(W, span, Q, ibuf, n_int, abuf, dwork, tx)
            ints = abuf
        skip_first = n_use > 0 and ints[0, 0] <= s_r + tol and same_point(x[0], x[1], rpt[0], rpt[1], scale)
        k = slot[i] if slot.shape[0] > 0 else -1
        tc = tcand[k] if k >= 0 else no_trace
        if rad > 0.0 and tc.shape[0] == 0:
            best_s, m = pick_disc_candidate(M, span, Q, ints, n_use, prof[p].d, skip_first, cwork, dwork)
        else:
            best_s, _, m = pick_candidate(M, TX, span, x, s_r, ints, n_use,
                                          ChoiceParams(prof[p].d, w, wstat[p, 0], wstat[p, 1] > 0.0, skip_first,
                                                       rad, need), ChoiceWork(q, tc, cwork, wk.keep.terrain, i), tx,
                                          sweep_cost)
        code = CHOSEN
        if rad > 0.0 and best_s <= s_r + tol and not same_point(x[0], x[1], rpt[0], rpt[1], scale):
            best_s = -1.0  # only r_i itself (omega infinite) was left: the disc needs a point it can sweep to
        if best_s < 0.0:
            if rad > 0.0:
                s_end = ints[0, 1] if n_use > 0 else (ibuf[0, 1] if n_int > 0 else s_r)
                code = disc_fallback(M, span, Q, s_end, s_attr[i], attr[i], outs, dwork)
            else:
                code = fallback(M, x, s_r, rpt, s_attr[i], attr[i], outs)
            best_s = outs[0]
        lost += _settle_choice(i, code, best_s, s_r, R, A, q)
        if k >= 0:
            _trace_choice(i, tr, t_now, A, s_r, s1, rpt, (ibuf, n_int), (abuf, n_use if rad > 0.0 else -1), m,
                          code)
    return lost


@jit(inline=True, noalloc=True)
def far_from_obstacles(x, c_last, at, ds, min_clear, tol) -> bool:
    """Is the clearance at x certainly at least ``ds`` and ``min_clear``, knowing it was ``c_last`` at ``at`` (2,)
    (NaN: never measured)? The distance to the obstacles is 1-Lipschitz, so it is at least c_last - |x - at|; ``tol``
    covers the rounding. Then IRM eq. 1's F_b is exactly 0 (it acts only where d_b - r < d_s) and the path's
    smallest clearance stays as it is: the point agent's nearest-obstacle query can be skipped."""
    low = c_last - norm2d(x[0] - at[0], x[1] - at[1]) - tol
    return low >= ds and low >= min_clear


@jit(inline=True, noalloc=True)
def force_phase(C, A, P, nb, tr, wk) -> None:
    """F = F_s + F_b + F_o for every walking agent of the block at its current position, into ``wk.fnew`` (n, 2);
    its clearance d_b into ``wk.clear`` (n,), measured where it is, except for point MIRAN agents while
    ``far_from_obstacles`` proves F_b zero and the smallest clearance unchanged (not traced ones)."""
    pos, attr, profile, method, radius, status, min_clear = A.pos, A.attr, A.profile, A.method, A.radius, \
        A.status, A.min_clear
    g, prof = P.glob[0], P.prof
    grid, cell_start, order, spos, srad = nb.grid, nb.cell_start, nb.order, nb.pos, nb.radius
    slot, tsc = tr[0], tr[1]
    fnew = wk.fnew
    dt = g.dt
    cs = g.c_s
    cb = g.c_b
    kappa = g.kappa
    fmax = g.f_max
    co = g.c_o
    interact = g.interact > 0.0 and cell_start.shape[0] > 1
    ncx = int(grid[3])
    ncy = int(grid[4])
    cell = grid[2]
    fs, fb, fo, bpt = wk.v0, wk.v1, wk.v2, wk.v3
    tol = 1e-9 * P.scale
    for i in range(wk.lo, wk.hi):
        fnew[i, 0] = 0.0
        fnew[i, 1] = 0.0
    # With interactions, agents go in cell order (core.sim.neighbors.visited): neighbours' scans share rows.
    for k in range(neighbors.visits(nb, interact, wk.lo, wk.hi)):
        i = neighbors.visited(nb, interact, k, wk.lo, wk.hi)
        if i < 0 or status[i] != WALKING:
            continue
        x = pos[i]
        vmax = prof[profile[i]].max_speed
        rgeo = radius[i] if method[i] == DISC_MIRAN else 0.0
        steering_force(x, attr[i], cs, vmax, fs)
        ds = g.safe_distance if g.safe_distance > 0.0 else 2.0 * vmax * dt
        traced = slot.shape[0] > 0 and slot[i] >= 0
        db, bx, by, e = wk.clear[i], np.nan, np.nan, -1
        if method[i] != MIRAN or traced or not far_from_obstacles(x, wk.clear[i], wk.clear_at[i], ds,
                                                                  min_clear[i], tol):
            db, bx, by, e = point_clearance(C, x[0], x[1])
            wk.clear[i] = db
            wk.clear_at[i, 0] = x[0]
            wk.clear_at[i, 1] = x[1]
        fb[0] = 0.0
        fb[1] = 0.0
        if e >= 0:
            bpt[0] = bx
            bpt[1] = by
            if method[i] != IRM:  # IRM agents feel their corridor's boundary instead (crowd.irm_boundary)
                boundary_force(x, bpt, rgeo, ds, kappa, cb, vmax, fmax, fb)
            if db - rgeo < min_clear[i]:
                min_clear[i] = db - rgeo
        fo[0] = 0.0
        fo[1] = 0.0
        if interact and co > 0.0:
            ri = radius[i]
            d_o = g.d_o if g.d_o > 0.0 else vmax * 1.0
            reach = d_o + 2.0 * ri
            cx0, cx1, cy0, cy1 = cell_range(grid[0], grid[1], cell, ncx, ncy, x[0], x[1], reach)
            for cy in range(cy0, cy1 + 1):
                # A row's cells are one run of the sorted agents (core.sim.neighbors), cell by cell.
                for m in range(cell_start[cy * ncx + cx0], cell_start[cy * ncx + cx1 + 1]):
                    if order[m] != i:
                        avoidance_term(x, spos[m], ri, srad[m], d_o, co * d_o, vmax, fmax, fo)
        fnew[i, 0] = fs[0] + fb[0] + fo[0]
        fnew[i, 1] = fs[1] + fb[1] + fo[1]
        if traced:
            row = tsc[slot[i]]
            row[TS_FS_X] = fs[0]
            row[TS_FS_Y] = fs[1]
            row[TS_FB_X] = fb[0]
            row[TS_FB_Y] = fb[1]
            row[TS_FO_X] = fo[0]
            row[TS_FO_Y] = fo[1]
            row[TS_F_X] = fnew[i, 0]
            row[TS_F_Y] = fnew[i, 1]
            row[TS_CLEAR] = db
            row[TS_NEAR_X] = bx
            row[TS_NEAR_Y] = by


@jit(noalloc=True)
def _step_allowed(M, tri, x0, y0, x1, y1, rgeo, need, sure, tl) -> bool:
    """May an agent move from (x0, y0) to (x1, y1)? A point must stay in the closed free space and the bounds; a
    disc must keep ``need`` (its radius, or less where it already stood closer) from every obstacle edge along the
    segment. One walk (from ``tri``, a triangle containing (x0, y0), or -1) decides and leaves the step's length
    per terrain type in ``tl`` (T,) (MIRAN 3.3's l^T).

    ``sure``: the disc's clearance at (x0, y0) less ``need`` and a rounding margin. The distance to the obstacles
    is 1-Lipschitz, so a step shorter than ``sure`` keeps ``need`` along the whole segment and the exact segment
    test (the costly part of a disc's step) would answer yes: it is skipped."""
    W = M.walk
    C = M.edges
    V, T, N, TT, B = W.V, W.T, W.N, W.TT, W.B
    for k in range(tl.shape[0]):
        tl[k] = 0.0
    if not in_bounds(B, x1, y1):
        return False
    if tri >= 0:
        blocked = walk_terrain_lengths(V, T, N, TT, tri, x0, y0, x1, y1, tl)
    else:
        blocked = segment_terrain_lengths(W, x0, y0, x1, y1, tl)
    if blocked > 0.0:
        return False
    if rgeo > 0.0 and norm2d(x1 - x0, y1 - y0) >= sure and sweep_blocked(C, x0, y0, x1, y1, need):
        return False
    return True


# How many times a blocked integrated step is halved before the agent stands still for the step (move_phase).
SHORTER_STEPS = 4

@jit(inline=True, noalloc=True)
def move_phase(M, R, A, P, t_next, wk) -> int:
    """Integrate, guard against obstacles, detect arrival, accumulate lengths and keep the progress guarantee
    (core.sim.progress) for the block's agents, at time ``t_next`` (the end of the step); ``wk.moved`` marks the
    agents that walked (``log_moves`` logs them). Returns the number of agents that became LOST (their way
    blocked)."""
    W = M.walk
    V, T, N, TT, B = W.V, W.T, W.N, W.TT, W.B
    rp, rs = R.points, R.s
    g, prof, scale = P.glob[0], P.prof, P.scale
    pos, vel, force, has_force, attr, s_ref, s_attr, route_lo, route_hi, goal, profile, method, radius, tri, \
        status, t_arrive, length, terrain_len = A.pos, A.vel, A.force, A.has_force, A.attr, A.s_ref, A.s_attr, \
        A.route_lo, A.route_hi, A.goal, A.profile, A.method, A.radius, A.tri, A.status, A.t_arrive, A.length, \
        A.terrain_len
    pg = A.prog
    lost_reason, rec_s, rec_u = pg.lost_reason, pg.rec_s, pg.rec_u
    fnew, moved, clear = wk.fnew, wk.moved, wk.clear
    dt = g.dt
    code = int(g.integrator)
    lost = 0
    xn, vn, tl = wk.v0, wk.v1, wk.tl
    tol = 1e-9 * scale
    for i in range(wk.lo, wk.hi):
        moved[i] = status[i] == WALKING
        if status[i] != WALKING:
            continue
        x = pos[i]
        if passed_target(i, s_ref[i], s_attr[i], pg):
            resume_forces(i, t_next, x, s_ref[i], s_attr[i], attr[i], pg)
        count_step(i, pg)
        vmax = prof[profile[i]].max_speed
        total = rs[route_hi[i] - 1]
        # Discs keep their radius from the obstacles: disc MIRAN's and IRM's characters (IRM eq. 2's r).
        rgeo = radius[i] if method[i] == DISC_MIRAN or method[i] == IRM else 0.0
        arrive_r = g.arrival_radius if g.arrival_radius > 0.0 else vmax * dt
        gx = goal[i, 0]
        gy = goal[i, 1]
        dgoal = norm2d(gx - x[0], gy - x[1])
        tx = locate_near(W, tri[i], x[0], x[1])
        tri[i] = tx
        need = 0.0
        sure = 0.0
        if rgeo > 0.0:
            # Ten times the attraction phase's tolerance (attraction_rest, 1e-9): its disc fallback picks sweeps
            # that graze at that tolerance, and a part of such a sweep can compute a hair closer. The clearance at
            # x is the force phase's (the same point_clearance of the same position).
            c0 = clear[i]
            need = min(rgeo, c0) * (1.0 - 1e-8)
            sure = c0 - need - tol
        if s_attr[i] >= total - tol and dgoal <= max(arrive_r, vmax * dt):
            # The goal is the attraction point (visible, or sweepable for a disc) and within one step: arrive.
            xn[0] = gx
            xn[1] = gy
            vn[0] = 0.0
            vn[1] = 0.0
            for k in range(tl.shape[0]):
                tl[k] = 0.0
            if tx >= 0 and in_bounds(B, gx, gy):
                walk_terrain_lengths(V, T, N, TT, tx, x[0], x[1], gx, gy, tl)
            else:
                segment_terrain_lengths(W, x[0], x[1], gx, gy, tl)
            status[i] = ARRIVED
            t_arrive[i] = t_next
        elif rec_s[i] >= 0.0:
            # Recovering (core.sim.progress): straight at the attraction point, then along the route itself.
            lo = route_lo[i]
            hi = route_hi[i]
            u = recovery_target(rp, rs, lo, hi, x, attr[i], s_attr[i], rec_u[i], vmax * dt, xn)
            ok = _step_allowed(M, tx, x[0], x[1], xn[0], xn[1], rgeo, need, sure, tl)
            if not ok and rec_u[i] < 0.0:
                # An attraction point a disc cannot sweep to (IRM's is only visible): get onto the route where it
                # is nearest, behind the attraction point.
                s_q = closest_point(rp, rs, lo, hi, x, max(0.0, min(s_ref[i], s_attr[i]) - vmax * stall_time(g)),
                                    s_attr[i])
                q = wk.q
                point_at_into(rp, rs, lo, hi, s_q, q)
                u = recovery_target(rp, rs, lo, hi, x, q, s_q, -1.0, vmax * dt, xn)
                ok = _step_allowed(M, tx, x[0], x[1], xn[0], xn[1], rgeo, need, sure, tl)
            if ok:
                if u >= 0.0:
                    rec_u[i] = u
                if u >= total - tol:
                    status[i] = ARRIVED
                    t_arrive[i] = t_next
                elif u >= 0.0 and u >= rec_s[i]:
                    end_recovery(i, t_next, xn, rp, rs, lo, hi, u, s_ref, s_attr, attr, pg)
            else:
                xn[0] = x[0]
                xn[1] = x[1]
                status[i] = LOST
                lost_reason[i] = REASON_BLOCKED
                lost += 1
            vn[0] = 0.0 if status[i] != WALKING else (xn[0] - x[0]) / dt
            vn[1] = 0.0 if status[i] != WALKING else (xn[1] - x[1]) / dt
        else:
            integrate(code, x, vel[i], force[i], has_force[i], fnew[i], dt, vmax, xn, vn)
            if s_attr[i] >= total - tol and dgoal <= vmax / g.c_s + vmax * dt:
                # Final approach: within the turning radius vmax / c_s of its goal an agent that others nudged
                # could circle it for ever (the steering force cannot turn it tighter), so it walks straight in.
                h = min(vmax * dt, dgoal)
                xn[0] = x[0] + (gx - x[0]) * (h / dgoal)
                xn[1] = x[1] + (gy - x[1]) * (h / dgoal)
                vn[0] = (xn[0] - x[0]) / dt
                vn[1] = (xn[1] - x[1]) / dt
            if not _step_allowed(M, tx, x[0], x[1], xn[0], xn[1], rgeo, need, sure, tl):
                # Straight towards the attraction point, as far as the integrated step would have gone.
                ix = xn[0] - x[0]
                iy = xn[1] - x[1]
                h = norm2d(ix, iy)
                ax = attr[i, 0] - x[0]
                ay = attr[i, 1] - x[1]
                da = norm2d(ax, ay)
                if da > tol and h > 0.0:
                    h = min(h, da)
                    xn[0] = x[0] + ax * (h / da)
                    xn[1] = x[1] + ay * (h / da)
                else:
                    xn[0] = x[0]
                    xn[1] = x[1]
                if not _step_allowed(M, tx, x[0], x[1], xn[0], xn[1], rgeo, need, sure, tl):
                    # A disc between two walls that the straight line cuts a corner of (a corridor barely wider
                    # than the disc, where eq. 2's admissible safe distances are none): the integrated step
                    # shortened, halved until it keeps clear.
                    xn[0] = x[0]
                    xn[1] = x[1]
                    f = 0.5
                    for _ in range(SHORTER_STEPS):
                        if _step_allowed(M, tx, x[0], x[1], x[0] + f * ix, x[1] + f * iy, rgeo, need, sure, tl):
                            xn[0] = x[0] + f * ix
                            xn[1] = x[1] + f * iy
                            break
                        f *= 0.5
                vn[0] = (xn[0] - x[0]) / dt
                vn[1] = (xn[1] - x[1]) / dt
            if g.arrival_radius > 0.0 and norm2d(gx - xn[0], gy - xn[1]) <= g.arrival_radius:
                status[i] = ARRIVED
                t_arrive[i] = t_next
                vn[0] = 0.0
                vn[1] = 0.0
        step = norm2d(xn[0] - x[0], xn[1] - x[1])
        if step > 0.0:
            for k in range(tl.shape[0]):
                terrain_len[i, k] += tl[k]
            length[i] += step
        force[i, 0] = fnew[i, 0]
        force[i, 1] = fnew[i, 1]
        has_force[i] = True
        vel[i, 0] = vn[0]
        vel[i, 1] = vn[1]
        pos[i, 0] = xn[0]
        pos[i, 1] = xn[1]
        if status[i] == WALKING and rec_s[i] < 0.0:
            note_progress(i, g, vmax, t_next, pos[i], attr[i], s_ref[i], s_attr[i], total, pg)
    return lost


@jit(noalloc=True)
def log_moves(A, moved, rec, mode, t_next) -> None:
    """Log, in agent order, the positions at ``t_next`` of every agent that walked this step (``mode``
    RECORD_ALL) or of those that stopped walking (RECORD_ARRIVALS) into ``rec`` (agent, t, xy, cursor)."""
    rec_agent, rec_t, rec_xy, cursor = rec
    if mode == RECORD_OFF:
        return
    for i in range(moved.shape[0]):
        if not moved[i] or (mode == RECORD_ARRIVALS and A.status[i] == WALKING):
            continue
        c = cursor[0]
        if c < rec_t.shape[0]:
            rec_agent[c] = i
            rec_t[c] = t_next
            rec_xy[c, 0] = A.pos[i, 0]
            rec_xy[c, 1] = A.pos[i, 1]
            cursor[0] = c + 1


@jit(noalloc=True)
def count_walking(status) -> int:
    """Number of agents still walking."""
    n = 0
    for i in range(status.shape[0]):
        if status[i] == WALKING:
            n += 1
    return n


# The ``kinds`` flags of the attraction phase: which methods' passes a step runs.
KIND_MIRAN = 1
KIND_IRM = 2


# What ``_block_steps`` runs of each step: the per-agent phases, over one block's agents, and the parts of a step
# that span every agent (the neighbour grid, the log, the clock and the stop rules), which only a run on one block
# does in the same loop.
DO_ATTRACTION = 1
DO_FORCE = 2
DO_MOVE = 4
DO_WHOLE_STEP = 8
DO_ALL = DO_ATTRACTION | DO_FORCE | DO_MOVE | DO_WHOLE_STEP


@jit(noalloc=True, shared=True)
def _block_steps(job_ref, w_ref, run_ref, kinds, crowd, vtop, t0, k0, k1, todo) -> tuple:
    """Steps k0 to k1 - 1 (step k from t0 + k dt to t0 + (k + 1) dt) of one block's agents: the parts of each step
    in ``todo`` (DO_*). One kernel for both drivers, so that the phases are compiled once:
    - ``advance_serial`` runs every step of its call in one call (DO_ALL): the phases are inlined into this loop and
      read their inputs once a call. Each phase a call of its own, by reference as below, cost a lone walker 0.22 us
      a step, and passed field by field 0.5 us (each call loads its fields afresh).
    - ``_phase_blocks`` runs one phase of one step of each block, in parallel; ``vtop`` is then the fastest
      walker's speed (core.sim.crowd), which a run on one block finds itself.
    Inputs by reference (core.jitref): ``job_ref`` to (M, R, A, P, X, nb, tr) as ``advance`` receives them,
    ``w_ref`` to the block's Work, ``run_ref`` to (plan, rec, clock); ``kinds`` and ``crowd`` as in ``advance``.
    The agents MIRAN's first pass leaves go to ``attraction_rest``, a shared kernel (it allocates, and this loop
    does not). Returns (steps done, agents that became LOST)."""
    M, R, A, P, X, nb, tr = deref(job_ref)
    w0 = deref(w_ref)
    plan, rec, clock = deref(run_ref)
    g = P.glob[0]
    dt = g.dt
    status = A.status
    whole = (todo & DO_WHOLE_STEP) != 0
    lost_all = 0
    k = k0
    while k < k1:
        if whole and (plan.stop_flags & STOP_ALL_DONE) and count_walking(status) == 0:
            break
        # Time as t0 + k dt rather than a running sum, so that long runs do not drift.
        t_now = t0 + k * dt
        t_next = t0 + (k + 1) * dt
        lost = 0
        if todo & DO_ATTRACTION:
            if kinds & KIND_MIRAN:
                # Point agents whose window the shadows decide take the allocation-free pass, the rest the full one.
                lost, n_rest = attraction_points(M, R, A, P, t_now, tr, w0)
                if n_rest > 0:
                    lost += attraction_rest(M, R, A, P, t_now, tr, w0, n_rest)
            if kinds & KIND_IRM:
                lost += irm_attraction_phase(M.walk, R, A, P, X, t_now, tr, w0)
        if whole:
            if g.interact > 0.0 and nb.cell_start.shape[0] > 1:
                neighbors.sort_agents(nb, A.pos, A.vel, A.radius, status)
            vtop = fastest_walker(g, nb, X) if crowd else 0.0
        if todo & DO_FORCE:
            force_phase(M.edges, A, P, nb, tr, w0)
            if crowd:
                crowd_phase(A, P, nb, X, t_now, vtop, w0)
        if todo & DO_MOVE:
            lost += move_phase(M, R, A, P, t_next, w0)
        k += 1
        lost_all += lost
        if whole:
            # Every ``record`` steps (counted over the whole run) every walker is logged; between, only arrivals.
            if plan.record > 0:
                log_moves(A, w0.moved, rec,
                          RECORD_ALL if (int(clock[1]) + 1) % plan.record == 0 else RECORD_ARRIVALS, t_next)
            clock[0] = t_next
            clock[1] += 1.0
            if lost > 0 and (plan.stop_flags & STOP_ON_LOST):
                break
    return k - k0, lost_all


@jit(parallel=True, shared=True)
def _phase_blocks(job, run, works, todo, t0, k, kinds, crowd, vtop, got) -> None:
    """One phase (``todo``: DO_ATTRACTION, DO_FORCE or DO_MOVE) of step ``k`` (times as in ``_block_steps``) over
    every block in parallel; each block's count of agents that became LOST goes into ``got``. ``job`` is (M, R, A,
    P, X, nb, tr) and ``run`` (plan, rec, clock). The loop's body sees them and each block's Work by reference
    (core.jitref), so that it passes pointers and not every array: numba compiled this loop in 3.4 s instead of
    12.5 s."""
    job_ref = by_ref(job)
    run_ref = by_ref(run)
    for b in prange(len(works)):
        got[b] = _block_steps(job_ref, by_ref(works[b]), run_ref, kinds, crowd, vtop, t0, k, k + 1, todo)[1]


@jit(shared=True)
def _block_works(M, A, P, X, blocks) -> list:
    """One Work per block of agents (core.sim.work), the agents split into ``blocks`` ranges of equal size."""
    prof = P.prof
    n = A.pos.shape[0]
    # Candidates of one window: at most sigma / d + 1 per unit of window plus both ends of every interval.
    most = 0.0
    for p in range(prof.shape[0]):
        if prof[p].d > 0.0:
            most = max(most, prof[p].sigma / prof[p].d)
    shared = (np.zeros((n, 2), dtype=np.float64), np.empty(n, dtype=np.int64), np.zeros(n, dtype=np.bool_),
              np.zeros(n, dtype=np.float64), np.full((n, 2), np.nan))
    n_cands = int(min(most, 1e7)) + 2 * MAX_INTERVALS + 4
    return [work_buffers(A.terrain_len.shape[1], M.edges.E.shape[0], n_cands, X.terrain, shared, X.keep,
                         b * n // blocks, (b + 1) * n // blocks) for b in range(blocks)]


def advance(plan, M, R, A, P, X, nb, rec, clock, tr) -> int:
    """Run up to ``plan.n_steps`` steps (core.sim.kernel_inputs.StepPlan); returns the number done. ``clock`` (2,)
    float64 is [time (s), steps] and is advanced in place. Logs positions every ``plan.record`` steps (0: never).
    Stops early when every agent has arrived (STOP_ALL_DONE) or one became lost (STOP_ON_LOST). The per-agent phases
    run over ``plan.blocks`` blocks: one block in ``advance_serial``, several in parallel in ``advance_blocks``.
    Two drivers rather than one with both branches, so that a run on one thread compiles no parallel kernel (a
    parallel branch costs its compile even when never taken) and the serial loop pays nothing for it (compiled with
    ``parallel=True`` the serial loop cost about 6 us a step more)."""
    if max(1, min(plan.blocks, A.pos.shape[0])) == 1:
        return advance_serial(plan, M, R, A, P, X, nb, rec, clock, tr)
    return advance_blocks(plan, M, R, A, P, X, nb, rec, clock, tr)


@jit
def _step_kinds(A) -> tuple:
    """(kinds, IRM agents): the ``kinds`` flags of a step, KIND_MIRAN when an agent steers by MIRAN or disc MIRAN,
    KIND_IRM when one by IRM (a phase with nothing to do is skipped, not run over every agent)."""
    method = A.method
    n_irm = 0
    for i in range(method.shape[0]):
        if method[i] == IRM:
            n_irm += 1
    return (KIND_MIRAN if n_irm < method.shape[0] else 0) | (KIND_IRM if n_irm > 0 else 0), n_irm


@jit
def advance_serial(plan, M, R, A, P, X, nb, rec, clock, tr) -> int:
    """``advance`` on one block, in the calling thread: every step in one call of ``_block_steps``."""
    g = P.glob[0]
    kinds, n_irm = _step_kinds(A)
    crowd = crowd_needed(g, nb, X, n_irm)
    w0 = _block_works(M, A, P, X, 1)[0]
    job = (M, R, A, P, X, nb, tr)
    run = (plan, rec, clock)
    done, _ = _block_steps(by_ref(job), by_ref(w0), by_ref(run), kinds, crowd, 0.0, clock[0], 0, plan.n_steps,
                           DO_ALL)
    return done


@jit
def advance_blocks(plan, M, R, A, P, X, nb, rec, clock, tr) -> int:
    """``advance`` on ``plan.blocks`` blocks of agents, each phase's blocks in parallel (numba ``prange``); the
    neighbour grid, the path log and the counts are serial."""
    g = P.glob[0]
    status = A.status
    n = A.pos.shape[0]
    blocks = max(1, min(plan.blocks, n))
    works = _block_works(M, A, P, X, blocks)
    moved = works[0].moved
    got = np.zeros(blocks, dtype=np.int64)
    kinds, n_irm = _step_kinds(A)
    crowd = crowd_needed(g, nb, X, n_irm)
    t0 = clock[0]
    dt = g.dt
    job = (M, R, A, P, X, nb, tr)
    run = (plan, rec, clock)
    done = 0
    for k in range(plan.n_steps):
        if (plan.stop_flags & STOP_ALL_DONE) and count_walking(status) == 0:
            break
        t_next = t0 + (k + 1) * dt
        lost = 0
        _phase_blocks(job, run, works, DO_ATTRACTION, t0, k, kinds, crowd, 0.0, got)
        for b in range(blocks):
            lost += got[b]
        if g.interact > 0.0 and nb.cell_start.shape[0] > 1:
            neighbors.sort_agents(nb, A.pos, A.vel, A.radius, status)
        vtop = fastest_walker(g, nb, X) if crowd else 0.0
        _phase_blocks(job, run, works, DO_FORCE, t0, k, kinds, crowd, vtop, got)
        _phase_blocks(job, run, works, DO_MOVE, t0, k, kinds, crowd, vtop, got)
        for b in range(blocks):
            lost += got[b]
        # Every ``record`` steps (counted over the whole run) every walker is logged; between, only arrivals.
        if plan.record > 0:
            log_moves(A, moved, rec, RECORD_ALL if (int(clock[1]) + 1) % plan.record == 0 else RECORD_ARRIVALS,
                      t_next)
        clock[0] = t_next
        clock[1] += 1.0
        done += 1
        if lost > 0 and (plan.stop_flags & STOP_ON_LOST):
            break
    return done
