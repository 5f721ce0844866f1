"""IRM (Karamouzas et al. 2009): retraction onto the medial axis, the eq. 4 attraction point against brute force,
agents that stay inside their corridor and arrive, Perlin noise, and MIRAN Figure 8 (MIRAN against IRM)."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from shapely.geometry import Point

from core.export import paths_from_simulation
from core.routes import PlannerContext, Route
from core.sim import Simulation
from core.sim.corridors import corridor_of_route
from core.steering.irm import attraction_on_disc, deepest_disc, disc_stretch, retract, union_boundary_point
from core.steering.noise import perlin1, permutation

from simgen import obstacle_union, planned_routes, random_scene, shipped


def _boundary(scene):
    return shapely.union(obstacle_union(scene).boundary, shapely.box(*scene.bounds).boundary)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_boundary_point_is_the_nearest_point_of_the_discs_union(seed):
    """IRM eq. 1's b(x): on corridors of random discs along a random walk (thin, wide and mixed radii), the distance
    to ``union_boundary_point`` equals shapely's distance from x to the boundary of the discs' union, and the point
    lies on that boundary."""
    rng = np.random.default_rng(seed)
    for _ in range(40):
        m = int(rng.integers(2, 17))  # within UNION_WINDOW of any disc
        r = rng.uniform(0.2, 3.0) * np.exp(rng.normal(0.0, 0.3, m))
        step = rng.uniform(0.2, 0.9) * np.minimum(r[:-1], r[1:])
        turn = np.cumsum(rng.normal(0.0, 0.4, m - 1))
        centres = np.zeros((m, 2))
        centres[1:] = np.cumsum(np.c_[step * np.cos(turn), step * np.sin(turn)], axis=0)
        union = shapely.union_all([Point(c).buffer(rr, quad_segs=512) for c, rr in zip(centres, r)])
        edge = union.boundary
        for _ in range(10):
            j = int(rng.integers(m))
            x = centres[j] + rng.uniform(-1.0, 1.0, 2) * r[j] * 0.7
            if not union.contains(Point(x)):
                continue
            k = deepest_disc(centres, r, np.arange(m, dtype=np.float64), 0, m, 0, x, np.inf)
            out = np.zeros(2)
            d = union_boundary_point(centres, r, 0, m, k, x, out)
            want = edge.distance(Point(x))
            tol = 1e-4 * r.max()
            assert abs(d - want) <= tol, (d, want)
            assert abs(np.hypot(*(out - x)) - d) <= 1e-9 * r.max()
            assert edge.distance(Point(out)) <= tol


@pytest.mark.parametrize("seed", [3, 11])
def test_retracted_points_lie_on_the_medial_axis(seed):
    """B is as far from its two closest points as from the whole boundary (shapely), and both closest points are
    on the boundary: the disc K(B, R) is a maximal empty disc touching two obstacle points."""
    scene = random_scene(seed, size=100.0)
    ctx = PlannerContext(scene)
    edges = ctx.mesh.arrays.edges
    rng = np.random.default_rng(seed)
    bnd = _boundary(scene)
    free = ctx.geometry.free
    out = np.zeros(7)
    checked = 0
    while checked < 60:
        p = rng.uniform([0, 0], [100, 80])
        if not free.contains(Point(p)):
            continue
        assert retract(edges, p[0], p[1], 128.0, out)
        B, R, c1, c2 = out[:2], out[2], out[3:5], out[5:7]
        assert abs(bnd.distance(Point(B)) - R) <= 1e-9 * 128
        assert abs(np.hypot(*(B - c1)) - R) <= 2e-4 * R + 1e-9
        assert abs(np.hypot(*(B - c2)) - R) <= 2e-4 * R + 1e-9
        assert np.hypot(*(c1 - c2)) > 1e-6                     # two different touching points
        assert bnd.distance(Point(c1)) < 1e-9 and bnd.distance(Point(c2)) < 1e-9
        checked += 1


@pytest.mark.parametrize("seed", range(4))
def test_attraction_point_is_the_farthest_route_point_on_the_circle(seed):
    """IRM eq. 4 against a dense sampling of the route: the last sign change of |pi(s) - B| - R in
    [s_from, s_to]; the goal attracts only when it lies inside the disc and within s_to."""
    rng = np.random.default_rng(seed)
    pts = np.cumsum(rng.uniform(-10, 10, size=(12, 2)), axis=0)
    route = Route.from_points(pts)
    for _ in range(20):
        B = rng.uniform(pts.min(0), pts.max(0))
        R = float(rng.uniform(2, 15))
        s_from = float(rng.uniform(0, route.length / 2))
        s_to = float(rng.choice([route.length, rng.uniform(s_from, route.length)]))
        got = attraction_on_disc(route.points, route.s, 0, len(pts), B[0], B[1], R, s_from, s_to)
        s = np.linspace(s_from, s_to, 200001)
        xy = np.column_stack([np.interp(s, route.s, route.points[:, 0]), np.interp(s, route.s, route.points[:, 1])])
        f = np.hypot(*(xy - B).T) - R
        if s_to == route.length and f[-1] <= 0:
            assert got == route.length                           # the goal inside the disc attracts
            continue
        cross = np.nonzero(np.sign(f[1:]) != np.sign(f[:-1]))[0]
        if len(cross) == 0:
            assert got == -1.0 or abs(np.hypot(*(xy[-1] - B)) - R) < 1e-6
            continue
        assert abs(got - s[cross[-1]]) <= 2 * (s[1] - s[0])


@pytest.mark.parametrize("seed", [4, 5])
def test_eq4_stretch_ends_at_the_first_vertex_2r_from_the_disc_and_keeps_a_winding_route(seed):
    """``disc_stretch`` against the vertices themselves: the first vertex after s_from farther than 2R from the
    centre, else the route's end. A route that winds inside a disc for longer than pi R still gets its attraction
    point on that disc (with the pi R stretch of before, a grid route in the stress scenes found none and its
    character stood at its start)."""
    rng = np.random.default_rng(seed)
    for _ in range(30):
        pts = np.cumsum(rng.uniform(-3, 3, size=(int(rng.integers(3, 20)), 2)), axis=0)
        route = Route.from_points(pts)
        B = pts[0] + rng.normal(0.0, 1.0, 2)
        R = float(rng.uniform(0.5, 12.0))
        s_from = float(rng.uniform(0.0, route.length / 2))
        got = disc_stretch(route.points, route.s, 0, len(route.points), B[0], B[1], R, s_from)
        later = [j for j in range(1, len(route.points) - 1) if route.s[j] > s_from]
        far = [j for j in later if np.hypot(*(route.points[j] - B)) > 2 * R]
        assert got == (route.s[far[0]] if far else route.length)
    # A zigzag inside a disc of radius 10: 4 legs of 16 m, more than pi R, then out of the disc.
    zig = Route.from_points(np.array([[-8.0, -6.0], [8.0, -6.0], [-8.0, 0.0], [8.0, 2.0], [-7.0, 5.0], [0.0, 30.0]]))
    end = disc_stretch(zig.points, zig.s, 0, len(zig.points), 0.0, 0.0, 10.0, 0.0)
    assert end == zig.length and end > np.pi * 10.0
    s_a = attraction_on_disc(zig.points, zig.s, 0, len(zig.points), 0.0, 0.0, 10.0, 0.0, end)
    assert s_a > zig.s[4] and abs(np.hypot(*zig.point_at(s_a)) - 10.0) < 1e-9


@pytest.mark.parametrize("seed", [3, 11, 29])
def test_irm_agents_stay_inside_their_corridor_and_arrive(seed):
    """Every position of an IRM agent lies in the union of its corridor's discs (up to a step), and every agent
    reaches its goal, on scenes the code has not seen."""
    size = [60.0, 100.0, 400.0][seed % 3]
    scene = random_scene(seed, size=size)
    ctx = PlannerContext(scene)
    rng = np.random.default_rng(seed)
    r = scene.profiles[0].radius
    routes = planned_routes(scene, rng, 5, "cdt", clearance=r, context=ctx)
    assert len(routes) >= 4
    sim = Simulation(scene, mesh=ctx.mesh, method="irm", integrator="verlet", add_scene_agents=False, seed=seed)
    sim.params.set("interact", False)
    sim.add_agents(routes, ["pedestrian"] * len(routes))
    sim.run()
    assert sim.arrived().all(), sim.summary()
    step = scene.profiles[0].max_speed * sim.params.dt
    for i in range(sim.n_agents):
        c = sim.corridor_of(i)
        p = sim.path(i)[:, 1:]
        depth = np.max(c["radii"][None, :] - np.hypot(*(p[:, None, :] - c["centres"][None, :, :]).transpose(2, 0, 1)),
                       axis=1)
        assert depth.min() >= -step, f"agent {i} left its corridor by {-depth.min():.3f}"


def test_corridor_discs_are_free_and_follow_the_route():
    scene = shipped("mckenna_road")
    sim = Simulation(scene, method="irm")
    route = sim.route_of(0)
    B, R, L, Q, S = corridor_of_route(sim.mesh, route, sim.scale)
    bnd = _boundary(scene)
    assert np.all(np.diff(S) >= 0) and S[0] == 0 and S[-1] == route.length
    assert np.all(np.abs(shapely.distance(shapely.points(B), bnd) - R) <= 1e-9 * 283)
    # The route point each disc was retracted from lies in that disc (IRM 3.2: one-to-one with the backbone).
    xy = np.column_stack([np.interp(S, route.s, route.points[:, 0]), np.interp(S, route.s, route.points[:, 1])])
    assert np.all(np.hypot(*(xy - B).T) <= R + 1e-9)


@pytest.mark.parametrize("scene_name,seed", [("city", 0), ("city", 1), ("random", 3), ("random", 4)])
def test_every_route_point_lies_in_the_union_of_its_corridor_discs(scene_name, seed):
    """IRM 3.2's corridor is continuous: each route point lies in its own backbone disc. The sampled corridor keeps
    that: the union of its discs (shapely) holds the whole route, sampled every 5 cm, on planned routes that run
    close to walls (portal routes keep only the character's radius) through open places with large discs."""
    scene = shipped("city") if scene_name == "city" else random_scene(seed, size=300.0, n_obstacles=25)
    sim = Simulation(scene, method="irm", add_scene_agents=False)
    rng = np.random.default_rng(seed)
    routes = planned_routes(scene, rng, 6, planner="portal", clearance=0.25)
    assert routes
    for route in routes:
        B, R, L, Q, S = corridor_of_route(sim.mesh, route, sim.scale)
        union = shapely.union_all(shapely.buffer(shapely.points(B), R, quad_segs=64))
        s = np.linspace(0.0, route.length, max(2, int(route.length / 0.05)))
        pts = shapely.points(route.point_at(s))
        # The discs are polygons of 256 sides: allow their sagitta, R (1 - cos(pi / 256)).
        outside = shapely.distance(pts, union) > 1e-4 * max(R.max(), 1.0)
        assert not outside.any(), f"{outside.sum()} of {len(s)} route points outside the corridor, e.g. " \
                                  f"{route.point_at(s[np.argmax(outside)]).round(2).tolist()}"


def test_perlin_noise_is_smooth_bounded_and_zero_on_the_lattice():
    perm = permutation(7)
    u = np.linspace(-20, 20, 40001)
    v = np.array([perlin1(perm, x) for x in u])
    assert np.all(np.abs(v) <= 0.5)
    assert np.max(np.abs(np.diff(v))) < 2 * (u[1] - u[0])       # Lipschitz: |g| <= 1 and the fade's slope
    assert all(perlin1(perm, float(k)) == 0.0 for k in range(-20, 21))
    assert np.std(v) > 0.05


def test_figure_8_miran_keeps_to_the_sidewalk_and_irm_crosses_the_mud():
    """MIRAN section 5, Figure 8: on the same route MIRAN walks mostly on the sidewalk and never in the mud; IRM
    crosses the mud and stays longer on the road."""
    scene = shipped("mckenna_road")
    res = {}
    for method, integ in (("miran", "euler"), ("irm", "verlet")):
        sim = Simulation(scene, method=method, integrator=integ, seed=1)
        sim.run()
        assert sim.arrived().all()
        res[method] = paths_from_simulation(sim).agents[0].terrain_lengths
    m, i = res["miran"], res["irm"]
    assert m["mud"] == 0.0
    assert m["sidewalk"] > 0.5 * sum(m.values())
    assert i["mud"] > 1.0
    assert i["road"] > m["road"]
    assert i["sidewalk"] < m["sidewalk"]
