"""The force phase skips a point MIRAN agent's nearest-obstacle query while F_b is certainly zero (issue 20).

``core.sim.kernels.far_from_obstacles`` bounds the clearance at x from below by the last measured one less the
distance walked since (the distance to the obstacles is 1-Lipschitz). Checked against shapely's distance from x to
the free space's boundary, and on whole runs: one kernel call of many steps (which skips) walks the same bytes as
one call per step (each call measures at its first step, so it never skips).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import shapely

from core.scene.geometry import build_geometry
from core.sim import Simulation
from core.sim.kernels import far_from_obstacles
from core.sim.population import random_free_points
from core.navmesh.queries import clearance

from simgen import random_scene, shipped, shipped_mesh


def test_far_from_obstacles_is_a_lower_bound_of_the_clearance():
    scene = shipped("city")
    mesh = shipped_mesh("city")
    boundary = build_geometry(scene).free.boundary
    rng = np.random.default_rng(7)
    at = random_free_points(mesh, rng, 300)
    c_at, _ = clearance(mesh, at)
    tol = 1e-9 * math.hypot(500.0, 500.0)
    said_far = 0
    for k in range(len(at)):
        h = float(rng.uniform(0.0, 1.5 * c_at[k]))
        a = rng.uniform(0.0, 2.0 * math.pi)
        x = at[k] + h * np.array([math.cos(a), math.sin(a)])
        ds = float(rng.uniform(0.0, c_at[k]))
        min_clear = math.inf if rng.uniform() < 0.2 else float(rng.uniform(0.0, c_at[k]))
        if far_from_obstacles(x, c_at[k], at[k], ds, min_clear, tol):
            said_far += 1
            # The independent reference: the exact distance from x to the obstacles' outlines and the bounds.
            d = shapely.distance(shapely.Point(x), boundary)
            assert d >= ds and d >= min_clear
    assert said_far > 40
    # Never measured (NaN): no bound.
    assert not far_from_obstacles(np.array([1.0, 1.0]), math.nan, np.array([math.nan, math.nan]), 0.0, 0.0, tol)


def _walk(scene, mesh, n_agents: int, seed: int, per_call: bool, steps: int) -> tuple:
    sim = Simulation(scene, mesh=mesh, method="miran", add_scene_agents=n_agents == 0, record=True)
    if n_agents:
        sim.add_random_agents(n_agents, seed=seed)
    if per_call:
        for _ in range(steps):
            sim.step()
    else:
        sim.step(steps)
    st = sim.state
    # Positions of the recorded paths (their times are each call's start plus k dt, so they differ in the last bits).
    return (sim.positions().tobytes(), st.min_clear.tobytes(), st.length.tobytes(),
            b"".join(sim.path(i)[:, 1:3].tobytes() for i in range(st.n)))


@pytest.mark.parametrize("case", ["mckenna", "random"])
def test_skipping_walks_the_same_bytes_as_measuring_every_step(case):
    if case == "mckenna":
        scene, mesh, n = shipped("mckenna"), shipped_mesh("mckenna"), 0
    else:
        from core.navmesh import build_navmesh

        scene = random_scene(11)
        mesh, n = build_navmesh(scene), 12
    one_call = _walk(scene, mesh, n, 3, False, 600)
    per_step = _walk(scene, mesh, n, 3, True, 600)
    assert one_call == per_step
