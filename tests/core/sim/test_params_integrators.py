"""Integrators against closed forms, the speed cap, and the live parameters (names checked, one number changed)."""

from __future__ import annotations

import numpy as np
import pytest

from core.scene.problems import InputError
from core.sim.integrators import EULER, VERLET, integrate, integrator_code
from core.sim.params import GLOBAL_DTYPE, GLOBAL_NAMES, PROFILE_DTYPE, PROFILE_FIELDS, SimParams

from simgen import random_scene


def _trajectory(code, f, n, dt, vmax=1e9):
    x, v, fp = np.zeros(2), np.zeros(2), np.zeros(2)
    xs = [x.copy()]
    has = False
    xn, vn = np.empty(2), np.empty(2)
    for _ in range(n):
        integrate(code, x, v, fp, has, f, dt, vmax, xn, vn)
        x, v, fp, has = xn.copy(), vn.copy(), f.copy(), True
        xs.append(x.copy())
    return np.array(xs)


def test_verlet_is_exact_and_euler_first_order_under_a_constant_force():
    """IRM eq. 8 with F constant: x(t) = F t^2 / 2. Velocity Verlet is exact; semi-implicit Euler gives
    F dt^2 n (n + 1) / 2, converging at first order."""
    f, dt, n = np.array([0.3, -0.2]), 0.1, 50
    t = dt * np.arange(n + 1)
    exact = 0.5 * t[:, None] ** 2 * f
    assert np.allclose(_trajectory(VERLET, f, n, dt), exact, atol=1e-12)
    k = np.arange(n + 1)
    assert np.allclose(_trajectory(EULER, f, n, dt), f * dt ** 2 * (k * (k + 1) / 2)[:, None], atol=1e-12)


@pytest.mark.parametrize("code", [EULER, VERLET])
def test_the_speed_and_the_step_are_capped_at_the_maximum_speed(code):
    xs = _trajectory(code, np.array([50.0, 0.0]), 30, 0.1, vmax=1.4)
    steps = np.hypot(*np.diff(xs, axis=0).T)
    assert np.all(steps <= 1.4 * 0.1 * (1 + 1e-12))
    assert np.isclose(steps[-1], 0.14)


def test_integrator_names_are_checked():
    assert integrator_code("euler") == EULER and integrator_code("verlet") == VERLET
    with pytest.raises(ValueError, match="valid: euler, verlet"):
        integrator_code("rk4")


def test_live_parameters_write_one_number_and_refuse_bad_values():
    scene = random_scene(1)
    p = SimParams(scene)
    glob, prof, weights = p.glob, p.prof, p.weights
    p.set("c_s", 2.5)
    p.set("integrator", "verlet")
    p.set_profile("pedestrian", sigma=77.0, d=7.0)
    p.set_weight("pedestrian", "mud", 12.0)
    assert p.glob is glob and p.prof is prof and p.weights is weights      # changed in place, nothing rebuilt
    assert p.get("c_s") == 2.5 and p.get("integrator") == "verlet"
    # The kernels' records hold the same numbers under the names users see (no index table in between).
    assert GLOBAL_DTYPE.names == GLOBAL_NAMES and PROFILE_DTYPE.names == PROFILE_FIELDS
    k = p.profile_index("pedestrian")
    assert p.glob[0]["c_s"] == 2.5 and p.glob[0]["integrator"] == VERLET
    assert p.prof[k]["sigma"] == 77.0 and p.prof[k]["d"] == 7.0
    assert p.to_dict()["profiles"]["pedestrian"]["sigma"] == 77.0 and p.to_dict()["c_s"] == 2.5
    assert p.get_profile("pedestrian", "sigma") == 77.0 and p.weight("pedestrian", "mud") == 12.0
    for bad in [("dt", 0.0), ("dt", float("nan")), ("c_s", "x"), ("safe_distance", -1.0), ("nope", 1.0),
                ("integrator", "rk4")]:
        with pytest.raises(InputError) as e:
            p.set(*bad)
        assert e.value.problems[0].path == bad[0]
    with pytest.raises(InputError, match="valid: " + ", ".join(GLOBAL_NAMES)):
        p.set("nope", 1)
    with pytest.raises(InputError, match="unknown profile"):
        p.set_profile("ghost", sigma=1.0)
    with pytest.raises(InputError, match=r"must be between 1e-06 and 1e\+06"):
        p.set_weight("pedestrian", "mud", 0.0)
    with pytest.raises(InputError, match="unknown terrain type"):
        p.set_weight("pedestrian", "lava", 2.0)
    d = p.to_dict()
    assert d["profiles"]["pedestrian"]["weights"]["mud"] == 12.0 and d["integrator"] == "verlet"
