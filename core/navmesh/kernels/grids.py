"""Uniform grids built once per mesh: seed triangles for point location, obstacle edges per cell for clearance.

Grid metadata ``G`` (6,) float64 is ``[x0, y0, cell_w, cell_h, ncols, nrows]``; cell (i, j) covers
``[x0 + i cell_w, x0 + (i+1) cell_w] x [y0 + j cell_h, y0 + (j+1) cell_h]`` and has flat index ``j * ncols + i``.
"""

from __future__ import annotations

import math

import numpy as np
from core.jitcache import jit

from .predicates import orient


def grid_meta(bounds: tuple[float, float, float, float], target_cells: int) -> np.ndarray:
    """Square-ish cells over the bounds, about ``target_cells`` of them."""
    x0, y0, x1, y1 = bounds
    w, h = x1 - x0, y1 - y0
    cell = math.sqrt(w * h / max(target_cells, 1))
    ncols = max(1, min(4096, int(math.ceil(w / cell))))
    nrows = max(1, min(4096, int(math.ceil(h / cell))))
    return np.array([x0, y0, w / ncols, h / nrows, ncols, nrows], dtype=np.float64)


@jit
def seed_cells(V, T, G, S) -> int:
    """Fill ``S[cell]`` with a triangle of T containing the cell centre (T must tile the grid's rectangle).

    Returns the number of cells left without a seed (0 for a valid triangulation)."""
    ncols = int(G[4])
    nrows = int(G[5])
    for c in range(S.shape[0]):
        S[c] = -1
    for t in range(T.shape[0]):
        a, b, c = T[t, 0], T[t, 1], T[t, 2]
        xmin = min(V[a, 0], V[b, 0], V[c, 0])
        xmax = max(V[a, 0], V[b, 0], V[c, 0])
        ymin = min(V[a, 1], V[b, 1], V[c, 1])
        ymax = max(V[a, 1], V[b, 1], V[c, 1])
        i0 = max(int(math.floor((xmin - G[0]) / G[2] - 0.5)), 0)
        i1 = min(int(math.ceil((xmax - G[0]) / G[2] - 0.5)), ncols - 1)
        j0 = max(int(math.floor((ymin - G[1]) / G[3] - 0.5)), 0)
        j1 = min(int(math.ceil((ymax - G[1]) / G[3] - 0.5)), nrows - 1)
        for j in range(j0, j1 + 1):
            cy = G[1] + (j + 0.5) * G[3]
            for i in range(i0, i1 + 1):
                cx = G[0] + (i + 0.5) * G[2]
                if (orient(V[a, 0], V[a, 1], V[b, 0], V[b, 1], cx, cy) >= 0
                        and orient(V[b, 0], V[b, 1], V[c, 0], V[c, 1], cx, cy) >= 0
                        and orient(V[c, 0], V[c, 1], V[a, 0], V[a, 1], cx, cy) >= 0):
                    S[j * ncols + i] = t
    missing = 0
    for c in range(S.shape[0]):
        if S[c] < 0:
            missing += 1
    return missing


@jit
def seg_meets_box(x0, y0, x1, y1, bx0, by0, bx1, by1) -> bool:
    """Does segment (x0,y0)-(x1,y1) meet the closed axis-aligned box [bx0, bx1] x [by0, by1]?"""
    # Clip the segment to the box (Liang-Barsky): if anything remains they meet.
    t0 = 0.0
    t1 = 1.0
    dx = x1 - x0
    dy = y1 - y0
    for k in range(4):
        if k == 0:
            p, q = -dx, x0 - bx0
        elif k == 1:
            p, q = dx, bx1 - x0
        elif k == 2:
            p, q = -dy, y0 - by0
        else:
            p, q = dy, by1 - y0
        if p == 0.0:
            if q < 0.0:
                return False
        else:
            r = q / p
            if p < 0.0:
                t0 = max(t0, r)
            else:
                t1 = min(t1, r)
            if t0 > t1:
                return False
    return True


@jit
def _edge_cells(E, e, G, pad):
    ncols = int(G[4])
    nrows = int(G[5])
    xmin = min(E[e, 0], E[e, 2]) - pad
    xmax = max(E[e, 0], E[e, 2]) + pad
    ymin = min(E[e, 1], E[e, 3]) - pad
    ymax = max(E[e, 1], E[e, 3]) + pad
    i0 = min(max(int(math.floor((xmin - G[0]) / G[2])), 0), ncols - 1)
    i1 = min(max(int(math.floor((xmax - G[0]) / G[2])), 0), ncols - 1)
    j0 = min(max(int(math.floor((ymin - G[1]) / G[3])), 0), nrows - 1)
    j1 = min(max(int(math.floor((ymax - G[1]) / G[3])), 0), nrows - 1)
    return i0, i1, j0, j1


@jit(inline=True)
def _meets_cell(E, e, G, pad, i, j) -> bool:
    """Whether edge ``e`` meets cell (i, j) grown by ``pad`` on every side."""
    bx0 = G[0] + i * G[2] - pad
    by0 = G[1] + j * G[3] - pad
    return seg_meets_box(E[e, 0], E[e, 1], E[e, 2], E[e, 3], bx0, by0, bx0 + G[2] + 2 * pad, by0 + G[3] + 2 * pad)


@jit
def bin_edges(E, G):
    """CSR lists of the edges E (ne, 4) meeting each cell (with a tiny pad): (start (ncells+1,), items) int32."""
    ncols = int(G[4])
    nrows = int(G[5])
    ncell = ncols * nrows
    pad = 1e-9 * (G[2] + G[3])
    count = np.zeros(ncell + 1, dtype=np.int32)
    for e in range(E.shape[0]):
        i0, i1, j0, j1 = _edge_cells(E, e, G, pad)
        for j in range(j0, j1 + 1):
            for i in range(i0, i1 + 1):
                if _meets_cell(E, e, G, pad, i, j):
                    count[j * ncols + i + 1] += 1
    for c in range(ncell):
        count[c + 1] += count[c]
    items = np.empty(count[ncell], dtype=np.int32)
    fill = count[:ncell].copy()
    for e in range(E.shape[0]):
        i0, i1, j0, j1 = _edge_cells(E, e, G, pad)
        for j in range(j0, j1 + 1):
            for i in range(i0, i1 + 1):
                if _meets_cell(E, e, G, pad, i, j):
                    c = j * ncols + i
                    items[fill[c]] = e
                    fill[c] += 1
    return count, items
