"""The annotation of every traced chain, phase by phase: its sides, exact ends, samples, feature changes, events
and arc lengths (ECM section II-B)."""

from __future__ import annotations

import numpy as np
from core.jitcache import jit

from .ends import solve_ends
from .events import EventRows, arc_lengths, emit_events, event_list
from .kinds import MAX_SIDE
from .ray_events import Transitions, chain_transitions
from .samples import chain_samples, new_samples, reserve_samples
from .sides import chain_sides


@jit
def chain_events(chains, nodes, edges, rings, frame):
    """Events of every chain; fills in the nodes of degree 1 and 2 (``nodes.xy``/``nodes.R``/``nodes.kind``).

    Returns ``(ev_ptr (nc+1,) int64, ev (n, 9) float64 [Bx, By, R, lx, ly, rx, ry, s, 0], ev_f (n, 2) int32
    [left, right feature of the piece after the event; -1 after the last], ok (nc,) bool)``. ``s`` is the arc
    length from the chain's first event.
    """
    nc = chains.ptr.shape[0] - 1
    xy = edges.xy
    ev_ptr = np.zeros(nc + 1, dtype=np.int64)
    out = EventRows(np.empty((4096, 9), dtype=np.float64), np.empty((4096, 2), dtype=np.int32))
    ok = np.zeros(nc, dtype=np.bool_)
    n_ev = 0
    sides = np.empty((2, MAX_SIDE), dtype=np.int32)
    counts = np.zeros(2, dtype=np.int64)
    done = np.zeros(nodes.xy.shape[0], dtype=np.bool_)
    for k in range(nodes.xy.shape[0]):
        done[k] = nodes.deg[k] >= 3
    # Per-chain scratch (grown on demand).
    smp = new_samples(64)
    tr = Transitions(np.empty(64, dtype=np.float64), np.empty((64, 6), dtype=np.float64))
    loc = EventRows(np.empty((64, 9), dtype=np.float64), np.empty((64, 2), dtype=np.int64))
    tol = 1e-9 * frame.scale
    for c in range(nc):
        ev_ptr[c] = n_ev
        a = chains.ptr[c]
        b = chains.ptr[c + 1]
        chain_sides(chains.lab, a, b, sides, counts)
        if counts[0] == 0 or counts[1] == 0 or b - 1 - a < 1:
            continue
        solve_ends(c, chains, nodes, done, sides, counts, edges, frame)
        smp = reserve_samples(smp, b - 1 - a + 2)
        npnt = chain_samples(c, chains, nodes, sides, counts, edges, frame, smp)
        tr, ntr, bad = chain_transitions(smp, npnt, sides, counts, edges, rings, frame, tr)
        if bad:
            continue
        loc, nloc = event_list(smp, npnt, tr, ntr, nodes, chains.ends[c, 0], chains.ends[c, 1], xy,
                               edges.ring_next, tol, loc)
        start = n_ev
        out, n_ev = emit_events(loc, nloc, xy, edges.ring_next, rings.normal, tol, out, n_ev)
        if not arc_lengths(out, start, n_ev, xy, edges.ring_next, rings.normal):
            n_ev = start
            continue
        ok[c] = True
    ev_ptr[nc] = n_ev
    return ev_ptr, out.ev[:n_ev].copy(), out.f[:n_ev].copy(), ok
