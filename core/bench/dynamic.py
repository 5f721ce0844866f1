"""Benchmark section ``dynamic``: a world that changes while a crowd walks (core.sim.world, core.sim.moving).

On the city with N characters on errands (``core.bench.crowd``'s crowd: random places and goals, r = 0.25, 1.4 m/s,
dt = 0.1 s, one core), CPU time of:

- inserting a 6 x 6 m market stall into a street where characters walk (``Simulation.add_obstacle``: the navigation
  mesh updated locally, the characters it covers moved out and replanned, those whose way it crosses queued), the
  first step after it (the first queued characters replanned, which builds the planners' structures anew), and
  deleting the stall again; beside a full build of the same scene's structures in the same process (the mesh, a
  planners' context and one route a profile), and the full build over the insertion with its first step;
- within those, the navigation mesh's local update (``core.navmesh.update``) at the insertion and the deletion,
  against ``build_navmesh`` of the same scene from scratch, and the local update of the Explicit Corridor Map the
  planners' context holds (``core.ecm.update``) against ``build_ecm`` from scratch (the exact backend);
- the later steps, while the queued characters get their new routes a few a step: the slowest of them over a plain
  step of the same crowd;
- a step with the city's car driving round the park (``scenes/city_traffic.json``) over a step without it;
- the step at which a street closes on the scene's schedule, over the steps around it (wall time), with the change
  prepared off the step thread (``core.sim.world.prepare_ahead``) and computed at the step.

Each figure is the median of fresh processes (the same code runs at different speeds in different processes).
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import sys
import time
from pathlib import Path

import numpy as np

from core.sim.world import REPLANS_PER_STEP

from .fresh import in_fresh_processes
from .record import Record

SECTION = "dynamic"
CROWD = {False: 2000, True: 200}
STEPS = {False: 50, True: 5}
# The stall: a 6 x 6 m square on the road y = 250 between two crossings, where errands cross the city.
STALL = [(197.0, 247.0), (203.0, 247.0), (203.0, 253.0), (197.0, 253.0)]
# scenes/city_traffic.json's roadworks, closing the street at x = 250 wall to wall, here at CLOSES_AT seconds.
ROADWORKS = [[239, 326], [261, 326], [261, 330], [239, 330]]
CLOSES_AT = 8.0
SCENES = Path(__file__).resolve().parents[2] / "scenes"
# Beside the local updates: the one update time of van Toll, Cook and Geraerts (CAVW 23(6), 2012) quoted here, and
# how Recast's TileCache updates its mesh instead.
VAN_TOLL = ("van Toll, Cook and Geraerts (CAVW 2012, Figure 1) insert an obstacle into their multi-layered Layers "
            "environment in 1.1 ms (C++, their 2012 machine)")
TILE_CACHE = ("Recast's dtTileCache instead rebuilds every tile an obstacle touches, whole, and its obstacles are "
              "cylinders and boxes; here any simple polygon, and only the triangles around it")


def _with_errands(scene, n: int):
    """A simulation of ``scene`` (no scene agents, nothing recorded) with n characters on errands."""
    from core.sim import Simulation

    sim = Simulation(scene, add_scene_agents=False, record=False)
    sim.add_random_agents(n, seed=11)
    return sim


def _crowd(scene, n: int):
    """``_with_errands`` warmed up."""
    sim = _with_errands(scene, n)
    sim.step(5)
    return sim


def _step_ms(sim, steps: int) -> float:
    """CPU milliseconds a step over ``steps`` steps."""
    t0 = time.process_time()
    sim.step(steps)
    return 1e3 * (time.process_time() - t0) / steps


def _closing_ms(n: int, ahead: float) -> tuple[float, float, bool]:
    """(wall ms of the step at which the street at x = 250 closes on schedule in front of n characters, the median
    wall ms of the steps around it, whether the change was prepared ahead), with ``Simulation.prepare_ahead_s`` =
    ``ahead``: wall time, because the preparation runs on another thread."""
    from core.scene.io import load_scene, scene_to_dict
    from core.scene.parse import parse_scene

    data = scene_to_dict(load_scene(SCENES / "city.json"))
    data["obstacles"].append({"id": "roadworks", "polygon": ROADWORKS, "appears": CLOSES_AT})
    sim = _with_errands(parse_scene(data), n)
    sim.prepare_ahead_s = ahead
    sim.run(until=CLOSES_AT - 3.0)
    walls = []
    while sim.time < CLOSES_AT + 3.0:
        w0 = time.perf_counter()
        sim.step(1)
        walls.append(time.perf_counter() - w0)
    return 1e3 * max(walls), 1e3 * float(np.median(walls)), sim.last_world_update_prepared


def measure(quick: bool) -> dict:
    """The section's figures in this process (see the module docstring)."""
    from core.ecm.build import build_ecm
    from core.navmesh import build_navmesh
    from core.routes import PlannerContext, plan_route
    from core.scene.io import load_scene
    from core.scene.model import Obstacle

    n, steps = CROWD[quick], STEPS[quick]
    city = load_scene(SCENES / "city.json")
    sim = _crowd(city, n)
    # The planners' context holds the city's ECM (the exact backend: no OpenGL needed), which a change updates; its
    # update's module is imported first, once a process, as a run that holds an ECM imports it at its first change.
    sim.context.ecm = build_ecm(city, backend="exact")
    importlib.import_module("core.ecm.update")
    plain = _step_ms(sim, steps)
    sim.add_obstacle(STALL, "stall")
    insert = 1e3 * sim.last_world_update_s
    mesh_insert, local = 1e3 * sim.last_mesh_update_s, sim.last_mesh_update_local
    ecm_insert, ecm_local = 1e3 * sim.last_ecm_update_s, sim.last_ecm_update_local
    queued = len(sim.replanning)
    # The first step replans the first queued characters and so builds the planners' structures anew.
    drain = []
    while len(sim.replanning):
        drain.append(_step_ms(sim, 1))
    sim.remove_obstacle("stall")
    delete = 1e3 * sim.last_world_update_s
    mesh_delete, local = 1e3 * sim.last_mesh_update_s, local and sim.last_mesh_update_local
    ecm_delete, ecm_local = 1e3 * sim.last_ecm_update_s, ecm_local and sim.last_ecm_update_local
    with_stall = dataclasses.replace(city, obstacles=[*city.obstacles, Obstacle("stall", STALL)])
    st = sim.state
    t0 = time.process_time()
    mesh = build_navmesh(with_stall)
    mesh_full = 1e3 * (time.process_time() - t0)
    t0 = time.process_time()
    build_ecm(with_stall, backend="exact")
    ecm_full = 1e3 * (time.process_time() - t0)
    ctx = PlannerContext(with_stall, navmesh=mesh)
    for k, p in enumerate(sim.params.profile_ids):
        # One route a profile: what the first replans build (the planner's structures at each clearance).
        plan_route(with_stall, st.pos[k], st.goal[k], sim.planner, profile=p, clearance=sim.clearance_for(p),
                   context=ctx, spot=False)
    full = 1e3 * (time.process_time() - t0)
    traffic = load_scene(SCENES / "city_traffic.json")
    still = dataclasses.replace(traffic, obstacles=[o for o in traffic.obstacles if not o.moving])
    car = _step_ms(_crowd(traffic, n), steps)
    no_car = _step_ms(_crowd(still, n), steps)
    closing, around, prepared = _closing_ms(n, 10.0)
    closing_now, around_now, _ = _closing_ms(n, -1.0)
    return {"n": n, "steps": steps, "insert": insert, "delete": delete, "full": full, "queued": queued,
            "mesh_insert": mesh_insert, "mesh_delete": mesh_delete, "mesh_full": mesh_full, "local": local,
            "ecm_insert": ecm_insert, "ecm_delete": ecm_delete, "ecm_full": ecm_full, "ecm_local": ecm_local,
            "both_insert": mesh_insert + ecm_insert, "both_full": mesh_full + ecm_full,
            "first": drain[0] if drain else plain, "drain": max(drain[1:]) if len(drain) > 1 else plain,
            "drain_steps": len(drain), "plain": plain, "car": car, "no_car": no_car, "closing": closing,
            "around": around, "prepared": prepared, "closing_now": closing_now, "around_now": around_now}


def child() -> None:
    """``measure`` in this process (``quick`` read as JSON from stdin; one JSON line printed)."""
    print(json.dumps(measure(bool(json.loads(sys.stdin.read())))))


def _median(runs: list, key) -> tuple[float, float, float]:
    values = sorted(key(r) for r in runs)
    return values[len(values) // 2], values[0], values[-1]


def records(quick: bool, processes: int | None = None) -> list[Record]:
    """The section's records, medians of ``processes`` fresh processes (3; 1 with ``quick``)."""
    runs = in_fresh_processes("core.bench.dynamic:child", quick, processes or (1 if quick else 3), "dynamic world")
    n = runs[0]["n"]
    where = f"the city, {n} characters on errands, one core; median of {len(runs)} processes"
    out = []
    for key, name, what in (
            ("insert", f"insert a building {n} walking", "Simulation.add_obstacle of a 6 x 6 m stall in a street: "
                                                         "the mesh updated around it, the characters it covers "
                                                         "moved and replanned (the planners' structures built "
                                                         "anew), those whose way it crosses queued"),
            ("mesh_insert", "navigation mesh update, insertion", "the local update of the mesh and its clearance "
                                                                 "grids within that insertion (core.navmesh.update); "
                                                                 + TILE_CACHE),
            ("mesh_delete", "navigation mesh update, deletion", "the same within the deletion"),
            ("mesh_full", "navigation mesh full build", "build_navmesh of the scene with the stall, from scratch"),
            ("ecm_insert", "ECM update, insertion", "the local update of the planners' Explicit Corridor Map within "
                                                   "that insertion (core.ecm.update); " + VAN_TOLL),
            ("ecm_delete", "ECM update, deletion", "the same within the deletion"),
            ("ecm_full", "ECM full build", "build_ecm of the scene with the stall, from scratch, exact backend"),
            ("both_insert", "navigation mesh and ECM update, insertion", "the two local updates of the insertion "
                                                                        "together (issue 30 asks for 20 ms or less)"),
            ("first", "first step after it", "the first queued characters replanned, the planners' structures "
                                             "built anew for them"),
            ("delete", f"delete it {n} walking", "Simulation.remove_obstacle of the same stall"),
            ("full", "full build of the scene with it", "build_navmesh, a planners' context and one route a "
                                                       "profile (its structures at each clearance), from scratch"),
            ("plain", f"step {n} characters", "a step of the same crowd, nothing changing")):
        mid, lo, hi = _median(runs, lambda r, k=key: r[k])
        out.append(Record(SECTION, name, mid, "ms", f"{where}; {what}; {lo:.1f} to {hi:.1f} ms"))
    if not all(r["local"] for r in runs):
        raise RuntimeError("dynamic world: the navigation mesh was built afresh, not updated locally")
    mid, lo, hi = _median(runs, lambda r: r["mesh_full"] / r["mesh_insert"])
    out.append(Record(SECTION, "mesh full build over local update", mid, "x",
                      f"{where}; the navigation mesh built afresh against its local update at the insertion "
                      f"(issue 30 asks for 10x or more); {lo:.1f}x to {hi:.1f}x"))
    if not all(r["ecm_local"] for r in runs):
        raise RuntimeError("dynamic world: the ECM was dropped, not updated locally")
    for key, full, name, what in (
            ("ecm_insert", "ecm_full", "ECM full build over local update", "the ECM built afresh"),
            ("both_insert", "both_full", "mesh and ECM full build over local update",
             "the navigation mesh and the ECM built afresh")):
        mid, lo, hi = _median(runs, lambda r, k=key, f=full: r[f] / r[k])
        out.append(Record(SECTION, name, mid, "x", f"{where}; {what} against their local update at the insertion "
                                                    f"(issue 30 asks for 10x or more); {lo:.1f}x to {hi:.1f}x"))
    mid, lo, hi = _median(runs, lambda r: r["full"] / (r["insert"] + r["first"]))
    out.append(Record(SECTION, "full build over insertion", mid, "x",
                      f"{where}; the insertion and its first step against a full build of the mesh, a planners' "
                      f"context and a route a profile: the planners' structures are still built anew, so this "
                      f"stays near 1; {lo:.2f}x to {hi:.2f}x"))
    mid, lo, hi = _median(runs, lambda r: r["drain"] / r["plain"])
    queued = int(np.median([r["queued"] for r in runs]))
    out.append(Record(SECTION, "slowest later step while replanning over a plain step", mid, "x",
                      f"{where}; after the first step, {queued} characters queued for a new route, "
                      f"{REPLANS_PER_STEP} replanned a step over {int(np.median([r['drain_steps'] for r in runs]))} "
                      f"steps; {lo:.2f}x to {hi:.2f}x"))
    if not all(r["prepared"] for r in runs):
        raise RuntimeError("dynamic world: the scheduled closing was not prepared ahead")
    for key, base, name, what in (
            ("closing", "around", "step at a scheduled closing over the steps around it, prepared ahead",
             "the change prepared off the step thread (Simulation.prepare_ahead_s = 10 s)"),
            ("closing_now", "around_now", "step at a scheduled closing over the steps around it, computed then",
             "the change computed at the step (prepare_ahead_s = -1)")):
        mid, lo, hi = _median(runs, lambda r, k=key, b=base: r[k] / r[b])
        out.append(Record(SECTION, name, mid, "x",
                          f"{where}; the street at x = 250 closed wall to wall at {CLOSES_AT:g} s; {what}; wall "
                          f"time of the step against the median step from 3 s before to 3 s after; "
                          f"{lo:.1f}x to {hi:.1f}x"))
    mid, lo, hi = _median(runs, lambda r: r["car"] / r["no_car"])
    out.append(Record(SECTION, "step with a moving car over without", mid, "x",
                      f"{where}; scenes/city_traffic.json's car round the park (one kernel call a step, its force "
                      f"and guard between steps) against the same scene without it; {lo:.2f}x to {hi:.2f}x"))
    return out


def run(quick: bool) -> list[Record]:
    return records(quick)
