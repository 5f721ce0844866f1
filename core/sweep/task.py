"""One sweep task: a run of the Simulation, reduced where it ran to one run row and one row per character.

Runs in a Dask worker (or in the calling process). The scene, its navigation mesh and its planner context are built
once per process and reused by every run of that scene (``scene_entry``); a run restores the scene's profiles and
planners to the file's values, applies its parameters, builds a Simulation on the shared mesh and context, runs it
to its limit and measures the characters from the simulation's own per-agent measures (walked length, exact
length per terrain type, smallest clearance met: core.sim.state). No path travels back unless the task asks for it.
Needs numpy and the engine only: no Dask, no pandas.
"""

from __future__ import annotations

import copy
import math
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.scene.jsonio import parse_json_text
from core.scene.model import Scene
from core.scene.parse import parse_scene
from core.scene.problems import InputError, Problem
from core.sim import ARRIVED, GLOBAL_NAMES, Simulation
from core.steering.methods import IRM

from .spec import PROFILE_PARAMETERS, RunTask

# Scenes kept built per process (a sweep over more scenes rebuilds the least recently used).
MAX_SCENES = 8
# Parameters the Simulation takes at construction (before any agent is added).
_CONSTRUCTOR = ("method", "integrator", "dt")


@dataclass
class SceneEntry:
    """A scene built once in this process: the Scene (its profiles and agents are set per run, under ``lock``),
    the file's profiles and agent planners to restore, the navigation mesh and the planner context."""

    scene: Scene
    profiles: list
    planners: list
    mesh: Any
    context: Any
    lock: threading.Lock


_scenes: "OrderedDict[str, SceneEntry]" = OrderedDict()
_scenes_lock = threading.Lock()
_built = [0]


def scenes_built() -> int:
    """How many scenes (with navigation mesh and planner context) this process has built."""
    return _built[0]


def scene_entry(sha: str, text: str) -> SceneEntry:
    """The built scene of this file text (by its sha), built on first use in this process."""
    from core.navmesh import build_navmesh
    from core.routes import PlannerContext

    with _scenes_lock:
        e = _scenes.get(sha)
        if e is not None:
            _scenes.move_to_end(sha)
            return e
        scene = parse_scene(parse_json_text(text, sha[:12]), sha[:12])
        mesh = build_navmesh(scene)
        e = SceneEntry(scene, copy.deepcopy(scene.profiles), [a.planner for a in scene.agents], mesh,
                       PlannerContext(scene, navmesh=mesh), threading.Lock())
        _scenes[sha] = e
        _built[0] += 1
        while len(_scenes) > MAX_SCENES:
            _scenes.popitem(last=False)
        return e


def character_status(sim: Simulation) -> list[tuple[str, str]]:
    """Each character's state at the end of the run and why a lost one is lost: ('arrived', ''), ('walking', '')
    (the limit came first) or ('lost', reason) (``Simulation.status_of``: lost sight of its route, its route is
    blocked, no route to its goal, no progress)."""
    return [sim.status_of(i) for i in range(sim.state.n)]


def run_task(task: RunTask, scene_text: str) -> dict[str, Any]:
    """Run one task; returns ``{"run": row, "characters": [rows], "paths": miran-paths dict or None}``.

    Rows are plain dicts of Python scalars (see core.sweep.table for the columns). An InputError (a character
    that cannot be placed or planned) comes back naming the run and its parameters."""
    try:
        return _run(task, scene_text)
    except InputError as e:
        head = f"run {task.index} ({task.scene}, " + ", ".join([f"seed={task.seed}"] + [f"{k}={v}" for k, v in
                                                                                      task.params]) + ")"
        raise InputError([Problem(head + (f": {p.path}" if p.path else ""), p.message) for p in e.problems]
                         ) from None


def _run(task: RunTask, scene_text: str) -> dict[str, Any]:
    t0 = time.thread_time()
    entry = scene_entry(task.scene_sha, scene_text)
    with entry.lock:
        sim, added = build_run(entry, task)
        used = used_parameters(sim, task, added)
        sim.run(until=task.time, max_steps=task.steps)
        out = _reduce(sim, task, used)
        if task.keep_paths:
            from core.export import paths_from_simulation, paths_to_dict

            out["paths"] = paths_to_dict(paths_from_simulation(sim))
    out["run"]["cpu_time"] = time.thread_time() - t0
    if "cpu_time" not in task.metrics:
        del out["run"]["cpu_time"]
    return out


def build_simulation(entry: SceneEntry, task: RunTask) -> Simulation:
    """The Simulation of a task on a built scene, its agents added, ready to run (call under ``entry.lock``)."""
    return build_run(entry, task)[0]


def build_run(entry: SceneEntry, task: RunTask) -> tuple[Simulation, int]:
    """``build_simulation`` and the number of random agents it added."""
    scene = entry.scene
    scene.profiles[:] = copy.deepcopy(entry.profiles)
    for a, planner in zip(scene.agents, entry.planners):
        a.planner = planner
    p = task.param_dict()
    for name, v in p.items():
        parts = name.split(".")
        if len(parts) == 2 and parts[1] in PROFILE_PARAMETERS:
            for prof in _profiles(scene, parts[0]):
                setattr(prof, parts[1], float(v))
        elif len(parts) == 3:
            for prof in _profiles(scene, parts[0]):
                prof.weights[parts[2]] = float(v)
    if "planner" in p:
        for a in scene.agents:
            if a.route is None:
                a.planner = p["planner"]
    sim = Simulation(scene, mesh=entry.mesh, planner_context=entry.context, seed=task.seed,
                     record=task.keep_paths, add_scene_agents=False, **{k: p[k] for k in _CONSTRUCTOR if k in p})
    for name, v in p.items():
        if name in GLOBAL_NAMES and name not in _CONSTRUCTOR:
            sim.params.set(name, v)
    if "planner" in p:
        sim.planner = p["planner"]
    if task.scene_agents and scene.agents:
        sim.add_scene_agents()
    added = sim.add_random_agents(int(p["agents"]), seed=task.seed) if p.get("agents", 0) else ()
    if sim.n_agents == 0:
        raise InputError([Problem("agents", f"run {task.index}: scene {task.scene!r} has no agents and the run adds "
                                            f"none")])
    return sim, len(added)


def used_parameters(sim: Simulation, task: RunTask, random_agents: int) -> dict[str, Any]:
    """The value of each of the task's parameters as the built simulation holds it (what the run uses, read back
    from its parameter table, method and planner; not copied from the spec): what the run table records.
    ``agents`` is ``random_agents``, the number of random agents added; a wildcard profile parameter
    (``*.sigma``) the value every profile holds (NaN if they differ, which a checked spec cannot give)."""
    out: dict[str, Any] = {}
    for name, _ in task.params:
        parts = name.split(".")
        if name == "method":
            out[name] = sim.method
        elif name == "planner":
            out[name] = sim.planner
        elif name == "agents":
            out[name] = int(random_agents)
        elif name in GLOBAL_NAMES:
            out[name] = sim.params.get(name)
        elif len(parts) == 2:
            out[name] = _common([sim.params.get_profile(pid, parts[1]) for pid in _ids(sim, parts[0])])
        else:
            out[name] = _common([sim.params.weight(pid, parts[2]) for pid in _ids(sim, parts[0])])
    return out


def _ids(sim: Simulation, pid: str) -> list[str]:
    return list(sim.params.profile_ids) if pid == "*" else [pid]


def _common(values: list[float]) -> float:
    return values[0] if all(v == values[0] for v in values) else math.nan


def _profiles(scene: Scene, pid: str) -> list:
    return list(scene.profiles) if pid == "*" else [scene.profile(pid)]


def _reduce(sim: Simulation, task: RunTask, used: dict[str, Any]) -> dict[str, Any]:
    st = sim.state
    m = set(task.metrics)
    n = st.n
    status = character_status(sim)
    arrived = st.status == ARRIVED
    t_end = np.where(arrived, st.t_arrive, np.nan)
    length = st.length.copy()
    w = sim.params.weights[st.profile]
    weighted = np.einsum("ij,ij->i", st.terrain_len, w)
    # The state's clearance is already a disc MIRAN character's minus its radius (force_phase); IRM's discs are
    # measured from their centre there.
    clear = st.min_clear - np.where(st.method == IRM, st.radius, 0.0)
    clear = np.where(np.isfinite(clear), clear, np.nan)
    walked_time = np.where(arrived, st.t_arrive, sim.time)
    with np.errstate(invalid="ignore", divide="ignore"):
        speed = np.where(walked_time > 0, length / walked_time, np.nan)
    tids = list(sim.mesh.terrain_ids)
    chars = []
    for i in range(n):
        row: dict[str, Any] = {"run": task.index, "run_id": task.run_id, "agent": st.ids[i],
                               "profile": sim.params.profile_ids[int(st.profile[i])]}
        if "arrival" in m:
            row["status"], row["lost_reason"] = status[i]
            row["arrived"] = bool(arrived[i])
            row["recovered_steps"] = int(st.rec_steps[i])
            row["stalls"] = int(st.stalls[i])
        if "time" in m:
            row["time"] = float(t_end[i])
        if "length" in m:
            row["length"] = float(length[i])
        if "weighted_length" in m:
            row["weighted_length"] = float(weighted[i])
        if "terrain_lengths" in m:
            for k, t in enumerate(tids):
                row[f"length.{t}"] = float(st.terrain_len[i, k])
        if "min_clearance" in m:
            row["min_clearance"] = float(clear[i])
        if "mean_speed" in m:
            row["mean_speed"] = float(speed[i])
        chars.append(row)
    run: dict[str, Any] = {"run": task.index, "run_id": task.run_id, "scene": task.scene, "seed": task.seed}
    run.update(used)
    run.update({"n_agents": n, "steps": sim.steps, "sim_time": sim.time})
    if "arrival" in m:
        run["arrived"] = int(arrived.sum())
        run["lost"] = int(sum(s == "lost" for s in status))
        run["arrival_rate"] = float(arrived.mean()) if n else math.nan
        walked = int(st.walk_steps.sum())
        run["recovery_share"] = float(st.rec_steps.sum() / walked) if walked else 0.0
        run["stalled"] = int(np.count_nonzero(st.stalls))
    if "time" in m:
        run["mean_time"] = _mean(t_end)
    if "length" in m:
        run["mean_length"] = _mean(length)
    if "weighted_length" in m:
        run["mean_weighted_length"] = _mean(weighted)
    if "terrain_lengths" in m:
        for k, t in enumerate(tids):
            run[f"mean_length.{t}"] = _mean(st.terrain_len[:, k])
    if "min_clearance" in m:
        run["min_clearance"] = float(np.nanmin(clear)) if np.any(np.isfinite(clear)) else math.nan
    if "mean_speed" in m:
        run["mean_speed"] = _mean(speed)
    return {"run": run, "characters": chars, "paths": None}


def _mean(a: np.ndarray) -> float:
    """Mean over the finite entries (NaN when none)."""
    a = np.asarray(a, dtype=np.float64)
    ok = np.isfinite(a)
    return float(a[ok].mean()) if ok.any() else math.nan


def warm_tasks(spec_tasks: list[RunTask]) -> list[RunTask]:
    """The short runs that call every kernel the sweep's runs call: one of each distinct (scene, method,
    integrator, planner, random agents or not) combination, 2 steps each (with the paths measured when the runs
    keep them)."""
    seen = set()
    out = []
    for t in spec_tasks:
        p = t.param_dict()
        key = (t.scene_sha, p.get("method"), p.get("integrator"), p.get("planner"), bool(p.get("agents")))
        if key not in seen:
            seen.add(key)
            out.append(RunTask(t.index, t.run_id, t.scene, t.scene_sha, t.params, t.seed, 2, None, t.scene_agents,
                               t.metrics, t.keep_paths))
    return out


def warm(spec_tasks: list[RunTask], texts: dict[str, str]) -> None:
    """Compile (or load from numba's cache) every kernel the sweep's runs call, in this process (``warm_tasks``).
    Run once before the other processes of a sweep run anything, so that they all load the cached machine code
    instead of each compiling it."""
    for t in warm_tasks(spec_tasks):
        run_task(t, texts[t.scene_sha])


def warm_if_cached(spec_tasks: list[RunTask], texts: dict[str, str]) -> bool:
    """``warm`` where numba's cache holds every kernel of the studio's manifest (``core.jitprecompile``), so that
    this process only loads them; False, having run nothing, where one is missing. On a filled cache every worker
    of a sweep can warm at once, while on an empty one a single worker compiles each kernel once."""
    from core.jitprecompile import is_cached, load_manifest

    try:
        if not all(is_cached(e) for e in load_manifest()):
            return False
    except LookupError:                  # a manifest older than the code: the cache cannot be judged by it
        return False
    warm(spec_tasks, texts)
    return True
