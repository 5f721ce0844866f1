"""Gridded edges over a box, and per-agent edge lists kept between steps (MIRAN 2013, section 3.2-3.3 windows).

A crowd character's route window moves about 0.14 m a step, while gathering its obstacle and terrain edges from
a uniform grid (``clearance``'s E, EG, ES, EI layout: CSR cells, flat index ``j * ncols + i``) visits every cell
the window's box covers. ``collect_kept`` keeps, per agent, the edges of those cells that meet the box enlarged
by ``KEEP_MARGIN`` cells, in the grid's visiting order, and answers the next windows from that list while their
box stays inside the enlarged one and covers the same cells. The answer is then the same edges in the same order
as a fresh gathering: the fresh one visits the same cells in the same order and keeps the edges meeting the box,
and every edge that meets the box meets the enlarged box, so it is in the kept list at its place.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from core.jitcache import jit

# Edges kept per agent and edge set; a window with more is gathered afresh every step.
KEEP_CAPACITY = 24
# How far the kept box reaches beyond the window's box, in grid cells (the city's cells: 16 and 25 m).
KEEP_MARGIN = 0.1


class KeptEdges(NamedTuple):
    """Per agent i: the grid cells ``span[i]`` (ci0, ci1, cj0, cj1) int64 and the enlarged box ``box[i]`` (xmin,
    ymin, xmax, ymax) float64 of its kept list, the list ``items[i, :size[i]]`` int64 (size -1: nothing kept)."""

    span: np.ndarray
    box: np.ndarray
    size: np.ndarray
    items: np.ndarray


def kept_edges(n: int, capacity: int = KEEP_CAPACITY) -> KeptEdges:
    """Empty kept lists for n agents; the owner builds them once and the kernels fill them in place."""
    return KeptEdges(np.full((n, 4), -1, dtype=np.int64), np.zeros((n, 4), dtype=np.float64),
                     np.full(n, -1, dtype=np.int64), np.zeros((n, capacity), dtype=np.int64))


@jit(inline=True, noalloc=True)
def edge_misses_box(E, e, xmin, ymin, xmax, ymax) -> bool:
    """Does the bounding box of edge E[e] (x0, y0, x1, y1) miss the box [xmin, xmax] x [ymin, ymax]?"""
    return (max(E[e, 0], E[e, 2]) < xmin or min(E[e, 0], E[e, 2]) > xmax
            or max(E[e, 1], E[e, 3]) < ymin or min(E[e, 1], E[e, 3]) > ymax)


@jit(inline=True, noalloc=True)
def cell_span(EG, xmin, ymin, xmax, ymax) -> tuple:
    """(ci0, ci1, cj0, cj1): the cells of the grid ``EG`` that the box covers, clamped to the grid."""
    ncols = int(EG[4])
    nrows = int(EG[5])
    ci0 = min(max(int(math.floor((xmin - EG[0]) / EG[2])), 0), ncols - 1)
    ci1 = min(max(int(math.floor((xmax - EG[0]) / EG[2])), 0), ncols - 1)
    cj0 = min(max(int(math.floor((ymin - EG[1]) / EG[3])), 0), nrows - 1)
    cj1 = min(max(int(math.floor((ymax - EG[1]) / EG[3])), 0), nrows - 1)
    return ci0, ci1, cj0, cj1


@jit(inline=True, noalloc=True)
def gather_cells(E, ES, EI, ncols, span, box, keep_box, cand, stamp, keep, room) -> tuple:
    """Visit the cells ``span`` row by row, each edge once (``stamp`` (ne + 1,) marks the edges seen by this query,
    ``stamp[ne]`` the counter): the edges meeting ``box`` into ``cand`` in that order and, when ``room`` > 0, those
    meeting ``keep_box`` (a box containing ``box``) into ``keep`` (room,). Returns (edges in cand, edges in keep,
    -1 when more than ``room`` met ``keep_box``)."""
    ne = E.shape[0]
    q = stamp[ne] + 1
    stamp[ne] = q
    ci0, ci1, cj0, cj1 = span
    xmin, ymin, xmax, ymax = box
    kx0, ky0, kx1, ky1 = keep_box
    k = 0
    kk = 0
    for cj in range(cj0, cj1 + 1):
        for ci in range(ci0, ci1 + 1):
            c = cj * ncols + ci
            for m in range(ES[c], ES[c + 1]):
                e = EI[m]
                if stamp[e] == q:
                    continue
                stamp[e] = q
                if room > 0 and kk >= 0 and not edge_misses_box(E, e, kx0, ky0, kx1, ky1):
                    if kk < room:
                        keep[kk] = e
                        kk += 1
                    else:
                        kk = -1
                if edge_misses_box(E, e, xmin, ymin, xmax, ymax):
                    continue
                cand[k] = e
                k += 1
    return k, kk


@jit(noalloc=True)
def collect_kept(grid, xmin, ymin, xmax, ymax, cand, stamp, K, i) -> int:
    """``shadows.collect_edges`` of the gridded edge set ``grid`` (E, EG, ES, EI) over the box: the same edges in
    the same order into ``cand``, from agent i's list in ``K`` (a ``KeptEdges``) where it holds them, else gathered
    afresh and kept for the next steps (see the module docstring). Returns how many."""
    E, EG, ES, EI = grid
    ci0, ci1, cj0, cj1 = cell_span(EG, xmin, ymin, xmax, ymax)
    sp = K.span
    bx = K.box
    n_kept = K.size[i]
    if (n_kept >= 0 and sp[i, 0] == ci0 and sp[i, 1] == ci1 and sp[i, 2] == cj0 and sp[i, 3] == cj1
            and xmin >= bx[i, 0] and ymin >= bx[i, 1] and xmax <= bx[i, 2] and ymax <= bx[i, 3]):
        k = 0
        for c in range(n_kept):
            e = K.items[i, c]
            if not edge_misses_box(E, e, xmin, ymin, xmax, ymax):
                cand[k] = e
                k += 1
        return k
    mx = KEEP_MARGIN * EG[2]
    my = KEEP_MARGIN * EG[3]
    keep_box = (xmin - mx, ymin - my, xmax + mx, ymax + my)
    k, kk = gather_cells(E, ES, EI, int(EG[4]), (ci0, ci1, cj0, cj1), (xmin, ymin, xmax, ymax), keep_box, cand,
                         stamp, K.items[i], K.items.shape[1])
    sp[i, 0] = ci0
    sp[i, 1] = ci1
    sp[i, 2] = cj0
    sp[i, 3] = cj1
    bx[i, 0] = keep_box[0]
    bx[i, 1] = keep_box[1]
    bx[i, 2] = keep_box[2]
    bx[i, 3] = keep_box[3]
    K.size[i] = kk
    return k
