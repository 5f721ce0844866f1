"""``grid``: A* on a weighted 8-connected grid (MIRAN section 4, the planner of the forest example, Figure 1).

Each cell costs the profile's weight of the terrain at its centre; a move between neighbouring centres costs
half its length at each cell's weight (MIRAN section 4's w(T_u)|e_u| + w(T_v)|e_v|). A cell is blocked when its
centre is closer than C + h/sqrt(2) to an obstacle or the bounds (h the cell size, C the clearance asked for):
every point of a move between two open centres lies within h/sqrt(2) of one of them, so the route keeps C.
"""

from __future__ import annotations

import math

import numpy as np
from core.jitcache import jit

from core.scene.problems import InputError, Problem

from ..freespace import terrain_at
from ..graph import DualGraph
from .base import Leg

# The eight neighbour offsets (di, dj) and their step lengths in cells.
OFFSETS = np.array([(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)], dtype=np.int64)
DEFAULT_CELLS = 400
# The most cells a grid may have (about 6 times the default 400 x 400): a query on a 1000 x 1000 grid took 16 s on
# the loaded 2-core development machine, its arrays and graph about 250 MB.
MAX_GRID_CELLS = 1_000_000


def default_cell_size(bounds) -> float:
    """Cell size giving about 400 cells along the longer side of the bounds."""
    x0, y0, x1, y1 = bounds
    return max(x1 - x0, y1 - y0) / DEFAULT_CELLS


def grid_cells(bounds, h: float) -> float:
    """About how many cells of size h cover the bounds, as a float (a tiny h gives more than any integer type
    holds, or infinity)."""
    x0, y0, x1, y1 = bounds
    return max(1.0, (x1 - x0) / h) * max(1.0, (y1 - y0) / h)


def cell_size_problem(bounds, h: float) -> str | None:
    """Why a cell size makes a grid too large for the bounds (naming the smallest size allowed), or None."""
    n = grid_cells(bounds, h)
    if n > MAX_GRID_CELLS:
        x0, y0, x1, y1 = bounds
        smallest = math.sqrt((x1 - x0) * (y1 - y0) / MAX_GRID_CELLS)
        return (f"a cell size of {h:g} gives {n:.3g} cells, over the limit of {MAX_GRID_CELLS}: use at least "
                f"{smallest * 1.01:.3g}")
    return None


@jit
def capped_clearance(segments, origin, h, nx, ny, cap):
    """(nx * ny,) distance from each cell centre to the nearest segment [x0, y0, x1, y1], or ``cap`` when none
    lies within ``cap``: each segment visits only the cells of its bounding box grown by ``cap``."""
    out = np.full(nx * ny, cap)
    for k in range(segments.shape[0]):
        ax, ay, bx, by = segments[k, 0], segments[k, 1], segments[k, 2], segments[k, 3]
        ex = bx - ax
        ey = by - ay
        L2 = ex * ex + ey * ey
        i0 = max(0, int(np.floor((min(ax, bx) - cap - origin[0]) / h)))
        i1 = min(nx - 1, int(np.floor((max(ax, bx) + cap - origin[0]) / h)))
        j0 = max(0, int(np.floor((min(ay, by) - cap - origin[1]) / h)))
        j1 = min(ny - 1, int(np.floor((max(ay, by) + cap - origin[1]) / h)))
        for j in range(j0, j1 + 1):
            cy = origin[1] + (j + 0.5) * h
            for i in range(i0, i1 + 1):
                cx = origin[0] + (i + 0.5) * h
                t = 0.0
                if L2 > 0.0:
                    t = ((cx - ax) * ex + (cy - ay) * ey) / L2
                    t = min(1.0, max(0.0, t))
                dx = ax + t * ex - cx
                dy = ay + t * ey - cy
                d = np.sqrt(dx * dx + dy * dy)
                c = j * nx + i
                if d < out[c]:
                    out[c] = d
    return out


class GridPlanner:
    """The weighted grid of one scene and one cell size, with one graph per clearance level.

    - ``h``: cell size (scene units); ``nx``, ``ny``: cells per row and column; cell (i, j) has index j * nx + i
      and centre (x0 + (i + 0.5) h, y0 + (j + 0.5) h).
    - ``centres``: (n, 2) float64; ``terrain``: (n,) int32 terrain index at each centre (-1 outside the free
      space); ``clearance``: (n,) float64 distance of each centre to the free space's boundary, capped (cells
      farther than the cap hold the cap; 0 outside the free space).
    """

    name = "grid"
    unreachable_hint = ("the grid has no connected path between them (passages narrower than about 1.5 cells "
                        "close on a coarse grid: try a smaller cell size)")

    def __init__(self, ctx):
        free0 = ctx.free(0.0)
        cell_size = ctx.cell_size
        geometry = free0.geometry
        x0, y0, x1, y1 = geometry.box.bounds
        self.h = float(cell_size) if cell_size else default_cell_size((x0, y0, x1, y1))
        msg = cell_size_problem((x0, y0, x1, y1), self.h)
        if msg:
            raise InputError([Problem("cell_size", msg)])
        self.origin = np.array([x0, y0])
        self.nx = max(1, int(math.ceil((x1 - x0) / self.h - 1e-9)))
        self.ny = max(1, int(math.ceil((y1 - y0) / self.h - 1e-9)))
        ii, jj = np.meshgrid(np.arange(self.nx), np.arange(self.ny))
        self.centres = np.column_stack([x0 + (ii.ravel() + 0.5) * self.h, y0 + (jj.ravel() + 0.5) * self.h])
        self.free0 = free0
        self.ctx = ctx
        self.terrain = terrain_at(geometry, self.centres)
        self._cap = 0.0
        self.clearance = np.zeros(self.n)
        self._graphs: dict[float, tuple[DualGraph, np.ndarray]] = {}

    @property
    def n(self) -> int:
        return self.nx * self.ny

    def open_cells(self, clearance: float) -> np.ndarray:
        """(n,) bool: cells whose centre keeps clearance + h / sqrt(2) (and lies in the free space)."""
        need = clearance + self.h / math.sqrt(2.0)
        if need >= self._cap:
            # Centre clearances are computed up to a cap (cells farther away hold the cap), raised on demand.
            self._cap = max(2.0 * need, 4.0 * self.h)
            self.clearance = capped_clearance(self.free0.segments, self.origin, self.h, self.nx, self.ny, self._cap)
            self.clearance[self.terrain < 0] = 0.0
        return (self.terrain >= 0) & (self.clearance >= need)

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
        vis = self.ctx.visible(np.repeat(np.asarray(p)[None], len(cells), axis=0), self.centres[cells])
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
