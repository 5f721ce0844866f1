"""Multi-core stepping (issue 20): the same seed gives byte-identical paths files whatever the number of threads,
with respawning crowds, replanning, and every steering method; and bad thread counts are refused by name."""

from __future__ import annotations

import json

import pytest

from core.export import paths_from_simulation
from core.export.paths import paths_to_dict
from core.routes import PlannerContext, Route
from core.scene.problems import InputError
from core.sim import Simulation

from simgen import shipped, shipped_mesh
from test_crowd import _wall_scene

THREADS = (1, 2, 3)


def _paths_bytes(sim: Simulation) -> bytes:
    return json.dumps(paths_to_dict(paths_from_simulation(sim)), sort_keys=True).encode()


def _crowd_run(method: str, threads: int) -> tuple[bytes, Simulation]:
    scene = shipped("mckenna")
    mesh = shipped_mesh("mckenna")
    sim = Simulation(scene, mesh=mesh, add_scene_agents=False, method=method, seed=4, threads=threads,
                     planner_context=PlannerContext(scene, navmesh=mesh))
    sim.add_random_agents(40, seed=4)
    sim.respawn = True
    sim.run(max_steps=300)
    return _paths_bytes(sim), sim


@pytest.mark.parametrize("method", ["miran", "disc-miran", "irm"])
@pytest.mark.crowd
def test_a_respawning_crowd_walks_the_same_bytes_on_one_two_and_three_threads(method):
    runs = [_crowd_run(method, t) for t in THREADS]
    assert runs[0][1].respawned > 0                  # respawn happened inside the compared window
    assert all(sim.threads == t for (_, sim), t in zip(runs, THREADS))
    assert runs[1][0] == runs[0][0]
    assert runs[2][0] == runs[0][0]


@pytest.mark.parametrize("method", ["miran", "irm"])
def test_replanning_gives_the_same_bytes_on_one_two_and_three_threads(method):
    """Agents pushed out of sight of their routes get LOST and replanned (MIRAN 3.5) within a parallel step."""
    out = []
    for threads in THREADS:
        sim = Simulation(_wall_scene(), add_scene_agents=False, method=method, threads=threads)
        route = Route.from_points([[2.0, 15.0], [15.0, 15.0], [15.0, 28.0], [2.0, 28.0]])
        sim.add_agents([route] * 5, ["p"] * 5)
        sim.step(5)
        sim.state.pos[[1, 3]] = [(30.0, 15.0), (31.0, 12.0)]   # behind the wall: no route point is visible
        sim.run()
        assert sim.replanned >= 2 and sim.arrived().all(), sim.summary()
        out.append(_paths_bytes(sim))
    assert out[1] == out[0] and out[2] == out[0]


@pytest.mark.crowd
def test_the_thread_count_can_change_between_steps_without_changing_the_paths():
    a = _crowd_run("miran", 1)[0]
    scene = shipped("mckenna")
    mesh = shipped_mesh("mckenna")
    sim = Simulation(scene, mesh=mesh, add_scene_agents=False, method="miran", seed=4,
                     planner_context=PlannerContext(scene, navmesh=mesh))
    sim.add_random_agents(40, seed=4)
    sim.respawn = True
    for k, threads in enumerate((2, 1, 3)):
        sim.set_threads(threads)
        sim.run(max_steps=100 * (k + 1) - sim.steps)
    assert _paths_bytes(sim) == a


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True])
def test_a_bad_thread_count_is_refused_by_name(bad):
    with pytest.raises(InputError, match="threads"):
        Simulation(_wall_scene(), add_scene_agents=False, threads=bad)
    sim = Simulation(_wall_scene(), add_scene_agents=False)
    with pytest.raises(InputError, match="threads"):
        sim.set_threads(bad)
    assert sim.threads == 1
