"""core.kernels against independent references: heapq, brute force, shapely's orientation."""

from __future__ import annotations

import heapq

import numpy as np
import pytest
import shapely

from core.kernels.buffers import doubled, reserve
from core.kernels.geometry import cross, orient, orient_points
from core.kernels.grid import cell_range
from core.kernels.heap import heap_pop, heap_push
from core.kernels.paths import path_between, path_to


@pytest.mark.parametrize("seed", range(5))
def test_the_heap_pops_keys_in_heapq_order(seed):
    rng = np.random.default_rng(seed)
    keys = rng.integers(0, 20, 300).astype(np.float64)  # many ties
    hk = np.empty(len(keys))
    hv = np.empty(len(keys), dtype=np.int64)
    size = 0
    ref: list[float] = []
    popped, expected = [], []
    for i, k in enumerate(keys):
        size = heap_push(hk, hv, size, k, i)
        heapq.heappush(ref, k)
        if i % 3 == 2:
            popped.append((hk[0], keys[hv[0]]))
            size = heap_pop(hk, hv, size)
            expected.append(heapq.heappop(ref))
    while size:
        popped.append((hk[0], keys[hv[0]]))
        size = heap_pop(hk, hv, size)
        expected.append(heapq.heappop(ref))
    assert [k for k, _ in popped] == expected
    assert all(k == v for k, v in popped), "each value stays with its key"


def test_the_parent_walks_rebuild_the_path():
    #  0 <- 1 <- 2 <- 5 ; 3 is elsewhere
    parent = np.array([-1, 0, 1, -1, 3, 2], dtype=np.int64)
    assert path_to(parent, 5).tolist() == [0, 1, 2, 5]
    assert path_to(parent, 0).tolist() == [0]
    via = np.array([-1, 10, 11, -1, 13, 12], dtype=np.int64)
    nodes, edges = path_between(parent, via, 1, 5)
    assert nodes.tolist() == [1, 2, 5] and edges.tolist() == [10, 11, 12]


def test_buffers_grow_and_keep_their_rows():
    a = np.arange(6, dtype=np.float64).reshape(3, 2)
    assert reserve(a, 3) is a
    b = reserve(a, 7)
    assert b.shape == (12, 2) and b.dtype == a.dtype and np.array_equal(b[:3], a)
    c = doubled(a, 2)
    assert c.shape == (6, 2) and np.array_equal(c[:2], a[:2])


@pytest.mark.parametrize("seed", range(4))
def test_buffers_copy_rows_as_numpy_does(seed):
    """Random shapes (1 to 3 dimensions, empty ones), dtypes, row counts, and inputs that are not C-ordered (a
    transposed or strided view), against numpy's own slice copy."""
    rng = np.random.default_rng(seed)
    for _ in range(25):
        shape = tuple(int(k) for k in rng.integers(0, 5, rng.integers(1, 4)))
        dtype = rng.choice([np.float64, np.int64, np.int32, np.bool_])
        a = rng.integers(-50, 50, shape).astype(dtype)
        if a.ndim > 1 and rng.random() < 0.3:
            a = np.ascontiguousarray(np.swapaxes(a, 0, 1)).swapaxes(0, 1)  # not C-ordered, same values
        elif rng.random() < 0.3:
            a = np.repeat(a, 2, axis=0)[::2]  # every other row: strided
        n = int(rng.integers(0, 2 * a.shape[0] + 3))
        b = reserve(a, n)
        assert b.shape[0] >= n and b.shape[1:] == a.shape[1:] and b.dtype == a.dtype
        assert np.array_equal(b[: a.shape[0]], a)
        k = int(rng.integers(0, a.shape[0] + 1))
        c = doubled(a, k)
        assert c.shape == (2 * a.shape[0],) + a.shape[1:]
        assert np.array_equal(c[:k], a[:k])


@pytest.mark.parametrize("seed", range(3))
def test_orientation_signs_agree_with_shapely(seed):
    rng = np.random.default_rng(seed)
    for o, a, b in rng.uniform(-10, 10, (200, 3, 2)):
        ring = shapely.LinearRing([o, a, b])
        if abs(shapely.Polygon(ring).area) < 1e-9:
            continue
        s = orient(o[0], o[1], a[0], a[1], b[0], b[1])
        assert (s > 0) == ring.is_ccw
        assert orient_points(o, a, b) == s
        assert cross(a[0] - o[0], a[1] - o[1], b[0] - o[0], b[1] - o[1]) == pytest.approx(s, rel=1e-12, abs=1e-12)


def test_cell_range_covers_exactly_the_cells_within_reach_per_axis():
    gx0, gy0, cell, ncx, ncy = -5.0, 2.0, 1.5, 7, 4
    rng = np.random.default_rng(1)
    for x, y, reach in np.column_stack([rng.uniform(-8, 8, 300), rng.uniform(0, 10, 300), rng.uniform(0, 4, 300)]):
        cx0, cx1, cy0, cy1 = cell_range(gx0, gy0, cell, ncx, ncy, x, y, reach)
        xs = [c for c in range(ncx) if gx0 + (c + 1) * cell >= x - reach and gx0 + c * cell <= x + reach]
        ys = [c for c in range(ncy) if gy0 + (c + 1) * cell >= y - reach and gy0 + c * cell <= y + reach]
        if xs:
            assert cx0 <= xs[0] and cx1 >= xs[-1], (x, reach)
        if ys:
            assert cy0 <= ys[0] and cy1 >= ys[-1], (y, reach)
        assert 0 <= cx0 and cx1 <= ncx - 1 and 0 <= cy0 and cy1 <= ncy - 1
