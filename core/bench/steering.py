"""Benchmark section ``steering``: whole MIRAN paths beside the paper's Table 1, and the cost of one agent-step.

- Table 1 (MIRAN 2013, section 5): the CPU time to compute the whole path of the shipped McKenna scene's walker for
  sigma = 100, 250, 300, 400 and 1250 (d = 20), and of McKenna + Road's pedestrian (sigma = 40, d = 10), at the
  scenes' own time step and speed (dt 0.1 s, 1.4 units/s: IRM section 6's setting), and again with steps of 1 s
  (1.4 units, 0.7 % of the scene). The paper does not state its step; the records name the number of steps, the
  cost per step, which is what compares across step sizes, and how far the 1 s path strays from the 0.1 s one.
  Best of 15 runs (3 with ``--quick``).
- Microseconds of CPU per agent-step for 1,000 agents on the city with MIRAN and with disc MIRAN (routes planned
  with the ``cdt`` planner between random free points, agents pushing each other with F_o).
- ``cpu_load <method> <N> agents`` (core.bench.crowd): IRM section 6's CPU-load of respawning crowds of 1,000, 5,000
  and 10,000 agents with MIRAN and IRM.

Times are CPU time of the calling thread, best of a few runs after a warm-up; the first call of the step kernel
(numba cache load or compilation) is reported apart.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from .record import Record
from .timing import first_call

SECTION = "steering"
SCENES_DIR = Path(__file__).resolve().parents[2] / "scenes"
# MIRAN 2013, Table 1: (scene, sigma, d, milliseconds on a 3.2 GHz AMD Phenom II X2, one core).
TABLE_1 = [("mckenna", 100.0, 20.0, 7.13), ("mckenna", 250.0, 20.0, 16.50), ("mckenna", 300.0, 20.0, 16.04),
           ("mckenna", 400.0, 20.0, 20.90), ("mckenna", 1250.0, 20.0, 63.33), ("mckenna_road", 40.0, 10.0, 4.66)]
CROWD = 1000


def _rec(name: str, value, unit: str, reference: str = "") -> Record:
    return Record(SECTION, name, value, unit, reference)


def _path_time(scene, mesh, sigma: float, d: float, repeat: int, dt: float | None = None) -> tuple[float, int, bool]:
    """(CPU seconds, steps, arrived) of one whole path of the scene's first agent, best of ``repeat``."""
    from core.sim import Simulation

    best, steps, arrived = float("inf"), 0, False
    for _ in range(max(1, repeat)):
        sim = Simulation(scene, mesh=mesh, record=False, dt=dt)
        sim.set_profile(scene.agents[0].profile, sigma=sigma, d=d)
        t0 = time.thread_time()
        steps = sim.run()
        best = min(best, time.thread_time() - t0)
        arrived = bool(sim.arrived().all())
    return best, steps, arrived


def _path_points(scene, mesh, sigma: float, d: float, dt: float) -> np.ndarray:
    """The scene's first agent's whole path (k, 2) at this step."""
    from core.sim import Simulation

    sim = Simulation(scene, mesh=mesh, record=True, dt=dt)
    sim.set_profile(scene.agents[0].profile, sigma=sigma, d=d)
    sim.run()
    return sim.path(0)[:, 1:3]


def _crowd(scene, mesh, method: str, n: int, seed: int = 1):
    """A simulation of n agents on routes planned with ``cdt`` between random points of the city where the
    character fits, keeping its radius (as the simulation plans them)."""
    import shapely

    from core.routes import PlannerContext, plan_route
    from core.routes.freespace import polygon_parts
    from core.scene.problems import InputError
    from core.sim import Simulation

    ctx = PlannerContext(scene, navmesh=mesh)
    profile = scene.profiles[0].id
    radius = scene.profiles[0].radius
    comp = max(polygon_parts(ctx.free(radius).free), key=lambda g: g.area)
    shapely.prepare(comp)
    rng = np.random.default_rng(seed)
    x0, y0, x1, y1 = comp.bounds
    routes = []
    while len(routes) < n:
        p = rng.uniform([x0, y0], [x1, y1], size=(64, 2))
        p = p[shapely.contains_xy(comp, p[:, 0], p[:, 1])]
        for s, g in zip(p[0::2], p[1::2]):
            if len(routes) == n or np.hypot(*(g - s)) < 100.0:
                continue
            try:
                routes.append(plan_route(scene, s, g, "cdt", profile=profile, clearance=radius, context=ctx).route)
            except InputError:
                continue
    sim = Simulation(scene, mesh=mesh, method=method, record=False, add_scene_agents=False, planner_context=ctx)
    sim.add_agents(routes, [profile] * n)
    return sim


def _agent_step_us(sim, steps: int) -> float:
    """CPU microseconds per walking agent per step over ``steps`` steps (after one warm-up step)."""
    sim.step()
    walking = sim.walking()
    t0 = time.thread_time()
    sim.step(steps)
    dt = time.thread_time() - t0
    walking = 0.5 * (walking + sim.walking())
    return 1e6 * dt / max(steps * walking, 1.0)


def run(quick: bool) -> list[Record]:
    """Table 1 paths, then agent-step costs on the city."""
    from core.navmesh import build_navmesh
    from core.scene.io import load_scene
    from core.sim import Simulation, kernels

    out: list[Record] = []
    scenes = {name: load_scene(SCENES_DIR / f"{name}.json") for name in ("mckenna", "mckenna_road", "city")}
    meshes = {name: build_navmesh(s) for name, s in scenes.items()}
    warm = Simulation(scenes["mckenna"], mesh=meshes["mckenna"], record=False)
    t, origin = first_call(kernels.advance, lambda: warm.step())
    out.append(_rec("jit first MIRAN step", t, "s", f"step kernels from {origin}"))
    for name, sigma, d, paper_ms in TABLE_1:
        if quick and sigma not in (100.0, 40.0):
            continue
        fine = scenes[name].simulation.dt
        paths = {dt: _path_points(scenes[name], meshes[name], sigma, d, dt) for dt in (fine, 1.0)}
        for dt in (fine, 1.0):
            sec, steps, arrived = _path_time(scenes[name], meshes[name], sigma, d, 3 if quick else 15, dt)
            ms = 1e3 * sec
            same = ""
            if dt != fine:
                import shapely

                gap = shapely.hausdorff_distance(shapely.linestrings(paths[dt]), shapely.linestrings(paths[fine]))
                same = f"; {gap:.2f} units from the dt={fine:g} path at most (Hausdorff)"
            out.append(_rec(f"miran path {name} sigma={sigma:g} d={d:g} dt={dt:g}", ms, "ms",
                            f"Table 1: {paper_ms} ms (2013): {paper_ms / ms:.2f}x; {steps} steps "
                            f"({1e3 * ms / max(steps, 1):.2f} us/step){same}{'' if arrived else '; DID NOT ARRIVE'}"))
    n = 100 if quick else CROWD
    city = scenes["city"]
    for method in ("miran", "disc-miran"):
        sim = _crowd(city, meshes["city"], method, n)
        us = _agent_step_us(sim, 10 if quick else 50)
        load = us * 1e-6 * n / sim.params.dt
        out.append(_rec(f"us per agent-step {method} city {n} agents", us, "us",
                        f"CPU-load {100 * load:.1f}% at dt {sim.params.dt:g} s for {n} agents (IRM 2009: 3,500 "
                        f"agents at 30%)"))
    from .crowd import cpu_load_records  # IRM section 6: respawning crowds of 1,000 to 10,000 agents

    out += cpu_load_records(quick)
    return out
