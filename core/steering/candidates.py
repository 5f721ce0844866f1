"""Candidate attraction points along visible route intervals and the choice among them (MIRAN 3.2-3.3).

Arc lengths are scene units along one route. A visible interval ``[a, b]`` is sampled at ``a, a + d, a + 2d ...``
and always at ``b`` (MIRAN 3.2: "the curve length distance between b_j and the previous sampled candidate can be
smaller than d"). The weight of a candidate is omega = sum_T w(T) l^T / d_ij (MIRAN 3.3); ties go to the candidate
farthest along the route.
"""

from __future__ import annotations

import numpy as np
from core.jitcache import jit

# Two omegas within this relative distance count as equal (MIRAN 3.3 ties); exact ties are common (all
# candidates of a straight route weigh the same), and round-off must not turn them into a near-candidate choice.
TIE_RTOL = 1e-9


@jit(noalloc=True)
def sample_count(a: float, b: float, d: float) -> int:
    """Number of candidates sampled on the interval [a, b] every d, both ends included (1 when a == b)."""
    span = b - a
    if span <= 0.0:
        return 1
    k = int(np.ceil(span / d - 1e-12))
    if k < 1:
        k = 1
    return k + 1


@jit(noalloc=True)
def sample_at(a: float, b: float, d: float, k: int, count: int) -> float:
    """Arc length of the k-th of ``count`` samples of [a, b]: ``a + k d`` and, last, exactly ``b``."""
    if k >= count - 1:
        return b
    t = a + k * d
    return t if t < b else b


@jit(noalloc=True)
def omega_of(cost: float, d_ij: float) -> float:
    """MIRAN 3.3: omega = cost / d_ij; a candidate at the reference point itself (d_ij = 0) weighs infinity."""
    if d_ij <= 0.0:
        return np.inf
    return cost / d_ij


@jit(noalloc=True)
def better_or_tie(omega: float, best: float) -> bool:
    """True when ``omega`` beats or ties ``best``; called in increasing arc length, so ties go to the farthest."""
    if best == np.inf:
        return omega <= np.inf
    return omega <= best + TIE_RTOL * abs(best)


@jit(noalloc=True)
def strictly_worse(lower_bound: float, best: float) -> bool:
    """True when a lower bound on a candidate's omega already loses to ``best`` even as a tie (exact pruning)."""
    if best == np.inf:
        return False
    return lower_bound > best + 2.0 * TIE_RTOL * abs(best)


@jit(noalloc=True)
def candidate_arcs(intervals: np.ndarray, n_intervals: int, d: float, skip_first: bool, out: np.ndarray) -> int:
    """Write the candidate arc lengths of the visible intervals into ``out`` in route order; return how many.

    ``intervals`` is (k, 2) float64 [a_j, b_j], sorted and disjoint; ``skip_first`` leaves out a_1 (MIRAN 3.2: the
    reference point is no candidate when the character stands on it). Stops at ``out``'s capacity.
    """
    m = 0
    cap = out.shape[0]
    for j in range(n_intervals):
        a = intervals[j, 0]
        b = intervals[j, 1]
        count = sample_count(a, b, d)
        for k in range(count):
            if j == 0 and k == 0 and skip_first:
                continue
            if m >= cap:
                return m
            out[m] = sample_at(a, b, d, k, count)
            m += 1
    return m


@jit(noalloc=True)
def pick_best(omegas: np.ndarray, n: int) -> int:
    """Index of the choice among the first n omegas (in route order): the last one within TIE_RTOL of the minimum
    (MIRAN 3.3: minimum weight, ties to the greatest curve length distance); -1 when n == 0 or all are NaN.

    NaN marks a candidate that cannot be chosen. Within the tolerance, the rule does not depend on the order in
    which the omegas were computed."""
    best_w = np.inf
    seen = False
    for i in range(n):
        w = omegas[i]
        if w == w:
            seen = True
            if w < best_w:
                best_w = w
    if not seen:
        return -1
    for i in range(n - 1, -1, -1):
        w = omegas[i]
        if w == w and (w == best_w or better_or_tie(w, best_w)):
            return i
    return -1
