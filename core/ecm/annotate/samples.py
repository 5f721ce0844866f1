"""Samples along a chain: its exact ends and the crack midpoints between, with each side's closest feature.

The pixels only say roughly where the edge runs; the samples say which obstacle features its two sides see there,
so that the events between consecutive samples (``ray_events``) can be solved exactly.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from core.jitcache import jit

from ..distance import set_closest
from .ends import bisector_point
from .kinds import END_SKIP


class Samples(NamedTuple):
    """Per-chain scratch, one row per sample: point ``P`` (n, 2), arc length ``cum`` along the samples, closest
    feature ``fL``/``fR`` and closest point ``cL``/``cR`` (n, 2) of each side, ``proj``: already on the bisector."""

    P: np.ndarray
    cum: np.ndarray
    fL: np.ndarray
    fR: np.ndarray
    cL: np.ndarray
    cR: np.ndarray
    proj: np.ndarray


@jit
def new_samples(n):
    """Room for n samples."""
    return Samples(np.empty((n, 2), dtype=np.float64), np.empty(n, dtype=np.float64), np.empty(n, dtype=np.int64),
                   np.empty(n, dtype=np.int64), np.empty((n, 2), dtype=np.float64),
                   np.empty((n, 2), dtype=np.float64), np.empty(n, dtype=np.bool_))


@jit
def reserve_samples(smp, n):
    """``smp`` if it has room for n samples, else new (uninitialised) buffers with the room doubled until it has."""
    cap = smp.P.shape[0]
    if cap >= n:
        return smp
    while cap < n:
        cap *= 2
    return new_samples(cap)


@jit(inline=True, noalloc=True)
def _look(smp, k, sides, counts, edges):
    """Closest feature and point of each side at sample k."""
    x = smp.P[k, 0]
    y = smp.P[k, 1]
    d, qx, qy, f = set_closest(edges.real_ptr, edges.real_edge, edges.xy, edges.ring_next, sides[0], counts[0], x, y)
    smp.fL[k] = f
    smp.cL[k, 0] = qx
    smp.cL[k, 1] = qy
    d, qx, qy, f = set_closest(edges.real_ptr, edges.real_edge, edges.xy, edges.ring_next, sides[1], counts[1], x, y)
    smp.fR[k] = f
    smp.cR[k, 0] = qx
    smp.cR[k, 1] = qy


@jit(noalloc=True)
def chain_samples(c, chains, nodes, sides, counts, edges, frame, smp):
    """Fill ``smp`` (room for the chain's cracks + 2) with the samples of chain c; their number."""
    a = chains.ptr[c]
    m = chains.ptr[c + 1] - 1 - a
    n0 = chains.ends[c, 0]
    n1 = chains.ends[c, 1]
    pts = chains.pts
    node_xy = nodes.xy
    P = smp.P
    x0 = frame.x0
    y0 = frame.y0
    h = frame.h
    P[0, 0] = node_xy[n0, 0]
    P[0, 1] = node_xy[n0, 1]
    npnt = 1
    # Crack midpoints next to the ends may lie past the exact vertex, on the bisector's extension: skip them.
    for k in range(m):
        px = x0 + 0.5 * (pts[a + k, 1] + pts[a + k + 1, 1]) * h
        py = y0 + 0.5 * (pts[a + k, 0] + pts[a + k + 1, 0]) * h
        if np.hypot(px - node_xy[n0, 0], py - node_xy[n0, 1]) <= END_SKIP * h:
            continue
        if np.hypot(px - node_xy[n1, 0], py - node_xy[n1, 1]) <= END_SKIP * h:
            continue
        P[npnt, 0] = px
        P[npnt, 1] = py
        npnt += 1
    P[npnt, 0] = node_xy[n1, 0]
    P[npnt, 1] = node_xy[n1, 1]
    npnt += 1
    for k in range(npnt):
        _look(smp, k, sides, counts, edges)
    _project_changes(smp, npnt, sides, counts, edges, h)
    cum = smp.cum
    cum[0] = 0.0
    for k in range(1, npnt):
        cum[k] = cum[k - 1] + np.hypot(P[k, 0] - P[k - 1, 0], P[k, 1] - P[k - 1, 1])
    return npnt


@jit(noalloc=True)
def _project_changes(smp, npnt, sides, counts, edges, h):
    """Move the samples where a side's feature changes onto the exact bisector and look again (up to 4 sweeps).

    A sample a fraction of a pixel off the bisector can see a feature that no point of the edge has (the end vertex
    of a side's edge, beside a concave corner).
    """
    proj = smp.proj
    fL = smp.fL
    fR = smp.fR
    proj[:npnt] = False
    proj[0] = True
    proj[npnt - 1] = True
    for sweep in range(4):
        changed = False
        for k in range(npnt - 1):
            if fL[k] == fL[k + 1] and fR[k] == fR[k + 1]:
                continue
            for q in (k, k + 1):
                if proj[q]:
                    continue
                proj[q] = True
                changed = True
                bx, by = bisector_point(sides, counts, edges, smp.P[q, 0], smp.P[q, 1], h)
                smp.P[q, 0] = bx
                smp.P[q, 1] = by
                _look(smp, q, sides, counts, edges)
        if not changed:
            break
