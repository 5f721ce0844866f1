"""Slope-aware steering (Niederberger 7.2): the height gradient against finite differences, the deflection's sign
and fading, and the shipped hills scene, where the hiker skirts the steep flank only when slope is on."""

from __future__ import annotations

import math

import numpy as np
import pytest

from core.sim import Simulation
from core.steering.slope import deflection, height_gradient

from simgen import shipped


def _bilinear(geo, h, x, y):
    """Independent bilinear height (numpy interpolation along both axes)."""
    xs = geo[0] + geo[2] * np.arange(h.shape[1])
    ys = geo[1] + geo[2] * np.arange(h.shape[0])
    col = np.array([np.interp(x, xs, row) for row in h])
    return float(np.interp(y, ys, col))


@pytest.mark.parametrize("seed", range(3))
def test_height_gradient_matches_finite_differences(seed):
    rng = np.random.default_rng(seed)
    h = rng.uniform(0, 10, size=(7, 9))
    geo = np.array([-3.0, 2.0, 2.5])
    g = np.zeros(2)
    for _ in range(200):
        x, y = rng.uniform([-3, 2], [-3 + 8 * 2.5, 2 + 6 * 2.5])
        z = height_gradient(geo, h, x, y, g)
        assert math.isclose(z, _bilinear(geo, h, x, y), rel_tol=1e-12, abs_tol=1e-12)
        e = 1e-6
        fd = [(_bilinear(geo, h, x + e, y) - _bilinear(geo, h, x - e, y)) / (2 * e),
              (_bilinear(geo, h, x, y + e) - _bilinear(geo, h, x, y - e)) / (2 * e)]
        # Bilinear is only C0 across cell borders: compare away from them.
        u, v = (x - geo[0]) / geo[2], (y - geo[1]) / geo[2]
        if min(u % 1, 1 - u % 1, v % 1, 1 - v % 1) > 1e-4:
            assert np.allclose(g, fd, atol=1e-5)


def test_deflection_turns_away_from_the_ascent_and_fades_at_the_waypoint():
    # Heading east, the slope rising to the north-east: turn right (clockwise, negative), away from the gradient.
    d = deflection(0.3, 0.3, 10.0, 0.0, 1.0, 5.0)
    assert d < 0 and math.isclose(d, -1.0 * math.hypot(0.3, 0.3) * math.cos(math.pi / 4))
    assert deflection(0.3, -0.3, 10.0, 0.0, 1.0, 5.0) > 0                 # rising to the south-east: turn left
    assert deflection(-0.5, 0.1, 10.0, 0.0, 1.0, 5.0) == 0.0              # descending: no deflection
    assert deflection(0.0, 0.0, 10.0, 0.0, 1.0, 5.0) == 0.0               # flat
    assert math.isclose(deflection(0.3, 0.3, 1.0, 0.0, 1.0, 5.0), 0.2 * d)   # f fades within 5 units of w
    assert deflection(5.0, 5.0, 10.0, 0.0, 0.7, 5.0) == -0.7              # capped at the maximal angle


def _climb(slope: bool):
    scene = shipped("hills")
    sim = Simulation(scene)
    sim.params.set("slope", slope)
    sim.run()
    assert sim.arrived().all()
    p = sim.path(0)[:, 1:]
    hf = scene.heightfield
    geo = np.array([hf.origin[0], hf.origin[1], hf.cell])
    h = hf.array()
    g = np.zeros(2)
    heights = np.array([height_gradient(geo, h, x, y, g) for x, y in p])
    return p, heights


def test_hills_scene_the_hiker_skirts_the_hill_only_with_slope_on():
    p_off, h_off = _climb(False)
    p_on, h_on = _climb(True)
    assert np.max(np.abs(p_off[:, 1] - 60.0)) < 1.0                      # straight along the trail
    assert np.max(np.abs(p_on[:, 1] - 60.0)) > 5.0                       # turned off the trail round the hill
    assert h_on.max() < h_off.max() - 3.0                                # and climbed less high
