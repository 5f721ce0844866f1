"""One MIRAN step checked against independent references through the debug trace (MIRAN 3.1-3.3): the reference
point stays between r_{i-1} and alpha_{i-1}, candidates are visible (shapely), lie in [r_i, sigma_i] every d or
closer, omega equals shapely's sum_T w(T) l^T / d_ij, and the chosen point is the minimum with ties to the
farthest. Also the trace's forces add up, and parameters changed between steps take effect at once."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from shapely.geometry import LineString

from core.routes import PlannerContext, Route
from core.scene.geometry import build_geometry
from core.sim import Simulation
from core.steering.candidates import TIE_RTOL

from simgen import planned_routes, random_scene, sketched_routes


def _setup(seed, method="miran", n=3):
    scene = random_scene(seed, size=100.0)
    ctx = PlannerContext(scene)
    routes = planned_routes(scene, np.random.default_rng(seed), n, "cdt", context=ctx)
    routes += sketched_routes(scene, np.random.default_rng(seed + 1), n)
    sim = Simulation(scene, mesh=ctx.mesh, method=method, add_scene_agents=False)
    sim.params.set("interact", False)
    sim.add_agents(routes, ["pedestrian", "child"] * n)
    return scene, sim, routes


def _omega_shapely(geo, weights, x, q, dij):
    line = LineString([x, q])
    cost = sum(w * line.intersection(r).length for w, r in zip(weights, geo.regions))
    return np.inf if dij <= 0 else cost / dij


@pytest.mark.parametrize("seed", [2, 13])
def test_traced_steps_follow_miran_3_1_to_3_3(seed):
    scene, sim, routes = _setup(seed)
    geo = build_geometry(scene)
    free = geo.free
    shapely.prepare(free)
    agents = list(range(sim.n_agents))
    prev = {}
    checked = 0
    for step in range(400):
        if not sim.walking():
            break
        traces = sim.step(trace=agents) if step % 7 == 0 else (sim.step() or [])
        for tr in traces:
            i = tr.agent
            route = routes[i]
            prof = scene.profiles[int(sim.state.profile[i])]
            sigma, d = prof.sigma, prof.d
            w = scene.weight_matrix()[int(sim.state.profile[i])]
            # 3.1: the reference point is the first closest route point within [r_{i-1}, alpha_{i-1}].
            if i in prev:
                r0, a0 = prev[i]
                assert r0 - 1e-9 <= tr.reference_s <= max(a0, r0) + 1e-9
                window = route.sub(r0, max(a0, r0) + 1e-9) if max(a0, r0) > r0 + 1e-9 else None
                if window is not None:
                    dist = np.hypot(*(tr.reference - tr.position))
                    assert dist <= LineString(window.points).distance(shapely.Point(tr.position)) + 1e-7
            assert np.allclose(route.point_at(tr.reference_s), tr.reference, atol=1e-9)
            assert tr.window_end_s == pytest.approx(min(tr.reference_s + sigma, route.length))
            # 3.2: candidates in the window, visible, at most d apart inside each interval.
            cs = tr.candidate_s
            assert np.all(cs >= tr.reference_s - 1e-9) and np.all(cs <= tr.window_end_s + 1e-9)
            assert np.all(np.diff(cs) >= -1e-12)
            for a, b in tr.intervals:
                inside = np.concatenate([[a], cs[(cs >= a - 1e-12) & (cs <= b + 1e-12)], [b]])
                assert np.max(np.diff(inside)) <= d * (1 + 1e-9) + 1e-9
            for q in tr.candidates:
                seg = LineString([tr.position, q]) if np.any(q != tr.position) else shapely.Point(q)
                assert free.buffer(1e-7).covers(seg)
            on_route = np.hypot(*(tr.reference - tr.position)) <= 1e-9 * 128
            if on_route and len(tr.intervals) and tr.intervals[0, 0] <= tr.reference_s + 1e-9:
                assert len(cs) == 0 or cs[0] > tr.reference_s            # r_i left out when x_i = r_i
            # 3.3: omega against shapely; the choice is the minimum, ties to the farthest.
            om = np.array([_omega_shapely(geo, w, tr.position, q, s - tr.reference_s)
                           for s, q in zip(cs, tr.candidates)])
            finite = np.isfinite(om)
            assert np.allclose(tr.omega[finite], om[finite], rtol=1e-7, atol=1e-9)
            if tr.fallback == 0 and len(cs):
                best = np.min(tr.omega)
                ties = np.nonzero(tr.omega <= best + 2 * TIE_RTOL * abs(best))[0]
                assert tr.attraction_s == pytest.approx(cs[ties[-1]], abs=1e-9)
                assert np.allclose(tr.attraction, route.point_at(tr.attraction_s), atol=1e-9)
            # forces add up
            f = tr.forces
            assert np.allclose(f["steering"] + f["boundary"] + f["avoidance"], f["total"])
            checked += 1
        for tr in traces:
            prev[tr.agent] = (tr.reference_s, tr.attraction_s)
        if step % 7 != 0:
            st = sim.state
            for i in agents:
                prev[i] = (float(st.s_ref[i]), float(st.s_attr[i]))
    assert checked > 50


def test_the_reference_point_does_not_jump_ahead_figure_2():
    """MIRAN Figure 2: a route that runs away and comes back right beside the character; the closest route point
    overall lies far ahead, but the reference point stays on the part between r_{i-1} and alpha_{i-1}."""
    from core.scene.model import Profile, Scene, TerrainType

    scene = Scene(bounds=(0.0, 0.0, 100.0, 60.0), terrain_types=[TerrainType("default")], default_terrain="default",
                  profiles=[Profile("p", {}, radius=0.2, max_speed=1.4, sigma=30.0, d=5.0)])
    route = Route.from_points([(5, 10), (50, 10), (50, 50), (8, 50), (8, 12.5)])
    sim = Simulation(scene, add_scene_agents=False)
    sim.add_agents([route], ["p"])
    for _ in range(150):
        tr = sim.step(trace=[0])[0]
        assert tr.reference_s < 60.0            # never on the far leg that passes 2.5 units from the start
    sim.run()
    assert sim.arrived().all()
    walked = sim.path(0)[:, 1:]
    assert walked[:, 1].max() > 40.0            # the loop was followed, not skipped by a jump of r_i


def test_live_changes_apply_on_the_next_step_without_rebuilding():
    scene, sim, routes = _setup(4)
    arrays = [a.__array_interface__["data"][0] for a in sim.state.kernel_arrays()[:-1]]
    sim.step(20)
    sim.set_profile("pedestrian", sigma=7.0, d=2.0)
    tr = sim.step(trace=[0])[0]
    assert tr.window_end_s - tr.reference_s <= 7.0 + 1e-9
    gaps = np.diff(np.concatenate([[tr.reference_s], tr.candidate_s]))
    assert np.all(gaps <= 2.0 + 1e-9) or len(tr.intervals) > 1
    sim.set_weight("pedestrian", "mud", 3.0)
    assert sim.params.weight("pedestrian", "mud") == 3.0
    for name, value in [("c_s", 2.0), ("c_b", 0.5), ("kappa", 2.0), ("safe_distance", 0.3), ("f_max", 20.0)]:
        sim.params.set(name, value)
    sim.set_integrator("verlet")
    sim.set_dt(0.05)
    sim.set_method("disc-miran")
    t0 = sim.time
    sim.step(3)
    assert sim.time == pytest.approx(t0 + 0.15)
    tr = sim.step(trace=[1])[0]
    assert sim.state.method[1] == 1 and np.isfinite(tr.forces["total"]).all()
    # the same memory: nothing was rebuilt
    assert [a.__array_interface__["data"][0] for a in sim.state.kernel_arrays()[:-1]] == arrays
    sim.set_method("miran")
    sim.set_integrator("euler")
    sim.run()
    assert sim.arrived().all()


def test_fork_runs_the_future_without_touching_the_present():
    scene, sim, routes = _setup(6, n=2)
    sim.step(30)
    before = sim.positions()
    ghost = sim.fork()
    ghost.run()
    assert ghost.arrived().all()
    assert np.array_equal(sim.positions(), before) and sim.steps == 30
