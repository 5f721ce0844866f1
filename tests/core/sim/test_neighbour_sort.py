"""The sorted neighbour grid (core.sim.neighbors.sort_agents) and the disc-trimmed row scan of the crowd phase
(core.kernels.grid.disc_row_span), against numpy's stable sort and brute-force distances."""

import numpy as np
import pytest

from core.kernels.grid import cell_range, disc_row_span
from core.sim.neighbors import grid_shape, neighbours_for, sort_agents
from core.sim.state import ARRIVED, WALKING


def _crowd(seed: int, n: int):
    rng = np.random.default_rng(seed)
    pos = rng.uniform([-2.0, -2.0], [52.0, 32.0], size=(n, 2))      # a few outside the bounds (border cells)
    pos[: n // 5] = np.round(pos[: n // 5])                          # exact ties on cell borders
    vel = rng.normal(size=(n, 2))
    radius = rng.uniform(0.1, 0.4, n)
    status = np.where(rng.random(n) < 0.1, ARRIVED, WALKING).astype(np.int8)
    return pos, vel, radius, status


def _cells(grid, pos):
    ncx, ncy = int(grid[3]), int(grid[4])
    cx = np.clip(((pos[:, 0] - grid[0]) / grid[2]).astype(np.int64), 0, ncx - 1)
    cy = np.clip(((pos[:, 1] - grid[1]) / grid[2]).astype(np.int64), 0, ncy - 1)
    return cy * ncx + cx


@pytest.mark.parametrize("seed", range(4))
def test_sort_is_numpys_stable_sort_by_cell_with_the_rows_copied(seed):
    pos, vel, radius, status = _crowd(seed, 500)
    nb = neighbours_for(grid_shape((0.0, 0.0, 50.0, 30.0), 1.9, len(pos)), len(pos))
    m = sort_agents(nb, pos, vel, radius, status)
    walking = np.flatnonzero(status == WALKING)
    cells = _cells(nb.grid, pos[walking])
    want = walking[np.argsort(cells, kind="stable")]
    assert m == len(walking)
    assert nb.order[:m].tolist() == want.tolist()
    assert np.array_equal(nb.cell_start, np.concatenate([[0], np.cumsum(np.bincount(cells,
                                                                                   minlength=len(nb.fill)))]))
    assert np.array_equal(nb.pos[:m], pos[want]) and np.array_equal(nb.vel[:m], vel[want])
    assert np.array_equal(nb.radius[:m], radius[want])
    assert np.array_equal(nb.speed[:m], np.sqrt(vel[want, 0] ** 2 + vel[want, 1] ** 2))


def _scan(nb, m, x, y, reach, trim):
    """The sorted rows a crowd-phase scan of the disc (x, y, reach) visits, in order (trimmed rows or whole ones)."""
    g = nb.grid
    ncx, ncy = int(g[3]), int(g[4])
    cx0, cx1, cy0, cy1 = cell_range(g[0], g[1], g[2], ncx, ncy, x, y, reach)
    rows = []
    for cy in range(cy0, cy1 + 1):
        a, b = cx0, cx1
        if trim:
            ra, rb = disc_row_span(g[0], g[1], g[2], ncx, ncy, x, y, reach, cy)
            a, b = max(ra, cx0), min(rb, cx1)
        rows.extend(range(nb.cell_start[cy * ncx + a], nb.cell_start[cy * ncx + b + 1]))
    return rows


def _near(nb, rows, x, y, reach):
    """The visited rows within reach, |r|^2 computed as the crowd phase does."""
    return [k for k in rows if (nb.pos[k, 0] - x) ** 2 + (nb.pos[k, 1] - y) ** 2 <= reach * reach]


@pytest.mark.parametrize("seed", range(4))
def test_trimmed_rows_visit_every_neighbour_within_reach_in_the_same_order(seed):
    """Brute force: the agents within reach (as the scan computes |r|^2) are all visited, in the order of the full
    scan of cell_range's cells; only agents beyond the reach are left out."""
    rng = np.random.default_rng(100 + seed)
    pos, vel, radius, status = _crowd(seed, 800)
    nb = neighbours_for(grid_shape((0.0, 0.0, 50.0, 30.0), 1.9, len(pos)), len(pos))
    m = sort_agents(nb, pos, vel, radius, status)
    skipped = 0
    for _ in range(150):
        x, y = rng.uniform([-3.0, -3.0], [53.0, 33.0])
        if rng.random() < 0.3:
            x, y = np.round([x, y], 1)
        reach = float(rng.uniform(0.5, 7.0))
        full = _scan(nb, m, x, y, reach, False)
        trimmed = _scan(nb, m, x, y, reach, True)
        assert _near(nb, trimmed, x, y, reach) == _near(nb, full, x, y, reach)
        assert set(trimmed) <= set(full)
        skipped += len(full) - len(trimmed)
        if not (0.0 <= x <= 50.0 and 0.0 <= y <= 30.0):
            continue
        inside = np.flatnonzero((pos[:, 0] - x) ** 2 + (pos[:, 1] - y) ** 2 <= reach * reach)
        inside = inside[status[inside] == WALKING]
        # The grid's own guarantee, checked independently: around a point in the bounds (where the agents walk)
        # every walker within reach is visited, those outside the bounds included (border cells).
        assert sorted(nb.order[_near(nb, trimmed, x, y, reach)].tolist()) == sorted(inside.tolist())
    assert skipped > 0    # the trimming does leave out corner cells
