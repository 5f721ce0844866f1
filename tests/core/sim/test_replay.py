"""The replay store: positions, statuses and trails at time t equal what the simulation recorded at t, and a run
saved as a ``miran-paths`` file loads back into an equal store."""

from __future__ import annotations

import numpy as np
import pytest

from core.export import paths_from_simulation, read_paths, write_paths
from core.scene.model import Agent, Obstacle, Profile, Route, Scene, SimulationSettings, TerrainType
from core.sim import ARRIVED, WALKING, Simulation
from core.sim.replay import Replay


def scene() -> Scene:
    return Scene(
        bounds=(0.0, 0.0, 40.0, 30.0), terrain_types=[TerrainType("default")], default_terrain="default",
        name="replay", obstacles=[Obstacle("o", [(18.0, 8.0), (22.0, 8.0), (22.0, 22.0), (18.0, 22.0)])],
        profiles=[Profile("p", {}, radius=0.3, max_speed=1.4, sigma=12.0, d=2.0),
                  Profile("q", {}, radius=0.3, max_speed=2.5, sigma=12.0, d=2.0)],
        routes=[Route("r", [(2.0, 4.0), (20.0, 4.0), (38.0, 26.0)]), Route("s", [(3.0, 26.0), (12.0, 20.0)])],
        agents=[Agent("a", "p", route="r"), Agent("b", "q", route="s")],
        simulation=SimulationSettings("miran", "euler", 0.1))


@pytest.fixture(scope="module")
def run():
    """A run recorded step by step: the positions after every step kept aside as the reference, keyed by the
    recorded time of that step (the store's own stops, one per step)."""
    sim = Simulation(scene())
    after = [sim.positions()]
    for _ in range(120):
        sim.step(1)
        after.append(sim.positions())
    times = Replay.from_simulation(sim).times()
    assert len(times) == len(after)
    np.testing.assert_allclose(times, 0.1 * np.arange(len(after)), atol=1e-9)
    return sim, dict(zip(times.tolist(), after))


def test_positions_at_recorded_times_equal_the_simulation(run):
    sim, seen = run
    rep = Replay.from_simulation(sim)
    assert rep.ids == tuple(sim.state.ids)
    b_end = rep.path(1)[-1, 0]
    assert rep.status[1] == ARRIVED and b_end < sim.time          # b arrived within the run, a still walks
    for t, pos in seen.items():
        got = rep.positions_at(t)
        if t <= b_end:
            np.testing.assert_array_equal(got, pos)
        else:
            np.testing.assert_array_equal(got[0], pos[0])
            np.testing.assert_array_equal(got[1], rep.path(1)[-1, 1:])   # an arrived agent stays at its goal
    assert (rep.status_at(0.5) == WALKING).all()
    assert rep.status_at(sim.time)[1] == ARRIVED


def test_positions_between_steps_interpolate_and_scrub_back_and_forth(run):
    sim, seen = run
    rep = Replay.from_simulation(sim)
    ts = sorted(seen)
    mid = 0.5 * (ts[10] + ts[11])
    np.testing.assert_allclose(rep.positions_at(mid)[0], 0.5 * (seen[ts[10]][0] + seen[ts[11]][0]))
    order = [ts[50], ts[5], ts[90], ts[0], ts[50]]
    for t in order:
        np.testing.assert_array_equal(rep.positions_at(t)[0], seen[t][0])


def test_trails_end_at_the_position_and_hold_the_window(run):
    sim, seen = run
    rep = Replay.from_simulation(sim)
    ts = sorted(seen)
    t = ts[60]
    lines = rep.trails(t, 2.0)
    parts = np.split(lines, np.flatnonzero(np.isnan(lines[:, 0])) + 1)[:-1]
    assert len(parts) == 2
    a = parts[0][:-1]
    expect = np.array([seen[u][0] for u in ts if t - 2.0 - 1e-9 <= u <= t + 1e-9], dtype=np.float32)
    np.testing.assert_allclose(a[:-1], expect, rtol=1e-6)
    np.testing.assert_allclose(a[-1], seen[t][0].astype(np.float32))


def test_save_load_round_trip_equals(run, tmp_path):
    sim, _ = run
    live = Replay.from_simulation(sim)
    path = tmp_path / "run.paths.json"
    write_paths(path, paths_from_simulation(sim))
    back = Replay.from_paths(read_paths(path))
    assert back.ids == live.ids
    np.testing.assert_array_equal(back.offsets, live.offsets)
    np.testing.assert_array_equal(back.t, live.t)
    np.testing.assert_array_equal(back.xy, live.xy)
    np.testing.assert_array_equal(back.status, live.status)
    assert [back.profiles[k] for k in back.profile] == [live.profiles[k] for k in live.profile]
    np.testing.assert_array_equal(back.times(), live.times())
    for t in live.times()[::7]:
        np.testing.assert_array_equal(back.positions_at(t), live.positions_at(t))


def test_frames_hold_the_agents_present():
    rep = Replay(("a", "b"), ("p",), np.zeros(2, np.int32), np.array([ARRIVED, WALKING], np.int8),
                 np.array([0.0, 0.1, 0.2, 0.1, 0.2, 0.3]),
                 np.array([[0, 0], [1, 0], [2, 0], [5, 5], [5, 6], [5, 7]], dtype=float),
                 np.array([0, 3, 6]), 0.1)
    fr = rep.frames(0.0, 0.3)
    assert [len(p) for _, p in fr] == [1, 2, 2, 1]
    np.testing.assert_array_equal(fr[3][1], [[5.0, 7.0]])
    np.testing.assert_array_equal(rep.positions_at(0.0), [[0, 0], [5, 5]])     # b before its start: its start
    np.testing.assert_array_equal(rep.arrivals(1.0), [0.2])
