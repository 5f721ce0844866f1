"""``grid``: A* on a weighted 8-connected grid (MIRAN section 4, the planner of the forest example, Figure 1).

Each cell costs the profile's weight of the terrain at its centre; a move between neighbouring centres costs
half its length at each cell's weight (MIRAN section 4's w(T_u)|e_u| + w(T_v)|e_v|). A cell is blocked when its
centre is closer than C + h/sqrt(2) to an obstacle or the bounds (h the cell size, C the clearance asked for):
every point of a move between two open centres lies within h/sqrt(2) of one of them, so the route keeps C.
"""

from __future__ import annotations

import math

import numpy as np

from ..freespace import FreeSpace, terrain_at
from ..graph import DualGraph
from .base import Leg

# The eight neighbour offsets (di, dj) and their step lengths in cells.
OFFSETS = np.array([(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)], dtype=np.int64)
DEFAULT_CELLS = 200


def default_cell_size(bounds) -> float:
    """Cell size giving about 200 cells along the longer side of the bounds."""
    x0, y0, x1, y1 = bounds
    return max(x1 - x0, y1 - y0) / DEFAULT_CELLS


class GridPlanner:
    """The weighted grid of one scene and one cell size, with one graph per clearance level.

    - ``h``: cell size (scene units); ``nx``, ``ny``: cells per row and column; cell (i, j) has index j * nx + i
      and centre (x0 + (i + 0.5) h, y0 + (j + 0.5) h).
    - ``centres``: (n, 2) float64; ``clearance``: (n,) float64 distance of each centre to the free space's boundary
      (0 outside the free space); ``terrain``: (n,) int32 terrain index at each centre (-1 outside).
    """

    name = "grid"
    unreachable_hint = ("the grid has no connected path between them (passages narrower than about 1.5 cells "
                        "close on a coarse grid: try a smaller cell size)")

    def __init__(self, free0: FreeSpace, cell_size: float | None = None):
        geometry = free0.geometry
        x0, y0, x1, y1 = geometry.box.bounds
        self.h = float(cell_size) if cell_size else default_cell_size((x0, y0, x1, y1))
        self.origin = np.array([x0, y0])
        self.nx = max(1, int(math.ceil((x1 - x0) / self.h - 1e-9)))
        self.ny = max(1, int(math.ceil((y1 - y0) / self.h - 1e-9)))
        ii, jj = np.meshgrid(np.arange(self.nx), np.arange(self.ny))
        self.centres = np.column_stack([x0 + (ii.ravel() + 0.5) * self.h, y0 + (jj.ravel() + 0.5) * self.h])
        self.free0 = free0
        self.clearance = free0.point_clearance(self.centres)
        self.terrain = terrain_at(geometry, self.centres)
        self._graphs: dict[float, tuple[DualGraph, np.ndarray]] = {}

    @property
    def n(self) -> int:
        return self.nx * self.ny

    def open_cells(self, clearance: float) -> np.ndarray:
        """(n,) bool: cells whose centre keeps clearance + h / sqrt(2) (and lies in the free space)."""
        return (self.terrain >= 0) & (self.clearance >= clearance + self.h / math.sqrt(2.0))

    def graph(self, clearance: float) -> tuple[DualGraph, np.ndarray]:
        """The 8-connected graph over the open cells at a clearance level, and the open mask."""
        key = float(clearance)
        if key not in self._graphs:
            open_ = self.open_cells(clearance)
            i = np.arange(self.n) % self.nx
            j = np.arange(self.n) // self.nx
            a_list, b_list, half = [], [], []
            for di, dj in OFFSETS:
                ni, nj = i + di, j + dj
                ok = open_ & (ni >= 0) & (ni < self.nx) & (nj >= 0) & (nj < self.ny)
                nb = np.where(ok, nj * self.nx + ni, 0)
                ok &= open_[nb]
                a_list.append(np.nonzero(ok)[0])
                b_list.append(nb[ok])
                half.append(np.full(int(ok.sum()), 0.5 * self.h * math.hypot(di, dj)))
            a, b, hl = np.concatenate(a_list), np.concatenate(b_list), np.concatenate(half)
            terr = np.where(self.terrain >= 0, self.terrain, 0)
            self._graphs[key] = (DualGraph.from_edges(self.centres, terr, a, b, hl, hl), open_)
        return self._graphs[key]

    def cell_of(self, p: np.ndarray) -> int:
        """Index of the cell holding point p (clamped to the grid)."""
        i = min(self.nx - 1, max(0, int((p[0] - self.origin[0]) // self.h)))
        j = min(self.ny - 1, max(0, int((p[1] - self.origin[1]) // self.h)))
        return j * self.nx + i

    def endpoints(self, p: np.ndarray, clearance: float, weights: np.ndarray, k: int = 4
                  ) -> tuple[np.ndarray, np.ndarray]:
        """Cells a query point joins and the costs of the joining segments: its own cell when open, else the k
        nearest open cells visible from it within a few cells. Empty arrays when there is none."""
        _, open_ = self.graph(clearance)
        c = self.cell_of(p)
        if open_[c]:
            return np.array([c]), np.array([weights[self.terrain[c]] * float(np.hypot(*(self.centres[c] - p)))])
        reach = int(math.ceil(clearance / self.h)) + 3
        ci, cj = c % self.nx, c // self.nx
        ii, jj = np.meshgrid(np.arange(max(0, ci - reach), min(self.nx, ci + reach + 1)),
                             np.arange(max(0, cj - reach), min(self.ny, cj + reach + 1)))
        cells = (jj * self.nx + ii).ravel()
        cells = cells[open_[cells]]
        if len(cells) == 0:
            return np.zeros(0, np.int64), np.zeros(0)
        d = np.hypot(*(self.centres[cells] - p).T)
        order = np.argsort(d, kind="stable")
        cells, d = cells[order], d[order]
        vis = self.free0.visible(np.repeat(np.asarray(p)[None], len(cells), axis=0), self.centres[cells])
        cells, d = cells[vis][:k], d[vis][:k]
        return cells.astype(np.int64), weights[self.terrain[cells]] * d

    def plan(self, start: np.ndarray, goal: np.ndarray, weights: np.ndarray, clearance: float) -> Leg | None:
        """A* from start to goal on the grid of this clearance level; None when they are not connected."""
        g, open_ = self.graph(clearance)
        cs, cg = self.cell_of(start), self.cell_of(goal)
        if cs == cg and open_[cs]:
            return Leg(np.array([start, goal]), float(weights[self.terrain[cs]] * np.hypot(*(goal - start))))
        src, src_cost = self.endpoints(start, clearance, weights)
        dst, dst_cost = self.endpoints(goal, clearance, weights)
        if len(src) == 0 or len(dst) == 0:
            return None
        nodes, cost = g.search(weights, src, src_cost, dst, dst_cost, goal)
        if len(nodes) == 0:
            return None
        return Leg(np.vstack([start[None], self.centres[nodes], goal[None]]), float(cost))
