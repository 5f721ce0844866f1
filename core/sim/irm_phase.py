"""The IRM attraction phase (Karamouzas et al. 2009, 4.3): every walking IRM agent's disc and attraction point.

Runs after the MIRAN attraction phase (which leaves IRM agents alone) and before the forces. For each IRM agent
the retraction onto its corridor's backbone (the disc it lies deepest in, searched forward from the last one), then
the farthest route point on that disc's boundary, or the goal inside it (eq. 4). An agent that others pushed out
of its corridor, and that sees neither its new attraction point nor its previous one, becomes LOST and gets a new
route and corridor (MIRAN 3.5, Simulation's replanning). ``X`` is the crowd extras (core.sim.kernel_inputs), ``A``
the agent state (core.sim.agent_arrays), ``wk`` a block's Work (core.sim.work).
"""

from __future__ import annotations

import numpy as np
from core.jitcache import jit

from core.navmesh.kernels.predicates import norm2d
from core.navmesh.kernels.segments import segment_visible
from core.routes.kernels import point_at_into
from core.steering.irm import attraction_on_disc, deepest_disc, disc_stretch
from core.steering.methods import IRM

from .state import LOST, WALKING
from .trace import (
    TS_ATTR_X,
    TS_ATTR_Y,
    TS_FALLBACK,
    TS_N_ADJ,
    TS_N_CAND,
    TS_N_INT,
    TS_POS_X,
    TS_POS_Y,
    TS_REF_X,
    TS_REF_Y,
    TS_S_ATTR,
    TS_S_END,
    TS_S_REF,
    TS_TIME,
)

# Fallback codes written to the trace (same meaning as MIRAN's: 0 chosen, 1 previous kept, 3 lost).
_CHOSEN = 0
_KEPT = 1
_LOST = 3


@jit
def corridor_reach(r: float, depth_gap: float, vmax: float, dt: float) -> float:
    """How far along the route (arc length) the retraction looks ahead of the last disc: the disc's diameter plus
    the agent's distance from its centre and two steps, so a disc the agent has entered is never missed."""
    return 2.0 * r + depth_gap + 2.0 * vmax * dt


@jit(noalloc=True)
def irm_attraction_phase(W, R, A, P, X, t_now, tr, wk) -> int:
    """Choose the disc and attraction point of every walking IRM agent of the block [wk.lo, wk.hi); returns how
    many became LOST."""
    rp, rs = R.points, R.s
    pos, attr, s_ref, s_attr, route_lo, route_hi, profile, method, status = A.pos, A.attr, A.s_ref, A.s_attr, \
        A.route_lo, A.route_hi, A.profile, A.method, A.status
    cB, cR, cS, corr_lo, corr_hi, corr_k, corr_ak = X.cB, X.cR, X.cS, X.corr_lo, X.corr_hi, X.corr_k, X.corr_ak
    slot, tsc = tr[0], tr[1]
    prof = P.prof
    q = wk.q
    dt = P.glob[0].dt
    lost = 0
    for i in range(wk.lo, wk.hi):
        if status[i] != WALKING or method[i] != IRM:
            continue
        x = pos[i]
        lo = route_lo[i]
        hi = route_hi[i]
        clo = corr_lo[i]
        chi = corr_hi[i]
        code = _CHOSEN
        k = corr_k[i]
        if chi - clo < 1:
            code = _LOST
        else:
            vmax = prof[profile[i]].max_speed
            k0 = min(max(k, clo), chi - 1)
            gap = norm2d(x[0] - cB[k0, 0], x[1] - cB[k0, 1])
            reach = corridor_reach(cR[k0], gap, vmax, dt)
            k = deepest_disc(cB, cR, cS, clo, chi, k0, x, reach)
            # Where eq. 4 skipped part of the route (a loop, a route that comes back), the agent walks towards a
            # later stretch: retract it there too, from the discs around its attraction point's arc length.
            if s_attr[i] > cS[k] + reach:
                ka = clo + np.searchsorted(cS[clo:chi], s_attr[i] - reach)
                if ka < chi:
                    k2 = deepest_disc(cB, cR, cS, clo, chi, ka, x, 2.0 * reach)
                    if cR[k2] - norm2d(x[0] - cB[k2, 0], x[1] - cB[k2, 1]) >= \
                            cR[k] - norm2d(x[0] - cB[k, 0], x[1] - cB[k, 1]):
                        k = k2
            corr_k[i] = k
            inside = norm2d(x[0] - cB[k, 0], x[1] - cB[k, 1]) <= cR[k]
            # Eq. 4 depends on the disc only: on the same disc as last step the attraction point is the same (and
            # visible, x being inside the disc).
            if not (inside and k == corr_ak[i]):
                s_a = attraction_on_disc(rp, rs, lo, hi, cB[k, 0], cB[k, 1], cR[k], cS[k],
                                             disc_stretch(rp, rs, lo, hi, cB[k, 0], cB[k, 1], cR[k], cS[k]))
                if s_a >= 0.0:
                    point_at_into(rp, rs, lo, hi, s_a, q)
                    if inside or segment_visible(W, x[0], x[1], q[0], q[1]):
                        corr_ak[i] = k if inside else -1
                        s_attr[i] = s_a
                        attr[i, 0] = q[0]
                        attr[i, 1] = q[1]
                    else:
                        s_a = -1.0
                if s_a < 0.0:
                    corr_ak[i] = -1
                    if segment_visible(W, x[0], x[1], attr[i, 0], attr[i, 1]):
                        code = _KEPT
                    else:
                        code = _LOST
            if cS[k] > s_ref[i]:
                s_ref[i] = cS[k]
        if code == _LOST:
            status[i] = LOST
            lost += 1
        ts = slot[i] if slot.shape[0] > 0 else -1
        if ts >= 0:
            row = tsc[ts]
            row[TS_TIME] = t_now
            row[TS_POS_X] = x[0]
            row[TS_POS_Y] = x[1]
            row[TS_S_REF] = s_ref[i]
            kk = min(max(k, clo), chi - 1) if chi > clo else -1
            row[TS_REF_X] = cB[kk, 0] if kk >= 0 else x[0]
            row[TS_REF_Y] = cB[kk, 1] if kk >= 0 else x[1]
            row[TS_S_END] = s_attr[i]
            row[TS_S_ATTR] = s_attr[i]
            row[TS_ATTR_X] = attr[i, 0]
            row[TS_ATTR_Y] = attr[i, 1]
            row[TS_N_INT] = 0.0
            row[TS_N_ADJ] = 0.0
            row[TS_N_CAND] = 0.0
            row[TS_FALLBACK] = code
    return lost
