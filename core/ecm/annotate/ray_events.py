"""Event points: where a side's closest obstacle feature changes along a chain (ECM section II-B).

Along an edge, the closest feature (vertex or edge) of each side changes only where the Voronoi edge crosses the
half-line from an obstacle vertex v along the normal of an incident edge (ECM II-B: "the event points correspond
to the points on the edge which intersect with the half lines starting at v_i with directions n_i and n_i+1");
each such event is solved in closed form on that half-line (``distance.ray_bisector``), with a safeguarded
bisection where the closed form does not settle.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from core.jitcache import jit
from core.kernels.buffers import reserve

from ..distance import ray_bisector, set_closest


class Transitions(NamedTuple):
    """The feature changes of one chain: ``key`` (n,) float64 position along the samples and ``dat`` (n, 6)
    float64 [side, vertex (-1: no event), new feature, Bx, By, t] (t: distance of B from the vertex)."""

    key: np.ndarray
    dat: np.ndarray


@jit(inline=True, noalloc=True)
def _arc_pos(f, cx, cy, xy, ring_pos, nv):
    """Arc-length position along its ring of a closest point (cx, cy) on feature f."""
    if f < nv:
        return ring_pos[f]
    e = f - nv
    return ring_pos[e] + np.hypot(cx - xy[e, 0], cy - xy[e, 1])


@jit(inline=True, noalloc=True)
def _ring(f, nv, ring_of):
    """Ring of feature f."""
    return ring_of[f] if f < nv else ring_of[f - nv]


@jit(inline=True, noalloc=True)
def _step_feature(f, forward, nv, ring_next, ring_prev):
    """The next feature along the ring (vertex -> edge -> vertex), forward or backward."""
    if f < nv:
        return nv + f if forward else nv + ring_prev[f]
    e = f - nv
    return ring_next[e] if forward else e


@jit(noalloc=True)
def ray_event(vx, vy, nx, ny, other, n_other, guess, edges, normal, reach, scale):
    """Distance t along v + t n where the sites ``other[:n_other]`` are exactly t away (the event of ECM II-B)."""
    real_ptr = edges.real_ptr
    real_edge = edges.real_edge
    xy = edges.xy
    ring_next = edges.ring_next
    f = guess
    for it in range(8):
        if f < 0:
            break
        t = ray_bisector(xy, ring_next, normal, f, vx, vy, nx, ny)
        if not np.isfinite(t) or t < 0.0:
            break
        d, cx, cy, f2 = set_closest(real_ptr, real_edge, xy, ring_next, other, n_other, vx + t * nx, vy + t * ny)
        if abs(d - t) <= 1e-11 * scale:
            return t
        f = f2
    # Safeguarded bisection on g(t) = d_other(v + t n) - t, which is non-increasing.
    lo = 0.0
    hi = max(reach, 1e-12 * scale)
    for it in range(200):
        d, cx, cy, f2 = set_closest(real_ptr, real_edge, xy, ring_next, other, n_other, vx + hi * nx, vy + hi * ny)
        if d - hi <= 0.0:
            break
        lo = hi
        hi *= 2.0
    for it in range(100):
        mid = 0.5 * (lo + hi)
        d, cx, cy, f2 = set_closest(real_ptr, real_edge, xy, ring_next, other, n_other, vx + mid * nx, vy + mid * ny)
        if d - mid > 0.0:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-14 * scale:
            break
    return 0.5 * (lo + hi)


@jit
def _walk(smp, k, side, sides, counts, edges, rings, frame, tr, ntr):
    """The events of one side between samples k and k + 1, walking its ring from the old feature to the new one.

    Returns (tr, ntr, reached): ``reached`` is False where the walk gave up before the new feature.
    """
    xy = edges.xy
    ring_next = edges.ring_next
    nv = xy.shape[0]
    P = smp.P
    cum = smp.cum
    f0 = smp.fL[k] if side == 0 else smp.fR[k]
    f1 = smp.fL[k + 1] if side == 0 else smp.fR[k + 1]
    tr_key = tr.key
    tr_dat = tr.dat
    r0 = _ring(f0, nv, rings.ring_of)
    if r0 != _ring(f1, nv, rings.ring_of):
        # Two touching obstacles handing over at their common point: no event.
        tr_key = reserve(tr_key, ntr + 1)
        tr_dat = reserve(tr_dat, ntr + 1)
        tr_key[ntr] = cum[k] + 1e-12
        tr_dat[ntr, 0] = side
        tr_dat[ntr, 1] = -1
        tr_dat[ntr, 2] = f1
        tr_dat[ntr, 3] = np.nan
        return Transitions(tr_key, tr_dat), ntr + 1, True
    if side == 0:
        p0 = _arc_pos(f0, smp.cL[k, 0], smp.cL[k, 1], xy, rings.ring_pos, nv)
        p1 = _arc_pos(f1, smp.cL[k + 1, 0], smp.cL[k + 1, 1], xy, rings.ring_pos, nv)
    else:
        p0 = _arc_pos(f0, smp.cR[k, 0], smp.cR[k, 1], xy, rings.ring_pos, nv)
        p1 = _arc_pos(f1, smp.cR[k + 1, 0], smp.cR[k + 1, 1], xy, rings.ring_pos, nv)
    rl = rings.ring_len[r0]
    fwd = (p1 - p0) % rl
    bwd = (p0 - p1) % rl
    forward = fwd <= bwd
    cur = f0
    guard = 0
    seg_len = cum[k + 1] - cum[k]
    h = frame.h
    while cur != f1 and guard < 4 * (rings.ring_len.shape[0] + nv):
        nxt = _step_feature(cur, forward, nv, ring_next, rings.ring_prev)
        if cur < nv:
            v = cur
            e = nxt - nv
        else:
            v = nxt
            e = cur - nv
        vx = xy[v, 0]
        vy = xy[v, 1]
        nx = rings.normal[e, 0]
        ny = rings.normal[e, 1]
        guess = smp.fR[k] if side == 0 else smp.fL[k]
        reach = np.hypot(P[k, 0] - vx, P[k, 1] - vy) + seg_len + 4.0 * h
        t = ray_event(vx, vy, nx, ny, sides[1 - side], counts[1 - side], guess, edges, rings.normal, reach,
                      frame.scale)
        bx = vx + t * nx
        by = vy + t * ny
        # Order along the chain: projection on the sample segment it was found in.
        sx = P[k + 1, 0] - P[k, 0]
        sy = P[k + 1, 1] - P[k, 1]
        ss = sx * sx + sy * sy
        u = ((bx - P[k, 0]) * sx + (by - P[k, 1]) * sy) / ss if ss > 0.0 else 0.0
        u = min(1.0, max(0.0, u))
        qx = P[k, 0] + u * sx - bx
        qy = P[k, 1] + u * sy - by
        tr_key = reserve(tr_key, ntr + 1)
        tr_dat = reserve(tr_dat, ntr + 1)
        tr_key[ntr] = cum[k] + u * seg_len + 1e-12 * guard
        tr_dat[ntr, 0] = side
        # An event far from where the pixels saw the change is noise: keep the feature change only.
        tr_dat[ntr, 1] = v if np.hypot(qx, qy) <= 3.0 * h else -1
        tr_dat[ntr, 2] = nxt
        tr_dat[ntr, 3] = bx
        tr_dat[ntr, 4] = by
        tr_dat[ntr, 5] = t
        ntr += 1
        cur = nxt
        guard += 1
    return Transitions(tr_key, tr_dat), ntr, cur == f1


@jit
def chain_transitions(smp, npnt, sides, counts, edges, rings, frame, tr):
    """Transitions of the closest feature on each side between consecutive samples, each solved exactly on its
    half-line: (tr, their number, bad), ``bad`` where a ring walk did not reach the feature seen next."""
    ntr = 0
    bad = False
    for k in range(npnt - 1):
        for side in range(2):
            f0 = smp.fL[k] if side == 0 else smp.fR[k]
            f1 = smp.fL[k + 1] if side == 0 else smp.fR[k + 1]
            if f0 == f1 or f0 < 0 or f1 < 0:
                continue
            tr, ntr, reached = _walk(smp, k, side, sides, counts, edges, rings, frame, tr, ntr)
            if not reached:
                bad = True
    return tr, ntr, bad


@jit
def transition_order(tr, ntr):
    """Order of the transitions along the chain; those of one side stay in the order they were walked, whatever
    rounding did to their keys."""
    for side in range(2):
        running = -np.inf
        for i in range(ntr):
            if int(tr.dat[i, 0]) == side:
                if tr.key[i] < running:
                    tr.key[i] = running
                running = tr.key[i]
    return np.argsort(tr.key[:ntr], kind="mergesort")
