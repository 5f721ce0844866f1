"""The test path's planning thread (RecastDemo's test tool): plans the route of the agent being placed or dragged,
and the free space shrunk by a profile's radius, off the UI thread. Only the newest request is kept: one that
arrives while another is planned replaces the waiting one, and a result already overtaken is dropped.

No Qt here: ``deliver(result)`` is called in the planning thread; the window hands it to the UI thread.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from core.routes import PlannerContext
from core.routes.probe import RouteProbe, probe_route, shrunk_free_space
from core.scene import Scene

from .tools.base import ProbeRequest

# Scene fields a planner reads: when none of them changed, the planning structures built so far are reused.
PLANNING_FIELDS = ("bounds", "terrain_types", "default_terrain", "obstacles", "terrains", "networks", "profiles")


@dataclass(frozen=True)
class ProbeJob:
    """What to plan: the route of ``request`` (or none), and the free space shrunk by ``shrink`` (or not)."""

    serial: int
    scene: Scene
    request: ProbeRequest | None
    shrink: float | None


@dataclass(frozen=True, eq=False)
class ProbeResult:
    """The answer to job ``serial``: the ``probe`` (None when no route was asked for), the shrunk free space's
    ``rings`` for radius ``shrink`` (None when not asked), and the seconds it took."""

    serial: int
    request: ProbeRequest | None
    probe: RouteProbe | None
    shrink: float | None
    rings: list[np.ndarray] | None
    seconds: float


class ProbePlanner:
    """One daemon thread planning the newest ``ProbeJob``; ``deliver`` gets each result still current."""

    def __init__(self, deliver: Callable[[ProbeResult], None]) -> None:
        self.deliver = deliver
        self._cond = threading.Condition()
        self._job: ProbeJob | None = None
        self._serial = 0
        self._stop = False
        self._ctx: PlannerContext | None = None
        self._rings: tuple[Scene, float, list[np.ndarray]] | None = None
        self.planned = 0
        self.dropped = 0
        self._thread = threading.Thread(target=self._serve, name="test-path", daemon=True)
        self._thread.start()

    def submit(self, scene: Scene, request: ProbeRequest | None, shrink: float | None) -> int:
        """Ask for a plan (replacing any job not started yet); returns the job's serial number."""
        with self._cond:
            self._serial += 1
            if self._job is not None:
                self.dropped += 1
            self._job = ProbeJob(self._serial, scene, request, shrink)
            self._cond.notify()
            return self._serial

    def latest(self) -> int:
        """The serial number of the newest job submitted."""
        with self._cond:
            return self._serial

    def stop(self) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify()
        self._thread.join(5.0)

    def _serve(self) -> None:
        while True:
            with self._cond:
                while self._job is None and not self._stop:
                    self._cond.wait()
                if self._stop:
                    return
                job, self._job = self._job, None
            try:
                result = self._plan(job)
            except Exception as e:  # a planner's bug must not end the thread; the preview says what failed
                probe = RouteProbe((0.0, 0.0), (0.0, 0.0), "", None, 0.0, np.zeros((0, 2)),
                                   error=f"{type(e).__name__}: {e}")
                result = ProbeResult(job.serial, job.request, probe, None, None, 0.0)
            if result.serial == self.latest():
                self.planned += 1
                self.deliver(result)
            else:
                self.dropped += 1

    def context(self, scene: Scene) -> PlannerContext:
        """The planning structures for this scene, reused while no field a planner reads has changed."""
        ctx = self._ctx
        if ctx is None or any(getattr(ctx.scene, f) != getattr(scene, f) for f in PLANNING_FIELDS):
            ctx = self._ctx = PlannerContext(scene)
        return ctx

    def _plan(self, job: ProbeJob) -> ProbeResult:
        t0 = time.perf_counter()
        ctx = self.context(job.scene)
        probe = None
        req = job.request
        if req is not None:
            probe = probe_route(ctx, req.start, req.goal, req.planner, req.profile)
        rings = None
        if job.shrink is not None:
            cached = self._rings
            if cached is not None and cached[0] is ctx.scene and cached[1] == job.shrink:
                rings = cached[2]
            else:
                rings = shrunk_free_space(ctx, job.shrink)
                self._rings = (ctx.scene, job.shrink, rings)
        return ProbeResult(job.serial, req, probe, job.shrink, rings, time.perf_counter() - t0)
