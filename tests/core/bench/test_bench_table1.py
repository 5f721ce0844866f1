"""The steering bench's Table 1 timing: every row timed in turn in fresh processes, the median process recorded."""

from __future__ import annotations

from core.bench.steering import SCENES_DIR, TABLE_1, table_1_in_processes
from core.scene.io import load_scene
from core.sim import Simulation

import pytest

pytestmark = pytest.mark.perf


@pytest.mark.subprocess  # each timing in a fresh process
def test_table_1_processes_time_the_paths_a_fresh_simulation_walks():
    """Two processes, two rows at both steps: the steps and arrivals are those of a simulation run here, the record
    lies within the processes' range (no timing is asserted)."""
    rows = [r for r in TABLE_1 if r[1] in (100.0, 40.0)]
    times = table_1_in_processes(rows, 1, 2)
    assert len(times) == 4
    for name, sigma, d, _paper in rows:
        scene = load_scene(SCENES_DIR / f"{name}.json")
        for dt in (scene.simulation.dt, 1.0):
            sim = Simulation(scene, record=False, dt=dt)
            sim.set_profile(scene.agents[0].profile, sigma=sigma, d=d)
            steps = sim.run()
            sec, got_steps, arrived, (fast, slow) = times[(name, sigma, d, dt)]
            assert got_steps == steps and arrived
            assert 0.0 < fast <= sec <= slow
