"""The pure parts of MIRAN against plain-Python references: candidate sampling (3.2), the omega choice with ties to
the farthest (3.3), the forces (3.4 and IRM eqs. 1, 3, 6) and the disc rotation angles (Kremyzas eq. 4.3)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.steering.candidates import candidate_arcs, omega_of, pick_best, sample_count
from core.steering.disc_miran import rotation_angle, tangent_angle
from core.steering.forces import (
    avoidance_term,
    boundary_force,
    boundary_magnitude,
    cap_norm,
    steering_force,
)


def _reference_samples(intervals, d, skip_first):
    """MIRAN 3.2 in words: every interval end is a candidate, and between them a candidate every d from a_j."""
    out = []
    for j, (a, b) in enumerate(intervals):
        ts = [a]
        t = a + d
        while t < b - 1e-12 * max(1.0, abs(b)):
            ts.append(t)
            t += d
        if b > a:
            ts.append(b)
        if j == 0 and skip_first:
            ts = ts[1:]
        out.extend(ts)
    return out


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 500), st.floats(0, 80)), min_size=1, max_size=6),
       st.floats(0.5, 40), st.booleans())
def test_candidates_sample_each_interval_every_d_and_include_both_ends(raw, d, skip_first):
    starts = np.cumsum([a for a, _ in raw])
    intervals = np.array([[s, s + w] for s, (_, w) in zip(starts, raw)])
    # make them disjoint and sorted
    for j in range(1, len(intervals)):
        shift = max(0.0, intervals[j - 1, 1] + 1.0 - intervals[j, 0])
        intervals[j:] += shift
    out = np.empty(10000)
    m = candidate_arcs(intervals, len(intervals), d, skip_first, out)
    ref = _reference_samples(intervals.tolist(), d, skip_first)
    assert m == len(ref)
    assert np.allclose(out[:m], ref, rtol=0, atol=1e-9)
    got = out[:m]
    assert np.all(np.diff(got) >= 0)                       # ordered along the route
    # no two consecutive candidates inside one interval are farther apart than d
    for a, b in intervals:
        inside = got[(got >= a) & (got <= b)]
        if len(inside) > 1:
            assert np.max(np.diff(inside)) <= d * (1 + 1e-12)


def test_a_zero_length_interval_is_one_candidate():
    assert sample_count(5.0, 5.0, 2.0) == 1
    out = np.empty(4)
    assert candidate_arcs(np.array([[5.0, 5.0]]), 1, 2.0, False, out) == 1 and out[0] == 5.0


def test_the_reference_point_weighs_infinity_and_is_chosen_only_alone():
    """MIRAN 3.2: r_i stays a candidate when x_i != r_i, as it may be the only visible one; with d_ij = 0 its
    omega is infinite, so any other candidate beats it."""
    assert omega_of(3.0, 0.0) == math.inf
    assert pick_best(np.array([math.inf, 5.0]), 2) == 1
    assert pick_best(np.array([math.inf]), 1) == 0
    assert pick_best(np.array([]), 0) == -1


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([0.5, 1.0, 1.0 + 1e-13, 2.0, 3.0, math.inf]), min_size=1, max_size=12))
def test_the_minimum_omega_wins_and_ties_go_to_the_farthest(ws):
    """MIRAN 3.3: argmin of omega; among equal weights (up to round-off) the greatest curve length distance."""
    w = np.array(ws)
    got = pick_best(w, len(w))
    best = min(ws)
    ties = [i for i, v in enumerate(ws) if v <= best * (1 + 1e-9) or v == best]
    assert got == max(ties)


def test_nan_omegas_are_never_picked():
    assert pick_best(np.array([np.nan, 2.0, np.nan]), 3) == 1


def test_steering_force_points_at_the_attraction_point_with_strength_cs_vmax():
    out = np.empty(2)
    steering_force(np.array([1.0, 1.0]), np.array([4.0, 5.0]), 2.0, 1.5, out)
    assert np.allclose(out, 2.0 * 1.5 * np.array([3.0, 4.0]) / 5.0)
    steering_force(np.array([1.0, 1.0]), np.array([1.0, 1.0]), 2.0, 1.5, out)
    assert np.all(out == 0.0) and np.all(np.isfinite(out))


def test_boundary_force_follows_irm_equation_1():
    """F_b = c_b C_b (x - b)/|x - b| with C_b = (d_s + r - d_b)/(d_b - r)^kappa below the safe distance, else 0."""
    out = np.empty(2)
    x, b = np.array([0.0, 1.0]), np.array([0.0, 0.0])
    r, ds, kappa, cb, vmax = 0.25, 2.0, 1.0, 1.5, 1.4
    boundary_force(x, b, r, ds, kappa, cb, vmax, 1e9, out)
    expected = cb * (ds + r - 1.0) / (1.0 - r) ** kappa * vmax
    assert np.allclose(out, [0.0, expected])
    boundary_force(np.array([0.0, 3.0]), b, r, ds, kappa, cb, vmax, 1e9, out)
    assert np.all(out == 0.0)                              # d_b - r >= d_s: no force
    assert boundary_magnitude(0.25, 0.25, 2.0, 1.0) == math.inf
    boundary_force(np.array([0.0, 0.26]), b, r, ds, 2.0, cb, vmax, 7.0, out)
    assert np.isclose(np.hypot(*out), 7.0 * vmax)          # capped, never infinite
    boundary_force(b.copy(), b, r, ds, kappa, cb, vmax, 7.0, out)
    assert np.all(out == 0.0)                              # on the boundary: no direction, no NaN


def test_avoidance_force_follows_irm_equation_6_inside_the_influence_region():
    out = np.zeros(2)
    x, o = np.array([3.0, 0.0]), np.array([0.0, 0.0])
    avoidance_term(x, o, 0.5, 0.5, 4.0, 2.0, 1.0, 100.0, out)
    assert np.allclose(out, [2.0 / (3.0 - 1.0), 0.0])     # c_o = k_r / (d_i - r_i - r), pushing away
    out[:] = 0
    avoidance_term(np.array([6.0, 0.0]), o, 0.5, 0.5, 4.0, 2.0, 1.0, 100.0, out)
    assert np.all(out == 0.0)                              # beyond d_o
    avoidance_term(np.array([0.5, 0.0]), o, 0.5, 0.5, 4.0, 2.0, 1.0, 9.0, out)
    assert np.allclose(out, [9.0, 0.0])                    # overlapping discs: capped push
    out[:] = 0
    avoidance_term(o.copy(), o, 0.5, 0.5, 4.0, 2.0, 1.0, 9.0, out)
    assert np.all(out == 0.0)


@pytest.mark.parametrize("v,vmax", [([3.0, 4.0], 2.0), ([0.3, 0.4], 2.0), ([0.0, 0.0], 1.0)])
def test_cap_norm_limits_the_speed(v, vmax):
    a = np.array(v)
    cap_norm(a, vmax)
    assert np.hypot(*a) <= vmax * (1 + 1e-15)
    if np.hypot(*v) <= vmax:
        assert np.array_equal(a, v)


@settings(max_examples=200, deadline=None)
@given(st.floats(0.01, 5.0), st.floats(0.05, 500.0))
def test_rotation_angles_of_kremyzas_eq_4_3(radius, dist):
    """Eq. 4.3 puts the rotated disc centre p' at distance R from p (law of cosines); the tangent angle makes the
    ray pass p at distance R."""
    th = rotation_angle(radius, dist)
    if radius > 2 * dist:
        assert math.isnan(th)
    else:
        p = np.array([dist, 0.0])
        p2 = dist * np.array([math.cos(th), math.sin(th)])
        assert math.isclose(np.hypot(*(p2 - p)), radius, rel_tol=1e-6, abs_tol=1e-9)
    tt = tangent_angle(radius, dist)
    if radius > dist:
        assert math.isnan(tt)
    else:
        assert math.isclose(dist * math.sin(tt), radius, rel_tol=1e-9)
        if not math.isnan(th):
            assert tt >= th - 1e-12                         # rotates at least as far as eq. 4.3
