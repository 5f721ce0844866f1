"""The simulation controller: owns the core Simulation(s) in the worker thread, applies commands between steps,
paces the run and publishes snapshots. Qt-free: the QThread in ``qt_worker`` only calls ``serve``.

Flow: the UI puts ``Command``s on a queue; ``serve`` takes every queued command, applies them, advances the
simulation by as many steps as the speed asks for (never more than fit in one display frame, so commands are
handled within a frame), and publishes the latest ``Frame`` at most ``display_hz`` times a second through the
``Mailbox`` (latest wins). An exception from the engine pauses the run and becomes an ``error`` event; the
controller carries on. Builds (navmesh, routes, ECM) report progress and stop when ``cancel`` is set.
"""

from __future__ import annotations

import dataclasses
import math
import os
import queue
import re
import sys
import threading
import time
from typing import Any, Callable

import numpy as np

from core.export import paths_from_simulation, write_paths
from core.navmesh import BuildCancelled, build_navmesh
from core.navmesh.debug import mesh_edges
from core.routes import PlannerContext
from core.scene.model import Scene
from core.scene.problems import InputError, Problem
from core.sim import IMPLEMENTED, Simulation, world
from core.sim.debug import route_pieces
from core.sim.live import speed_series
from core.sim.replay import Replay
from core.sim.simulation import checked_threads, default_threads
from core.sim.state import ARRIVED, WALKING
from core.steering.methods import IRM

from . import heap
from .export import write_trajectories
from .kept_routes import blocked_routes
from ..model.problem_names import named
from .mailbox import Mailbox
from .commands import (AddAgents, Command, Compare, Ecm, Export, GlobalKey, Load, Method, MethodKey, Overlays,
                       OverrideKey, Param, Pause, Play, Preview, ProfileKey, ProfileValue, Recording, Reset,
                       SceneEdit, Select, Speed, Step, Stop, Threads, Warmup, Weight, WeightKey)
from .messages import BuildInfo, EcmView, Event, Frame, MeshView, Recorded, Stats, TraceView, Trails
from .overrides import Overrides, scene_changes
from .preview import PreviewRequest, RequestSlot
from .side_by_side import SideBySide
from .trails import TrailBuffer
from .warmup import compile_in_parallel, finish_in_background, warm_up_for

# Fields of a Scene that change the navigation mesh, and those that change the agents or their routes.
GEOMETRY_FIELDS = ("bounds", "terrain_types", "default_terrain", "obstacles", "terrains")
AGENT_FIELDS = ("routes", "networks", "agents")
# Overlays that need the traced agent's step.
TRACE_OVERLAYS = frozenset({"corridor", "reference", "candidates", "attraction", "intervals", "forces"})
_AGENT_PATH = re.compile(r"^agents\[(\d+)\]")
TRACE_HZ = 15.0
# How often a paused controller looks whether a live edit prepared off its thread is ready (seconds).
LIVE_POLL_S = 0.02


class SimController:
    """The engine side of the live simulation. ``wake()`` is called when the mailbox needs draining."""

    def __init__(self, outbox: Mailbox, wake: Callable[[], None] = lambda: None,
                 preview: RequestSlot | None = None, display_hz: float = 60.0) -> None:
        self.outbox = outbox
        self.wake = wake
        self.preview_slot = preview
        self.display_hz = float(display_hz)
        self.cancel = threading.Event()
        self.scene: Scene | None = None
        self.pending: Scene | None = None
        self.mesh = None
        self.ctx: PlannerContext | None = None
        self.sim: Simulation | None = None
        self.side = SideBySide()
        self.document = 0
        self.threads = default_threads()
        self.generation = 0
        self.playing = False
        self.speed = 1.0
        self.selected = -1
        self.overlays: frozenset[str] = frozenset()
        self.preview_on = False
        self.overrides = Overrides()
        self.extra: list[tuple[list, list[str], list[str]]] = []
        self.trails: TrailBuffer | None = None
        self.step_s = 1e-3
        self.build_seconds = 0.0
        self._wall0 = 0.0
        self._sim0 = 0.0
        self._rate_mark = (0.0, 0.0)
        self._rate_value = 0.0
        self._dirty = False
        # Live obstacle edits being prepared off this thread, in order: (core.sim.world.Preparation, obstacles).
        self._live_edits: list[tuple] = []
        # The ECM overlay's map: (the scene it is of, its resolution, the map), updated locally after edits.
        self._ecm_shown: tuple | None = None
        self._drawn_mesh = None          # the mesh the triangulation overlay shows (sent with the build or after)
        self._trace_dirty = False
        self._preview_dirty = False
        self._preview_req = 0
        self._last = {"frame": 0.0, "stats": 0.0, "trails": 0.0, "preview": 0.0, "trace": 0.0}
        self._trace = None
        self._trails_version = (-1, -1)

    @property
    def compare(self) -> Simulation | None:
        """The side-by-side simulation, or None."""
        return self.side.sim

    @property
    def compare_method(self) -> str | None:
        return self.side.method

    def document_scene(self) -> Scene | None:
        """The scene of the open document as the engine has it: the edited one waiting for a Reset, else the one
        simulated."""
        return self.pending if self.pending is not None else self.scene

    # ----- the loop ------------------------------------------------------------------------------------------

    def serve(self, commands: "queue.Queue[Command]") -> None:
        """Apply commands and run until a ``stop`` command."""
        while True:
            timeout = self.wait_time(time.monotonic())
            try:
                first = commands.get(timeout=timeout) if timeout is None or timeout > 0 else commands.get_nowait()
                batch = [first]
            except queue.Empty:
                batch = []
            while True:
                try:
                    batch.append(commands.get_nowait())
                except queue.Empty:
                    break
            for c in _coalesce(batch):
                if isinstance(c, Stop):
                    return
                self.guard(self.handle, c)
                self._dirty = True       # a command may change what the next frame shows: publish one
            self.guard(self.tick, time.monotonic())

    def guard(self, fn: Callable, *args) -> None:
        """Run fn; an exception pauses the run and is reported, the controller carries on."""
        try:
            fn(*args)
        except BuildCancelled:
            self._event("busy", None)
            self._event("info", "Build cancelled.")
        except InputError as e:
            self.playing = False
            self._event("busy", None)
            self._event("error", "The simulation stopped", "\n".join(e.lines()))
        except Exception as e:  # the engine's bug must not end the worker
            self.playing = False
            self._event("busy", None)
            self._event("error", "The engine failed", f"{type(e).__name__}: {e}")
        else:
            return
        self._dirty = True

    def wait_time(self, now: float) -> float | None:
        """Seconds the loop may sleep waiting for a command; None: until one comes."""
        waits = []
        if self.playing and self.sim is not None:
            if self.speed <= 0:
                return 0.0
            due = self._wall0 + (self.sim.time + self.sim.params.dt - self._sim0) / self.speed
            waits.append(due - now)
        if self._dirty or self._trace_dirty:
            waits.append(self._last["frame"] + 1.0 / self.display_hz - now)
        if self._preview_dirty and self.preview_on:
            waits.append(self._last["preview"] + 0.1 - now)
        if self._live_edits:
            waits.append(LIVE_POLL_S)     # a live edit being prepared is applied as soon as it is ready
        if not waits:
            return None
        return max(0.0, min(waits))

    # ----- commands ------------------------------------------------------------------------------------------

    def handle(self, c: Command) -> None:
        """Apply one command."""
        match c:
            case Warmup(scene):
                self._cmd_warmup(scene)
            case Load(scene, document):
                self._cmd_load(scene, document)
            case SceneEdit(scene):
                self._cmd_scene(scene)
            case Play():
                self._cmd_play()
            case Pause():
                self._cmd_pause()
            case Step(n):
                self._cmd_step(n)
            case Reset():
                self._cmd_reset()
            case Speed(factor):
                self._cmd_speed(factor)
            case Param(name, value):
                self._live(GlobalKey(name), value)
            case ProfileValue(pid, field, value):
                self._live(ProfileKey(pid, field), float(value))
            case Weight(pid, tid, value):
                self._live(WeightKey(pid, tid), float(value))
            case Method(name):
                self._live(MethodKey(), name)
            case Threads(n):
                self._cmd_threads(n)
            case Select(index):
                self._cmd_select(index)
            case Overlays(names):
                self._cmd_overlays(names)
            case Preview(on):
                self._cmd_preview(on)
            case Compare(method):
                self._cmd_compare(method)
            case AddAgents(n, seed, profile):
                self._cmd_add_agents(n, seed, profile)
            case Export(path, fmt):
                self._cmd_export(path, fmt)
            case Ecm(resolution):
                self._cmd_ecm(resolution)
            case Recording():
                self._cmd_recording()
            case Stop():
                pass
            case _:
                raise TypeError(f"not a command: {c!r}")

    def _cmd_warmup(self, scene: Scene | None = None) -> None:
        self._event("busy", "Compiling the engine for this scene (numba JIT warm-up, first start only)…")
        t0 = time.perf_counter()
        compile_in_parallel(lambda done, total, workers: self._event(
            "progress", done / total, f"Compiling the engine in {workers} processes (first start only): "
                                      f"{done} of {total} kernels…"), scene=scene)
        seconds = time.perf_counter() - t0 + warm_up_for(scene, self.threads)
        self._event("busy", None)
        self._event("warm", seconds)
        # What a first step does not use (other methods, planners, traced steps, forks, the export) compiles beside
        # the running simulation.
        finish_in_background(_quietly)

    def _cmd_load(self, scene: Scene, document: int = 0) -> None:
        """Another document: everything of the last one goes (its run, side-by-side run, random agents, live
        overrides, trace and preview); what belongs to the new one is made from its scene."""
        self.scene = scene
        self.document = int(document)
        self.pending = None
        self.mesh = self.ctx = self.sim = None
        self._live_edits = []
        self._ecm_shown = None
        self.side.clear()
        self.overrides.clear()
        self.trails = None
        self.playing = False
        self.extra = []
        self.selected = -1
        self._trace = None
        self._trace_dirty = self._preview_dirty = False
        self.preview_on = False
        self.step_s = 1e-3
        self._rate_mark, self._rate_value = (0.0, 0.0), 0.0
        self.generation += 1
        if self.preview_slot is not None:
            self._preview_req += 1
            self.preview_slot.put(None, self._preview_req)

    def _cmd_scene(self, scene: Scene) -> None:
        old = self.document_scene()
        if old is None or self.sim is None:
            self.scene = scene
            self.pending = None
            self.mesh = None if old is None or _changed(old, scene, GEOMETRY_FIELDS) else self.mesh
            self.ctx = None
            return
        for key, value in scene_changes(old, scene):
            self._try_set(key, value)
        if self.pending is None and self.sim.steps > 0 and self._obstacles_live(old, scene):
            return
        if _changed(old, scene, GEOMETRY_FIELDS + AGENT_FIELDS) or _ids_changed(old, scene):
            self.pending = scene
            if self.sim.steps == 0 and not self.playing:
                self._rebuild()
            else:
                self._event("stale", True)
        elif self.pending is not None:
            self.pending = scene
        else:
            # The same geometry and agents (a new name, a measurement, profile values): the running simulation
            # goes on; the next build plans with a context made for this scene (a context serves one scene).
            self.scene = scene
            self.ctx = None

    def _obstacles_live(self, old: Scene, new: Scene) -> bool:
        """An edit that adds, removes or reshapes obstacles and changes nothing else applies to the running
        simulation (and the side-by-side one) at once, through core.sim.world: no Reset, the characters react, the
        triangulation is shown anew and the status bar gives the update's time. False (the edit waits for a Reset,
        as any other geometry edit) when something else changed or the edit concerns an obstacle that is scheduled
        or moving (the others of such a scene apply at once)."""
        if _changed(old, new, tuple(f for f in GEOMETRY_FIELDS + AGENT_FIELDS if f != "obstacles")) or \
                _ids_changed(old, new) or old.obstacles == new.obstacles:
            return False
        before = {o.id: o for o in old.obstacles}
        after = {o.id: o for o in new.obstacles}
        gone = [k for k, o in before.items() if after.get(k) != o]
        come = [o for k, o in after.items() if before.get(k) != o]
        if any(o.scheduled or o.moving for o in (*(before[k] for k in gone), *come)):
            return False
        try:
            for o in come:
                world.checked_polygon(o.polygon, new.bounds, f"obstacle {o.id}")
        except InputError:
            return False
        # The change is prepared on another thread while the run goes on (after the edits still being prepared),
        # and applied once ready (``tick``): the engine then stops only for the characters' reaction, not for the
        # planners' structures.
        ops = tuple([(world.GOES, before[k]) for k in gone] + [(world.COMES, o) for o in come])
        self.scene = new
        self.mesh = self.ctx = None      # a Reset before the edit is applied builds them for the new scene
        after = self._live_edits[-1][0] if self._live_edits else None
        self._live_edits.append((world.prepare(self.sim, ops, after), len(set(gone) | {o.id for o in come})))
        return True

    def _apply_live(self) -> None:
        """Apply the first live obstacle edit prepared off this thread (waiting for what is not finished) to the
        running simulation and the side-by-side one."""
        prepared, n = self._live_edits.pop(0)
        spent = 0.0
        for sim in (s for s in (self.sim, self.side.sim) if s is not None):
            spent += world.apply_change(sim, prepared.ops, prepared)
        # The running world's mesh is the new scene's at time 0 unless a scheduled obstacle has come or gone: a
        # Reset then builds that one.
        self.mesh = None if any(o.scheduled for o in self.scene.obstacles) else self.sim.mesh
        self.ctx = None
        self._publish_build(time.monotonic())
        self._preview_dirty = True
        self._trace_dirty = True
        self._event("info", f"{n} obstacle{'s' if n != 1 else ''} changed while the simulation runs: updated in "
                            f"{spent:.2f} s, the characters replanned where they had to.")

    def _cmd_play(self) -> None:
        self._ensure()
        if self.sim.walking() == 0 and self.side.walking() == 0:
            self._rebuild()
        self.playing = True
        self._rebase(time.monotonic())

    def _cmd_pause(self) -> None:
        self.playing = False
        self._trace_dirty = True

    def _cmd_step(self, n: int = 1) -> None:
        self._ensure()
        self.playing = False
        self._advance(max(1, int(n)))

    def _cmd_reset(self) -> None:
        if self.sim is None:
            self._ensure()
        else:
            self._rebuild()

    def _cmd_speed(self, factor: float) -> None:
        self.speed = max(0.0, float(factor))
        self._rebase(time.monotonic())

    def _cmd_select(self, index: int) -> None:
        self.selected = int(index)
        self._trace_dirty = True
        self._last["stats"] = 0.0

    def _cmd_overlays(self, names) -> None:
        self.overlays = frozenset(names)
        self._trace_dirty = True

    def _cmd_preview(self, on: bool) -> None:
        self.preview_on = bool(on)
        if self.preview_on:
            self._ensure()
            self._preview_dirty = True
            self._last["preview"] = 0.0
        elif self.preview_slot is not None:
            self._preview_req += 1
            self.preview_slot.put(None, self._preview_req)

    def _cmd_compare(self, method: str | None) -> None:
        self.side.choose(method)
        if self.sim is None or self.pending is not None:
            self._cmd_reset()
            return
        self.side.branch(self.sim)
        if self.side.sim is not None:
            self._event("info", f"Side by side: {self.side.method} walks on from t = {self.sim.time:.1f} s.")
        self._trails_version = (-1, -1)
        self._publish_build(time.monotonic())
        self._trace_dirty = True
        self._preview_dirty = True       # the ghost preview goes on beside the side-by-side run
        self._last["preview"] = 0.0

    def _cmd_add_agents(self, n: int, seed: int, profile: str | None = None) -> None:
        self._ensure()
        self._event("busy", f"Planning {n} random routes…")
        idx = self.sim.add_random_agents(int(n), int(seed), [profile] if profile else None)
        sim = self.sim
        routes = [sim.route_of(int(i)) for i in idx]
        profiles = [sim.params.profile_ids[int(sim.state.profile[i])] for i in idx]
        ids = [sim.state.ids[int(i)] for i in idx]
        self.extra.append((routes, profiles, ids))
        self.side.add_agents(routes, profiles, ids)
        self._event("busy", None)
        self._event("info", f"Added {len(idx)} agents with random start and goal (seed {seed}).")
        heap.settle()
        self._publish_build(time.monotonic())

    def _cmd_export(self, path: str, fmt: str = "json") -> None:
        try:
            self._ensure()
            pf = paths_from_simulation(self.sim)
            if fmt == "json":
                write_paths(path, pf)
            else:
                write_trajectories(path, pf, fmt, self.scene)
        except Exception as e:
            self._event("exported", path, str(e))
            return
        self._event("exported", path, None)

    def _cmd_recording(self) -> None:
        """Publish what the run has recorded so far (the replay timeline scrubs it; the live run steps on)."""
        if self.sim is not None:
            self._out("replay", Recorded(self.generation, Replay.from_simulation(self.sim)))

    def _cmd_ecm(self, resolution: int = 1024) -> None:
        """Show the ECM of the scene: the map shown last updated around the obstacles edited since, where it is
        of this document at this resolution and the update passes its checks; else built afresh."""
        from core.ecm.build import build_ecm
        from core.ecm.debug import closest_point_segments, medial_axis_segments
        from core.ecm.update import update_between

        self._ensure()
        t0 = time.perf_counter()
        ecm = None
        if self._ecm_shown is not None and self._ecm_shown[1] == int(resolution):
            ecm = update_between(self._ecm_shown[2], self._ecm_shown[0], self.scene)
        updated = ecm is not None
        if ecm is None:
            self.cancel.clear()
            self._event("busy", "Building the GVD and the ECM…")
            ecm = build_ecm(self.scene, resolution=int(resolution), progress=self._progress("GVD and ECM"))
            self._event("busy", None)
        self._ecm_shown = (self.scene, int(resolution), ecm)
        seg, clearance = medial_axis_segments(ecm)
        seconds = time.perf_counter() - t0 if updated else float(ecm.timings.get("total", 0))
        self._out("ecm", EcmView(seg, clearance, closest_point_segments(ecm), seconds, self.document, updated))

    # ----- building ------------------------------------------------------------------------------------------

    def _ensure(self) -> None:
        """Build the simulation of the current scene when there is none."""
        if self.sim is None:
            if self.scene is None:
                raise InputError([Problem("scene", "no scene is open")])
            self._rebuild()

    def _progress(self, label: str) -> Callable[[float, str], bool]:
        last = [0.0]

        def report(fraction: float, stage: str) -> bool:
            now = time.monotonic()
            if now - last[0] > 0.05 or fraction >= 1.0:
                last[0] = now
                self._event("progress", float(fraction), f"{label}: {stage}")
            return not self.cancel.is_set()
        return report

    def _rebuild(self) -> None:
        """(Re)build the simulation from the scene at time 0, keeping the live parameters and random agents."""
        self.cancel.clear()
        t0 = time.perf_counter()
        if self.pending is not None:
            if _changed(self.scene, self.pending, GEOMETRY_FIELDS):
                self.mesh = None
            self.scene, self.pending = self.pending, None
            self.ctx = None
            self._event("stale", False)
        scene = self.scene
        self._event("busy", "Building the simulation…")
        if self.mesh is None:
            self.mesh = build_navmesh(scene, progress=self._progress("Navigation mesh"))
            self.ctx = None
        if self.ctx is None:
            self.ctx = PlannerContext(scene, navmesh=self.mesh)
        self._event("progress", 0.8, "Planning the agents' routes")
        sim, problems = self._make_sim(scene)
        if self.cancel.is_set():
            raise BuildCancelled("routes")
        problems = [named(scene, p) for p in problems] + self._add_random_agents(sim)
        misfit = self.side.build(sim, scene, self.mesh, self.ctx, self.threads)
        self.sim = sim
        self._live_edits = []       # live edits still being prepared were for the run this one replaces
        self.generation += 1
        self.playing = False
        self.trails = TrailBuffer(sim.n_agents, sim.params.dt)
        if self.selected >= sim.n_agents:
            self.selected = -1
        self.build_seconds = time.perf_counter() - t0
        self._event("progress", 1.0, "Ready")
        self._event("busy", None)
        if problems:
            self._event("error", "Some agents could not be placed", "\n".join(problems))
        if sim.unrouted:
            first = next(iter(sim.unrouted.values()))
            self._event("info", f"No route for agent {_listed(sim.unrouted)}: lost where it starts ({first}).")
        if misfit:
            self._event("info", f"Side by side ({self.side.method}): agent {_listed(misfit)} lost where it starts, its "
                                f"disc does not fit ({next(iter(misfit.values()))}).")
        heap.settle()               # the run's full collections then walk only what it makes
        now = time.monotonic()
        self._publish_build(now)
        self._trace_dirty = True
        self._preview_dirty = True
        self._dirty = True

    def _add_random_agents(self, sim: Simulation) -> list[str]:
        """Add the random agents of the run to a rebuilt simulation; those an edit of the scene made impossible
        (a start or goal now inside an obstacle, a route crossing one) are left out for good, and their problems
        returned."""
        kept: list[tuple[list, list[str], list[str]]] = []
        problems: list[str] = []
        for routes, profiles, ids in self.extra:
            blocked = blocked_routes(sim.mesh, routes)
            problems += [f"random agent {ids[k]!r}: {why}" for k, why in blocked.items()]
            keep = [k for k in range(len(ids)) if k not in blocked]
            routes, profiles, ids = [routes[k] for k in keep], [profiles[k] for k in keep], [ids[k] for k in keep]
            if not ids:
                continue
            try:
                sim.add_agents(routes, profiles, ids)
                kept.append((routes, profiles, ids))
                continue
            except InputError as e:
                bad = {int(m.group(1)) for p in e.problems if (m := _AGENT_PATH.match(p.path))}
                if not bad or any(not _AGENT_PATH.match(p.path) for p in e.problems):
                    raise
                for p in e.problems:
                    m = _AGENT_PATH.match(p.path)
                    if m is not None and int(m.group(1)) < len(ids):
                        problems.append(f"random agent {ids[int(m.group(1))]!r}: {p.message}")
            keep = [k for k in range(len(ids)) if k not in bad]
            batch = ([routes[k] for k in keep], [profiles[k] for k in keep], [ids[k] for k in keep])
            if keep:
                sim.add_agents(*batch)
                kept.append(batch)
        self.extra = kept
        return problems

    def _cmd_threads(self, n: int) -> None:
        """Step the main and the side-by-side simulation on n threads from the next step on."""
        try:
            self.threads = checked_threads(n)
        except InputError as e:
            self._event("error", "Threads", "\n".join(e.lines()))
            return
        for sim in (self.sim, self.side.sim):
            if sim is not None:
                sim.set_threads(self.threads)

    def _make_sim(self, scene: Scene) -> tuple[Simulation, list[str]]:
        """The simulation of the scene's agents with the live parameters; agents whose routes cannot be made, or
        whose discs cannot stand at their start or goal, are left out (their problems returned)."""
        method = self.overrides.method(scene.simulation.method)
        problems: list[str] = []
        if method not in IMPLEMENTED:
            problems.append(f"method {method!r} is not available in this version; using miran")
            method = "miran"
        sim = Simulation(scene, mesh=self.mesh, method=method, planner_context=self.ctx, add_scene_agents=False,
                         threads=self.threads)
        self.overrides.apply_to(sim)
        original = list(range(len(scene.agents)))    # the document's index of each agent still in the run
        while True:
            try:
                sim.add_scene_agents()
                return sim, problems
            except InputError as e:
                bad = {int(m.group(1)) for p in e.problems if (m := _AGENT_PATH.match(p.path))}
                if len(bad) == 0 or any(not _AGENT_PATH.match(p.path) for p in e.problems):
                    raise
                # Named by the document's index: a later round (the engine checks the routes first, then where
                # the discs stand) sees only the agents that are left.
                problems.extend(_in_document(p, original) for p in e.problems)
            keep = [k for k in range(len(original)) if k not in bad]
            original = [original[k] for k in keep]
            kept = dataclasses.replace(scene, agents=[scene.agents[k] for k in original])
            # A context serves one scene: the scene without the agents left out gets its own, sharing the
            # geometry and the mesh (agents change neither).
            ctx = PlannerContext(kept, geometry=self.ctx.geometry, navmesh=self.mesh)
            sim = Simulation(kept, mesh=self.mesh, method=method, planner_context=ctx, add_scene_agents=False,
                             threads=self.threads)
            self.overrides.apply_to(sim)

    # ----- live parameters -----------------------------------------------------------------------------------

    def _set(self, key: OverrideKey, value) -> None:
        """Record a live change and apply it to the running simulations (checked by the engine first)."""
        self.overrides.set(key, value, self.document_scene(), self.sim, self.side.sim)
        self._trace_dirty = True
        self._preview_dirty = True
        self._last["stats"] = 0.0
        if key == GlobalKey("dt"):
            self._rebase(time.monotonic())

    def _live(self, key: OverrideKey, value) -> None:
        """A change from the panel. One the engine refuses (a radius whose disc no longer fits where an agent
        stands or goes) is bad input: the box names the problem, the run goes on with the value in force, and the
        panel shows that value again."""
        try:
            self._set(key, value)
        except InputError as e:
            self._event("error", f"{_key_name(key)} not changed", "\n".join(e.lines()))
            if self.sim is not None:
                self._publish_build(time.monotonic())

    def _try_set(self, key: OverrideKey, value) -> None:
        try:
            self._set(key, value)
        except InputError:
            pass

    # ----- stepping ------------------------------------------------------------------------------------------

    def _rebase(self, now: float) -> None:
        self._wall0 = now
        self._sim0 = self.sim.time if self.sim is not None else 0.0

    def tick(self, now: float) -> None:
        """Advance when playing (paced by the speed), then publish what changed."""
        sim = self.sim
        if sim is None:
            return
        while self._live_edits and self._live_edits[0][0].done():
            self._apply_live()
        if self.playing:
            dt = sim.params.dt
            budget = max(1, int(0.8 / self.display_hz / max(self.step_s, 1e-6)))
            if self.speed <= 0:
                due = budget
            else:
                due = int(math.floor((self._sim0 + self.speed * (now - self._wall0) - sim.time) / dt + 1e-9))
                if due > 2 * budget:
                    # The engine cannot keep this speed: run on from here instead of piling up a backlog.
                    self._rebase(now)
                    due = budget
            if due > 0:
                self._advance(min(due, budget))
                if self._all_done():
                    self.playing = False
                    lost = self._lost_words()
                    if lost:
                        self._event("info", f"Every agent has arrived or is lost ({sim.time:.1f} s): {len(lost)} "
                                            f"lost: {', '.join(lost[:5])}{' ...' if len(lost) > 5 else ''}.")
                    else:
                        self._event("info", f"Every agent has arrived ({sim.time:.1f} s).")
        elif self._trace_dirty and self._wants_trace():
            self._trace_now()
        self._trace_dirty = False
        self._publish(time.monotonic())

    def _lost_words(self) -> tuple[str, ...]:
        """"id (reason)" for every agent lost for good (replanning cannot help it any more)."""
        sim = self.sim
        gone = np.nonzero(sim.lost() & ~sim.replannable() if sim.replan else sim.lost())[0]
        return tuple(f"{sim.state.ids[i]} ({sim.status_of(i)[1]})" for i in gone.tolist())

    def _all_done(self) -> bool:
        return self.sim.walking() == 0 and self.side.walking() == 0

    def _wants_trace(self) -> bool:
        return 0 <= self.selected < (self.sim.n_agents if self.sim else 0) and bool(self.overlays & TRACE_OVERLAYS)

    def _advance(self, k: int) -> None:
        sim = self.sim
        w = time.perf_counter()
        sim.tend()
        if self.side.sim is not None:
            self.side.sim.tend()
        # The traced step (and its drawing arrays) at most TRACE_HZ times a second: enough for the eye.
        if self._wants_trace() and (not self.playing or w - self._last["trace"] >= 1.0 / TRACE_HZ):
            self._last["trace"] = w
            if k > 1:
                sim.step(k - 1)
            traces = sim.step(trace=[self.selected])
            self._set_trace(traces[0] if traces else None)
        else:
            sim.step(k)
        if self.side.sim is not None:
            self.side.sim.step(k)
        spent = time.perf_counter() - w
        self.step_s = 0.7 * self.step_s + 0.3 * spent / k
        t, w0 = self._rate_mark
        now = time.monotonic()
        if now - w0 > 1.0:
            self._rate_value = (sim.time - t) / (now - w0) if w0 > 0 and sim.time >= t else 0.0
            self._rate_mark = (sim.time, now)
        self.trails.push(sim.state.pos, sim.time)
        self.side.push_trails(sim.time)
        self._dirty = True

    def _trace_now(self) -> None:
        """The traced agent's next step, computed on a throw-away fork (the simulation does not move)."""
        fork = self.sim.fork(keep_paths=False)
        traces = fork.step(trace=[self.selected])
        self._set_trace(traces[0] if traces else None)

    def _set_trace(self, tr) -> None:
        self._trace = tr
        if tr is None:
            self._out("trace", None)
            return
        route = self.sim.route_of(tr.agent)
        intervals = tr.adjusted if len(tr.adjusted) else tr.intervals
        pieces = route_pieces(route, intervals)
        lo, hi = tr.reference_s, max(tr.window_end_s, tr.reference_s)
        window = route_pieces(route, np.array([[lo, hi]]))
        corridor = self._corridor(tr.agent)
        self._out("trace", TraceView(self.generation, tr.agent, tr, route.points.copy(), pieces, window, corridor))

    def _corridor(self, agent: int) -> np.ndarray:
        """The IRM corridor of an agent (IRM 3.2) as its disks, (m, 3) rows [x, y, radius]; from the side-by-side
        run when only that one walks with IRM; empty when neither does."""
        for sim in (self.sim, self.side.sim):
            if sim is not None and agent < sim.n_agents and int(sim.state.method[agent]) == IRM:
                c = sim.corridor_of(agent)
                return np.column_stack([c["centres"], c["radii"]]) if len(c["radii"]) else np.zeros((0, 3))
        return np.zeros((0, 3))

    # ----- publishing ----------------------------------------------------------------------------------------

    def _out(self, kind: str, value) -> None:
        if self.outbox.put(kind, value):
            self.wake()

    def _event(self, kind: str, *args) -> None:
        if self.outbox.event(Event(kind, tuple(args))):
            self.wake()

    def _world_now(self, sim: Simulation) -> tuple:
        """The outlines of the scene's obstacles that come and go or move, where they stand now."""
        dynamic = {o.id for o in self.scene.obstacles if o.scheduled or o.moving}
        if not dynamic:
            return ()
        return tuple(p for oid, p in sim.obstacles_now() if oid in dynamic)

    def _publish_build(self, now: float) -> None:
        sim = self.sim
        self._drawn_mesh = sim.mesh
        seg, kind = mesh_edges(self.mesh if self.mesh is not None else sim.mesh)
        self._out("build", BuildInfo(
            generation=self.generation, scene_name=self.scene.name, ids=tuple(sim.state.ids),
            profiles=tuple(sim.params.profile_ids), terrains=tuple(sim.params.terrain_ids),
            params=sim.params.to_dict(), method=sim.method, methods=tuple(IMPLEMENTED),
            compare=self.side.method, mesh_edges=seg, mesh_kind=kind,
            build_seconds=self.build_seconds, document=self.document))
        self._dirty = True

    def _publish(self, now: float) -> None:
        sim = self.sim
        if self._dirty and now - self._last["frame"] >= 1.0 / self.display_hz - 1e-4:
            self._last["frame"] = now
            self._dirty = False
            st = sim.state
            c = self.compare
            self._out("frame", Frame(
                generation=self.generation, time=sim.time, steps=sim.steps, positions=st.pos.copy(),
                status=st.status.copy(), profile=st.profile.copy(),
                compare_positions=c.state.pos.copy() if c is not None else None,
                compare_status=c.state.status.copy() if c is not None else None,
                playing=self.playing, walking=int(np.count_nonzero(st.status == WALKING)),
                arrived=int(np.count_nonzero(st.status == ARRIVED)), rate=self._rate_value,
                step_ms=1000.0 * self.step_s, lost=self._lost_words(), recovered_steps=int(st.rec_steps.sum()),
                agent_steps=int(st.walk_steps.sum()), stalled=int(np.count_nonzero(st.stalls)),
                world=self._world_now(sim)))
            if sim.mesh is not self._drawn_mesh:      # the world changed during the run: its mesh was updated
                self._drawn_mesh = sim.mesh
                self._out("mesh", MeshView(self.generation, *mesh_edges(sim.mesh)))
            version = (self.trails.version, self.side.trails_version())
            # While playing, trails and stats a few times a second; paused, with every frame (frames are rare then,
            # and the last one must carry the run's last trails and stats: nothing follows it while idle).
            if "trails" in self.overlays and version != self._trails_version and \
                    (now - self._last["trails"] > 0.1 or not self.playing):
                self._last["trails"] = now
                self._trails_version = version
                self._out("trails", Trails(self.generation, self.trails.polylines(), self.side.polylines()))
            if now - self._last["stats"] > 0.5 or not self.playing:
                self._last["stats"] = now
                self._out("stats", self._stats())
        if self.preview_on and self._preview_dirty and self.preview_slot is not None \
                and now - self._last["preview"] >= 0.1:
            self._last["preview"] = now
            self._preview_dirty = False
            self._preview_req += 1
            self.preview_slot.put(PreviewRequest(self.generation, self._preview_req,
                                                 sim.fork(keep_paths=False)), self._preview_req)

    def _stats(self) -> Stats:
        sim = self.sim
        st = sim.state
        i = self.selected
        T = sim.mesh.n_terrain_types
        tl = st.terrain_len[i].copy() if 0 <= i < st.n else np.zeros(T)
        speed_t = speed_v = np.zeros(0)
        if 0 <= i < st.n and sim.recorder.enabled:
            speed_t, speed_v = speed_series(sim.path(i), max_points=3000)
        arrivals = np.sort(st.t_arrive[st.status == ARRIVED])
        c = self.compare
        ctl = c.state.terrain_len[i].copy() if c is not None and 0 <= i < c.state.n else np.zeros(0)
        carr = np.sort(c.state.t_arrive[c.state.status == ARRIVED]) if c is not None else np.zeros(0)
        return Stats(self.generation, i, tl, speed_t, speed_v, arrivals, st.n, ctl, carr)


def _quietly(fn: Callable[[], Any]) -> None:
    """Run fn in this (background) thread niced on Linux; a failure is left for the live run, which compiles the
    kernel itself when it first needs it and reports what fails then."""
    if sys.platform.startswith("linux"):
        try:
            tid = threading.get_native_id()
            os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + 10))
        except OSError:
            pass
    try:
        fn()
    except Exception:  # the warm-up's failure must not end the process; the live run reports it
        pass


def _listed(agents: dict[str, str]) -> str:
    """The first agent ids of a message, quoted, with "..." after five."""
    return ", ".join(f"{k!r}" for k in list(agents)[:5]) + (" ..." if len(agents) > 5 else "")


def _changed(a: Scene, b: Scene, fields: tuple[str, ...]) -> bool:
    return any(getattr(a, f) != getattr(b, f) for f in fields)


def _ids_changed(a: Scene, b: Scene) -> bool:
    """Profiles or terrain types added, removed or reordered (the parameter tables change shape)."""
    return [p.id for p in a.profiles] != [p.id for p in b.profiles] or \
        [t.id for t in a.terrain_types] != [t.id for t in b.terrain_types]


def _coalesce(batch: list[Command]) -> list[Command]:
    """Drop scene edits superseded later in the same batch (only the last scene matters)."""
    last = max((k for k, c in enumerate(batch) if isinstance(c, SceneEdit)), default=-1)
    return [c for k, c in enumerate(batch) if not isinstance(c, SceneEdit) or k == last]


def _key_name(key: OverrideKey) -> str:
    """How the panel names a live parameter: "dt", "pedestrian radius", "pedestrian weight of mud", "method"."""
    match key:
        case GlobalKey(name):
            return name
        case ProfileKey(pid, field):
            return f"{pid} {field.replace('_', ' ')}"
        case WeightKey(pid, tid):
            return f"{pid} weight of {tid}"
    return "method"


def _in_document(problem: Problem, original: list[int]) -> str:
    """A problem of ``agents[k]`` of a run that left agents out, named by that agent's index in the document."""
    return _AGENT_PATH.sub(lambda m: f"agents[{original[int(m.group(1))]}]", str(problem))
