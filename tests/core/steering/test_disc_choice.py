"""Disc MIRAN's pruned candidate choice (Kremyzas 2014, 4.2; MIRAN 3.3's rule) against the unpruned evaluation of
every candidate, on random scenes and the city with random routes, positions, radii and intervals."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.navmesh import disc_traversal_cost, segment_cost
from core.navmesh.kernels.clearance import point_clearance, segment_clearance
from core.navmesh.kernels.disc import (
    SweepFrame,
    disc_cost,
    disc_cost_from,
    disc_cost_work,
    sweep_blocked,
    triangle_box_walk,
    triangle_disc_walk,
    triangle_overlap_interval,
)
from core.navmesh.kernels.disc_work import disc_work
from core.navmesh.kernels.walk import locate_any
from core.routes.kernels import point_at
from core.steering.candidates import candidate_arcs, omega_of, pick_best
from core.steering.disc_miran import (
    NEED_RTOL,
    adjust_intervals,
    farthest_sweepable,
    located,
    pick_disc_candidate,
    sweep_from,
    sweep_need,
)
from core.steering.disc_query import DiscQuery, RouteSpan, disc_choice_work
from core.steering.miran import sweep_cost

from scenegen import case, random_segments

CASES = ["random:0", "random:1", "random:2", "random:3", "city.json"]


def _free_point(rng, mesh, W):
    x0, y0, x1, y1 = mesh.bounds
    while True:
        p = rng.uniform([x0, y0], [x1, y1])
        t = locate_any(W, p[0], p[1])
        if t >= 0 and W[3][t] >= 0:
            return p


def _query(rng, scene, mesh):
    """Random disc agent, route, window and visible intervals (the choice is exact whatever the intervals)."""
    M = mesh.arrays
    W, C = M
    x0, y0, x1, y1 = mesh.bounds
    size = max(x1 - x0, y1 - y0)
    x = _free_point(rng, mesh, W)
    rp = np.array([x + rng.normal(0.0, 0.15 * size, 2) for _ in range(rng.integers(2, 7))])
    rp = np.clip(rp, [x0, y0], [x1, y1])
    rs = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(rp, axis=0).T))])
    total = rs[-1]
    s_r = rng.uniform(0.0, 0.3) * total
    s1 = min(total, s_r + rng.uniform(0.2, 0.7) * total)
    cuts = np.sort(rng.uniform(s_r, s1, 2 * rng.integers(1, 4)))
    if rng.random() < 0.5:
        cuts[0] = s_r
    intervals = np.ascontiguousarray(cuts.reshape(-1, 2))
    radius = rng.choice([0.002, 0.01, 0.03]) * size
    need = min(radius, point_clearance(C, x[0], x[1])[0]) * (1.0 - 1e-9)
    if rng.random() < 0.2:
        need = 0.0  # a disc already touching an obstacle: sweeps across obstacles count, at their disc cost
    w = scene.weight_matrix()[rng.integers(len(scene.profiles))]
    r_pt = point_at(rp, rs, 0, len(rp), s_r)
    q = DiscQuery(x, float(radius), float(need), w, float(s_r), float(s1), r_pt, float(size))
    d = max(s1 - s_r, 1e-9) / rng.integers(2, 14)
    return M, RouteSpan(rp, rs, 0, len(rp)), q, intervals, float(d), bool(rng.random() < 0.3)


def _unpruned(M, R, Q, intervals, d, skip_first):
    """Every candidate's sweep cost (``miran.sweep_cost``), then MIRAN 3.3's pick: (arc length or -1, count)."""
    ts = np.empty(10_000)
    n = candidate_arcs(intervals, len(intervals), d, skip_first, ts)
    om = np.empty(n)
    for i in range(n):
        qx, qy = point_at(R.rp, R.rs, R.lo, R.hi, ts[i])
        c = sweep_cost(M, Q.x[0], Q.x[1], qx, qy, Q.radius, Q.need, Q.weights)
        om[i] = math.nan if c == math.inf else omega_of(c, ts[i] - Q.s_r)
    best = pick_best(om, n)
    return (ts[best] if best >= 0 else -1.0), n, int(np.sum(om == om))


@pytest.mark.parametrize("name", CASES)
def test_pruned_choice_equals_the_full_evaluation(name):
    """Same attraction point (bit for bit) and candidate count as evaluating the disc cost of every candidate, and
    the pruning leaves most candidates unevaluated."""
    scene, _, mesh = case(name)
    rng = np.random.default_rng(20)
    work = disc_choice_work(10_000)
    cwork = np.empty((2, 10_000))
    evaluated = passable = chosen = 0
    for _ in range(60):
        M, R, Q, intervals, d, skip_first = _query(rng, scene, mesh)
        want, n, finite = _unpruned(M, R, Q, intervals, d, skip_first)
        got, m = pick_disc_candidate(M, R, Q, intervals, len(intervals), d, skip_first, cwork, work)
        assert (got, m) == (want, n)
        evaluated += int(np.sum(cwork[1, :m] == cwork[1, :m]))
        passable += finite
        chosen += want >= 0
    assert chosen >= 10
    assert evaluated < 0.7 * passable


@pytest.mark.parametrize("name", CASES)
def test_the_point_cost_bounds_the_disc_cost_from_below(name):
    """The pruning's premise: the closed disc meets the triangle its centre is in (Kremyzas 3.1's max-weight rule),
    so the disc traversal cost is at least the point cost sum_T w(T) l^T of the same segment."""
    scene, _, mesh = case(name)
    rng = np.random.default_rng(5)
    x0, y0, x1, y1 = mesh.bounds
    size = max(x1 - x0, y1 - y0)
    p, q = random_segments(rng, scene, 300, length=0.1 * size)
    keep = np.all((q >= [x0, y0]) & (q <= [x1, y1]), axis=1)
    p, q = p[keep], q[keep]
    for w in scene.weight_matrix():
        point = segment_cost(mesh, p, q, w)
        for r in (0.001 * size, 0.02 * size):
            disc = disc_traversal_cost(mesh, p, q, r, w)
            assert np.all(disc >= point * (1.0 - 1e-12) - 1e-12 * size)
            assert np.any(disc > point * 1.01)


def test_a_small_work_grows_and_gives_the_same_cost():
    """A DiscWork too small for the sweep is grown for the call: the cost is bit for bit the allocating one's."""
    scene, _, mesh = case("city.json")
    W = mesh.arrays.walk
    rng = np.random.default_rng(2)
    p, q = random_segments(rng, scene, 40, length=60.0)
    w = scene.weight_matrix()[0]
    small = disc_work(1)
    for a, b in zip(p, q):
        want = disc_cost(W, a[0], a[1], b[0], b[1], 0.4, w)
        got = disc_cost_work(W, a[0], a[1], b[0], b[1], 0.4, w, small)
        assert got == want or (math.isnan(got) and math.isnan(want))


def _segments(name, seed, n, frac):
    """(scene, mesh, size, p, q): n random segments of length frac * the scene's size (``random_segments``)."""
    scene, _, mesh = case(name)
    x0, y0, x1, y1 = mesh.bounds
    size = max(x1 - x0, y1 - y0)
    p, q = random_segments(np.random.default_rng(seed), scene, n, length=frac * size)
    return scene, mesh, size, p, q


@pytest.mark.parametrize("name", CASES)
def test_sweep_blocked_decides_as_the_segment_clearance(name):
    """``sweep_blocked(p, q, need)`` is ``segment_clearance(p, q) < need`` (the exact minimum over every obstacle
    edge), also at the boundary: need equal to the clearance, and the next float above it."""
    scene, mesh, size, p, q = _segments(name, 11, 400, 0.08)
    C = mesh.arrays.edges
    rng = np.random.default_rng(12)
    blocked = 0
    for a, b in zip(p, q):
        c = segment_clearance(C, a[0], a[1], b[0], b[1])
        for need in (c, np.nextafter(c, np.inf), rng.uniform(0.0, 0.03) * size, 0.0):
            want = bool(c < need)
            assert sweep_blocked(C, a[0], a[1], b[0], b[1], need) == want, (a, b, need, c)
            blocked += want
    assert blocked >= 100


@pytest.mark.parametrize("name", CASES)
def test_the_disc_cost_from_a_known_triangle_is_the_located_one(name):
    """``disc_cost_from`` with p's triangle as ``locate_any`` gives it: bit for bit ``disc_cost``'s cost."""
    scene, mesh, size, p, q = _segments(name, 4, 200, 0.1)
    W = mesh.arrays.walk
    x0, y0, x1, y1 = mesh.bounds
    rng = np.random.default_rng(5)
    work = disc_work(64)
    for w in scene.weight_matrix():
        for a, b in zip(p, q):
            r = rng.choice([0.002, 0.01, 0.03]) * size
            want = disc_cost(W, a[0], a[1], b[0], b[1], r, w)
            t = locate_any(W, a[0], a[1]) if x0 <= a[0] <= x1 and y0 <= a[1] <= y1 else -1
            got = disc_cost_from(W, t, a[0], a[1], b[0], b[1], r, w, work)
            assert got == want or (math.isnan(got) and math.isnan(want))


def _cost_with_repeats(W, p, q, r, w):
    """Kremyzas Algorithms 2-4 as the kernel computed them before it weighed each triangle once: every triangle
    the three walks find, repeats included, heaviest first (stable), each paying on what no earlier one covered."""
    V, T, N, TT = W[:4]
    length = math.hypot(q[0] - p[0], q[1] - p[1])
    ex, ey = (q[0] - p[0]) / length, (q[1] - p[1]) / length
    found, stack = np.empty(4096, dtype=np.int64), np.empty(4096, dtype=np.int64)
    n = triangle_disc_walk(V, T, N, locate_any(W, p[0], p[1]), p[0], p[1], r, found, 0, stack)
    n = triangle_box_walk(V, T, N, locate_any(W, p[0], p[1]), SweepFrame(p[0], p[1], ex, ey, length), r, found, n,
                          stack)
    n = triangle_disc_walk(V, T, N, locate_any(W, q[0], q[1]), q[0], q[1], r, found, n, stack)
    rows = []
    for t in found[:n]:
        if TT[t] >= 0:
            lo, hi = triangle_overlap_interval(V, T, t, p[0], p[1], ex, ey, r)
            lo, hi = max(lo, 0.0), min(hi, length)
            if lo < hi:
                rows.append((lo, hi, w[TT[t]]))
    repeats = n - len(set(found[:n].tolist()))
    cost, cover = 0.0, []
    for i in sorted(range(len(rows)), key=lambda i: -rows[i][2]):
        lo, hi, wt = rows[i]
        covered = 0.0
        for a, b in cover:
            if min(hi, b) > max(lo, a):
                covered += min(hi, b) - max(lo, a)
        cost += wt * ((hi - lo) - covered)
        touching = [c for c in cover if c[1] >= lo and c[0] <= hi]
        cover = sorted([c for c in cover if c not in touching]
                       + [(min([lo] + [c[0] for c in touching]), max([hi] + [c[1] for c in touching]))])
    return cost, repeats


@pytest.mark.parametrize("name", CASES)
def test_each_triangle_weighed_once_gives_the_cost_with_repeats(name):
    """A triangle that a later walk finds again is weighed once: its repeated interval would add exactly 0, so the
    cost is the one that weighs every find (the repeats are common: they occur below). The Python reference rounds
    apart from the compiled loop in the last bit; the kernel before this change gave the same bits as now on these
    segments (compared in one process when the change was made)."""
    scene, mesh, size, p, q = _segments(name, 8, 150, 0.06)
    W = mesh.arrays.walk
    rng = np.random.default_rng(9)
    x0, y0, x1, y1 = mesh.bounds
    keep = np.all((q >= [x0, y0]) & (q <= [x1, y1]), axis=1)
    repeats = 0
    for w in scene.weight_matrix():
        for a, b in zip(p[keep], q[keep]):
            r = rng.choice([0.002, 0.01, 0.03]) * size
            want, k = _cost_with_repeats(W, a, b, r, w)
            repeats += k
            assert disc_cost(W, a[0], a[1], b[0], b[1], r, w) == pytest.approx(want, rel=1e-13, abs=1e-13 * size)
    assert repeats > 0


@pytest.mark.parametrize("name", CASES)
def test_the_choice_after_adjust_intervals_reuses_its_walks_exactly(name):
    """``adjust_intervals`` leaves the point costs to the adjusted ends and the disc's triangle for the next choice
    of the same query: the bounds, omegas and pick are bit for bit those of a choice that walks everything itself,
    the memo is used once, and a choice at another position ignores it."""
    scene, _, mesh = case(name)
    rng = np.random.default_rng(31)
    memo_work, fresh_work = disc_choice_work(4096), disc_choice_work(4096)
    c_memo, c_fresh = np.empty((2, 4096)), np.empty((2, 4096))
    reused = 0
    for _ in range(60):
        M, R, Q, intervals, d, skip_first = _query(rng, scene, mesh)
        adj = np.empty((len(intervals), 2))
        n = adjust_intervals(M.walk, R, Q, intervals, len(intervals), adj, memo_work)
        k = int(memo_work.memo[0])
        reused += int(np.sum(memo_work.ends[:k, 2:] == memo_work.ends[:k, 2:]))
        got = pick_disc_candidate(M, R, Q, adj, n, d, skip_first, c_memo, memo_work)
        assert memo_work.memo[0] == -1.0
        want = pick_disc_candidate(M, R, Q, adj, n, d, skip_first, c_fresh, fresh_work)
        assert got == want
        m = got[1]
        assert np.array_equal(memo_work.bound[:m], fresh_work.bound[:m])
        assert np.array_equal(c_memo[:, :m], c_fresh[:, :m], equal_nan=True)
    assert reused >= 5
    # A memo left by another position is not taken.
    M, R, Q, intervals, d, skip_first = _query(rng, scene, mesh)
    adj = np.empty((len(intervals), 2))
    n = adjust_intervals(M.walk, R, Q, intervals, len(intervals), adj, memo_work)
    moved = Q._replace(x=Q.x + 1e-7 * Q.scale)
    got = pick_disc_candidate(M, R, moved, adj, n, d, skip_first, c_memo, memo_work)
    assert got == pick_disc_candidate(M, R, moved, adj, n, d, skip_first, c_fresh, fresh_work)
    assert np.array_equal(memo_work.bound[:got[1]], fresh_work.bound[:got[1]])


def _bisection_by_the_sweep_cost(M, R, Q, s_lo, s_hi, work):
    """``farthest_sweepable`` as it was: every probe decided by the sweep cost being finite."""
    def ok(t):
        q = point_at(R.rp, R.rs, R.lo, R.hi, t)
        return sweep_from(M, Q, -1, q[0], q[1], work) < math.inf

    if ok(s_hi):
        return s_hi
    a, b, found = s_lo, s_hi, -1.0
    for _ in range(40):
        m = 0.5 * (a + b)
        if ok(m):
            found, a = m, m
        else:
            b = m
    return found


@pytest.mark.parametrize("name", CASES)
def test_the_fallback_bisection_decides_as_the_sweep_cost(name):
    """The disc fallback's bisection decides each probe by the clearance test and the bounds (finite weights make the
    cost finite): the same arc length, bit for bit, as deciding by the sweep cost."""
    scene, _, mesh = case(name)
    rng = np.random.default_rng(41)
    work = disc_choice_work(64)
    inner = 0
    for _ in range(40):
        M, R, Q, intervals, d, skip_first = _query(rng, scene, mesh)
        s_hi = float(intervals[-1, 1])
        want = _bisection_by_the_sweep_cost(M, R, Q, Q.s_r, s_hi, work)
        assert farthest_sweepable(M, R, Q, Q.s_r, s_hi, work) == want
        inner += Q.s_r < want < s_hi
    assert inner >= 5


@pytest.mark.parametrize("name", CASES)
def test_sweep_need_is_the_measured_one(name):
    """The step's sweep clearance min(R, clearance(x)) (1 - NEED_RTOL) is the same float whether the Lipschitz bound
    from an earlier measure (c_last at ``at``) spares the nearest-obstacle query or not; positions near obstacles,
    where the bound cannot decide, are measured."""
    scene, _, mesh = case(name)
    M = mesh.arrays
    W, C = M
    x0, y0, x1, y1 = mesh.bounds
    size = max(x1 - x0, y1 - y0)
    tol = 1e-9 * size
    rng = np.random.default_rng(51)
    spared = measured = closer = 0
    for _ in range(400):
        x = _free_point(rng, mesh, W)
        radius = float(rng.choice([0.002, 0.01, 0.03]) * size)
        at = x + rng.normal(0.0, rng.choice([1e-6, 0.3, 3.0]) * radius, 2)
        c_last = point_clearance(C, at[0], at[1])[0] if rng.random() < 0.9 else math.nan
        c0 = point_clearance(C, x[0], x[1])[0]
        want = min(radius, c0) * (1.0 - NEED_RTOL)
        assert sweep_need(C, x, radius, c_last, at, tol) == want
        if c_last - math.hypot(*(x - at)) - tol >= radius:
            spared += 1
        else:
            measured += 1
        closer += c0 < radius
    assert spared >= 50 and measured >= 50 and closer >= 5


@pytest.mark.parametrize("name", CASES)
def test_located_is_locate_any_whatever_the_hint(name):
    """``located`` takes the hint only where the point lies strictly inside it, so it returns ``locate_any``'s
    triangle for any hint: the triangle itself, a neighbour, a far one, none, and points on edges and vertices."""
    scene, _, mesh = case(name)
    W = mesh.arrays.walk
    V, T, N = W[0], W[1], W[2]
    rng = np.random.default_rng(61)
    taken = 0
    for k in range(600):
        if k % 3 == 0:
            t = int(rng.integers(len(T)))
            a, b = V[T[t, 0]], V[T[t, 1]]
            p = a if k % 2 else a + rng.uniform() * (b - a)  # a vertex or a point of an edge
        else:
            p = _free_point(rng, mesh, W)
        want = locate_any(W, p[0], p[1])
        for hint in (want, int(N[max(want, 0), k % 3]), int(rng.integers(len(T))), -1):
            got = located(W, hint, p[0], p[1])
            assert got == want
            taken += hint == want >= 0
    assert taken >= 300


@pytest.mark.parametrize("name", CASES)
def test_adjust_intervals_with_a_hint_is_the_same(name):
    """``adjust_intervals`` given the disc's triangle (the step's ``locate_near``) writes the same adjusted intervals,
    point costs and memo, bit for bit, as locating the disc itself."""
    scene, _, mesh = case(name)
    rng = np.random.default_rng(71)
    w_hint, w_none = disc_choice_work(4096), disc_choice_work(4096)
    for _ in range(60):
        M, R, Q, intervals, d, skip_first = _query(rng, scene, mesh)
        a_hint, a_none = np.empty((len(intervals), 2)), np.empty((len(intervals), 2))
        hint = locate_any(M.walk, Q.x[0], Q.x[1])
        n = adjust_intervals(M.walk, R, Q, intervals, len(intervals), a_hint, w_hint, hint)
        assert n == adjust_intervals(M.walk, R, Q, intervals, len(intervals), a_none, w_none)
        k = int(w_none.memo[0])
        assert np.array_equal(a_hint[:n], a_none[:n])
        assert np.array_equal(w_hint.memo, w_none.memo)
        assert np.array_equal(w_hint.ends[:k], w_none.ends[:k], equal_nan=True)
