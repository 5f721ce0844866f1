"""The crowd's window edges kept between steps (core.sim.kernel_inputs.KeptWindows) change nothing: a respawning
MIRAN crowd on the city walks the same bytes as the same crowd whose kept lists are emptied before every step
(every window's edges then gathered afresh from the grids)."""

from pathlib import Path

import numpy as np
import pytest

from core.bench.crowd import crowd_simulation
from core.navmesh import build_navmesh
from core.routes import PlannerContext
from core.scene.io import load_scene
from core.sim import Simulation

from simgen import random_scene

CITY = Path(__file__).resolve().parents[3] / "scenes" / "city.json"


def _crowd(scene, mesh, ctx):
    return crowd_simulation(scene, mesh, ctx, "miran", 300, seed=4)


def _step_beside_fresh(kept, fresh, steps, attr=False):
    """Step both simulations ``steps`` times, ``fresh``'s kept lists emptied before every step (its windows' edges
    then gathered afresh from the grids), and assert after each step that they stand at the same bytes (and, with
    ``attr``, chose the same attraction points)."""
    for step in range(steps):
        for sim in (kept, fresh):
            sim.tend()
        keep = fresh._extension().keep
        keep.obstacles.size[:] = -1
        keep.terrain.size[:] = -1
        kept.step(1)
        fresh.step(1)
        assert np.array_equal(kept.state.pos, fresh.state.pos), step
        if attr:
            assert np.array_equal(kept.state.attr, fresh.state.attr), step
    assert kept.respawned == fresh.respawned


def test_kept_window_edges_walk_the_same_bytes():
    scene = load_scene(CITY)
    mesh = build_navmesh(scene)
    ctx = PlannerContext(scene, navmesh=mesh)
    kept, fresh = _crowd(scene, mesh, ctx), _crowd(scene, mesh, ctx)
    _step_beside_fresh(kept, fresh, 80, attr=True)
    # The kept crowd's lists are in use (filled, not overflowed) for most walkers.
    keep = kept._extension().keep
    assert np.mean(keep.obstacles.size >= 0) > 0.5
    assert np.mean(keep.terrain.size >= 0) > 0.5


def _mixed_crowd(scene, ctx):
    sim = Simulation(scene, add_scene_agents=False, method="miran", seed=6, planner_context=ctx)
    sim.add_random_agents(60, seed=6, method="miran")
    sim.add_random_agents(20, seed=7, method="irm")
    sim.respawn = True
    return sim


@pytest.mark.parametrize("seed", [3, 11])
def test_a_mixed_crowd_on_a_generated_scene_walks_the_same_bytes(seed):
    """MIRAN and IRM characters on a random scene (obstacles that may overlap, four terrain types): the kept lists
    give the same positions as lists emptied before every step, and survive the corridors IRM's new errands add."""
    scene = random_scene(seed)
    ctx = PlannerContext(scene)
    kept, fresh = _mixed_crowd(scene, ctx), _mixed_crowd(scene, ctx)
    lists = kept._extension().keep
    corridors = kept.corridors.layout_key()
    _step_beside_fresh(kept, fresh, 400)
    assert kept.corridors.layout_key() != corridors      # IRM's new errands added corridors meanwhile
    assert kept._extension().keep is lists               # the MIRAN agents' lists were kept through them
    assert np.mean(lists.obstacles.size >= 0) > 0.5
