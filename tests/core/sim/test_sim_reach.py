"""MIRAN's Theorem 1 on scenes the code has not seen: every single agent on a random route reaches its goal, a point
agent never enters an obstacle, a disc agent keeps its radius from them, and nothing becomes NaN."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString

from core.routes import PlannerContext
from core.sim import Simulation

from simgen import obstacle_union, planned_routes, random_scene, sketched_routes

SEEDS = [3, 11, 29]


def _run_single_agents(scene, routes, method, integrator="euler", mesh=None):
    """All routes in one simulation without interaction: each agent walks alone (the theorem's setting)."""
    sim = Simulation(scene, mesh=mesh, method=method, integrator=integrator, add_scene_agents=False)
    sim.params.set("interact", False)
    sim.add_agents(routes, ["pedestrian"] * len(routes))
    sim.run()
    return sim


def _free_boundary(scene):
    box = shapely.box(*scene.bounds)
    return shapely.union(obstacle_union(scene).boundary, box.boundary)


def _assert_outside_obstacles(scene, sim):
    """Independent check with shapely: no recorded position and no walked segment enters an obstacle's interior."""
    interior = obstacle_union(scene).buffer(-1e-9 * scene.bounds[2])
    shapely.prepare(interior)
    box = shapely.box(*scene.bounds)
    for i in range(sim.n_agents):
        p = sim.path(i)[:, 1:]
        assert np.isfinite(p).all()
        assert not shapely.contains_xy(interior, p[:, 0], p[:, 1]).any(), f"agent {i} stood inside an obstacle"
        assert box.covers(LineString(p)) if len(p) > 1 else True
        if len(p) > 1:
            assert LineString(p).intersection(interior).length == 0.0, f"agent {i} walked through an obstacle"


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("method", ["miran", "disc-miran"])
def test_every_agent_on_a_planned_route_arrives_and_never_enters_an_obstacle(seed, method):
    scene = random_scene(seed, size=[60.0, 100.0, 400.0][seed % 3])
    ctx = PlannerContext(scene)
    rng = np.random.default_rng(seed)
    radius = scene.profiles[0].radius
    routes = planned_routes(scene, rng, 6, "cdt", clearance=radius if method == "disc-miran" else 0.0, context=ctx)
    assert len(routes) >= 4
    sim = _run_single_agents(scene, routes, method, mesh=ctx.mesh)
    assert sim.arrived().all(), sim.summary()
    _assert_outside_obstacles(scene, sim)
    goals = np.array([r.goal for r in routes])
    assert np.array_equal(sim.state.pos, goals)           # agents stop exactly on their goal (x_i = g)


@pytest.mark.parametrize("seed", SEEDS)
def test_every_agent_on_a_sketched_route_arrives(seed):
    """Designer-style routes: sharp corners, reversals and self-crossings, both integrators."""
    scene = random_scene(seed + 100, size=100.0)
    rng = np.random.default_rng(seed)
    routes = sketched_routes(scene, rng, 6)
    for integrator in ("euler", "verlet"):
        sim = _run_single_agents(scene, routes, "miran", integrator)
        assert sim.arrived().all(), (integrator, sim.summary())
        _assert_outside_obstacles(scene, sim)


@pytest.mark.parametrize("seed", SEEDS)
def test_disc_agents_keep_their_radius_from_obstacles(seed):
    """Kremyzas ch. 4: routes planned with clearance R; the walked path never comes closer than R to an obstacle
    or the bounds (shapely distance, independent of the navmesh)."""
    scene = random_scene(seed + 200, size=100.0)
    ctx = PlannerContext(scene)
    rng = np.random.default_rng(seed)
    radius = 1.5
    routes = planned_routes(scene, rng, 6, "cdt", clearance=radius, context=ctx)
    assert len(routes) >= 4
    sim = Simulation(scene, mesh=ctx.mesh, method="disc-miran", add_scene_agents=False)
    sim.params.set("interact", False)
    sim.add_agents(routes, ["pedestrian"] * len(routes))
    sim.set_radius(np.arange(sim.n_agents), radius)
    sim.run()
    assert sim.arrived().all(), sim.summary()
    boundary = _free_boundary(scene)
    for i in range(sim.n_agents):
        line = LineString(sim.path(i)[:, 1:])
        assert boundary.distance(line) >= radius * (1 - 1e-9), i


def test_the_radius_may_change_between_steps():
    """Kremyzas ch. 5: nothing is precomputed for R; shrinking and growing it mid-run keeps the clearance."""
    scene = random_scene(7, size=100.0)
    ctx = PlannerContext(scene)
    routes = planned_routes(scene, np.random.default_rng(7), 4, "cdt", clearance=2.0, context=ctx)
    sim = Simulation(scene, mesh=ctx.mesh, method="disc-miran", add_scene_agents=False)
    sim.params.set("interact", False)
    sim.add_agents(routes, ["pedestrian"] * len(routes))
    everyone = np.arange(sim.n_agents)
    boundary = _free_boundary(scene)
    for r in (0.5, 2.0, 1.0, 2.0):
        sim.set_radius(everyone, r)
        start = [len(sim.path(i)) for i in everyone]
        sim.run(max_steps=150)
        for i in everyone:
            seg = sim.path(i)[start[i] - 1:, 1:]
            if len(seg) > 1:
                assert boundary.distance(LineString(seg)) >= min(r, 2.0) * (1 - 1e-9) - 1e-9
    sim.run()
    assert sim.arrived().all()


def test_the_same_seed_gives_the_same_paths():
    scene = random_scene(5, size=100.0)
    ctx = PlannerContext(scene)
    routes = planned_routes(scene, np.random.default_rng(5), 5, "cdt", context=ctx)
    runs = []
    for _ in range(2):
        sim = Simulation(scene, mesh=ctx.mesh, seed=42, add_scene_agents=False)
        sim.add_agents(routes, ["pedestrian", "child", "pedestrian", "child", "pedestrian"])
        sim.run()
        runs.append(sim.recorder.paths(sim.n_agents))
    assert np.array_equal(runs[0][0], runs[1][0]) and np.array_equal(runs[0][1], runs[1][1])
