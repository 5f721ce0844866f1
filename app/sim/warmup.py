"""JIT warm-up: run the kernels the live simulation uses once, on a tiny scene, off the UI thread at start.

numba compiles (or loads from its cache) each kernel on first call; doing that here, while the user looks at and
edits the scene, keeps the first press of Play from stalling. ``warm_up_for(scene)`` compiles first what the opened
scene's first step needs (its steering method and integrator: the step kernel, the navigation mesh and the route
planner), so Play waits for that only; ``warm_up_rest`` then compiles what a first step does not use (the traced
step of the overlays, forks for the ghost preview, the paths export).

Before both, on a first start, ``compile_in_parallel`` compiles kernels of the manifest (core.jitprecompile) in
worker processes, one per core, into numba's on-disk cache; the warm-up then loads them. The studio has it compile
what the scene's first step needs first (the manifest's ``first_step`` for its steering method), and the rest in
the background after Play is possible (``finish_warm_up``). ``MIRAN_JIT_WORKERS`` sets the number of processes
(0: none, the warm-up compiles in this process as before).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from typing import Any
from concurrent.futures.process import BrokenProcessPool

from core.export import paths_from_simulation
from core.scene.model import (DEFAULT_PLANNER, Agent, Obstacle, Profile, Route, Scene, SimulationSettings,
                              TerrainPolygon, TerrainType)
from core.sim import IMPLEMENTED, Simulation
from core.jitprecompile import Report, default_workers, load_first_step, load_manifest, precompile


def jit_workers() -> int:
    """Processes for ``compile_in_parallel``: ``MIRAN_JIT_WORKERS`` when set to a whole number, else one per core
    (at most 8)."""
    value = os.environ.get("MIRAN_JIT_WORKERS", "").strip()
    return max(0, int(value)) if value.isdigit() else default_workers()


# Set when the app closes: a compile in the background ends its workers and the warm-up stops.
STOP = threading.Event()
_finishing: list[threading.Thread] = []


def compile_in_parallel(progress: Callable[[int, int, int], None] | None = None, scene: Scene | None = None,
                        background: bool = False) -> Report | None:
    """Compile the manifest's kernels missing from numba's cache in ``jit_workers()`` processes; None when the
    workers are off or cannot run (the warm-up then compiles in this process). With ``scene``, only those a first
    step of a scene steered as it is needs (the manifest's ``first_step``: about half of them); ``background``:
    the workers run at a lower priority. ``progress(done, total, workers)`` after each kernel. With a filled cache
    it only reads the cache's index files (a fraction of a second)."""
    workers = jit_workers()
    if workers == 0:
        return None
    only = None
    if scene is not None:
        only = first_step_of(scene)
    try:
        return precompile(load_manifest(), workers,
                          None if progress is None else lambda done, total: progress(done, total, workers),
                          only=only, background=background, stop=STOP if background else None)
    except (OSError, BrokenProcessPool):  # no processes here, or a worker died: the warm-up compiles in-process
        return None


def first_step_of(scene: Scene) -> set[int] | None:
    """The manifest entries a first step of ``scene`` needs: the warm-up for its steering method and the planners
    its characters name (the default one always: a named route is repaired with it); None without a manifest
    listing them."""
    listed = load_first_step()
    purposes = {f"method:{_method_of(scene)}", f"planner:{DEFAULT_PLANNER}"}
    purposes |= {f"planner:{a.planner}" for a in scene.agents if a.planner and a.route is None}
    if not purposes <= set(listed):
        return None
    return set().union(*(listed[p] for p in purposes))


def _method_of(scene: Scene | None) -> str:
    """The steering method a scene's first step uses (MIRAN for none, or for one the engine does not have)."""
    method = scene.simulation.method if scene is not None else "miran"
    return method if method in IMPLEMENTED else "miran"


def warmup_scene() -> Scene:
    """A 40 x 30 m scene with one obstacle, a mud patch and two agents on one route."""
    return Scene(
        bounds=(0.0, 0.0, 40.0, 30.0),
        terrain_types=[TerrainType("default"), TerrainType("mud")],
        default_terrain="default",
        name="warm-up",
        obstacles=[Obstacle("o", [(18.0, 8.0), (22.0, 8.0), (22.0, 22.0), (18.0, 22.0)])],
        terrains=[TerrainPolygon("m", "mud", [(5.0, 2.0), (15.0, 2.0), (15.0, 7.0), (5.0, 7.0)])],
        profiles=[Profile("p", {"mud": 5.0}, radius=0.3, max_speed=1.4, sigma=12.0, d=2.0)],
        routes=[Route("r", [(2.0, 4.0), (20.0, 4.0), (38.0, 26.0)])],
        agents=[Agent("a", "p", route="r"), Agent("b", "p", route="r")],
        simulation=SimulationSettings("miran", "euler", 0.1),
    )


def warm_up_for(scene: Scene | None, threads: int = 1) -> float:
    """Build and step the tiny scene with the steering method and integrator ``scene`` uses (MIRAN with Euler when
    None) on ``threads`` threads (one: the serial step driver; more: the parallel one); returns the seconds it
    took."""
    t0 = time.perf_counter()
    settings = scene.simulation if scene is not None else SimulationSettings("miran", "euler", 0.1)
    method = _method_of(scene)
    sim = Simulation(warmup_scene(), method=method, threads=max(1, min(threads, 2)))
    sim.set_integrator(settings.integrator)
    sim.step(2)
    return time.perf_counter() - t0


def warm_up_rest() -> float:
    """Step, trace, fork, run and export the tiny simulation with every implemented method, on one thread and on
    two (the serial and the parallel step driver: what ``warm_up_for`` left out), and change its world while its
    planners hold an ECM (a live edit's local updates); returns the seconds it took."""
    from core.ecm.build import build_ecm

    t0 = time.perf_counter()
    scene = warmup_scene()
    sim = Simulation(scene)
    sim.context.ecm = build_ecm(scene, backend="exact")
    sim.add_obstacle([(8.0, 20.0), (10.0, 20.0), (10.0, 22.0), (8.0, 22.0)], "warm-up stall")
    sim.remove_obstacle("warm-up stall")
    for method in IMPLEMENTED:
        sim.set_method(method)
        sim.step(trace=[0])
        sim.step(2)
    sim.set_threads(2)
    sim.step(2)
    sim.set_threads(1)
    sim.set_integrator("verlet")
    sim.step(trace=[1])
    fork = sim.fork(keep_paths=False)
    fork.run(max_steps=20)
    paths_from_simulation(sim)
    return time.perf_counter() - t0


def finish_warm_up() -> float:
    """After ``warm_up_for`` on a first start: compile the rest of the manifest in the background (lower-priority
    worker processes), then ``warm_up_rest``; returns the seconds it took. ``STOP`` ends it (the app closing)."""
    t0 = time.perf_counter()
    compile_in_parallel(background=True)
    if STOP.is_set():
        return time.perf_counter() - t0
    return time.perf_counter() - t0 + warm_up_rest()


def finish_in_background(run: Callable[[Callable[[], Any]], None]) -> None:
    """Start ``finish_warm_up`` in a background thread, through ``run`` (which lowers the thread's priority and
    keeps its failures to itself)."""
    STOP.clear()
    t = threading.Thread(target=run, args=(finish_warm_up,), name="sim.warmup", daemon=True)
    _finishing.append(t)
    t.start()


def stop_background(wait_s: float = 3.0) -> None:
    """End a compile in the background (the app is closing): its workers are ended, and this waits up to ``wait_s``
    for it, so that no worker process is left starting after the app has gone."""
    STOP.set()
    deadline = time.monotonic() + wait_s
    for t in _finishing:
        t.join(max(0.0, deadline - time.monotonic()))
    _finishing[:] = [t for t in _finishing if t.is_alive()]


def warm_up() -> float:
    """Everything the live simulation compiles: ``warm_up_for`` the default settings, then ``warm_up_rest``; returns
    the seconds it took (about the JIT compilation time on a first start, much less with numba's cache)."""
    return warm_up_for(None) + warm_up_rest()
