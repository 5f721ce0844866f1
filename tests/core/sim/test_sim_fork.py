"""Forks (the app's ghost preview): a fork walks exactly like the original, and changes to it stay its own."""

from pathlib import Path

import numpy as np

from core.scene.io import load_scene
from core.sim import Simulation

SCENE = Path(__file__).resolve().parents[3] / "scenes" / "mckenna_road.json"


def test_fork_without_history_walks_the_same_future():
    sim = Simulation(load_scene(SCENE))
    sim.step(40)
    t0 = sim.time
    fork = sim.fork(keep_paths=False)
    assert len(fork.recorder) == sim.n_agents
    full = sim.fork()
    assert len(full.recorder) == len(sim.recorder)
    sim.step(60)
    fork.step(60)
    assert np.array_equal(sim.state.pos, fork.state.pos)
    for i in range(sim.n_agents):
        future = sim.path(i)
        future = future[future[:, 0] >= t0 - 1e-9]
        assert np.array_equal(fork.path(i), future)


def test_fork_parameters_are_independent():
    sim = Simulation(load_scene(SCENE))
    fork = sim.fork(keep_paths=False)
    pid = sim.params.profile_ids[0]
    sigma = sim.params.get_profile(pid, "sigma")
    fork.set_profile(pid, sigma=3 * sigma)
    fork.set_weight(pid, sim.params.terrain_ids[-1], 7.0)
    assert sim.params.get_profile(pid, "sigma") == sigma
    assert sim.params.weight(pid, sim.params.terrain_ids[-1]) != 7.0
    fork.step(30)
    assert sim.steps == 0 and np.array_equal(sim.state.pos, sim.positions())
