"""The crowd level of detail (core.sim.fidelity): the ``fidelity`` setting everywhere it can be given, the
guarantees that do not relax in fast mode (arrival, free space, disc radius, the same bytes on any number of
threads), its error budget against exact mode on the same errands, and the kernels it adds, each checked against
an independent reference."""

from __future__ import annotations

import json

import numpy as np
import pytest

from core.cli.main import main
from core.export import paths_from_simulation
from core.export.paths import paths_to_dict
from core.navmesh import build_navmesh
from core.navmesh.kernels.segments import segment_terrain_lengths, walk_terrain_run
from core.navmesh.kernels.walk import locate_any
from core.routes import PlannerContext
from core.scene.io import load_scene, save_scene, scene_to_dict
from core.scene.parse import parse_scene
from core.scene.problems import InputError
from core.sim import Simulation
from core.sim.fidelity import keep_nearest
from core.sim.params import SimParams
from core.steering.methods import IRM

import stressgen as sg
from ci_size import size
from simgen import SCENES_DIR, random_scene, shipped, shipped_mesh
from test_arrival_stress import _check, _errands

ROAD = str(SCENES_DIR / "mckenna_road.json")
# The error budget of the issue: per character, walked length and terrain-weighted length within 2 %, arrival time
# within 5 % of exact mode's on the same errands.
LENGTH_BUDGET = 0.02
COST_BUDGET = 0.02
TIME_BUDGET = 0.05


def test_fidelity_is_a_checked_parameter_exact_by_default():
    p = SimParams(shipped("mckenna"))
    assert p.get("fidelity") == "exact" and p.get("fast_steps") == 3
    assert "fidelity" not in p.to_dict() and "fast_steps" not in p.to_dict()
    p.set("fidelity", "fast")
    p.set("fast_steps", 7)
    assert p.to_dict()["fidelity"] == "fast" and p.to_dict()["fast_steps"] == 7
    with pytest.raises(InputError, match="unknown fidelity 'quick' \\(valid: exact, fast\\)"):
        p.set("fidelity", "quick")
    for bad in (0, 2.5, 51, True, "3", float("nan")):
        with pytest.raises(InputError, match="fast_steps: must be a whole number of steps from 1 to 50"):
            p.set("fast_steps", bad)
    assert p.get("fidelity") == "fast" and p.get("fast_steps") == 7


def test_the_scene_file_keeps_a_fast_fidelity_and_refuses_an_unknown_one(tmp_path):
    doc = scene_to_dict(shipped("mckenna"))
    assert "fidelity" not in doc["simulation"]
    doc["simulation"]["fidelity"] = "fast"
    scene = parse_scene(doc)
    assert scene.simulation.fidelity == "fast"
    save_scene(scene, tmp_path / "s.json")
    again = load_scene(tmp_path / "s.json")
    assert again.simulation.fidelity == "fast" and Simulation(again).params.get("fidelity") == "fast"
    doc["simulation"]["fidelity"] = "rough"
    with pytest.raises(InputError, match="simulation.fidelity"):
        parse_scene(doc)


@pytest.mark.subprocess
def test_simulate_takes_fidelity_and_refuses_a_bad_one(capsys):
    assert main(["simulate", ROAD, "--fidelity", "fast", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["fidelity"] == "fast" and summary["all_arrived"]
    assert main(["simulate", ROAD, "--fidelity", "rough"]) == 2
    assert "--fidelity: unknown fidelity 'rough' (valid: exact, fast)" in capsys.readouterr().err


def test_keep_nearest_keeps_the_nearest_in_order():
    rng = np.random.default_rng(3)
    for n_items in (0, 1, 5, 8, 9, 40):
        d = rng.uniform(0, 5, n_items)
        d[::3] = np.round(d[::3], 1)  # some ties
        near_d = np.empty(8)
        near_m = np.empty(8, dtype=np.int64)
        n = 0
        for m, a in enumerate(d):
            n = keep_nearest(near_d, near_m, n, a, m)
        want = np.argsort(d, kind="stable")[:8]
        assert n == len(want)
        assert near_m[:n].tolist() == want.tolist() and near_d[:n].tolist() == d[want].tolist()


def test_walk_terrain_run_agrees_with_the_terrain_lengths_of_the_segment():
    rng = np.random.default_rng(11)
    for seed in (1, 2):
        scene = random_scene(seed)
        mesh = build_navmesh(scene)
        W = mesh.arrays.walk
        V, T, N, TT = W.V, W.T, W.N, W.TT
        x0, y0, x1, y1 = scene.bounds
        tl = np.zeros(mesh.n_terrain_types)
        seen = set()
        for _ in range(600):
            p = rng.uniform([x0, y0], [x1, y1])
            q = p + rng.normal(0, 12, 2)
            q = np.clip(q, [x0, y0], [x1, y1])
            tri = locate_any(W, p[0], p[1])
            if tri < 0 or TT[tri] < 0:
                continue
            tl[:] = 0.0
            blocked = segment_terrain_lengths(W, p[0], p[1], q[0], q[1], tl)
            types = np.nonzero(tl > 0.0)[0]
            want = -1 if blocked > 0.0 else (int(types[0]) if len(types) == 1 else -2)
            assert walk_terrain_run(V, T, N, TT, tri, p[0], p[1], q[0], q[1], False) == want, (seed, p, q, tl)
            # Stopping at the first change of terrain: -2 for every segment that changes type before it is blocked.
            stopped = walk_terrain_run(V, T, N, TT, tri, p[0], p[1], q[0], q[1], True)
            assert stopped == want or (want == -1 and stopped == -2 and len(types) > 1), (seed, p, q, tl)
            seen.add(min(want, 0))
        assert seen == {-2, -1, 0}


def _routes_run(scene, routes, method, fidelity, interact, threads=1):
    sim = Simulation(scene, method=method, add_scene_agents=False, fidelity=fidelity, threads=threads)
    sim.params.set("interact", interact)
    sim.add_agents(routes, ["walker"] * len(routes))
    sim.run()
    return sim


def _generated_scenes() -> list:
    """Five generated scenes in CI; twenty under MIRAN_TEST_FULL (cities, villages and mazes of more seeds)."""
    scenes = [sg.city(7), sg.village(8), sg.maze(9), sg.gap(), sg.corridor(length=120.0)]
    for seed in range(10, 10 + (size(0, 15) + 2) // 3):
        scenes += [sg.city(seed), sg.village(seed), sg.maze(seed)]
    return scenes[:size(5, 20)]


@pytest.fixture(scope="module")
def errands():
    return [(scene, _errands(scene, 40, 300 + k)) for k, scene in enumerate(_generated_scenes())]


@pytest.mark.crowd
@pytest.mark.parametrize("method", ["miran", "disc-miran"])
def test_fast_mode_keeps_every_guarantee_in_crowds_on_generated_scenes(errands, method):
    """Every character arrives, stands and steps only in the free space, and a disc keeps its radius, with the
    characters pushing each other (the crowd setting fast mode is for); checked with shapely."""
    for scene, routes in errands:
        sim = _routes_run(scene, routes, method, "fast", True)
        _check(scene, sim, method == "disc-miran")


@pytest.mark.crowd
@pytest.mark.parametrize("method", ["miran", "disc-miran", "irm"])
def test_fast_mode_walks_the_same_bytes_on_one_and_two_threads(method):
    scene = shipped("mckenna")
    mesh = shipped_mesh("mckenna")
    runs = []
    for threads in (1, 2):
        sim = Simulation(scene, mesh=mesh, add_scene_agents=False, method=method, seed=4, threads=threads,
                         fidelity="fast", planner_context=PlannerContext(scene, navmesh=mesh))
        sim.add_random_agents(40, seed=4)
        sim.respawn = True
        sim.run(max_steps=300)
        runs.append(json.dumps(paths_to_dict(paths_from_simulation(sim)), sort_keys=True).encode())
    assert runs[0] == runs[1]


def test_fast_mode_keeps_attraction_points_and_exact_mode_does_not():
    """The relaxation is in effect: in fast mode characters walk steps on a kept choice; in exact mode none do."""
    for fidelity, kept in (("exact", False), ("fast", True)):
        sim = Simulation(shipped("city"), fidelity=fidelity)
        ages = []
        for _ in range(12):
            sim.run(max_steps=1)
            ages.append(sim.state.attr_age.copy())
        assert (np.max(ages) >= 1) == kept


def _ran(sim: Simulation) -> Simulation:
    sim.run()
    return sim


def _relative_errors(exact: Simulation, fast: Simulation) -> np.ndarray:
    """Per character: |fast - exact| / exact of walked length, terrain-weighted length and arrival time."""
    rows = []
    for e, f in zip(paths_from_simulation(exact).agents, paths_from_simulation(fast).agents):
        assert e.reached_goal and f.reached_goal
        rows.append([abs(f.length - e.length) / e.length, abs(f.weighted_length - e.weighted_length) /
                     e.weighted_length, abs(f.time - e.time) / e.time])
    return np.array(rows)


@pytest.mark.crowd
@pytest.mark.parametrize("method", ["miran", "disc-miran"])
def test_fast_mode_error_budget_for_single_characters(errands, method):
    """Without interaction (each character alone, so that one relaxed choice cannot change another's
    encounters), per character: walked length and terrain-weighted length within 2 %, arrival time within 5 % of
    exact mode's on the same errands. Before fast mode chose exactly on costly terrain, a village character
    walked 10.3 m of mud (weight 30) against exact mode's 3.9 m: +119 % terrain-weighted length."""
    for scene, routes in errands:
        err = _relative_errors(_routes_run(scene, routes, method, "exact", False),
                               _routes_run(scene, routes, method, "fast", False))
        assert (err.max(axis=0) <= [LENGTH_BUDGET, COST_BUDGET, TIME_BUDGET]).all(), (scene.name, err.max(axis=0))


@pytest.mark.parametrize("name", ["city", "forest", "mckenna", "mckenna_road", "hills"])
def test_fast_mode_error_budget_on_the_shipped_scenes(name):
    """The shipped scenes as they are (their characters, interaction on): every budget holds per character."""
    scene = load_scene(SCENES_DIR / f"{name}.json")
    for method in ("miran", "disc-miran"):
        err = _relative_errors(_ran(Simulation(scene, method=method)),
                               _ran(Simulation(scene, method=method, fidelity="fast")))
        assert (err.max(axis=0) <= [LENGTH_BUDGET, COST_BUDGET, TIME_BUDGET]).all(), (name, method, err.max(axis=0))


def _terrain_type(scene, x: float, y: float) -> str | None:
    """The terrain type painted at (x, y) (later polygons over earlier ones), by shapely; None within 1e-6 of a
    terrain polygon's boundary, where the two sides may disagree by rounding."""
    import shapely

    p = shapely.Point(x, y)
    for t in reversed(scene.terrains):
        poly = shapely.Polygon(t.polygon, t.holes)
        if poly.boundary.distance(p) < 1e-6:
            return None
        if poly.contains(p):
            return t.type
    return scene.default_terrain


def test_the_trace_says_when_fast_mode_kept_a_choice_and_why_it_chose_exactly():
    """Every traced step of a walking MIRAN character gives a trace, kept or not; a kept one is on the profile's
    cheapest terrain (checked with shapely on the scene's terrain polygons), one that stands or stood a step ago on
    costlier terrain chose exactly and says "costly terrain"; exact mode's traces say nothing of keeping."""
    scene = shipped("city")
    seen: dict[str, int] = {}
    for fidelity in ("fast", "exact"):
        sim = Simulation(scene, fidelity=fidelity)
        miran = [i for i in range(sim.state.n) if sim.state.method[i] != IRM]
        before: dict[int, bool] = {}
        for _ in range(80):
            walking = [i for i in miran if sim.state.status[i] == 0]
            if not walking:
                break
            traces = sim.step(trace=walking)
            assert sorted(t.agent for t in traces) == walking          # no traced step goes missing
            for t in traces:
                if fidelity == "exact":
                    assert t.keep == ""
                    continue
                seen[t.keep] = seen.get(t.keep, 0) + 1
                weights = scene.profiles[int(sim.state.profile[t.agent])].weights
                here = _terrain_type(scene, *t.position)
                lightest = min(weights.get(tt.id, 1.0) for tt in scene.terrain_types)
                cheapest = here is not None and weights.get(here, 1.0) <= lightest
                if t.keep == "kept":
                    assert t.kept_steps >= 1 and len(t.candidate_s) == 0
                    assert here is None or cheapest, (t.agent, here)
                if t.keep == "costly terrain":
                    assert here is None or not cheapest or before.get(t.agent) is not True, (t.agent, here)
                before[t.agent] = None if here is None else cheapest
    assert seen.get("kept", 0) > 0 and seen.get("costly terrain", 0) > 0, seen
