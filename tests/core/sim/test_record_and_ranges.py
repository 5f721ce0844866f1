"""Recording every N steps or none (memory flat), the parameter ranges at the Simulation API's edge, the step
budget for extreme parameters and the route book of a respawning crowd."""

from __future__ import annotations

import numpy as np
import pytest

from core.export import paths_from_simulation
from core.scene.model import Agent, Profile, Route, Scene, SimulationSettings, TerrainType
from core.scene.problems import InputError
from core.scene.ranges import MAX_CANDIDATES, RANGES
from core.sim import Simulation
from core.sim import simulation
from core.sim.simulation import MAX_STEPS

from simgen import planned_routes, random_scene, shipped


def _walkers(record, seed: int = 3) -> Simulation:
    scene = random_scene(seed)
    return Simulation(scene, record=record)


def test_record_every_n_keeps_every_nth_step_and_the_same_measures():
    full = _walkers(True)
    full.run()
    sparse = _walkers(7)
    sparse.run()
    assert full.steps == sparse.steps
    a, b = paths_from_simulation(full), paths_from_simulation(sparse)
    for pa, pb in zip(a.agents, b.agents):
        assert pa.reached_goal == pb.reached_goal
        # Every 7th step's row, the first position, the arrival (or where the run stopped).
        last = pa.points[-1]
        assert np.array_equal(pb.points[0], pa.points[0]) and np.array_equal(pb.points[-1], last)
        assert len(pb.points) <= len(pa.points) // 7 + 3
        assert set(map(tuple, pb.points[1:-1].tolist())) <= set(map(tuple, pa.points.tolist()))
        assert pb.length == pytest.approx(pa.length, rel=1e-9, abs=1e-9)
        for t, v in pa.terrain_lengths.items():
            assert pb.terrain_lengths[t] == pytest.approx(v, rel=1e-6, abs=1e-6)
        # The per-step clearance is sampled where the steps start: never below the exact polyline clearance.
        assert pb.min_clearance >= pa.min_clearance - 1e-9


def test_record_none_keeps_memory_flat_and_still_measures():
    sim = _walkers(False)
    caps = [len(sim.recorder.t)]
    for _ in range(5):
        sim.step(200)
        caps.append(len(sim.recorder.t))
    assert len(sim.recorder) == 0 and len(set(caps)) == 1
    full = _walkers(True)
    full.step(1000)
    for pn, pf in zip(paths_from_simulation(sim).agents, paths_from_simulation(full).agents):
        assert len(pn.points) == 0 and pn.length == pytest.approx(pf.length, rel=1e-9, abs=1e-9)
        assert np.isfinite(pn.min_clearance)


def test_set_record_and_bad_record_values():
    sim = _walkers(True)
    sim.set_record(0)
    assert not sim.recorder.enabled
    sim.set_record(4)
    assert sim.recorder.every == 4 and sim.recorder.enabled
    for bad in (-1, 1.5, "every", None, 10**12):
        with pytest.raises(InputError, match="record"):
            sim.set_record(bad)
    with pytest.raises(InputError, match="record"):
        Simulation(random_scene(3), record=-2)


def test_respawning_crowd_with_recording_off_stays_flat(monkeypatch):
    """Respawned routes are compacted away and nothing is logged: the buffers stop growing."""
    monkeypatch.setattr(simulation, "ROUTE_SLACK", 0)  # compact as soon as half the rows are dead
    scene = shipped("mckenna")
    sim = Simulation(scene, add_scene_agents=False, seed=2, record=False)
    sim.add_random_agents(150, seed=2)
    sim.respawn = True
    caps, rows = set(), []
    for _ in range(6):
        sim.run(max_steps=400)
        caps.add(len(sim.recorder.t))
        rows.append(len(sim.routes._s))
        live = int(np.sum(sim.state.route_hi - sim.state.route_lo))
        assert sim.routes.used <= 2 * live + 1 and len(sim.routes._s) <= 4 * live + 16
    assert sim.respawned > 300 and len(caps) == 1
    # Compaction keeps each agent's own route.
    for i in range(0, 150, 17):
        assert np.allclose(sim.route_of(i).goal, sim.state.goal[i])


def _one_agent_scene(max_speed: float = 1.4, dt: float = 0.1, size: float = 100.0, laps: int = 1) -> Scene:
    """One agent walking a diagonal of the square bounds ``laps`` times back and forth."""
    there = [(1.0, 1.0), (size - 1, size - 1)]
    return Scene(bounds=(0.0, 0.0, size, size), terrain_types=[TerrainType("default"), TerrainType("mud")],
                 default_terrain="default", profiles=[Profile("p", {"mud": 2.0}, max_speed=max_speed)],
                 routes=[Route("r", there * laps)], agents=[Agent("a", "p", route="r")],
                 simulation=SimulationSettings(dt=dt))


@pytest.mark.parametrize("name, setter", [
    ("dt", lambda sim, v: sim.set_dt(v)),
    ("max_speed", lambda sim, v: sim.set_profile("p", max_speed=v)),
    ("sigma", lambda sim, v: sim.set_profile("p", sigma=v, d=min(max(1e-3, v / 1e3), 1e9))),
    ("radius", lambda sim, v: sim.set_profile("p", radius=v)),
    ("weight", lambda sim, v: sim.set_weight("p", "mud", v)),
])
def test_api_accepts_the_range_edges_and_refuses_beyond(name, setter):
    sim = Simulation(_one_agent_scene())
    r = RANGES[name]
    for ok in (r.lo, r.hi) if r.lo > 0 else (r.hi,):
        setter(sim, ok)
    for bad in (r.hi * 1.001, r.lo * 0.999 if r.lo > 0 else -1.0, float("inf"), float("nan")):
        with pytest.raises(InputError, match=r"between|negative|finite"):
            setter(sim, bad)


def test_api_refuses_too_many_candidates_and_speeds_that_do_not_move():
    sim = Simulation(_one_agent_scene(), add_scene_agents=False)
    with pytest.raises(InputError, match="candidates"):
        sim.set_profile("p", sigma=200.0, d=200.0 / (2 * MAX_CANDIDATES))
    sim.set_profile("p", sigma=100.0, d=100.0 / MAX_CANDIDATES)
    # 1e-3 units/s x 1e-4 s is below 1e-7 of the 141-unit diagonal.
    sim.set_dt(1e-4)
    with pytest.raises(InputError, match="resolution"):
        sim.set_profile("p", max_speed=1e-3)
    with pytest.raises(InputError, match=r"profiles\[0\]\.max_speed"):
        Simulation(_one_agent_scene(max_speed=1e-3, dt=1e-4, size=1e4))
    Simulation(_one_agent_scene(max_speed=1e-3, dt=1e-4, size=1e4), dt=10.0)  # an override that moves is fine


def test_step_budget_is_capped_and_never_overflows():
    # The slowest speed that moves at dt 1e-4 on a 141-unit diagonal, along 20 diagonals: 3.8e8 steps wanted.
    sim = Simulation(_one_agent_scene(max_speed=1.5, dt=1e-4, laps=10))
    assert sim.needed_steps() > MAX_STEPS and sim.step_budget() == MAX_STEPS
    sim.params.prof["max_speed"] = 5e-324  # past every check: the figure is infinite, not an OverflowError
    assert sim.needed_steps() == float("inf") and sim.step_budget() == MAX_STEPS


def test_respawning_irm_crowd_compacts_its_corridors(monkeypatch):
    monkeypatch.setattr(simulation, "ROUTE_SLACK", 0)
    scene = shipped("mckenna")
    sim = Simulation(scene, add_scene_agents=False, seed=5, record=False, method="irm")
    sim.add_random_agents(60, seed=5, planner="portal")
    sim.respawn = True
    sim.planner = "portal"
    for _ in range(4):
        sim.run(max_steps=300)
        st = sim.state
        live = int(np.sum(st.corr_hi - st.corr_lo))
        assert sim.corridors.used <= 2 * live + 1
        assert np.all((st.corr_k >= st.corr_lo) & (st.corr_k < np.maximum(st.corr_hi, st.corr_lo + 1)))
        ak = st.corr_ak[st.corr_ak >= 0]
        assert np.all((ak >= st.corr_lo[st.corr_ak >= 0]) & (ak < st.corr_hi[st.corr_ak >= 0]))
    assert sim.respawned > 20
    # Each agent's corridor is still its route's: the first disc lies on its route's start region.
    for i in range(0, 60, 7):
        c = sim.corridor_of(i)
        assert len(c["radii"]) and np.all(c["radii"] > 0)


def test_an_unrecorded_run_takes_one_kernel_call_and_the_same_steps(monkeypatch):
    """Without a predicate or respawning, an unrecorded run goes on in one kernel call; it walks the same positions,
    bit for bit, as a recorded run (cut into ``chunk`` steps) and as the same steps taken 64 at a time."""
    calls = []
    advance = simulation.kernels.advance

    def counted(plan, *args):
        calls.append(plan.n_steps)
        return advance(plan, *args)

    def crowd(record) -> Simulation:
        scene = random_scene(3)
        sim = Simulation(scene, record=record, add_scene_agents=False)
        sim.add_agents(planned_routes(scene, np.random.default_rng(4), 6), [scene.profiles[0].id] * 6)
        return sim

    monkeypatch.setattr(simulation.kernels, "advance", counted)
    sim_off = crowd(False)
    sim_off.run()
    assert calls == [sim_off.step_budget()] and sim_off.arrived().all()
    calls.clear()
    sim_on = crowd(True)
    sim_on.run(chunk=100)
    assert len(calls) > 1 and max(calls) == 100
    assert sim_on.steps == sim_off.steps
    sim_cut = crowd(False)
    while sim_cut.walking():
        sim_cut.tend()
        sim_cut.step(64)
    for other in (sim_on, sim_cut):
        assert np.array_equal(other.state.pos, sim_off.state.pos)
        assert np.array_equal(other.state.status, sim_off.state.status)
        assert np.allclose(other.state.t_arrive, sim_off.state.t_arrive, rtol=1e-12, atol=0)
    # A predicate is asked between calls of ``chunk`` steps.
    calls.clear()
    sim = crowd(False)
    sim.run(until=lambda s: s.steps >= 100, chunk=40)
    assert max(calls) == 40 and sim.steps >= 100
