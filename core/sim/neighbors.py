"""A uniform grid over the agents for neighbour queries (the spatial hash of IRM section 5), rebuilt every step.

Arrays: ``cell_start`` (ncx * ncy + 1,) int64 and ``order`` (n,) int64 form a counting sort of the walking
agents by cell (agents of cell c are ``order[cell_start[c]:cell_start[c + 1]]``); ``grid`` (5,) float64 is
``[x0, y0, cell, ncx, ncy]`` in scene units. Arrived agents are left out: they no longer take part.

The sort is stable (agents keep index order within a cell), and ``Neighbours`` also holds the sorted agents'
positions, velocities, speeds and radii contiguously in that order: a scan over a row of cells reads one run of
memory instead of one random agent row per neighbour, and visits the neighbours in the same order as before.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from core.jitcache import jit

from core.navmesh.kernels.predicates import norm2d

from .state import WALKING


class Neighbours(NamedTuple):
    """A step's neighbour grid: ``grid``, ``cell_start`` (ncell + 1,) and ``order`` (n,) as above; the sorted agents'
    ``pos`` (n, 2), ``vel`` (n, 2), ``speed`` |vel| (n,) and ``radius`` (n,) (row m is agent order[m]'s; rows past
    the walkers' count are stale); ``fill`` (ncell,) int64 the sort's scratch."""

    grid: np.ndarray
    cell_start: np.ndarray
    order: np.ndarray
    pos: np.ndarray
    vel: np.ndarray
    speed: np.ndarray
    radius: np.ndarray
    fill: np.ndarray


def neighbours_for(grid: np.ndarray, n_agents: int) -> Neighbours:
    """The arrays of a neighbour grid of shape ``grid`` (``grid_shape``) for n_agents agents."""
    ncell = int(grid[3]) * int(grid[4])
    return Neighbours(grid, np.zeros(ncell + 1, dtype=np.int64), np.zeros(n_agents, dtype=np.int64),
                      np.zeros((n_agents, 2), dtype=np.float64), np.zeros((n_agents, 2), dtype=np.float64),
                      np.zeros(n_agents, dtype=np.float64), np.zeros(n_agents, dtype=np.float64),
                      np.zeros(ncell, dtype=np.int64))


def no_neighbours() -> Neighbours:
    """The grid of a simulation without interactions: one empty cell (the kernels then skip every scan)."""
    return neighbours_for(np.zeros(5), 0)


def grid_shape(bounds, cell: float, n_agents: int) -> np.ndarray:
    """The grid description ``[x0, y0, cell, ncx, ncy]`` over the bounds, at most about 4 cells per agent."""
    x0, y0, x1, y1 = (float(b) for b in bounds)
    w, h = max(x1 - x0, 1e-9), max(y1 - y0, 1e-9)
    cell = max(float(cell), 1e-9)
    limit = max(64, 4 * n_agents)
    while (w / cell) * (h / cell) > limit:
        cell *= 2.0
    ncx = int(np.ceil(w / cell)) or 1
    ncy = int(np.ceil(h / cell)) or 1
    return np.array([x0, y0, cell, ncx, ncy], dtype=np.float64)


@jit(inline=True)
def cell_of(grid: np.ndarray, x: float, y: float) -> int:
    """The cell index of a point (points outside the grid go to the border cells)."""
    ncx = int(grid[3])
    ncy = int(grid[4])
    cx = int((x - grid[0]) / grid[2])
    cy = int((y - grid[1]) / grid[2])
    cx = min(max(cx, 0), ncx - 1)
    cy = min(max(cy, 0), ncy - 1)
    return cy * ncx + cx


@jit(noalloc=True)
def _sort_by_cell(grid: np.ndarray, pos: np.ndarray, status: np.ndarray, cell_start: np.ndarray,
                  order: np.ndarray, fill: np.ndarray) -> int:
    """Counting-sort the walking agents into the grid cells, stably (``fill`` (ncell,) scratch); returns how many
    were sorted."""
    ncell = cell_start.shape[0] - 1
    for c in range(ncell + 1):
        cell_start[c] = 0
    n = pos.shape[0]
    for i in range(n):
        if status[i] == WALKING:
            cell_start[cell_of(grid, pos[i, 0], pos[i, 1]) + 1] += 1
    for c in range(ncell):
        cell_start[c + 1] += cell_start[c]
        fill[c] = cell_start[c]
    m = 0
    for i in range(n):
        if status[i] == WALKING:
            c = cell_of(grid, pos[i, 0], pos[i, 1])
            order[fill[c]] = i
            fill[c] += 1
            m += 1
    return m


@jit
def build(grid: np.ndarray, pos: np.ndarray, status: np.ndarray, cell_start: np.ndarray, order: np.ndarray) -> int:
    """Counting-sort the walking agents into the grid cells; returns how many were sorted."""
    return _sort_by_cell(grid, pos, status, cell_start, order, np.empty(cell_start.shape[0] - 1, dtype=np.int64))


@jit(noalloc=True)
def sort_agents(nb: Neighbours, pos: np.ndarray, vel: np.ndarray, radius: np.ndarray, status: np.ndarray) -> int:
    """Sort the walking agents into ``nb``'s cells and copy their positions, velocities, speeds and radii into its
    sorted rows; returns how many were sorted."""
    m = _sort_by_cell(nb.grid, pos, status, nb.cell_start, nb.order, nb.fill)
    order, spos, svel, sspeed, srad = nb.order, nb.pos, nb.vel, nb.speed, nb.radius
    for k in range(m):
        i = order[k]
        spos[k, 0] = pos[i, 0]
        spos[k, 1] = pos[i, 1]
        svel[k, 0] = vel[i, 0]
        svel[k, 1] = vel[i, 1]
        sspeed[k] = norm2d(vel[i, 0], vel[i, 1])
        srad[k] = radius[i]
    return m


@jit
def _count_pairs(grid, cell_start, order, pos, reach, out, fill) -> int:
    """Pairs i < j of sorted agents with |pos_i - pos_j| <= reach (requires reach <= cell); writes them into
    ``out`` (2, cap) when ``fill`` and returns how many there are."""
    ncx = int(grid[3])
    ncy = int(grid[4])
    r2 = reach * reach
    k = 0
    for cy in range(ncy):
        for cx in range(ncx):
            c = cy * ncx + cx
            for m in range(cell_start[c], cell_start[c + 1]):
                i = order[m]
                for ny in range(max(cy - 1, 0), min(cy + 2, ncy)):
                    for nx in range(max(cx - 1, 0), min(cx + 2, ncx)):
                        c2 = ny * ncx + nx
                        for m2 in range(cell_start[c2], cell_start[c2 + 1]):
                            j = order[m2]
                            if j <= i:
                                continue
                            dx = pos[i, 0] - pos[j, 0]
                            dy = pos[i, 1] - pos[j, 1]
                            if dx * dx + dy * dy <= r2:
                                if fill:
                                    out[0, k] = i
                                    out[1, k] = j
                                k += 1
    return k


def neighbour_pairs(bounds, pos: np.ndarray, reach: float, status: np.ndarray | None = None) -> np.ndarray:
    """(2, k) int64 pairs i < j of (walking) agents no farther apart than ``reach``, found through the grid (the
    spatial-query form of shapely's STRtree.query); ``pos`` is (n, 2) float64 in scene units."""
    pos = np.ascontiguousarray(pos, dtype=np.float64).reshape(-1, 2)
    n = len(pos)
    st = np.full(n, WALKING, dtype=np.int8) if status is None else np.asarray(status, dtype=np.int8)
    grid = grid_shape(bounds, max(float(reach), 1e-9), n)
    cell_start = np.zeros(int(grid[3]) * int(grid[4]) + 1, dtype=np.int64)
    order = np.zeros(n, dtype=np.int64)
    build(grid, pos, st, cell_start, order)
    empty = np.zeros((2, 0), dtype=np.int64)
    k = _count_pairs(grid, cell_start, order, pos, float(reach), empty, False)
    out = np.zeros((2, k), dtype=np.int64)
    _count_pairs(grid, cell_start, order, pos, float(reach), out, True)
    return out


@jit(inline=True, noalloc=True)
def visits(nb: Neighbours, in_cells: bool, lo: int, hi: int) -> int:
    """How many agents a phase over the block [lo, hi) visits: the sorted walkers of every block when it goes in
    cell order (``in_cells``: a sorted grid of this step is there), else the block's agents."""
    return nb.cell_start[nb.cell_start.shape[0] - 1] if in_cells else hi - lo


@jit(inline=True, noalloc=True)
def visited(nb: Neighbours, in_cells: bool, k: int, lo: int, hi: int) -> int:
    """The agent of a phase's k-th visit (``visits``), or -1 when it is another block's. In cell order consecutive
    agents scan the same sorted rows, which stay in cache; results are written by agent index and do not depend on
    the order (nor on the blocks)."""
    i = nb.order[k] if in_cells else lo + k
    return i if lo <= i < hi else -1
