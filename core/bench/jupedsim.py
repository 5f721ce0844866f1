"""Benchmark section ``jupedsim``: exact, fast and JuPedSim side by side, CPU microseconds per agent-step of the same
errands on the city.

The crowd is ``core.bench.crowd``'s (N characters at random places, each walking to a random goal, new errands on
arrival, r = 0.25, 1.4 m/s, dt = 0.1 s, one core). It is stepped in exact mode and in fast mode (core.sim.fidelity),
and the same starts and goals go to JuPedSim's collision-free speed model (Tordeux et al. 2016, the model of
JuPedSim's tutorials) on the city's walkable area, each character with an exit of 0.4 m around its goal. JuPedSim
steps at the same dt here (its own default is 0.01 s, ten steps per simulated 0.1 s); it plans its own routes on
its own navigation mesh, and the time of setting it up is not counted, as the crowd's planning is not.

JuPedSim refuses a character that starts closer to another character or a wall than its model allows; those are
left out and counted.
Each figure is the median of fresh processes, all three measured in each one (the same kernels run at different
speeds in different processes). JuPedSim is optional (``pip install --no-deps jupedsim deprecated``: its own
dependencies are its visualiser's, PySide6 and VTK, and would replace the PySide6 this project pins); without it the
section records that no comparison ran.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import time

import numpy as np

from .fresh import in_fresh_processes
from .record import Record

SECTION = "jupedsim"
# Characters of the comparison, full and quick; simulated steps measured after a warm-up of WARMUP_STEPS.
CROWD = {False: 1000, True: 200}
STEPS = {False: 100, True: 10}
WARMUP_STEPS = 10
EXIT_HALF = 0.2


def available() -> bool:
    """Whether JuPedSim is installed."""
    return importlib.util.find_spec("jupedsim") is not None


def _miran_us(sim, steps: int) -> float:
    """CPU microseconds per walking agent per step of a warmed-up simulation over ``steps`` steps."""
    walking = sim.walking()
    t0 = time.thread_time()
    sim.run(max_steps=steps)
    cpu = time.thread_time() - t0
    return 1e6 * cpu / max(steps * 0.5 * (walking + sim.walking()), 1.0)


def jupedsim_crowd(walkable, starts: np.ndarray, goals: np.ndarray, speed: float, radius: float, dt: float):
    """(JuPedSim simulation, characters it refused): one character per start (k, 2) walking to an exit around its
    goal (k, 2), in JuPedSim's collision-free speed model on ``walkable`` (a shapely polygon)."""
    import jupedsim as jps
    import shapely

    sim = jps.Simulation(model=jps.CollisionFreeSpeedModel(), geometry=walkable, dt=dt)
    refused = 0
    for (x, y), (gx, gy) in zip(starts, goals):
        stage = sim.add_exit_stage(shapely.box(gx - EXIT_HALF, gy - EXIT_HALF, gx + EXIT_HALF, gy + EXIT_HALF))
        journey = sim.add_journey(jps.JourneyDescription([stage]))
        try:
            sim.add_agent(jps.CollisionFreeSpeedModelAgentParameters(
                position=(float(x), float(y)), journey_id=journey, stage_id=stage, desired_speed=speed,
                radius=radius))
        except RuntimeError:
            refused += 1
    return sim, refused


def _jupedsim_us(sim, steps: int) -> float:
    """CPU microseconds per agent per iteration over ``steps`` iterations of a JuPedSim simulation."""
    present = 0
    t0 = time.thread_time()
    for _ in range(steps):
        present += sim.agent_count()
        sim.iterate()
    return 1e6 * (time.thread_time() - t0) / max(present, 1)


def side_by_side(quick: bool, scene_name: str = "city") -> dict:
    """One process's figures: N, microseconds per agent-step of exact, fast and JuPedSim, the characters JuPedSim
    refused, and dt."""
    from core.analysis.density import free_space
    from core.navmesh import build_navmesh
    from core.routes import PlannerContext
    from core.scene.io import load_scene

    from .crowd import SCENES_DIR, crowd_simulation

    scene = load_scene(SCENES_DIR / f"{scene_name}.json")
    mesh = build_navmesh(scene)
    context = PlannerContext(scene, navmesh=mesh)
    n, steps = CROWD[quick], STEPS[quick]
    out: dict = {"n": n, "steps": steps}
    for fidelity in ("exact", "fast"):
        sim = crowd_simulation(scene, mesh, context, "miran", n, fidelity=fidelity)
        sim.run(max_steps=WARMUP_STEPS)                       # kernels compiled or loaded, not counted
        out[fidelity] = _miran_us(sim, steps)
        if fidelity == "exact":
            st = sim.state
            starts, goals = st.pos.copy(), st.goal.copy()
            out["dt"] = float(sim.params.dt)
            speed = float(sim.params.prof["max_speed"][st.profile[0]])
            radius = float(st.radius[0])
    walkable = free_space(scene)
    if walkable.geom_type != "Polygon":
        walkable = max(walkable.geoms, key=lambda g: g.area)
    jsim, refused = jupedsim_crowd(walkable, starts, goals, speed, radius, out["dt"])
    for _ in range(WARMUP_STEPS):
        jsim.iterate()
    out["jupedsim"] = _jupedsim_us(jsim, steps)
    out["refused"] = refused
    return out


def child() -> None:
    """``side_by_side`` in this process (``quick`` read as JSON from stdin; one JSON line printed)."""
    print(json.dumps(side_by_side(bool(json.loads(sys.stdin.read())))))


def records(quick: bool, processes: int | None = None) -> list[Record]:
    """``per agent-step <mode> <N> agents`` for exact, fast and JuPedSim, medians of ``processes`` fresh processes
    (3; 1 with ``quick``), and JuPedSim's over exact's; one record saying so when JuPedSim is not installed."""
    if not available():
        return [Record(SECTION, "jupedsim comparison", 0, "available",
                       "JuPedSim is not installed (pip install --no-deps jupedsim deprecated, see the performance "
                       "docs): no comparison with an established crowd simulator was run")]
    runs = in_fresh_processes("core.bench.jupedsim:child", quick, processes or (1 if quick else 3),
                              "JuPedSim comparison")
    n, steps, dt = runs[0]["n"], runs[0]["steps"], runs[0]["dt"]
    refused = max(r["refused"] for r in runs)
    where = (f"the city, {n} characters' errands, dt {dt:g} s, {steps} steps after {WARMUP_STEPS}, one core; median "
             f"of {len(runs)} processes")
    out_records = []
    for key, label in (("exact", "miran exact"), ("fast", "miran fast"), ("jupedsim", "jupedsim cfs")):
        values = sorted(r[key] for r in runs)
        note = (f"; JuPedSim refused {refused} of {n} starts (its model's constraint: too close to another "
                f"character or a wall)") if key == "jupedsim" else ""
        out_records.append(Record(SECTION, f"per agent-step {label} {n} agents", values[len(values) // 2], "us",
                                  f"{where}, {values[0]:.2f} to {values[-1]:.2f} us{note}"))
    ratios = sorted(r["jupedsim"] / r["exact"] for r in runs)
    out_records.append(Record(SECTION, f"per agent-step jupedsim cfs vs miran exact {n} agents",
                              ratios[len(ratios) // 2], "x",
                              f"{where}; JuPedSim's collision-free speed model over exact MIRAN, each process's own "
                              f"ratio, {ratios[0]:.1f}x to {ratios[-1]:.1f}x"))
    return out_records


def run(quick: bool) -> list[Record]:
    return records(quick)
