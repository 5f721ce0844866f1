"""CPU-load of crowds on the city (IRM section 6): records ``cpu_load <method> <N> agents`` for the steering section.

The experiment of IRM section 6: N characters placed at random in the city, each walking to a random goal and given a
new one on arrival (``respawn``), dt = 0.1 s, Verlet for IRM (its section 6) and Euler for MIRAN (its section 5), one
core. Routes come from ``planner_for``: terrain-weighted for MIRAN, shortest for IRM. CPU-load = CPU time spent /
simulated time (IRM section 6; docs: Explanation, how performance is measured), measured in steady state: after the
first call has compiled or loaded the kernels and after a warm-up of simulated time, over a fixed number of steps,
counting everything the simulation does in them (the step kernels, replanning of agents pushed out of sight of their
routes, the new errands of arrived agents: their route planning and IRM corridors).

``crowd step <N> miran agents, 2 threads vs 1``: the same respawning crowd stepped on one thread and on two
(core.sim.Simulation threads), the wall-clock speed-up over the same steps, each run's process CPU time (all
threads) and the machine's load average, and whether both ended with byte-identical positions (they must); the median
of three fresh processes with their range, since the same kernels run at different speeds in different processes.

The setup (planning N routes) is not counted; it is reported as seconds per agent. CPU time is that of the calling
thread (``time.thread_time``), so other processes sharing the machine disturb the figures less.

Routes on the city take minutes to walk, so the measured window sees fewer new errands than the long run does.
``cpu_load <method> <N> agents long-run`` therefore replaces the window's errand cost by the long-run rate (N agents
/ mean route duration at their speed) times the mean CPU cost of an errand (planning and, for IRM, the corridor,
measured over the setup's N errands): the figure to hold against IRM section 6, which counted whole paths.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np


from .record import Record

SECTION = "steering"
SCENES_DIR = Path(__file__).resolve().parents[2] / "scenes"
SIZES = (1000, 5000, 10000)
# Issue 20's crowds, one core at <= 30 % CPU-load: 20,000 MIRAN characters and 40,000 IRM characters.
LARGE = {"miran": 20000, "irm": 40000}
QUICK_SIZES = (200,)
# The crowd of the threads record, and the speed-up issue 20 asks of two threads over one.
THREAD_CROWD = 5000
THREAD_TARGET = 1.7
# IRM 2009, section 6 / Figure 6 (2.4 GHz Core2 Duo, one core, C++): 1,000 characters 6.15 %, about 3,500 at 30 %,
# 5,000 under 55 %.
PAPER = {1000: "IRM 2009: 1000 agents at 6.15%", 5000: "IRM 2009: 5000 agents under 55%"}
REAL_TIME = 0.30
WARMUP_S = 5.0
MEASURE_STEPS = 100


def _reference(n: int, method: str) -> str:
    target = f"; issue 20 target <= 30% at {n} {method} agents" if LARGE.get(method) == n else ""
    return PAPER.get(n, "IRM 2009: about 3500 agents at 30%") + f"; {method}; real time means <= 30%" + target


def planner_for(method: str) -> str:
    """The planner of a crowd's errands: terrain-weighted ``cdt`` routes for MIRAN, whose point is to prefer cheap
    terrain, and shortest ``portal`` routes for IRM, which ignores terrain and whose characters follow shortest
    paths with clearance (IRM sections 3 and 6)."""
    return "portal" if method == "irm" else "cdt"


def crowd_simulation(scene, mesh, context, method: str, n: int, seed: int = 1, fidelity: str = "exact"):
    """A respawning crowd of n random agents on the scene, without path recording."""
    from core.sim import Simulation

    sim = Simulation(scene, mesh=mesh, method=method, integrator="verlet" if method == "irm" else "euler",
                     dt=0.1, seed=seed, record=False, add_scene_agents=False, planner_context=context,
                     fidelity=fidelity)
    sim.respawn = True
    sim.planner = planner_for(method)
    # IRM section 6's characters: one kind, 1.4 m/s, r = 0.25 (the city's pedestrian profile).
    sim.add_random_agents(n, seed=seed, profiles=[scene.profiles[0].id])
    return sim


def cpu_load(sim, steps: int) -> tuple[float, dict]:
    """CPU-load over ``steps`` steps of a warmed-up simulation, and what happened meanwhile."""
    replanned, respawned = sim.replanned, sim.respawned
    t0 = time.thread_time()
    sim.run(max_steps=steps)
    cpu = time.thread_time() - t0
    return cpu / (steps * sim.params.dt), {"cpu_s": cpu, "replanned": sim.replanned - replanned,
                                           "respawned": sim.respawned - respawned, "walking": sim.walking()}


def cpu_load_records(quick: bool, sizes=None, methods=("miran", "irm"), scene_name: str = "city") -> list[Record]:
    """``cpu_load <method> <N> agents`` records on the city (fractions of one core)."""
    from core.navmesh import build_navmesh
    from core.routes import PlannerContext
    from core.scene.io import load_scene

    scene = load_scene(SCENES_DIR / f"{scene_name}.json")
    mesh = build_navmesh(scene)
    ctx = PlannerContext(scene, navmesh=mesh)
    out: list[Record] = []
    for method in methods:
        # The planner's and the step's kernels compiled (or loaded) first: the setup times below count no JIT.
        crowd_simulation(scene, mesh, ctx, method, 8).run(max_steps=2)
        for n, fidelity in _crowds(quick, sizes, method):
            t0 = time.thread_time()
            sim = crowd_simulation(scene, mesh, ctx, method, n, fidelity=fidelity)
            setup = time.thread_time() - t0
            st = sim.state
            route_s = float(np.mean(sim.routes.s[st.route_hi - 1] / sim.params.prof["max_speed"][st.profile]))
            sim.run(max_steps=1)                                     # kernels compiled or loaded: not counted
            sim.run(max_steps=int(round((1.0 if quick else WARMUP_S) / sim.params.dt)))
            steps = 10 if quick else MEASURE_STEPS
            load, info = cpu_load(sim, steps)
            tag = "" if fidelity == "exact" else f" {fidelity}"
            out.append(Record(SECTION, f"cpu_load {method} {n} agents{tag}", load, "fraction",
                              f"{_reference(n, method)}; {1e6 * info['cpu_s'] / (n * steps):.2f} us per agent-step; "
                              f"{info['respawned']} new errands and {info['replanned']} "
                              f"replans in the window; setup {1e3 * setup / n:.2f} ms per agent"))
            errand = setup / n
            long_run = load - info["respawned"] * errand / (steps * sim.params.dt) + (n / route_s) * errand
            out.append(Record(SECTION, f"cpu_load {method} {n} agents{tag} long-run", long_run, "fraction",
                              f"{_reference(n, method)}; the window's load with new errands at their long-run rate: "
                              f"{n / route_s:.1f} per s (routes of {route_s:.0f} s) at {1e3 * errand:.2f} ms each"))
    out.append(thread_record(quick))
    return out


def _crowds(quick: bool, sizes, method: str) -> list[tuple[int, str]]:
    """(N, fidelity) of each crowd measured: every size in exact mode, and the largest again in fast mode
    (core.sim.fidelity; issue 31's targets are for fast mode at LARGE)."""
    ns = list(sizes or (QUICK_SIZES if quick else SIZES + ((LARGE[method],) if method in LARGE else ())))
    return [(n, "exact") for n in ns] + [(ns[-1], "fast")]


def thread_times(scene, mesh, ctx, quick: bool) -> dict:
    """One process's measurement for ``thread_record``: the same crowd stepped on one thread and on two, wall and
    process CPU seconds of each, and whether both ended with byte-identical positions."""
    n = QUICK_SIZES[0] if quick else THREAD_CROWD
    steps = 10 if quick else MEASURE_STEPS // 2
    sims = {t: crowd_simulation(scene, mesh, ctx, "miran", n) for t in (1, 2)}
    wall: dict[int, float] = {}
    cpu: dict[int, float] = {}
    for t, sim in sims.items():
        sim.set_threads(t)
        sim.run(max_steps=int(round((1.0 if quick else WARMUP_S) / sim.params.dt)))   # compiled, warmed up
    for t, sim in sims.items():
        w0, c0 = time.perf_counter(), time.process_time()
        sim.run(max_steps=steps)
        wall[t], cpu[t] = time.perf_counter() - w0, time.process_time() - c0
    same = sims[1].state.pos.tobytes() == sims[2].state.pos.tobytes() and sims[1].steps == sims[2].steps
    return {"n": n, "steps": steps, "wall": [wall[1], wall[2]], "cpu": [cpu[1], cpu[2]], "same": same}


def thread_child() -> None:
    """``thread_times`` on the city in this process (``quick`` read as JSON from stdin; one JSON line printed)."""
    import json
    import sys

    from core.navmesh import build_navmesh
    from core.routes import PlannerContext
    from core.scene.io import load_scene

    quick = bool(json.loads(sys.stdin.read()))
    scene = load_scene(SCENES_DIR / "city.json")
    mesh = build_navmesh(scene)
    print(json.dumps(thread_times(scene, mesh, PlannerContext(scene, navmesh=mesh), quick)))


def thread_record(quick: bool, processes: int | None = None) -> Record:
    """``crowd step <N> miran agents, 2 threads vs 1``: wall-clock speed-up of two threads over one on the same
    steps of the same crowd, the median over ``processes`` fresh processes (3; 1 with ``quick``) with the range,
    each run's CPU time (all threads) and the load; positions must match bit for bit in every process.

    Fresh processes, as for Table 1 (core.bench.steering.table_1_in_processes): the same kernels run up to 1.4x
    faster in one process than in another (measured 14.1 to 19.7 ms a step on one thread), and one process's ratio
    is not what a user gets."""
    from .fresh import in_fresh_processes

    runs = in_fresh_processes("core.bench.crowd:thread_child", quick, processes or (1 if quick else 3),
                              "threads-record")
    ratios = sorted(r["wall"][0] / r["wall"][1] for r in runs)
    mid = runs[[r["wall"][0] / r["wall"][1] for r in runs].index(ratios[len(ratios) // 2])]
    n, steps = mid["n"], mid["steps"]
    same = all(r["same"] for r in runs)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return Record(SECTION, f"crowd step {n} miran agents, 2 threads vs 1", ratios[len(ratios) // 2], "x",
                  f"issue 20 target >= {THREAD_TARGET}x; median of {len(runs)} processes, "
                  f"{ratios[0]:.2f}x to {ratios[-1]:.2f}x; {steps} steps in the median one: 1 thread "
                  f"{1e3 * mid['wall'][0] / steps:.1f} ms per step ({1e3 * mid['cpu'][0] / steps:.1f} ms CPU), "
                  f"2 threads {1e3 * mid['wall'][1] / steps:.1f} ms per step ({1e3 * mid['cpu'][1] / steps:.1f} ms "
                  f"CPU); positions {'identical' if same else 'DIFFERENT'} in every process; load average "
                  f"{load:.1f} on {cores} cores")
