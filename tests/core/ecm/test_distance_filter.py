"""``funnel.within``, the filtered ``hypot(dx, dy) <= t`` of the disk tests: the same answer as ``np.hypot`` on points
placed a few units in the last place either side of the circle, where rounding decides, and on ordinary ones."""

import numpy as np
import pytest

from core.ecm.funnel import within


@pytest.mark.parametrize("seed", range(4))
def test_within_answers_as_hypot_at_the_boundary(seed):
    rng = np.random.default_rng(seed)
    scale = 10.0 ** rng.uniform(-6, 4, 400)
    ang = rng.uniform(0, 2 * np.pi, 400)
    dx, dy = scale * np.cos(ang), scale * np.sin(ang)
    for x, y in zip(dx, dy):
        h = np.hypot(x, y)
        t = h
        for _ in range(6):
            t = np.nextafter(t, 0.0)
        for _ in range(13):
            assert within(x, y, t) == (np.hypot(x, y) <= t), (x, y, t)
            t = np.nextafter(t, np.inf)


def test_within_answers_as_hypot_on_ordinary_points():
    rng = np.random.default_rng(7)
    d = rng.uniform(-100, 100, (5000, 2))
    t = rng.uniform(0, 150, 5000)
    got = np.array([within(x, y, r) for (x, y), r in zip(d, t)])
    assert np.array_equal(got, np.hypot(d[:, 0], d[:, 1]) <= t)
    assert within(0.0, 0.0, 0.0) and not within(np.nan, 0.0, 1.0) and not within(1.0, 0.0, np.nan)


def _via_segment_reference(ax, ay, tx, ty, lx, ly, rx, ry):
    """The bound of ``search._via_segment`` written with ``np.hypot`` throughout (its form before the filter)."""
    dx, dy = rx - lx, ry - ly
    dd = dx * dx + dy * dy
    best = min(np.hypot(lx - ax, ly - ay) + np.hypot(tx - lx, ty - ly),
               np.hypot(rx - ax, ry - ay) + np.hypot(tx - rx, ty - ry))
    if dd <= 0.0:
        return best
    sa = dx * (ay - ly) - dy * (ax - lx)
    st = dx * (ty - ly) - dy * (tx - lx)
    if sa * st > 0.0:
        u = ((tx - lx) * dx + (ty - ly) * dy) / dd
        fx, fy = lx + u * dx, ly + u * dy
        tx, ty = 2.0 * fx - tx, 2.0 * fy - ty
        st = -st
    den = sa - st
    if den != 0.0:
        w = sa / den
        qx, qy = ax + w * (tx - ax), ay + w * (ty - ay)
        u = ((qx - lx) * dx + (qy - ly) * dy) / dd
        if 0.0 <= u <= 1.0:
            best = min(best, np.hypot(tx - ax, ty - ay))
    return best


@pytest.mark.parametrize("seed", range(3))
def test_via_segment_is_the_hypot_bound_to_the_bit(seed):
    from core.ecm.search import _via_segment

    rng = np.random.default_rng(seed)
    for _ in range(3000):
        a, t, l, r = rng.uniform(-50, 50, (4, 2))
        kind = rng.integers(0, 4)
        if kind == 1:  # a, an end and t collinear: the detour through the end is as short as the straight line
            t = l + rng.uniform(0.5, 3.0) * (l - a)
        elif kind == 2:  # the crossing at an end of the segment
            t = a + 2.0 * (l - a)
        elif kind == 3:  # a degenerate segment
            r = l.copy()
        args = (a[0], a[1], t[0], t[1], l[0], l[1], r[0], r[1])
        got = _via_segment(*args)
        assert np.float64(got).tobytes() == np.float64(_via_segment_reference(*args)).tobytes(), args
