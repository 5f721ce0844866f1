"""IRM Figure 6's measurement: the long-run CPU-load of respawning crowds on the city, repeated over several windows
(median), with the density that makes a step's cost grow with the crowd.

The load of one window (``core.bench.crowd``: CPU time of the calling thread / simulated time, kernels compiled and
5 s of warm-up before the clock) is noisy on a shared machine; the figure kept is the median of ``windows``
windows, the sizes' windows taking turns so that the machine's changing load falls on all of them. Beside it, the
mean number of other characters within an agent's avoidance reach (IRM eq. 6, d_o + 2 r, the cells the force
kernel scans): on a fixed city the crowd gets denser as it grows, and every
neighbour adds a force term to every step (IRM section 5, the social forces).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import shapely

from core.sim.state import WALKING

SCENES_DIR = Path(__file__).resolve().parents[2] / "scenes"
WARMUP_S = 5.0
WINDOW_STEPS = 100


@dataclass
class CrowdLoad:
    """One crowd size of one method: the long-run and window loads (% of one core, median over the windows), every
    window's long-run load, the CPU microseconds per agent-step, the neighbours per agent, the mean time to walk a
    route (s), the CPU cost of an errand (ms) and the replans (characters pushed out of sight of their route) per
    agent per 1,000 steps; the recovery counter of the crowd over its whole run (core.sim.progress): agent-steps,
    of them in recovery, stalls, characters that stalled, the largest share of one character's steps."""

    method: str
    agents: int
    long_run: float
    window: float
    long_runs: list[float]
    us_per_agent_step: float
    neighbours: float
    traverse_s: float
    errand_ms: float
    replans: float
    agent_steps: int = 0
    recovered_steps: int = 0
    stalls: int = 0
    stalled: int = 0
    worst_share: float = 0.0


def neighbours_per_agent(sim) -> float:
    """Mean number of other walking characters within the avoidance reach d_o + 2 r of each walking character
    (shapely's STRtree, an exact distance query)."""
    st = sim.state
    walking = st.status == WALKING
    pts = shapely.points(st.pos[walking])
    if len(pts) < 2:
        return 0.0
    vmax = float(sim.params.prof["max_speed"].min())
    d_o = float(sim.params.glob["d_o"][0]) if sim.params.glob["d_o"][0] > 0 else vmax
    reach = d_o + 2.0 * float(sim.params.prof["radius"].max())
    pairs = shapely.STRtree(pts).query(pts, predicate="dwithin", distance=reach)
    return float(np.count_nonzero(pairs[0] != pairs[1]) / len(pts))


def crowd_loads(sizes: tuple[int, ...], methods: tuple[str, ...] = ("miran", "irm"), windows: int = 3,
                quick: bool = False) -> list[CrowdLoad]:
    """Measure every (method, size) on the city: setup (the N errands' routes and corridors) timed apart, then
    ``windows`` windows of WINDOW_STEPS steps per size after the warm-up, the sizes taking turns. The long-run load
    replaces a window's errands by their long-run rate (N / mean route duration) at the setup's mean cost per errand
    (``core.bench.crowd``)."""
    from core.bench.crowd import cpu_load, crowd_simulation
    from core.navmesh import build_navmesh
    from core.routes import PlannerContext
    from core.scene.io import load_scene

    scene = load_scene(SCENES_DIR / "city.json")
    mesh = build_navmesh(scene)
    ctx = PlannerContext(scene, navmesh=mesh)
    steps = 10 if quick else WINDOW_STEPS
    out = []
    for method in methods:
        crowd_simulation(scene, mesh, ctx, method, 8).run(max_steps=2)      # kernels compiled before any clock
        sims, errand, route_s = {}, {}, {}
        for n in sizes:
            t0 = time.thread_time()
            sims[n] = sim = crowd_simulation(scene, mesh, ctx, method, n)
            errand[n] = (time.thread_time() - t0) / n
            st = sim.state
            route_s[n] = float(np.mean(sim.routes.s[st.route_hi - 1] / sim.params.prof["max_speed"][st.profile]))
            sim.run(max_steps=1)
            sim.run(max_steps=int(round((1.0 if quick else WARMUP_S) / sim.params.dt)))
        got: dict[int, list[tuple]] = {n: [] for n in sizes}
        # The sizes' windows interleaved, so that a change in the machine's load falls on every size alike.
        for _ in range(windows):
            for n in sizes:
                sim = sims[n]
                load, info = cpu_load(sim, steps)
                dt = sim.params.dt
                long_run = load - info["respawned"] * errand[n] / (steps * dt) + (n / route_s[n]) * errand[n]
                got[n].append((load, long_run, 1e6 * info["cpu_s"] / (n * steps),
                               1e3 * info["replanned"] / (n * steps)))
        for n in sizes:
            loads, long_runs, us, replans = (list(v) for v in zip(*got[n]))
            rec = sims[n].recovery()
            share = rec["recovered_steps"] / np.maximum(rec["steps"], 1)
            out.append(CrowdLoad(method, n, 100.0 * float(np.median(long_runs)), 100.0 * float(np.median(loads)),
                                 [100.0 * v for v in long_runs], float(np.median(us)), neighbours_per_agent(sims[n]),
                                 route_s[n], 1e3 * errand[n], float(np.mean(replans)), int(rec["steps"].sum()),
                                 int(rec["recovered_steps"].sum()), int(rec["stalls"].sum()),
                                 int(np.count_nonzero(rec["stalls"])), float(share.max()) if len(share) else 0.0))
    return out
