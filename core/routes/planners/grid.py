"""``grid``: A* on a weighted 8-connected grid (MIRAN section 4, the planner of the forest example, Figure 1).

Each cell costs the profile's weight of the terrain at its centre; a move between neighbouring centres costs
half its length at each cell's weight (MIRAN section 4's w(T_u)|e_u| + w(T_v)|e_v|). A cell is blocked when its
centre is closer than C + h/sqrt(2) to an obstacle or the bounds (h the cell size, C the clearance asked for):
every point of a move between two open centres lies within h/sqrt(2) of one of them, so the route keeps C.

**Narrow places.** A passage narrower than about 2 C + 1.5 h has no open centre: the grid closes it although a disc
of clearance C passes. Where the grid finds no route but the free space eroded by C joins start and goal (the
portal planner's exact route at C), the grid is refined locally: the coarse cells around every closed cell that the
exact route crosses are cut into k x k cells (k = 4, 8, 16 in turn, at most MAX_FINE_CELLS of them), open by the
same rule at their size h / k, and joined to the open coarse cells around them. The same argument keeps C on every
move: of two centres with clearances C + s_a and C + s_b, each point of the move between them lies within
(s_a + s_b) of one of them when the move is at most s_a + s_b long (the distance to the obstacles is 1-Lipschitz),
and a coarse-fine move is at most (h + h / k) / sqrt(2). Where even that fails, the refusal says that the grid's
cells are too coarse for the passage, and which cell size or planner passes it (``coarse_hint``).
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
# Local refinement at narrow places: the subdivisions tried, the coarse cells around each closed cell of the exact
# route that are refined (a block of 2 REFINE_PAD + 1 cells a side), and the most fine cells in all.
REFINE_STEPS = (4, 8, 16)
REFINE_PAD = 2
MAX_FINE_CELLS = 400_000


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
    """Why a cell size makes a grid too large for the bounds (naming the smallest size allowed), or larger than
    the bounds themselves (naming the largest), or None."""
    x0, y0, x1, y1 = bounds
    longest = max(x1 - x0, y1 - y0)
    if h > longest:
        return f"a cell size of {h:g} is larger than the scene ({x1 - x0:g} x {y1 - y0:g}): use at most {longest:g}"
    n = grid_cells(bounds, h)
    if n > MAX_GRID_CELLS:
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
        """A* from start to goal on the grid of this clearance level, refined locally where its cells close a
        passage that keeps the clearance (module docstring); None when they are not connected."""
        g, open_ = self.graph(clearance)
        cs, cg = self.cell_of(start), self.cell_of(goal)
        if cs == cg and open_[cs]:
            return Leg(np.array([start, goal]), float(weights[self.terrain[cs]] * np.hypot(*(goal - start))))
        src, src_cost = self.endpoints(start, clearance, weights)
        dst, dst_cost = self.endpoints(goal, clearance, weights)
        if len(src) and len(dst):
            nodes, cost = g.search(weights, src, src_cost, dst, dst_cost, goal)
            if len(nodes):
                return Leg(np.vstack([start[None], self.centres[nodes], goal[None]]), float(cost))
        return self.refined_plan(start, goal, weights, clearance)

    # ----- narrow places

    def closed_on_route(self, start: np.ndarray, goal: np.ndarray, clearance: float
                        ) -> tuple[np.ndarray, float, float, np.ndarray]:
        """Where the exact route at ``clearance`` (the portal planner's, in the free space eroded by it) crosses
        cells the grid closed: (those cells, the route's narrowest clearance, the narrowest width of the free space
        across the route in them, where that is (2,)); (empty, -1, -1, start) when no route keeps the clearance.
        The width across is the free chord through the route point, normal to the route (shapely)."""
        import shapely

        exact = self.ctx.planner("portal").plan(start, goal, np.ones(1), clearance)
        if exact is None:
            return np.zeros(0, np.int64), -1.0, -1.0, start
        _, open_ = self.graph(clearance)
        line = shapely.LineString(exact.points)
        s = np.arange(0.0, line.length, 0.25 * self.h)
        pts = shapely.get_coordinates(shapely.line_interpolate_point(line, s))
        cell = np.array([self.cell_of(p) for p in pts], dtype=np.int64)
        shut = ~open_[cell]
        narrowest = float(self.ctx.narrowest(exact.points))
        width, at = np.inf, start
        ahead = shapely.get_coordinates(shapely.line_interpolate_point(line, np.minimum(s + 1e-3 * self.h,
                                                                                        line.length)))
        reach = 4.0 * (clearance + self.h)
        for p, q in zip(pts[shut], ahead[shut]):
            t = q - p
            if not np.any(t):
                continue
            nrm = np.array([-t[1], t[0]]) / np.hypot(*t)
            chord = shapely.LineString([p - reach * nrm, p + reach * nrm]).intersection(self.free0.free)
            pieces = getattr(chord, "geoms", [chord])
            here = [g.length for g in pieces if g.distance(shapely.Point(p)) < 1e-9 * max(1.0, reach)]
            if here and here[0] < width:
                width, at = float(here[0]), p
        return np.unique(cell[shut]), narrowest, (width if np.isfinite(width) else -1.0), at

    def refined_plan(self, start: np.ndarray, goal: np.ndarray, weights: np.ndarray, clearance: float
                     ) -> Leg | None:
        """The grid refined k x k (k in REFINE_STEPS) around the closed cells that the exact route crosses; the
        first route found, or None (no route keeps the clearance, or the refinement is not fine enough)."""
        closed = self.closed_on_route(start, goal, clearance)[0]
        if len(closed) == 0:
            return None
        mask = np.zeros(self.n, dtype=bool)
        ci, cj = closed % self.nx, closed // self.nx
        for di in range(-REFINE_PAD, REFINE_PAD + 1):
            for dj in range(-REFINE_PAD, REFINE_PAD + 1):
                ii, jj = ci + di, cj + dj
                ok = (ii >= 0) & (ii < self.nx) & (jj >= 0) & (jj < self.ny)
                mask[jj[ok] * self.nx + ii[ok]] = True
        for k in REFINE_STEPS:
            if int(mask.sum()) * k * k > MAX_FINE_CELLS:
                break
            leg = self._refined_search(mask, k, start, goal, weights, clearance)
            if leg is not None:
                return leg
        return None

    def _refined_search(self, mask: np.ndarray, k: int, start: np.ndarray, goal: np.ndarray, weights: np.ndarray,
                        clearance: float) -> Leg | None:
        """A* over the open coarse cells outside ``mask`` and the open cells of size h / k inside it."""
        h, hf = self.h, self.h / k
        _, open_ = self.graph(clearance)
        coarse = open_ & ~mask
        # The fine lattice: cell (I, J) of size hf, I = i k + a for coarse column i; only the masked coarse cells.
        cells = np.flatnonzero(mask)
        a, b = np.meshgrid(np.arange(k), np.arange(k))
        I = ((cells % self.nx)[:, None] * k + a.ravel()[None]).ravel()
        J = ((cells // self.nx)[:, None] * k + b.ravel()[None]).ravel()
        fxy = np.column_stack([self.origin[0] + (I + 0.5) * hf, self.origin[1] + (J + 0.5) * hf])
        fterr = terrain_at(self.free0.geometry, fxy)
        fopen = (fterr >= 0) & (self.free0.point_clearance(fxy) >= clearance + hf / math.sqrt(2.0))
        I, J, fxy, fterr = I[fopen], J[fopen], fxy[fopen], fterr[fopen]
        nf = len(fxy)
        if nf == 0:
            return None
        n = self.n
        xy = np.vstack([self.centres, fxy])
        terr = np.concatenate([np.where(self.terrain >= 0, self.terrain, 0), fterr])
        src_l, dst_l, half_l = [], [], []
        # Coarse moves between open cells outside the mask (as ``graph``).
        i = np.arange(n) % self.nx
        j = np.arange(n) // self.nx
        for di, dj in OFFSETS:
            ni, nj = i + di, j + dj
            ok = coarse & (ni >= 0) & (ni < self.nx) & (nj >= 0) & (nj < self.ny)
            nb = np.where(ok, nj * self.nx + ni, 0)
            ok &= coarse[nb]
            src_l.append(np.flatnonzero(ok))
            dst_l.append(nb[ok])
            half_l.append(np.full(int(ok.sum()), 0.5 * h * math.hypot(di, dj)))
        # Fine moves: 8 neighbours on the fine lattice, found by key.
        width = self.nx * k + 2
        key = (J + 1) * width + (I + 1)
        order = np.argsort(key)
        skey = key[order]
        for di, dj in OFFSETS:
            want = key + dj * width + di
            pos = np.clip(np.searchsorted(skey, want), 0, nf - 1)
            hit = skey[pos] == want
            src_l.append(n + np.flatnonzero(hit))
            dst_l.append(n + order[pos[hit]])
            half_l.append(np.full(int(hit.sum()), 0.5 * hf * math.hypot(di, dj)))
        # Coarse-fine moves: each fine cell to the open coarse cells around its own, within (h + hf) / sqrt(2).
        fi, fj = I // k, J // k
        reach = (h + hf) / math.sqrt(2.0) * (1.0 + 1e-9)
        for di in (-1, 0, 1):
            for dj in (-1, 0, 1):
                ni, nj = fi + di, fj + dj
                ok = (ni >= 0) & (ni < self.nx) & (nj >= 0) & (nj < self.ny)
                c = np.where(ok, nj * self.nx + ni, 0)
                ok &= coarse[c]
                d = np.hypot(*(self.centres[c] - fxy).T)
                ok &= d <= reach
                f = n + np.flatnonzero(ok)
                src_l += [f, c[ok]]
                dst_l += [c[ok], f]
                half_l += [0.5 * d[ok], 0.5 * d[ok]]
        src, dst, half = np.concatenate(src_l), np.concatenate(dst_l), np.concatenate(half_l)
        g = DualGraph.from_edges(xy, terr, src, dst, half, half)
        nodes_ok = np.concatenate([coarse, np.ones(nf, dtype=bool)])
        ends = []
        for p in (start, goal):
            e = self._join(p, xy, nodes_ok, terr, weights, clearance, hf)
            if e is None:
                return None
            ends.append(e)
        nodes, cost = g.search(weights, ends[0][0], ends[0][1], ends[1][0], ends[1][1], goal)
        if len(nodes) == 0:
            return None
        return Leg(np.vstack([start[None], xy[nodes], goal[None]]), float(cost))

    def _join(self, p: np.ndarray, xy: np.ndarray, nodes_ok: np.ndarray, terr: np.ndarray, weights: np.ndarray,
              clearance: float, hf: float, k: int = 4) -> tuple[np.ndarray, np.ndarray] | None:
        """The nodes a query point joins in the refined graph (the k nearest open ones within a few coarse cells
        that it sees) and the joining costs; None when there is none."""
        reach = clearance + 3.0 * self.h
        d = np.hypot(*(xy - p).T)
        cand = np.flatnonzero(nodes_ok & (d <= reach))
        if len(cand) == 0:
            return None
        cand = cand[np.argsort(d[cand], kind="stable")]
        vis = self.ctx.visible(np.repeat(np.asarray(p)[None], len(cand), axis=0), xy[cand])
        cand = cand[vis][:k]
        if len(cand) == 0:
            return None
        return cand.astype(np.int64), weights[terr[cand]] * d[cand]

    def coarse_hint(self, start: np.ndarray, goal: np.ndarray, clearance: float) -> str | None:
        """Why the grid found no route where the free space has one: its cells are too coarse for the passage
        (where, how wide, which cell size or planner passes it); None when no route keeps the clearance at all."""
        closed, narrowest, width, at = self.closed_on_route(start, goal, clearance)
        if narrowest < 0:
            return None
        head = (f"the grid's cells of {self.h:.3g} are too coarse for a passage that keeps the clearance (the portal "
                f"planner's route comes within {narrowest:.3g} of an obstacle)")
        if REFINE_STEPS:
            head += f", even refined to {self.h / REFINE_STEPS[-1]:.3g} there"
        if width < 0:
            return head + ": plan this character with cdt or portal"
        # A row of centres at most h / sqrt(2) off the passage's middle keeps C + h / sqrt(2) when
        # h <= (width / 2 - C) / sqrt(2).
        need = 0.99 * (0.5 * width - clearance) / math.sqrt(2.0)
        where = f" near ({at[0]:.6g}, {at[1]:.6g}), {width:.3g} wide"
        x0, y0 = self.origin
        bounds = (x0, y0, x0 + self.nx * self.h, y0 + self.ny * self.h)
        if need > 0 and cell_size_problem(bounds, need) is None:
            return f"{head}{where}: plan this character with cdt or portal, or give the grid a cell size of at most " \
                   f"{need:.3g}"
        return (f"{head}{where}: plan this character with cdt or portal (the grid would need cells of at most "
                f"{max(need, 0.0):.3g}, {grid_cells(bounds, max(need, 1e-12)):.3g} cells, over its limit of "
                f"{MAX_GRID_CELLS})")
