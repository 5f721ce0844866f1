"""The personal-space force's chunked SIMD scan (core.steering.social.social_run) against the scalar term
(social_term_at) applied pair by pair in the same order: the same sums bit for bit."""

import math

import numpy as np
import pytest

from core.jitcache import jit
from core.steering.social import PAIR_CHUNK, PAIR_ROWS, social_reach, social_run, social_term_at


@jit
def _chunked(spos, svel, sspeed, order, i, x, e, scan, buf, f) -> None:
    """f = the sum of social_run's terms over all columns, chunk by chunk, added in order (as the crowd phase)."""
    n = order.shape[0]
    for c0 in range(0, n, PAIR_CHUNK):
        c1 = min(c0 + PAIR_CHUNK, n)
        social_run(spos, svel, sspeed, order, i, x, e, c0, c1, scan, buf)
        for t in range(c1 - c0):
            f[0] += buf[6, t]
            f[1] += buf[7, t]


def _scalar(spos, svel, sspeed, order, i, x, e, scan):
    """The scan as it was before social_run: the tests per neighbour, then social_term_at for the kept ones."""
    reach2, near2, rstat, v0, sigma, tau, fmax = scan
    f = np.zeros(2)
    kept = 0
    for m in range(order.shape[0]):
        rx, ry = spos[0, m] - x[0], spos[1, m] - x[1]
        r2 = rx * rx + ry * ry
        if r2 > reach2 or order[m] == i:
            continue
        a = math.sqrt(r2)
        if r2 > near2 and a - tau * sspeed[m] > rstat:
            continue
        kept += 1
        social_term_at(x, e, np.array([spos[0, m], spos[1, m]]), np.array([svel[0, m], svel[1, m]]), a, v0, sigma,
                       tau, fmax, f)
    return f, kept


@pytest.mark.parametrize("seed", range(6))
def test_chunked_terms_add_up_to_the_scalar_scans_sum_bit_for_bit(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3 * PAIR_CHUNK + 7))
    x = rng.uniform(-1.0, 1.0, 2)
    spos = x[:, None] + rng.normal(scale=3.0, size=(2, n))
    svel = rng.normal(scale=1.0, size=(2, n))
    svel[:, rng.random(n) < 0.2] = 0.0                              # standing neighbours
    spos[:, rng.random(n) < 0.05] = x[:, None]                      # on top of alpha: no direction, left out
    same = rng.random(n) < 0.1                                      # velocity ending at alpha: |r - y| = 0
    spos[:, same] = x[:, None] + 2.0 * svel[:, same]
    sspeed = np.sqrt(svel[0] ** 2 + svel[1] ** 2)
    order = rng.permutation(n + 5)[:n].astype(np.int64)
    i = int(order[rng.integers(n)]) if seed % 2 else -1
    d = rng.normal(size=2)
    e = d / np.hypot(*d) if seed != 3 else np.zeros(2)
    v0, sigma, tau = 2.1, 0.3, 2.0
    rstat = social_reach(v0, sigma, tau, 0.0, 0.01)
    reach = social_reach(v0, sigma, tau, float(sspeed.max()), 0.01)
    fmax = 0.5 if seed % 3 == 0 else 1e9                           # the cap binding or not
    scan = (reach * reach, (rstat * (1.0 - 1e-9)) ** 2, rstat, v0, sigma, tau, fmax)
    want, kept = _scalar(spos, svel, sspeed, order, i, x, e, scan)
    got = np.zeros(2)
    _chunked(spos, svel, sspeed, order, i, x, e, scan, np.full((PAIR_ROWS, PAIR_CHUNK), np.nan), got)
    assert kept > 0
    assert got.tobytes() == want.tobytes()
    # Each chunk's terms one by one: a left-out neighbour's term is +0.0, a kept one's is social_term_at's.
    buf = np.full((PAIR_ROWS, PAIR_CHUNK), np.nan)
    c1 = min(n, PAIR_CHUNK)
    social_run_once(spos, svel, sspeed, order, i, x, e, c1, scan, buf)
    for m in range(c1):
        one, k = _scalar(spos[:, m:m + 1], svel[:, m:m + 1], sspeed[m:m + 1], order[m:m + 1], i, x, e, scan)
        assert np.array([buf[6, m], buf[7, m]]).tobytes() == (one + 0.0).tobytes()


@jit
def social_run_once(spos, svel, sspeed, order, i, x, e, hi, scan, buf) -> None:
    """social_run over the columns [0, hi)."""
    social_run(spos, svel, sspeed, order, i, x, e, 0, hi, scan, buf)
