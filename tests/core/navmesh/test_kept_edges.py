"""Per-agent edge lists kept between steps (core.navmesh.kernels.kept_edges): every answer equals a fresh
gathering from the grid, edge for edge and in the same order, while windows drift, jump and overflow the kept
capacity; and the answers come from the kept lists on most drifting steps."""

from pathlib import Path

import numpy as np
import pytest

from core.navmesh import build_navmesh
from core.navmesh.kernels import kept_edges as kk
from core.navmesh.kernels.arrays import EdgeGrid
from core.navmesh.kernels import shadows as ksh
from core.scene.io import load_scene

CITY = Path(__file__).resolve().parents[3] / "scenes" / "city.json"


@pytest.fixture(scope="module")
def city():
    return build_navmesh(load_scene(CITY))


def _brute(E, box):
    """Indices of the edges whose bounding boxes meet the box, by numpy."""
    xmin, ymin, xmax, ymax = box
    miss = ((np.maximum(E[:, 0], E[:, 2]) < xmin) | (np.minimum(E[:, 0], E[:, 2]) > xmax)
            | (np.maximum(E[:, 1], E[:, 3]) < ymin) | (np.minimum(E[:, 1], E[:, 3]) > ymax))
    return set(np.flatnonzero(~miss).tolist())


def _drifting_boxes(rng, bounds, n_agents, steps):
    """Per step, one box per agent: windows of 5 to 60 m moving 0.14 m a step, some jumping far now and then."""
    x0, y0, x1, y1 = bounds
    c = rng.uniform([x0, y0], [x1, y1], (n_agents, 2))
    half = rng.uniform(2.5, 30.0, (n_agents, 2))
    heading = rng.normal(size=(n_agents, 2))
    heading /= np.linalg.norm(heading, axis=1)[:, None]
    for _ in range(steps):
        c += 0.14 * heading + rng.normal(0.0, 0.01, c.shape)
        half += rng.normal(0.0, 0.02, half.shape)
        jump = rng.random(n_agents) < 0.02
        c[jump] = rng.uniform([x0, y0], [x1, y1], (int(jump.sum()), 2))
        yield np.column_stack([c - np.abs(half), c + np.abs(half)])


@pytest.mark.parametrize("which", ["obstacles", "terrain"])
@pytest.mark.parametrize("capacity", [kk.KEEP_CAPACITY, 2])
def test_kept_answers_equal_fresh_gathering(city, which, capacity):
    """Same edges in the same order as ``shadows.collect_edges`` (and the same set as brute force) at every step;
    with the default capacity most drifting steps are answered from the kept lists."""
    TE, _, TG, TS, TI = city.terrain_args()
    grid = city.arrays.edges if which == "obstacles" else EdgeGrid(TE, TG, TS, TI)
    E, EG, ES, EI = grid
    n_agents = 40
    K = kk.kept_edges(n_agents, capacity)
    cand = np.empty(len(E), dtype=np.int64)
    stamp = np.zeros(len(E) + 1, dtype=np.int64)
    ref = np.empty(len(E), dtype=np.int64)
    ref_stamp = np.zeros(len(E) + 1, dtype=np.int64)
    rng = np.random.default_rng(5)
    reused = total = 0
    for boxes in _drifting_boxes(rng, city.bounds_arr, n_agents, 120):
        for i, box in enumerate(boxes):
            before = K.box[i].copy()
            n = kk.collect_kept(grid, *box, cand, stamp, K, i)
            m = ksh.collect_edges(grid, *box, ref, ref_stamp)
            assert n == m
            assert np.array_equal(cand[:n], ref[:m]), (i, box)
            assert set(cand[:n].tolist()) == _brute(E, box)
            total += 1
            reused += int(np.array_equal(before, K.box[i]))
    if capacity == kk.KEEP_CAPACITY:
        assert reused > 0.5 * total
    else:
        assert np.any(K.size < 0)  # some windows overflowed the small capacity and were gathered afresh


def test_kept_window_edges_defer_like_window_edges(city):
    """``kept_window_edges`` defers exactly where ``window_edges`` does: x on an obstacle edge, or beside it."""
    grid = city.arrays.edges
    E = grid.E
    K = kk.kept_edges(1)
    cand = np.empty(len(E), dtype=np.int64)
    stamp = np.zeros(len(E) + 1, dtype=np.int64)
    rng = np.random.default_rng(2)
    deferred = 0
    for e in rng.integers(0, len(E), 60):
        x, y = E[e, :2] + rng.uniform(0.0, 1.0) * (E[e, 2:] - E[e, :2])
        if rng.random() < 0.5:
            x += 0.01
        box = (x - 3.0, y - 3.0, x + 20.0, y + 20.0)
        a = ksh.kept_window_edges(grid, x, y, *box, cand, stamp, K, 0)
        got = cand[:a].copy() if a >= 0 else None
        b = ksh.window_edges(grid, x, y, *box, cand, stamp)
        assert a == b
        if a >= 0:
            assert np.array_equal(got, cand[:b])
        deferred += a == ksh.DEFER
    assert deferred > 0
