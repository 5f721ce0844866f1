"""Crowds: the spatial hash against brute force, Helbing and Molnar's force against the gradient of its potential,
agents passing each other in a corridor, thousands of agents never inside an obstacle, replanning and respawning."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString

from core.routes import PlannerContext, Route
from core.scene.model import Obstacle, Profile, Scene, SimulationSettings, TerrainType
from core.sim import ARRIVED, LOST, Simulation
from core.sim.neighbors import neighbour_pairs
from core.steering.social import ellipse_b, social_term

from simgen import obstacle_union, shipped, shipped_mesh

# Agents of a crowd may press into each other's discs by at most this fraction of the sum of their radii.
OVERLAP_TOLERANCE = 0.2


@pytest.mark.parametrize("seed", range(6))
def test_spatial_hash_pairs_equal_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 400))
    bounds = (0.0, 0.0, 50.0, 30.0)
    pos = rng.uniform([-5, -5], [55, 35], size=(n, 2))          # some outside the bounds
    pos[: n // 4] = np.round(pos[: n // 4])                    # exact ties on cell borders
    reach = float(rng.uniform(0.5, 6.0))
    got = neighbour_pairs(bounds, pos, reach)
    d = np.hypot(*(pos[:, None, :] - pos[None, :, :]).transpose(2, 0, 1))
    i, j = np.nonzero(np.triu(d <= reach, 1))
    assert sorted(zip(got[0].tolist(), got[1].tolist())) == sorted(zip(i.tolist(), j.tolist()))


def test_spatial_hash_leaves_out_agents_that_do_not_walk():
    pos = np.array([[1.0, 1.0], [1.5, 1.0], [2.0, 1.0]])
    pairs = neighbour_pairs((0, 0, 10, 10), pos, 1.0, status=np.array([0, ARRIVED, 0], dtype=np.int8))
    assert pairs.tolist() == [[0], [2]]


def _potential(r, y, v0, sigma):
    return v0 * np.exp(-ellipse_b(r[0], r[1], y[0], y[1]) / sigma)


@pytest.mark.parametrize("seed", range(5))
def test_social_force_is_minus_the_gradient_of_the_elliptical_potential(seed):
    """Helbing and Molnar: f = -grad_r V(b(r)); checked by central differences of V (independent of the formula)."""
    rng = np.random.default_rng(seed)
    v0, sigma, tau = 2.1, 0.3, 2.0
    for _ in range(50):
        x = rng.uniform(-3, 3, 2)
        o = rng.uniform(-3, 3, 2)
        vo = rng.uniform(-1.4, 1.4, 2)
        r, y, h = x - o, tau * vo, 1e-6
        grad = np.array([(_potential(r + dr, y, v0, sigma) - _potential(r - dr, y, v0, sigma)) / (2 * h)
                         for dr in (np.array([h, 0.0]), np.array([0.0, h]))])
        f = -grad
        for e in rng.normal(size=(4, 2)):
            e /= np.hypot(*e)
            # Field of view: the force counts fully when -f (towards o) is within 100 degrees of e, else half.
            seen = e @ (-f) >= np.hypot(*f) * np.cos(np.radians(100))
            out = np.zeros(2)
            social_term(x, e, o, vo, v0, sigma, tau, 1e9, out)
            assert np.allclose(out, f * (1.0 if seen else 0.5), rtol=1e-4, atol=1e-7)


def _corridor(width: float = 4.0, length: float = 40.0) -> Scene:
    return Scene(bounds=(0.0, 0.0, length, width), terrain_types=[TerrainType("default")], default_terrain="default",
                 profiles=[Profile("p", radius=0.25, max_speed=1.4, sigma=10.0, d=2.0)],
                 simulation=SimulationSettings("miran", "euler", 0.1))


def _min_gap(sim: Simulation, steps: int) -> float:
    """Smallest (distance - r_i - r_j) over every pair of walking agents at every step, relative to r_i + r_j."""
    worst = np.inf
    r = sim.state.radius
    for _ in range(steps):
        sim.step()
        p = sim.state.pos
        d = np.hypot(*(p[:, None, :] - p[None, :, :]).transpose(2, 0, 1))
        rr = r[:, None] + r[None, :]
        walking = sim.state.status == 0
        rel = (d - rr) / rr
        rel[~walking, :] = np.inf
        rel[:, ~walking] = np.inf
        np.fill_diagonal(rel, np.inf)
        worst = min(worst, float(rel.min()))
        if sim.walking() == 0:
            break
    return worst


@pytest.mark.parametrize("method", ["miran", "irm"])
def test_agents_facing_each_other_in_a_corridor_pass_without_overlapping(method):
    """Six agents walk east and six west along a 4 m corridor; nobody overlaps another by more than
    OVERLAP_TOLERANCE of the radii, and everybody arrives."""
    sim = Simulation(_corridor(), add_scene_agents=False, method=method, seed=1)
    rng = np.random.default_rng(3)
    routes = []
    for k in range(6):
        y, y2 = rng.uniform(0.6, 3.4, 2)
        routes.append(Route.from_points([[1.0 + 0.75 * k, y], [39.0, y]]))
        routes.append(Route.from_points([[39.0 - 0.75 * k, y2], [1.0, y2]]))
    sim.add_agents(routes, ["p"] * len(routes))
    assert _min_gap(sim, 1500) >= -OVERLAP_TOLERANCE
    assert sim.arrived().all(), sim.summary()


def _assert_never_inside(scene, sim):
    interior = obstacle_union(scene).buffer(-1e-9 * scene.bounds[2])
    shapely.prepare(interior)
    rows, offsets = sim.recorder.paths(sim.n_agents)
    xy = rows[:, 1:]
    assert np.isfinite(xy).all()
    assert not shapely.contains_xy(interior, xy[:, 0], xy[:, 1]).any()
    lines = [LineString(xy[a:b]) for a, b in zip(offsets[:-1], offsets[1:]) if b - a > 1]
    assert not shapely.intersects(np.array(lines, dtype=object), interior).any()


@pytest.mark.parametrize("method", ["miran", "disc-miran", "irm"])
@pytest.mark.crowd
def test_a_crowd_of_a_thousand_never_enters_an_obstacle(method):
    scene = shipped("city")
    sim = Simulation(scene, mesh=shipped_mesh("city"), add_scene_agents=False, method=method, seed=5,
                     planner_context=PlannerContext(scene, navmesh=shipped_mesh("city")))
    sim.add_random_agents(1000, seed=5)
    sim.respawn = True
    sim.run(max_steps=150)
    assert sim.steps == 150
    _assert_never_inside(scene, sim)


def test_with_replanning_every_agent_of_a_finite_crowd_arrives():
    scene = shipped("mckenna")
    sim = Simulation(scene, add_scene_agents=False, seed=2)
    sim.add_random_agents(150, seed=2)
    sim.run()
    assert sim.arrived().all(), sim.summary()
    _assert_never_inside(scene, sim)


def _wall_scene() -> Scene:
    return Scene(bounds=(0.0, 0.0, 40.0, 30.0), terrain_types=[TerrainType("default")], default_terrain="default",
                 obstacles=[Obstacle("wall", [(18.0, 0.0), (22.0, 0.0), (22.0, 25.0), (18.0, 25.0)])],
                 profiles=[Profile("p", radius=0.25, max_speed=1.4, sigma=10.0, d=2.0)],
                 simulation=SimulationSettings("miran", "euler", 0.1))


@pytest.mark.parametrize("method", ["miran", "irm"])
def test_an_agent_pushed_behind_an_obstacle_is_replanned_and_arrives(method):
    """MIRAN 3.5: put the agent where no part of its route is visible; it gets LOST, a new route from where it
    stands, and reaches its goal."""
    sim = Simulation(_wall_scene(), add_scene_agents=False, method=method)
    sim.add_agents([Route.from_points([[2.0, 15.0], [15.0, 15.0], [15.0, 28.0], [2.0, 28.0]])], ["p"])
    sim.step(5)
    sim.state.pos[0] = (30.0, 15.0)                      # "pushed" behind the wall: no route point is visible
    sim.replan = False
    sim.step(1)
    assert sim.state.status[0] == LOST
    sim.replan = True
    sim.run()
    assert sim.replanned == 1
    assert sim.arrived().all()
    assert np.allclose(sim.state.pos[0], (2.0, 28.0))


def test_respawned_agents_get_new_goals_and_keep_walking():
    scene = shipped("mckenna")
    sim = Simulation(scene, add_scene_agents=False, seed=4)
    sim.add_random_agents(40, seed=4)
    sim.respawn = True
    goals0 = sim.state.goal.copy()
    sim.run(max_steps=3000)
    assert sim.respawned > 0
    assert not np.array_equal(goals0, sim.state.goal)
    assert sim.walking() >= 40 - 5
    _assert_never_inside(scene, sim)


def test_random_agents_are_deterministic_for_a_seed():
    scene = shipped("mckenna")
    a = Simulation(scene, add_scene_agents=False)
    b = Simulation(scene, add_scene_agents=False)
    a.add_random_agents(10, seed=9)
    b.add_random_agents(10, seed=9)
    a.step(30)
    b.step(30)
    assert np.array_equal(a.state.pos, b.state.pos)
