"""A chain's event rows: its exact ends, the feature changes in order along it, and the clearance minimum
inside a piece where there is one, with the arc length from the chain's start.

Between two events the edge is a line segment (vertex-vertex, edge-edge) or a parabolic arc (vertex-edge); an
event is also added at the clearance minimum inside such a piece (the midpoint of two vertices, the apex of a
parabola), so that the clearance is monotone between consecutive events. That is where a corridor is narrowest,
which the shrinking (ECM section III) and the clearance test of the graph search need.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from core.jitcache import jit
from core.kernels.buffers import reserve

from ..distance import feature_closest
from .kinds import NODE_INEXACT
from .lengths import edge_param, interval_length
from .ray_events import transition_order


class EventRows(NamedTuple):
    """Event rows: ``ev`` (n, 9) float64 [Bx, By, R, lx, ly, rx, ry, s, 0] and ``f`` (n, 2) [left, right feature
    of the piece after the event; -1 after a chain's last]."""

    ev: np.ndarray
    f: np.ndarray


@jit(inline=True, noalloc=True)
def _set_row(ev, i, bx, by, R, lx, ly, rx, ry):
    """Row i of ``ev``: event point B, clearance R, left and right closest points."""
    ev[i, 0] = bx
    ev[i, 1] = by
    ev[i, 2] = R
    ev[i, 3] = lx
    ev[i, 4] = ly
    ev[i, 5] = rx
    ev[i, 6] = ry


@jit(inline=True, noalloc=True)
def _end_row(loc, i, smp, k, R):
    """Row i of ``loc``: sample k as an end event of clearance R."""
    _set_row(loc.ev, i, smp.P[k, 0], smp.P[k, 1], R, smp.cL[k, 0], smp.cL[k, 1], smp.cR[k, 0], smp.cR[k, 1])


@jit
def event_list(smp, npnt, tr, ntr, nodes, n0, n1, xy, ring_next, tol, loc):
    """The events of one chain from node n0 to node n1 in order: start, feature changes, end, in ``loc`` (grown
    as needed): (loc, their number). Changes closer than ``tol`` to the previous event merge into it."""
    order = transition_order(tr, ntr)
    if loc.ev.shape[0] < ntr + 4:
        cap = loc.ev.shape[0]
        while cap < ntr + 4:
            cap *= 2
        loc = EventRows(np.empty((cap, 9), dtype=np.float64), np.empty((cap, 2), dtype=np.int64))
    ev = loc.ev
    ev_f = loc.f
    P = smp.P
    cL = smp.cL
    curL = smp.fL[0]
    curR = smp.fR[0]
    R0 = nodes.R[n0] if nodes.kind[n0] != NODE_INEXACT else np.hypot(P[0, 0] - cL[0, 0], P[0, 1] - cL[0, 1])
    _end_row(loc, 0, smp, 0, R0)
    ev_f[0, 0] = curL
    ev_f[0, 1] = curR
    nloc = 1
    for q in range(ntr):
        i = order[q]
        side = int(tr.dat[i, 0])
        v = int(tr.dat[i, 1])
        newf = int(tr.dat[i, 2])
        if side == 0:
            curL = newf
        else:
            curR = newf
        if v < 0:
            ev_f[nloc - 1, 0] = curL
            ev_f[nloc - 1, 1] = curR
            continue
        bx = tr.dat[i, 3]
        by = tr.dat[i, 4]
        t = tr.dat[i, 5]
        if side == 0:
            lx = xy[v, 0]
            ly = xy[v, 1]
            d, rx, ry = feature_closest(xy, ring_next, curR, bx, by)
        else:
            rx = xy[v, 0]
            ry = xy[v, 1]
            d, lx, ly = feature_closest(xy, ring_next, curL, bx, by)
        if np.hypot(bx - ev[nloc - 1, 0], by - ev[nloc - 1, 1]) <= tol:
            ev_f[nloc - 1, 0] = curL
            ev_f[nloc - 1, 1] = curR
            continue
        _set_row(ev, nloc, bx, by, t, lx, ly, rx, ry)
        ev_f[nloc, 0] = curL
        ev_f[nloc, 1] = curR
        nloc += 1
    last = npnt - 1
    R1 = nodes.R[n1] if nodes.kind[n1] != NODE_INEXACT else np.hypot(P[last, 0] - cL[last, 0],
                                                                      P[last, 1] - cL[last, 1])
    if np.hypot(P[last, 0] - ev[nloc - 1, 0], P[last, 1] - ev[nloc - 1, 1]) <= tol and nloc > 1:
        nloc -= 1
    _end_row(loc, nloc, smp, last, R1)
    ev_f[nloc, 0] = -1
    ev_f[nloc, 1] = -1
    return loc, nloc + 1


@jit(noalloc=True)
def piece_minimum(loc, q, xy, ring_next, normal, tol):
    """The clearance minimum strictly inside the piece after event q of ``loc``, if it has one there.

    Returns (inside, x, y, R, lx, ly, rx, ry): the midpoint of two vertices, or the apex of the parabola of a
    vertex and an edge (half-way between the vertex and its foot on the edge).
    """
    ev = loc.ev
    fl = loc.f[q, 0]
    fr = loc.f[q, 1]
    nv = xy.shape[0]
    ins = False
    mx = 0.0
    my = 0.0
    mR = 0.0
    mlx = 0.0
    mly = 0.0
    mrx = 0.0
    mry = 0.0
    if fl < nv and fr < nv:
        mx = 0.5 * (xy[fl, 0] + xy[fr, 0])
        my = 0.5 * (xy[fl, 1] + xy[fr, 1])
        dx = ev[q + 1, 0] - ev[q, 0]
        dy = ev[q + 1, 1] - ev[q, 1]
        dd = np.hypot(dx, dy)
        if dd > 0.0:
            u0 = ((mx - ev[q, 0]) * dx + (my - ev[q, 1]) * dy) / dd
            ins = u0 > tol and u0 < dd - tol
        mR = 0.5 * np.hypot(xy[fl, 0] - xy[fr, 0], xy[fl, 1] - xy[fr, 1])
        mlx = xy[fl, 0]
        mly = xy[fl, 1]
        mrx = xy[fr, 0]
        mry = xy[fr, 1]
    elif (fl < nv) != (fr < nv):
        if fl < nv:
            v = fl
            e = fr - nv
            ua = edge_param(e, ev[q, 5], ev[q, 6], xy, ring_next)
            ub = edge_param(e, ev[q + 1, 5], ev[q + 1, 6], xy, ring_next)
        else:
            v = fr
            e = fl - nv
            ua = edge_param(e, ev[q, 3], ev[q, 4], xy, ring_next)
            ub = edge_param(e, ev[q + 1, 3], ev[q + 1, 4], xy, ring_next)
        hgt = normal[e, 0] * (xy[v, 0] - xy[e, 0]) + normal[e, 1] * (xy[v, 1] - xy[e, 1])
        if hgt > 0.0:
            fx = xy[v, 0] - hgt * normal[e, 0]
            fy = xy[v, 1] - hgt * normal[e, 1]
            uf = edge_param(e, fx, fy, xy, ring_next)
            lo = min(ua, ub)
            hi = max(ua, ub)
            f2 = ring_next[e]
            elen = np.hypot(xy[f2, 0] - xy[e, 0], xy[f2, 1] - xy[e, 1])
            ins = uf > lo + tol / elen and uf < hi - tol / elen
            mx = xy[v, 0] - 0.5 * hgt * normal[e, 0]
            my = xy[v, 1] - 0.5 * hgt * normal[e, 1]
            mR = 0.5 * hgt
            if fl < nv:
                mlx = xy[v, 0]
                mly = xy[v, 1]
                mrx = fx
                mry = fy
            else:
                mlx = fx
                mly = fy
                mrx = xy[v, 0]
                mry = xy[v, 1]
    return ins, mx, my, mR, mlx, mly, mrx, mry


@jit
def emit_events(loc, nloc, xy, ring_next, normal, tol, out, n_ev):
    """Append the chain's events ``loc`` to ``out`` (grown as needed), each piece's clearance minimum inserted
    where it lies inside: (out, new row count)."""
    ev = out.ev
    ev_f = out.f
    for q in range(nloc):
        ev = reserve(ev, n_ev + 1)
        ev_f = reserve(ev_f, n_ev + 1)
        for z in range(7):
            ev[n_ev, z] = loc.ev[q, z]
        ev_f[n_ev, 0] = loc.f[q, 0]
        ev_f[n_ev, 1] = loc.f[q, 1]
        n_ev += 1
        if q == nloc - 1:
            break
        fl = loc.f[q, 0]
        fr = loc.f[q, 1]
        if fl < 0 or fr < 0:
            continue
        ins, mx, my, mR, mlx, mly, mrx, mry = piece_minimum(loc, q, xy, ring_next, normal, tol)
        if ins:
            ev = reserve(ev, n_ev + 1)
            ev_f = reserve(ev_f, n_ev + 1)
            _set_row(ev, n_ev, mx, my, mR, mlx, mly, mrx, mry)
            ev_f[n_ev, 0] = fl
            ev_f[n_ev, 1] = fr
            n_ev += 1
    return EventRows(ev, ev_f), n_ev


@jit(noalloc=True)
def arc_lengths(out, start, n_ev, xy, ring_next, normal):
    """Fill in the arc length ``s`` of rows ``start:n_ev`` (one chain) from its first event; whether all its
    numbers are finite."""
    ev = out.ev
    ev_f = out.f
    ev[start, 7] = 0.0
    for q in range(start + 1, n_ev):
        length = interval_length(ev_f[q - 1, 0], ev_f[q - 1, 1], (ev[q - 1, 0], ev[q - 1, 1]), (ev[q, 0], ev[q, 1]),
                                 (ev[q - 1, 3], ev[q - 1, 4]), (ev[q, 3], ev[q, 4]), (ev[q - 1, 5], ev[q - 1, 6]),
                                 (ev[q, 5], ev[q, 6]), xy, ring_next, normal)
        ev[q, 7] = ev[q - 1, 7] + length
    good = True
    for q in range(start, n_ev):
        for z in range(8):
            if not np.isfinite(ev[q, z]):
                good = False
        ev[q, 8] = 0.0
    return good
