"""The Explicit Corridor (ECM II-C) along a path of the ECM graph.

The corridor is the sequence of event points (B_i, R_i, l_i, r_i) met along a path of ``astar`` (ECM Definition 2),
each edge walked forward or backward (then left and right swap), framed by the disks of the start and goal
retractions. The other query phases: ``feature_grid`` (nearest obstacle point), ``retract`` (onto the medial axis),
``astar`` and ``search`` (the graph searches).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from core.jitcache import jit
from core.kernels.buffers import doubled

from .retract import closest_pair


class Disks(NamedTuple):
    """The corridor's disks as they are appended: centres ``B`` (m, 2), radii ``R`` (m,), left and right closest
    points ``l``, ``r`` (m, 2), features ``f`` (m, 2) int64 of the piece after each, and ``p`` (m,) int64 the piece
    after each as an entry of ``portal_cache.ArcCache`` (2q walking forward from event q, 2q + 1 backward; -1 when
    it does not join two event points of one edge) (capacity m, rows in use counted apart)."""

    B: npt.NDArray[np.float64]
    R: npt.NDArray[np.float64]
    l: npt.NDArray[np.float64]
    r: npt.NDArray[np.float64]
    f: npt.NDArray[np.int64]
    p: npt.NDArray[np.int64]


@jit(inline=True)
def _push_disk(c, n, bx, by, R, lx, ly, rx, ry, fl, fr):
    """Append disk (B, R) with closest points l, r and the features of the piece after it as row n of ``c``
    (``Disks``, doubled when full): returns (c, n + 1)."""
    if n >= c.B.shape[0]:
        c = Disks(doubled(c.B, n), doubled(c.R, n), doubled(c.l, n), doubled(c.r, n), doubled(c.f, n),
                  doubled(c.p, n))
    c.B[n, 0] = bx
    c.B[n, 1] = by
    c.R[n] = R
    c.l[n, 0] = lx
    c.l[n, 1] = ly
    c.r[n, 0] = rx
    c.r[n, 1] = ry
    c.f[n, 0] = fl
    c.f[n, 1] = fr
    c.p[n] = -1
    return c, n + 1


@jit(inline=True)
def _walk_forward(c, n, ev_B, ev_R, ev_l, ev_r, ev_fl, ev_fr, first, last):
    """Append the events first..last (inclusive) of one edge, walked forward; the piece after each is recorded.
    Takes the event arrays of ``EcmArrays`` themselves (called per edge)."""
    for q in range(first, last + 1):
        fl = ev_fl[q] if q < last else -1
        fr = ev_fr[q] if q < last else -1
        c, n = _push_disk(c, n, ev_B[q, 0], ev_B[q, 1], ev_R[q], ev_l[q, 0], ev_l[q, 1], ev_r[q, 0], ev_r[q, 1],
                          fl, fr)
        if q < last:
            c.p[n - 1] = 2 * q
    return c, n


@jit(inline=True)
def _walk_backward(c, n, ev_B, ev_R, ev_l, ev_r, ev_fl, ev_fr, first, last):
    """``_walk_forward`` walking backward, from event first down to last: left and right swap."""
    for q in range(first, last - 1, -1):
        fl = ev_fr[q - 1] if q > last else -1
        fr = ev_fl[q - 1] if q > last else -1
        c, n = _push_disk(c, n, ev_B[q, 0], ev_B[q, 1], ev_R[q], ev_r[q, 0], ev_r[q, 1], ev_l[q, 0], ev_l[q, 1],
                          fl, fr)
        if q > last:
            c.p[n - 1] = 2 * q + 1
    return c, n


@jit
def _end_disk(c, n, ecm, e, forward, fl, fr):
    """Append the disk of a retracted end e (``arrays.End``), its closest points swapped when walking backward."""
    lx, ly, rx, ry = closest_pair(e.i, e.x, e.y, ecm.ev_fl, ecm.ev_fr, ecm.xy, ecm.ring_next)
    if forward:
        return _push_disk(c, n, e.x, e.y, e.R, lx, ly, rx, ry, fl, fr)
    return _push_disk(c, n, e.x, e.y, e.R, rx, ry, lx, ly, fl, fr)


@jit
def _close_piece(c, n, ecm, i, forward):
    """The features of the piece before the goal's disk: those of the goal's own piece (after event i)."""
    if forward:
        c.f[n - 1, 0] = ecm.ev_fl[i]
        c.f[n - 1, 1] = ecm.ev_fr[i]
    else:
        c.f[n - 1, 0] = ecm.ev_fr[i]
        c.f[n - 1, 1] = ecm.ev_fl[i]


@jit
def explicit_corridor(ecm, plan):
    """The Explicit Corridor (B_i, R_i, l_i, r_i) along a graph path (``arrays.Plan``, status OK), with the
    features of each piece.

    Returns (B (n, 2), R (n,), l (n, 2), r (n, 2), f (n, 2) int64). ``f[i]`` holds the left and right obstacle
    features of the curve from disk i to disk i + 1, or (-1, -1) where disks i and i + 1 share their centre (a
    Voronoi vertex where the corridor turns onto another edge: its boundary is an arc of that disk).
    """
    c, n = corridor_disks(ecm, plan)
    return c.B[:n].copy(), c.R[:n].copy(), c.l[:n].copy(), c.r[:n].copy(), c.f[:n].copy()


@jit(shared=True)
def corridor_disks(ecm, plan):
    """``explicit_corridor`` as its ``Disks`` (with the pieces' cache entries) and the number of rows in use, without
    copies: (Disks, n). The start's end disk, the events of each edge section in walking order (the start's edge
    from S, the whole edges between vertices, the goal's edge to G), then the goal's end disk; one call of
    ``_walk_forward`` or ``_walk_backward`` serves every section, so that numba inlines each once."""
    nodes, edges, s, g = plan.nodes, plan.edges, plan.start, plan.goal
    edge_uv, edge_ptr, ev_fl, ev_fr = ecm.edge_uv, ecm.edge_ptr, ecm.ev_fl, ecm.ev_fr
    ev_B, ev_R, ev_l, ev_r = ecm.ev_B, ecm.ev_R, ecm.ev_l, ecm.ev_r
    cap = 64
    c = Disks(np.empty((cap, 2)), np.empty(cap), np.empty((cap, 2)), np.empty((cap, 2)),
              np.empty((cap, 2), dtype=np.int64), np.empty(cap, dtype=np.int64))
    n = 0
    m = nodes.shape[0]
    # A direct step along one edge is one section; else the start's, the m - 3 whole edges and the goal's.
    direct = m == 2 and edges[1] == -2
    if direct:
        forward = s.i < g.i or (s.i == g.i and s.s <= g.s)
    else:
        forward = nodes[1] == edge_uv[s.k, 1]
    if forward:
        c, n = _end_disk(c, n, ecm, s, True, ev_fl[s.i], ev_fr[s.i])
    else:
        c, n = _end_disk(c, n, ecm, s, False, ev_fr[s.i], ev_fl[s.i])
    sections = 1 if direct else max(m - 1, 2)
    for j in range(sections):
        if direct:
            first, last = (s.i + 1, g.i) if forward else (s.i, g.i + 1)
        elif j == 0:
            first, last = (s.i + 1, edge_ptr[s.k + 1] - 1) if forward else (s.i, edge_ptr[s.k])
        elif j < sections - 1:
            k = edges[j + 1]
            forward = nodes[j] == edge_uv[k, 0]
            first, last = (edge_ptr[k], edge_ptr[k + 1] - 1) if forward else (edge_ptr[k + 1] - 1, edge_ptr[k])
        else:
            forward = nodes[m - 2] == edge_uv[g.k, 0]
            first, last = (edge_ptr[g.k], g.i) if forward else (edge_ptr[g.k + 1] - 1, g.i + 1)
        if forward:
            c, n = _walk_forward(c, n, ev_B, ev_R, ev_l, ev_r, ev_fl, ev_fr, first, last)
        else:
            c, n = _walk_backward(c, n, ev_B, ev_R, ev_l, ev_r, ev_fl, ev_fr, first, last)
    # The piece before the goal's disk is the goal's own (a direct step forward within one piece already has it).
    _close_piece(c, n, ecm, g.i, forward)
    c, n = _end_disk(c, n, ecm, g, forward, -1, -1)
    return c, n
