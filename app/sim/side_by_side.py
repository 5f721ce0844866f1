"""The side-by-side run (MIRAN Figure 8): a second simulation of the same agents on the same routes, walking with
another steering method beside the main run. It belongs to the run: a rebuild makes it again from the main run,
and loading another document ends it.

``SideBySide`` owns the second simulation, its method and its trails; the controller steps it with the main run.
"""

from __future__ import annotations

import numpy as np

from core.routes import PlannerContext
from core.scene.model import Scene
from core.scene.problems import InputError, Problem
from core.sim import IMPLEMENTED, Simulation
from core.sim.live import copy_params

from .trails import TrailBuffer


class SideBySide:
    """The method run side by side (None: none), its simulation and its trails (None until a run exists)."""

    def __init__(self) -> None:
        self.method: str | None = None
        self.sim: Simulation | None = None
        self.trails: TrailBuffer | None = None

    def clear(self) -> None:
        """No side-by-side run any more (another document was loaded)."""
        self.method = None
        self.sim = self.trails = None

    def choose(self, method: str | None) -> None:
        """Run ``method`` side by side from now on (None: stop); InputError for a method the engine lacks."""
        if method is not None and method not in IMPLEMENTED:
            raise InputError([Problem("compare", f"method {method!r} is not available (available: "
                                                 f"{', '.join(IMPLEMENTED)})")])
        self.method = method

    def branch(self, main: Simulation) -> None:
        """Start (or stop) the side-by-side run at the main run's current time: a fork of it walks on with the
        other method; the main run keeps its time, its trails and whether it plays."""
        if self.method is None:
            self.sim = self.trails = None
            return
        compare = main.fork(keep_paths=True)
        compare.set_method(self.method)
        self.sim = compare
        self.trails = TrailBuffer(compare.n_agents, main.params.dt)
        self.trails.push(compare.state.pos, main.time)

    def build(self, main: Simulation, scene: Scene, mesh, ctx: PlannerContext, threads: int) -> dict[str, str]:
        """A fresh side-by-side run of the main run's agents at time 0 (after a rebuild of the main run).

        It keeps every agent of the main run, in the same order: one whose disc does not fit at its start or goal
        with the other method (a point agent of the main run, a disc here) stands lost where it starts. Returns
        those agents (id -> why)."""
        if self.method is None:
            self.sim = self.trails = None
            return {}
        compare = Simulation(scene, mesh=mesh, method=self.method, planner_context=ctx, add_scene_agents=False)
        copy_params(main.params, compare.params)
        compare.set_threads(threads)
        compare.add_agents([main.route_of(i) for i in range(main.n_agents)],
                           [main.params.profile_ids[int(k)] for k in main.state.profile], list(main.state.ids),
                           misfit="lost")
        self.sim = compare
        self.trails = TrailBuffer(compare.n_agents, main.params.dt)
        return dict(compare.misfit)

    def add_agents(self, routes: list, profiles: list[str], ids: list[str]) -> None:
        """The main run's new random agents join the side-by-side run too (lost where they start if their disc
        does not fit), so the two runs keep the same agents."""
        if self.sim is not None:
            self.sim.add_agents(routes, profiles, ids, misfit="lost")

    def walking(self) -> int:
        """Agents of the side-by-side run still walking (0 without one)."""
        return self.sim.walking() if self.sim is not None else 0

    def push_trails(self, t: float) -> None:
        if self.sim is not None and self.trails is not None:
            self.trails.push(self.sim.state.pos, t)

    def polylines(self) -> np.ndarray:
        """Its trails as NaN-separated polylines (empty without a run)."""
        return self.trails.polylines() if self.trails is not None else np.zeros((0, 2), dtype=np.float32)

    def trails_version(self) -> int:
        return self.trails.version if self.trails is not None else 0
