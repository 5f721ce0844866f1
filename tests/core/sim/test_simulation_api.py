"""The Simulation's Python API: run(until=...), step counts and the clock, agents added with checks, recorded
paths, scene agents with planned routes."""

from __future__ import annotations

import numpy as np
import pytest

from core.routes import PlannerContext, Route
from core.scene.model import Agent
from core.scene.problems import InputError
from core.sim import Simulation

from simgen import planned_routes, random_points, random_scene


@pytest.fixture(scope="module")
def world():
    scene = random_scene(21, size=100.0)
    ctx = PlannerContext(scene)
    routes = planned_routes(scene, np.random.default_rng(21), 3, "cdt", context=ctx)
    return scene, ctx, routes


def test_run_until_a_time_or_a_predicate_and_the_clock(world):
    scene, ctx, routes = world
    sim = Simulation(scene, mesh=ctx.mesh, add_scene_agents=False)
    sim.add_agents(routes, ["pedestrian"] * 3)
    assert sim.run(until=2.0) == 20 and sim.time == pytest.approx(2.0) and sim.steps == 20
    n = sim.run(until=lambda s: s.state.length[0] > 5.0)
    assert n > 0 and sim.state.length[0] > 5.0
    assert sim.run(max_steps=3) == 3
    sim.run()
    assert sim.walking() == 0 and sim.arrived().all()
    assert sim.run() == 0                                      # nothing left to do
    for i in range(3):
        p = sim.path(i)
        assert p[0, 0] == 0.0 and np.allclose(p[0, 1:], routes[i].start)
        assert np.allclose(p[-1, 1:], routes[i].goal) and p[-1, 0] == pytest.approx(sim.state.t_arrive[i])
        assert sim.state.length[i] == pytest.approx(np.hypot(*np.diff(p[:, 1:], axis=0).T).sum())
        assert sim.state.terrain_len[i].sum() == pytest.approx(sim.state.length[i])


def test_added_agents_are_checked(world):
    scene, ctx, routes = world
    sim = Simulation(scene, mesh=ctx.mesh, add_scene_agents=False)
    with pytest.raises(InputError, match="unknown profile"):
        sim.add_agents(routes[:1], ["ghost"])
    sim.add_agents(routes[:1], ["pedestrian"], ids=["a"])
    with pytest.raises(InputError, match="duplicate agent id 'a'"):
        sim.add_agents(routes[1:2], ["pedestrian"], ids=["a"])
    inside = np.mean(scene.obstacles[0].polygon, axis=0)
    blocked = Route.from_points([inside, routes[0].goal])
    from shapely.geometry import Point, Polygon
    if Polygon(scene.obstacles[0].polygon).contains(Point(inside)):
        with pytest.raises(InputError, match="not in the free space"):
            sim.add_agents([blocked], ["pedestrian"])
    with pytest.raises(InputError, match="unknown method"):
        sim.add_agents(routes[1:2], ["pedestrian"], methods="teleport")
    assert sim.n_agents == 1


def test_scene_agents_get_routes_planned_with_their_planner(world):
    scene, ctx, _ = world
    pts = random_points(ctx.geometry.components[0], np.random.default_rng(3), 4)
    scene.agents = [Agent("p1", "pedestrian", start=tuple(pts[0]), goal=tuple(pts[1]), planner="cdt"),
                    Agent("p2", "child", start=tuple(pts[2]), goal=tuple(pts[3]), planner="portal")]
    try:
        sim = Simulation(scene, mesh=ctx.mesh, planner_context=ctx)
    finally:
        scene.agents = []
    assert sim.state.ids == ["p1", "p2"] and set(sim.planned) == {"p1", "p2"}
    assert np.allclose(sim.route_of(0).start, pts[0]) and np.allclose(sim.route_of(1).goal, pts[3])
    sim.run()
    assert sim.arrived().all()


def test_a_new_route_makes_an_agent_walk_again(world):
    scene, ctx, routes = world
    sim = Simulation(scene, mesh=ctx.mesh, add_scene_agents=False)
    sim.add_agents(routes[:1], ["pedestrian"])
    sim.run()
    back = Route.from_points(routes[0].points[::-1])
    sim.set_route(0, back)
    assert sim.walking() == 1
    sim.run()
    assert sim.arrived().all() and np.allclose(sim.state.pos[0], routes[0].start)


def test_parameters_set_between_steps_are_read_by_the_next_step(world):
    """The kernels read the parameter records by field name (core.sim.params): a global (dt) and a profile field
    (max_speed) written between two runs govern the very next step, checked against the step's own bounds."""
    scene, ctx, routes = world
    sim = Simulation(scene, mesh=ctx.mesh, add_scene_agents=False)
    sim.add_agents(routes, ["pedestrian"] * 3)
    sim.run(max_steps=5)
    sim.set_dt(0.05)
    sim.set_profile("pedestrian", max_speed=0.3)
    before, t0 = sim.state.pos.copy(), sim.time
    assert sim.run(max_steps=1) == 1
    assert sim.time == pytest.approx(t0 + 0.05)
    steps = np.hypot(*(sim.state.pos - before).T)
    assert np.all(steps <= 0.3 * 0.05 * (1 + 1e-9)) and np.any(steps > 0.0)   # the integrators' speed cap
    k = sim.params.profile_index("pedestrian")
    assert sim.params.glob["dt"][0] == 0.05 and sim.params.prof["max_speed"][k] == 0.3


def test_agent_state_declares_every_array_it_holds():
    """AgentState's annotations (what the type checker sees) name exactly its arrays, each a read-only view."""
    from core.sim.state import AgentState

    st = AgentState(3)
    assert set(AgentState.__annotations__) == set(st._buf)
    assert all(isinstance(getattr(AgentState, name), property) for name in st._buf)
