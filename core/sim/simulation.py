"""The Simulation: agents as struct-of-arrays state, stepped by numba kernels at a fixed time step.

```python
sim = Simulation(scene)                      # the scene's agents, routes sketched or planned at creation
sim.step()                                   # one step; sim.step(trace=[0]) also returns the debug trace
sim.run()                                    # until every agent has arrived (or max_steps)
sim.params.set("c_s", 3.0); sim.set_weight("pedestrian", "mud", 10)   # live, on the next step
```

Every step is a handful of kernel calls over all agents (core.sim.kernels); ``run`` executes many steps per
kernel call, so no Python runs per step or per agent. The kernels release the GIL (``nogil``): a worker thread
can run the simulation while the UI thread keeps drawing. ``threads`` (``Simulation(threads=4)``, ``set_threads``)
steps blocks of agents on that many cores (core.sim.kernels). The simulation is deterministic: the same scene,
parameters and seed give the same paths bit for bit, whatever the number of threads.
"""

from __future__ import annotations

import dataclasses
import math
import os
from typing import Callable, Sequence

import numba
import numpy as np

from core.navmesh import NavMesh, build_navmesh
from core.navmesh.queries import clearance, locate, segment_visible
from core.routes import PlannerContext, Route, plan_route, repair_route
from core.scene.model import DEFAULT_PLANNER, Scene
from core.scene.problems import InputError, Problem, fmt_point
from core.steering.methods import CODES, DISC_MIRAN, IRM, method_code
from core.steering.irm import admissible_safe_distance
from core.steering.noise import TABLE, permutation

from . import kernels, moving, neighbors, population, world
from .corridors import CorridorBook, corridor_of_route
from .kernel_inputs import CrowdArrays, KeptWindows, Params, RouteArrays, StepPlan, kept_windows
from .params import SimParams
from .recorder import Recorder, record_every
from .routebook import RouteBook
from .state import (
    ARRIVED,
    LOST,
    REASON_CLOSED_OFF,
    REASON_NAMES,
    REASON_NO_CLEARANCE,
    REASON_NO_FIT,
    REASON_NO_PROGRESS,
    REASON_NO_ROUTE,
    REPLANNABLE,
    WALKING,
    AgentState,
)
from .trace import MAX_INTERVALS, AgentTrace, TraceBuffers

# With respawning, arrived agents are given new errands at least this often (simulated seconds).
RESPAWN_PERIOD = 1.0

# IRM's automatic safe distance d_s: the paper's 2.0 m for characters of 1.4 m/s (IRM section 6), as a walking time.
IRM_SAFE_TIME = 2.0 / 1.4

# The most steps ``step_budget`` allows (about a day of simulated time at dt 1 ms).
MAX_STEPS = 100_000_000
# The largest fraction of the free area a crowd's discs may cover (random agents are refused beyond it).
MAX_CROWD_DENSITY = 0.5
# Route rows kept beyond twice the rows in use before the route book is compacted.
ROUTE_SLACK = 65_536

# Steering methods the step kernels implement.
IMPLEMENTED = ("miran", "disc-miran", "irm")

# An agent replanned this often without arriving is lost for good (reason "no progress").
MAX_REPLANS = 25


class Simulation:
    """Agents walking their indicative routes through a scene.

    - ``scene``, ``mesh`` (core.navmesh.NavMesh), ``params`` (SimParams, live), ``state`` (AgentState),
      ``routes`` (RouteBook), ``recorder`` (Recorder of the walked paths), ``time`` (s), ``steps``.
    - ``method`` / ``integrator`` / ``dt`` / ``fidelity`` (``exact`` or ``fast``, core.sim.fidelity) override the
      scene's ``simulation`` settings; ``seed`` fixes every
      random choice (none in MIRAN itself; crowds and noise forces draw from it).
    - ``add_scene_agents=False`` starts empty (add agents with ``add_agents``).
    - ``replan`` (default True): an agent that lost sight of its route, or whose way is blocked, gets a new one
      from where it stands (MIRAN 3.5), at most MAX_REPLANS times; ``respawn`` (default False): an arrived agent
      gets a new random goal and route (IRM section 6); ``planner`` plans those routes. ``corridors``
      (CorridorBook) holds the IRM agents' corridors.
    - ``route_clearance``: the clearance every route is planned with, and sketched routes are repaired to (None,
      the default: each profile's radius, so that a character keeps its own width from the obstacles).
      ``repaired`` maps an agent id to the pieces of its sketched route that were replaced by detours.
    - Every agent arrives (core.sim.progress), or ends LOST with a reason (``status_of``).
    - ``record``: which positions the recorder keeps: True every step, an integer N every N-th step (and each
      arrival, and where ``run`` stops), False or 0 none, so that a long run's memory stays flat; the measures of
      ``core.export.paths_from_simulation`` then come from the per-step sums of the state.
    """

    def __init__(self, scene: Scene, *, mesh: NavMesh | None = None, method: str | None = None,
                 integrator: str | None = None, dt: float | None = None, seed: int = 0, record: bool = True,
                 planner_context: PlannerContext | None = None, add_scene_agents: bool = True,
                 route_clearance: float | None = None, threads: int = 1, fidelity: str | None = None) -> None:
        # The run starts from the scene's static world at time 0; its scheduled obstacles come and go on time and its
        # moving ones go their way (core.sim.moving).
        self._events = world.schedule_of(scene)
        self._moving = moving.MovingObstacles(scene.obstacles)
        # Characters waiting for a new route after a change of the world, and how many get one a step (core.sim.world).
        self._replans = np.zeros(0, dtype=np.int64)
        self._replans_per_step = world.REPLANS_PER_STEP
        static = scene.at(0.0)
        if planner_context is not None and planner_context.scene is scene and static is not scene:
            planner_context = planner_context.for_static_world(static)
        scene = static
        self.scene = scene
        self.threads = checked_threads(threads)
        self.mesh = mesh if mesh is not None else build_navmesh(scene)
        self.params = SimParams(scene)
        self.method = _checked_method(method or scene.simulation.method)
        if integrator is not None:
            self.params.set("integrator", integrator)
        if dt is not None:
            self.params.set("dt", dt)
        if fidelity is not None:
            self.params.set("fidelity", fidelity)
        self.params.check_steps()
        self.seed = int(seed)
        self.rng = np.random.default_rng(self.seed)
        self.state = AgentState(self.mesh.n_terrain_types)
        self.routes = RouteBook()
        self.recorder = Recorder(every=record_every(record))
        self._clock = np.zeros(2, dtype=np.float64)
        self._context = planner_context
        x0, y0, x1, y1 = scene.bounds
        self.scale = float(math.hypot(x1 - x0, y1 - y0))
        self._arrays = self.mesh.arrays
        self.planned: dict[str, object] = {}
        self.repaired: dict[str, list] = {}
        # Scene agents added lost because their planner found no route (agent id -> the planner's message).
        self.unrouted: dict[str, str] = {}
        # Agents added lost because their disc does not fit at their start or goal (``misfit="lost"``, id -> why).
        self.misfit: dict[str, str] = {}
        if route_clearance is not None and not (math.isfinite(route_clearance) and route_clearance >= 0):
            raise InputError([Problem("route_clearance", f"must be a number >= 0, got {route_clearance!r}")])
        self.route_clearance = route_clearance
        self.corridors = CorridorBook()
        self.replan = True
        self.respawn = False
        self.planner = DEFAULT_PLANNER
        self.replanned = 0
        self.respawned = 0
        # CPU seconds, on the thread that applied it, of the last change of the world during the run (core.sim.world).
        self.last_world_update_s = 0.0
        # CPU seconds of the last change's navigation mesh update, and whether it was local (core.navmesh.update)
        # or a fresh build.
        self.last_mesh_update_s = 0.0
        self.last_mesh_update_local = False
        # The same for the Explicit Corridor Map, where the planners' context holds one (core.ecm.update): False
        # when it was dropped, for the ``ecm`` planner to build afresh.
        self.last_ecm_update_s = 0.0
        self.last_ecm_update_local = False
        # Scheduled changes of the world are prepared off the step thread this many simulated seconds ahead (a
        # negative value: never), and whether the last change used such a preparation (core.sim.world).
        self.prepare_ahead_s = world.PREPARE_AHEAD_S
        self.last_world_update_prepared = False
        self._prepared: tuple | None = None
        self._perm = permutation(self.seed)
        hf = getattr(scene, "heightfield", None)
        self._hf_geo = np.array([hf.origin[0], hf.origin[1], hf.cell] if hf else [0.0, 0.0, 1.0], dtype=np.float64)
        self._heights = np.ascontiguousarray(hf.array() if hf else np.zeros((0, 0)), dtype=np.float64)
        if add_scene_agents:
            self.add_scene_agents()

    # ----- clock
    @property
    def time(self) -> float:
        """Simulated time in seconds."""
        return float(self._clock[0])

    @property
    def steps(self) -> int:
        """Number of steps taken."""
        return int(self._clock[1])

    @property
    def n_agents(self) -> int:
        return self.state.n

    @property
    def context(self) -> PlannerContext:
        """The planner context for this scene (built on first use, sharing this simulation's navmesh)."""
        if self._context is None:
            self._context = PlannerContext(self.scene, navmesh=self.mesh)
        return self._context

    # ----- agents
    def clearance_for(self, profile_id: str) -> float:
        """The clearance routes of this profile's characters keep: ``route_clearance``, or the profile's radius."""
        if self.route_clearance is not None:
            return float(self.route_clearance)
        return float(self.scene.profile(profile_id).radius)

    def add_scene_agents(self) -> np.ndarray:
        """Add the scene's agents: a named route, or a route planned from start to goal with the agent's planner
        (DEFAULT_PLANNER when none is named), keeping ``clearance_for`` the profile. Pieces of a named route that
        cross an obstacle or pass closer than that are replaced by detours (``core.routes.repair_route``).

        A planned agent for which no route reaches its goal (none keeps its clearance, or none at all) is added
        LOST where it starts, with the reason ``no route keeps its clearance`` (or ``no route to its goal``), and
        the planner's message in ``unrouted[id]``: it does not stop the others. Bad input (a start or goal in an
        obstacle, an unknown planner or profile) is still refused, every problem named."""
        routes: list[Route] = []
        problems: list[Problem] = []
        unrouted: dict[int, tuple[int, str]] = {}
        for k, a in enumerate(self.scene.agents):
            c = self.clearance_for(a.profile)
            try:
                if a.route is not None:
                    route, pieces = repair_route(self.context, Route.from_scene(self.scene, a.route), c,
                                                 self.planner, a.profile)
                    if pieces:
                        self.repaired[a.id] = pieces
                    routes.append(route)
                else:
                    res = plan_route(self.scene, a.start, a.goal, a.planner or DEFAULT_PLANNER, profile=a.profile,
                                     clearance=c, context=self.context)
                    self.planned[a.id] = res
                    routes.append(res.route)
            except InputError as e:
                if a.route is None and all(not p.path for p in e.problems):
                    # No route (the planner's own finding, not bad input): this character is lost, not the scene.
                    msg = "; ".join(p.message for p in e.problems)
                    unrouted[k] = (REASON_NO_CLEARANCE if "keeps" in msg else REASON_NO_ROUTE, msg)
                    self.unrouted[a.id] = msg
                    routes.append(Route.from_points(np.array([a.start, a.goal], dtype=np.float64)))
                    continue
                problems.extend(Problem(f"agents[{k}]" + (f".{p.path}" if p.path else ""), p.message)
                                for p in e.problems)
        if problems:
            raise InputError(problems)
        idx = self.add_agents(routes, [a.profile for a in self.scene.agents], [a.id for a in self.scene.agents])
        for k, (reason, _) in unrouted.items():
            self.state.status[idx[k]] = LOST
            self.state.lost_reason[idx[k]] = reason
        return idx

    def add_agents(self, routes: Sequence[Route], profiles: Sequence[str], ids: Sequence[str] | None = None,
                   methods: Sequence[str] | str | None = None, misfit: str = "refuse") -> np.ndarray:
        """Add agents standing at the start of their routes; returns their indices.

        ``profiles`` are profile ids; ``methods`` a method name for all or one per agent (default: the
        simulation's). Every route start must lie in the free space; a disc (disc MIRAN, IRM) must fit at its
        start and at its goal. ``misfit="lost"`` adds a disc that does not fit LOST where it starts instead, with
        the reason ``its disc does not fit at its start or goal`` and the problem in ``misfit[id]``: a run that
        must keep the agents of another one (the side-by-side run) keeps them all."""
        if misfit not in ("refuse", "lost"):
            raise ValueError(f"misfit must be 'refuse' or 'lost', got {misfit!r}")
        k = len(routes)
        if len(profiles) != k:
            raise ValueError(f"{k} routes but {len(profiles)} profiles")
        if ids is None:
            ids = population.fresh_ids("agent", self.state.ids, self.state.n, k)
        taken = set(self.state.ids)
        problems = []
        for j, aid in enumerate(ids):
            if aid in taken:
                problems.append(Problem(f"agents[{j}].id", f"duplicate agent id {aid!r}"))
            taken.add(aid)
        meths = [methods or self.method] * k if methods is None or isinstance(methods, str) else list(methods)
        for j, m in enumerate(meths):
            _checked_method(m, f"agents[{j}].method")
        prof_idx = np.array([self.params.profile_index(p) for p in profiles], dtype=np.int32)
        if k == 0:
            return np.zeros(0, dtype=np.int64)
        starts = np.array([r.start for r in routes], dtype=np.float64).reshape(k, 2)
        inside = locate(self.mesh, starts) >= 0
        for j in np.nonzero(~inside)[0].tolist():
            problems.append(Problem(f"agents[{j}]", f"start {fmt_point(starts[j])} is not in the free space"))
        codes = np.array([method_code(m) for m in meths], dtype=np.int8)
        radius = self.params.prof["radius"][prof_idx]
        unfit = self._disc_fit_problems(routes, codes, radius, inside)
        if misfit == "refuse":
            problems += [p for _, p in unfit]
        if problems:
            raise InputError(problems)
        lo = np.empty(k, dtype=np.int64)
        hi = np.empty(k, dtype=np.int64)
        for j, r in enumerate(routes):
            lo[j], hi[j] = self.routes.add(r)
        goals = np.array([r.goal for r in routes], dtype=np.float64).reshape(k, 2)
        idx = self.state.append(list(ids), starts, lo, hi, goals, prof_idx, codes, radius)
        self.state.restart_progress(idx, self.time)
        self.state.noise_phase[idx] = self.rng.uniform(0.0, TABLE, k)
        self.state.corr_lo[idx] = 0
        self.state.corr_hi[idx] = 0
        for j, i in enumerate(idx.tolist()):
            if codes[j] == IRM:
                self._set_corridor(i, routes[j])
        if self.recorder.enabled:
            self.recorder.append(idx.astype(np.int32), self.time, starts)
        for j, p in unfit if misfit == "lost" else ():
            self.state.status[idx[j]] = LOST
            self.state.lost_reason[idx[j]] = REASON_NO_FIT
            self.misfit.setdefault(ids[j], f"{p.path.rsplit('.', 1)[1]}: {p.message}")
        return idx

    def _disc_fit_problems(self, routes: Sequence[Route], codes: np.ndarray, radius: np.ndarray,
                           inside: np.ndarray) -> list[tuple[int, Problem]]:
        """(agent's index among ``routes``, problem) for each disc agent (disc MIRAN, IRM) whose start overlaps an
        obstacle, or whose goal it cannot stand on."""
        disc = np.nonzero(((codes == DISC_MIRAN) | (codes == IRM)) & (radius > 0) & inside)[0]
        if len(disc) == 0:
            return []
        ends = np.array([[routes[j].start, routes[j].goal] for j in disc.tolist()], dtype=np.float64)
        dist, _ = clearance(self.mesh, ends.reshape(-1, 2))
        dist = dist.reshape(-1, 2)
        problems = []
        for row, j in enumerate(disc.tolist()):
            r = float(radius[j])
            for col, (name, what) in enumerate((("start", "would overlap"), ("goal", "cannot stand on it: it is"))):
                if dist[row, col] < r * (1.0 - 1e-9):
                    problems.append((j, Problem(f"agents[{j}].{name}",
                                                f"a disc of radius {r:g} {what} {dist[row, col]:.3g} from an "
                                                f"obstacle or the bounds at {fmt_point(ends[row, col])}")))
        return problems

    def add_random_agents(self, n: int, seed: int | None = None, profiles: Sequence[str] | None = None,
                          method: str | None = None, planner: str | None = None) -> np.ndarray:
        """Add n agents with random starts and goals in the free space and routes planned between them
        (``miran simulate --agents N --seed K``); returns their indices."""
        if method is not None:
            _checked_method(method)
        self._check_density(int(n), list(profiles) if profiles else [p.id for p in self.scene.profiles])
        return population.add_random_agents(self, n, self.seed if seed is None else seed,
                                            list(profiles) if profiles else None, method, planner or self.planner)

    def _check_density(self, n: int, profiles: list[str]) -> None:
        """InputError naming ``agents`` when n more agents (of the smallest radius among ``profiles``) would cover
        more than MAX_CROWD_DENSITY of the free area with their discs: such a crowd cannot walk, and its
        neighbour searches grow with the square of the agents per cell."""
        if n <= 0 or not profiles:
            return
        r = min(self.params.get_profile(p, "radius") for p in profiles)
        covered = math.pi * (float(np.sum(self.state.radius ** 2)) + n * r * r)
        free = self.context.geometry.free_area
        if covered > MAX_CROWD_DENSITY * free:
            most = max(0, int((MAX_CROWD_DENSITY * free / math.pi - float(np.sum(self.state.radius ** 2))) / (r * r)))
            raise InputError([Problem("agents", f"{n} more agents of radius {r:g} would cover {covered / free:.0%} of "
                                                f"the free area ({free:,.0f} m²), over {MAX_CROWD_DENSITY:.0%}: "
                                                f"at most {most} fit")])

    def set_route(self, agent: int, route: Route) -> None:
        """Give an agent a new route from where it stands (replanning, MIRAN 3.5); it walks again."""
        pos = self.state.pos[agent]
        if np.hypot(*(route.start - pos)) > 1e-9 * self.scale:
            if not segment_visible(self.mesh, pos, route.start)[0]:
                raise InputError([Problem("route", f"the route starts at {fmt_point(route.start)}, not visible "
                                                   f"from the agent at {fmt_point(pos)}")])
            route = Route.from_points(np.vstack([pos[None], route.points]))
        lo, hi = self.routes.add(route)
        st = self.state
        st.route_lo[agent], st.route_hi[agent] = lo, hi
        st.goal[agent] = route.goal
        st.s_ref[agent] = 0.0
        st.s_attr[agent] = 0.0
        st.attr[agent] = route.start
        st.status[agent] = WALKING
        st.lost_reason[agent] = 0
        st.t_arrive[agent] = np.nan
        st.restart_progress(np.array([agent]), self.time)
        if st.method[agent] == IRM:
            self._set_corridor(agent, route)

    def _set_corridor(self, agent: int, route: Route) -> None:
        """Build and attach the IRM corridor of an agent's route (IRM 3.2) and its admissible safe distance."""
        st = self.state
        lo, hi = self.corridors.add(corridor_of_route(self.mesh, route, self.scale))
        st.corr_lo[agent], st.corr_hi[agent], st.corr_k[agent], st.corr_ak[agent] = lo, hi, lo, -1
        vmax = float(self.params.prof["max_speed"][st.profile[agent]])
        r_min = float(self.corridors.R[lo:hi].min()) if hi > lo else 0.0
        ds = self.params.get("safe_distance") or IRM_SAFE_TIME * vmax
        st.corr_ds[agent] = admissible_safe_distance(ds, vmax, self.params.dt, r_min, float(st.radius[agent]))

    def add_obstacle(self, polygon, obstacle_id: str | None = None) -> str:
        """Add an obstacle (an outline of [x, y] points) between steps; returns its id. Characters it covers move
        out of it, those whose way on it crosses are replanned, those it cuts off from their goal are lost ("its goal
        was closed off"); see core.sim.world. InputError for a bad outline or a taken id."""
        return world.add_obstacle(self, polygon, obstacle_id)

    def remove_obstacle(self, obstacle_id: str) -> None:
        """Remove an obstacle between steps; characters it had cut off from their goal are replanned (core.sim.world).
        InputError for an unknown id."""
        world.remove_obstacle(self, obstacle_id)

    def move_obstacle(self, obstacle_id: str, offset) -> None:
        """Move an obstacle by ``offset`` [dx, dy] between steps: a standing one as a removal and an addition at
        once (characters react as to both), a moving one with its whole path (core.sim.world). InputError for an
        unknown id or a bad offset."""
        world.move_obstacle(self, obstacle_id, offset)

    @property
    def replans_per_step(self) -> int:
        """How many characters waiting for a new route after a change of the world get one a step (core.sim.world;
        default 8)."""
        return self._replans_per_step

    @replans_per_step.setter
    def replans_per_step(self, n: int) -> None:
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise InputError([Problem("replans_per_step", f"must be a whole number >= 1, got {n!r}")])
        self._replans_per_step = int(n)

    @property
    def replanning(self) -> np.ndarray:
        """The characters waiting for a new route after a change of the world, in the order they get one (at most
        ``replans_per_step`` a step; core.sim.world); a copy."""
        return self._replans.copy()

    def obstacles_now(self) -> list[tuple[str, np.ndarray]]:
        """(id, outline (k, 2)) of every obstacle standing now, the moving ones where they are."""
        out = [(o.id, np.asarray(o.polygon, dtype=np.float64)) for o in self.scene.obstacles]
        for oid, p in self._moving.polygons_at(self.time):
            out.append((oid, np.asarray(p.exterior.coords, dtype=np.float64)[:-1]))
        return out

    def corridor_of(self, agent: int) -> dict[str, np.ndarray]:
        """An IRM agent's corridor (IRM 3.2) as plain arrays: ``centres`` (m, 2), ``radii`` (m,), ``left`` and
        ``right`` (m, 2) closest points, ``route_s`` (m,); empty for agents of other methods."""
        lo, hi = int(self.state.corr_lo[agent]), int(self.state.corr_hi[agent])
        c = self.corridors
        return {"centres": c.B[lo:hi].copy(), "radii": c.R[lo:hi].copy(), "left": c.L[lo:hi].copy(),
                "right": c.Q[lo:hi].copy(), "route_s": c.S[lo:hi].copy()}

    def route_of(self, agent: int) -> Route:
        """The route an agent follows."""
        return self.routes.route(int(self.state.route_lo[agent]), int(self.state.route_hi[agent]))

    # ----- live changes
    def set_method(self, method: str, agents: Sequence[int] | None = None) -> None:
        """Switch the steering method of all (or some) agents from the next step on."""
        _checked_method(method)
        code = method_code(method)
        if agents is None:
            self.method = method
            self.state.method[:] = code
            which = np.arange(self.state.n)
        else:
            which = np.asarray(agents, dtype=np.int64).reshape(-1)
            self.state.method[which] = code
        if code == IRM:
            for i in which.tolist():
                if self.state.corr_hi[i] <= self.state.corr_lo[i]:
                    self._set_corridor(i, self.route_of(i))

    def set_integrator(self, name: str) -> None:
        """Euler or Verlet from the next step on."""
        self.params.set("integrator", name)

    def set_dt(self, dt: float) -> None:
        """The time step from the next step on."""
        self.params.set("dt", dt)

    def set_profile(self, profile_id: str, **values: float) -> None:
        """Set sigma, d, max_speed or radius of a profile; a new radius also applies to its agents' discs."""
        self.params.set_profile(profile_id, **values)
        if "radius" in values:
            k = self.params.profile_index(profile_id)
            self.state.radius[self.state.profile == k] = self.params.prof["radius"][k]

    def set_weight(self, profile_id: str, terrain_id: str, value: float) -> None:
        """w(T) of a profile for a terrain type, from the next step on."""
        self.params.set_weight(profile_id, terrain_id, value)

    def set_radius(self, agents: Sequence[int] | int, radius: float) -> None:
        """The disc radius R of some agents from the next step on (Kremyzas ch. 5: R may vary)."""
        if not (isinstance(radius, (int, float)) and math.isfinite(radius) and radius >= 0):
            raise InputError([Problem("radius", f"must be a finite number >= 0, got {radius!r}")])
        self.state.radius[np.asarray(agents, dtype=np.int64)] = float(radius)

    # ----- stepping
    def step(self, n: int = 1, trace: Sequence[int] | None = None) -> list[AgentTrace] | None:
        """Advance n steps; with ``trace`` (agent indices) take one step and return those agents' traces."""
        if trace is not None:
            bufs = self._trace_buffers(trace)
            self._advance(1, 0, bufs)
            out = []
            for t in bufs.read(self.state.ids):
                status, why = self.status_of(t.agent)
                st = self.state
                out.append(dataclasses.replace(t, status=status, lost_reason=why,
                                               recovering=bool(st.rec_s[t.agent] >= 0.0),
                                               recovered_steps=int(st.rec_steps[t.agent]),
                                               stalls=int(st.stalls[t.agent]),
                                               kept_steps=max(0, int(st.attr_age[t.agent]))))
            return out
        self._advance(int(n), 0, None)
        return None

    def run(self, until: float | Callable[["Simulation"], bool] | None = None, max_steps: int | None = None,
            chunk: int = 512) -> int:
        """Step until ``until`` (a simulated time in s, or a predicate on the simulation) or until every agent
        has arrived, at most ``max_steps`` steps (default: automatic, see ``step_budget``); returns the steps
        taken. Steps run inside kernel calls of ``chunk`` steps, between which ``tend`` replans and respawns and a
        predicate is asked. An unrecorded run without a predicate or respawning goes on in one call (the kernel
        stops by itself when all arrived or one got lost): each call costs tens of microseconds of Python and
        argument checking, a tenth of a Table 1 path. Recorded runs keep ``chunk``: a call's times are its start
        time plus k dt, so other cuts would log times that differ in the last bits."""
        budget = self.step_budget() if max_steps is None else int(max_steps)
        done = 0
        flags = kernels.STOP_ALL_DONE | (kernels.STOP_ON_LOST if self.replan else 0)
        if not self.respawn and not callable(until) and not self.recorder.enabled:
            chunk = MAX_STEPS
        if self.respawn:
            chunk = min(chunk, max(1, int(round(RESPAWN_PERIOD / self.params.dt))))
        while done < budget:
            self.tend()
            if self.walking() == 0 and len(self._replans):
                world.replan_queued(self, len(self._replans))   # nobody walks: no step to spread them over
            if self.walking() == 0:
                skipped = self._idle_until_the_world_changes(budget - done)
                if skipped == 0:
                    break
                done += skipped
                continue
            k = min(chunk, budget - done)
            if isinstance(until, (int, float)):
                left = float(until) - self.time
                if left <= 1e-12:
                    break
                k = min(k, max(1, int(math.ceil(left / self.params.dt - 1e-9))))
            elif until is not None and until(self):
                break
            got = self._advance(k, flags, None)
            done += got
            if got == 0:
                break
        if done:
            self._log_where_stopped()
        return done

    def tend(self) -> None:
        """What runs between chunks of steps: replan the agents that lost their way (``replan``, MIRAN 3.5) and give
        the arrived ones new errands (``respawn``, IRM section 6). ``run`` calls it; so does a caller that steps
        with ``step``."""
        if self.replan and bool((self.state.status == LOST).any()) and np.any(self.replannable()):
            population.replan_lost(self, self.planner, MAX_REPLANS)
        if self.respawn and np.any(self.state.status == ARRIVED):
            population.respawn_arrived(self, self.rng, self.planner)
            self._compact_routes()

    def _log_where_stopped(self) -> None:
        """With a recording interval over one step, log the walkers where a run stops, so that every path ends
        at the agent's last position."""
        rec = self.recorder
        if rec.every > 1 and self.steps % rec.every != 0:
            idx = np.flatnonzero(self.state.status != ARRIVED)
            if len(idx):
                rec.append(idx.astype(np.int32), self.time, self.state.pos[idx])

    def set_record(self, record: bool | int) -> None:
        """Change which positions are kept from the next step on (see the class's ``record``)."""
        self.recorder.every = record_every(record)

    def _compact_routes(self) -> None:
        """Drop the rows of routes (and IRM corridors) no agent follows any more (replanned or respawned agents leave
        theirs): a respawning crowd's books then stay the size of those in use."""
        st = self.state
        live = int(np.sum(st.route_hi - st.route_lo)) if st.n else 0
        if self.routes.used > 2 * live + ROUTE_SLACK:
            st.route_lo[:], st.route_hi[:] = self.routes.compact(st.route_lo, st.route_hi)
        live = int(np.sum(st.corr_hi - st.corr_lo)) if st.n else 0
        if self.corridors.used > 2 * live + ROUTE_SLACK:
            shift = self.corridors.compact(st.corr_lo, st.corr_hi)
            st.corr_lo += shift
            st.corr_hi += shift
            st.corr_k += shift
            st.corr_ak[st.corr_ak >= 0] += shift[st.corr_ak >= 0]

    def step_budget(self) -> int:
        """A generous number of steps for every agent to walk its route: 20 times the longest route over the
        slowest speed, plus 1000; at most MAX_STEPS (see ``needed_steps`` for the uncapped figure)."""
        return int(min(self.needed_steps(), MAX_STEPS))

    def needed_steps(self) -> float:
        """The uncapped step budget as a float (it can exceed any integer type for extreme parameters)."""
        st = self.state
        if st.n == 0:
            return 0.0
        lengths = self.routes.s[st.route_hi - 1]
        speeds = self.params.prof["max_speed"][st.profile]
        with np.errstate(over="ignore", divide="ignore"):
            need = 20.0 * float(np.max(lengths / speeds)) / self.params.dt + 1000.0
        return need if math.isfinite(need) else math.inf

    def walking(self) -> int:
        """Number of agents still walking."""
        return int(np.count_nonzero(self.state.status == WALKING))

    def _idle_until_the_world_changes(self, most: int) -> int:
        """With nobody walking: when a scheduled obstacle still has to go and it had closed off some character's
        goal, let the time run on to it (at most ``most`` steps; nothing moves, nothing is recorded) and apply it;
        returns the steps passed (0: nothing to wait for)."""
        waiting = bool(np.any(self.state.lost_reason[self.state.status == LOST] == REASON_CLOSED_OFF))
        if not (waiting and any(kind == world.GOES for _, kind, _ in self._events)):
            return 0
        k = min(most, self._steps_to_event())
        self._clock[0] = self.time + k * self.params.dt
        self._clock[1] += k
        world.apply_due(self, self._events)
        return k

    def _steps_to_event(self) -> int:
        """Steps from now to the next scheduled change of the world (at least 1; a large number when none)."""
        if not self._events:
            return MAX_STEPS
        return max(1, int(math.ceil((self._events[0][0] - self.time) / self.params.dt - 1e-9)))

    def _advance(self, n: int, flags: int, bufs: TraceBuffers | None) -> int:
        """Up to n steps, cut where a scheduled obstacle comes or goes (core.sim.world applies it between steps),
        one at a time while a moving obstacle may stand (core.sim.moving acts around each) or characters wait to be
        replanned (core.sim.world replans some before each); returns the steps done."""
        done = 0
        while done < n:
            world.apply_due(self, self._events)
            world.prepare_ahead(self)
            if self._moving.after(self.time) or len(self._replans):
                k = 1
                world.replan_queued(self)
                lost = np.count_nonzero(self.state.status == LOST)
                got = self._one_step(flags, bufs)
                if flags & kernels.STOP_ON_LOST and np.count_nonzero(self.state.status == LOST) > lost:
                    done += got
                    break                      # as the kernel stops on a new LOST agent: ``tend`` replans it
            else:
                k = min(n - done, self._steps_to_event())
                got = self._advance_steps(k, flags, bufs)
            done += got
            if got < k:
                break
        world.apply_due(self, self._events)
        return done

    def _one_step(self, flags: int, bufs: TraceBuffers | None) -> int:
        """One step, with the moving obstacles' avoidance force before it and their guard after it."""
        if not self._moving.stands(self.time) and not self._moving.stands(self.time + self.params.dt):
            return self._advance_steps(1, flags, bufs)
        before = self.state.pos.copy()
        t0 = self.time
        logged = int(self.recorder.cursor[0])
        moving.kick(self, self._moving)
        got = self._advance_steps(1, flags, bufs)
        if got:
            moving.push_out(self, self._moving, before, t0, logged)
        return got

    def _advance_steps(self, n: int, flags: int, bufs: TraceBuffers | None) -> int:
        st = self.state
        if st.n == 0 or n <= 0:
            return 0
        every = self.recorder.every
        if every > 0:
            # Each every-th step logs every walker; an agent's arrival adds one row of its own.
            self.recorder.ensure((n // every + 1) * self.walking() + self.walking())
        tr = bufs.kernel_tuple() if bufs is not None else _NO_TRACE
        nb = self._neighbour_grid()
        if self.threads > 1:
            numba.set_num_threads(min(self.threads, numba.config.NUMBA_NUM_THREADS))  # type: ignore[attr-defined]
        plan = StepPlan(int(n), int(flags), int(every), self.threads)
        P = Params(self.params.glob, self.params.prof, self.params.weights, self._weight_stats(), self.scale)
        return int(kernels.advance(plan, self._arrays, RouteArrays(self.routes.points, self.routes.s),
                                   st.kernel_arrays(), P, self._extension(), nb, self.recorder.buffers(),
                                   self._clock, tr))

    def set_threads(self, threads: int) -> None:
        """Step on this many threads from the next step on (the paths do not depend on it); InputError when it is
        not a whole number >= 1."""
        self.threads = checked_threads(threads)

    def _extension(self) -> CrowdArrays:
        """The kernels' crowd extras (core.sim.kernel_inputs.CrowdArrays): height field, Perlin table, noise phases,
        corridors, and the mesh's terrain boundaries (core.navmesh.kernels.crossings); the same structure until
        agents or corridors are added."""
        st = self.state
        key = (st.layout_key(), self.corridors.layout_key())
        cached = self.__dict__.get("_ext")
        if cached is None or cached[0] != key:
            ext = CrowdArrays(self._hf_geo, self._heights, self._perm, st.noise_phase, *self.corridors.kernel_tuple(),
                              st.corr_lo, st.corr_hi, st.corr_k, st.corr_ds, st.corr_ak, self.mesh.terrain_args(),
                              self._kept_windows())
            cached = (key, ext)
            self.__dict__["_ext"] = cached
        return cached[1]

    def _kept_windows(self) -> KeptWindows:
        """Every agent's window edges kept between steps (core.sim.kernel_inputs.KeptWindows): one set per agent
        layout, so that an IRM agent's new corridor does not throw away the MIRAN agents' kept lists."""
        key = self.state.layout_key()
        cached = self.__dict__.get("_keep")
        if cached is None or cached[0] != key:
            cached = (key, kept_windows(self.state.n))
            self.__dict__["_keep"] = cached
        return cached[1]

    def _weight_stats(self) -> np.ndarray:
        """(P, 2) float64 per profile: the smallest weight (the pruning bound) and 1.0 when all weights are
        equal (omega then needs no walk: sum_T w l^T = w |x - q| on a visible segment); recomputed when a weight
        changes."""
        w = self.params.weights
        key = (w.shape, w.tobytes())
        cached = self.__dict__.get("_wstats")
        if cached is not None and cached[0] == key:
            return cached[1]
        out = np.zeros((w.shape[0], 2), dtype=np.float64)
        if w.size:
            out[:, 0] = w.min(axis=1)
            out[:, 1] = w.max(axis=1) == out[:, 0]
        self.__dict__["_wstats"] = (key, out)
        return out

    def _neighbour_grid(self) -> neighbors.Neighbours:
        st = self.state
        if not self.params.get("interact") or st.n < 2:
            return neighbors.no_neighbours()
        # Every neighbour loop scans the cells its own reach covers, so any cell size is correct; this one fits
        # the slowest profile's avoidance region (IRM eq. 6, d_o = vmax by default): faster agents scan more cells.
        vmin = float(self.params.prof["max_speed"].min())
        d_o = self.params.get("d_o") or vmin
        cell = d_o + 2.0 * float(st.radius.max(initial=0.0))
        return neighbors.neighbours_for(neighbors.grid_shape(self.scene.bounds, cell, st.n), st.n)

    def _trace_buffers(self, agents: Sequence[int]) -> TraceBuffers:
        idx = np.asarray(list(agents), dtype=np.int64).reshape(-1)
        if len(idx) and (idx.min() < 0 or idx.max() >= self.state.n):
            raise InputError([Problem("trace", f"agent index out of range 0..{self.state.n - 1}")])
        prof = self.params.prof[self.state.profile[idx]]
        cap = int(np.max(np.ceil(prof["sigma"] / prof["d"]))) + 2 * MAX_INTERVALS + 4 if len(idx) else 1
        return TraceBuffers(self.state.n, idx, cap)

    # ----- results
    def arrived(self) -> np.ndarray:
        """(n,) bool: which agents have reached their goal."""
        return self.state.status == ARRIVED

    def lost(self) -> np.ndarray:
        """(n,) bool: agents that are LOST: waiting for a new route (MIRAN 3.5), or lost for good (``status_of``)."""
        return self.state.status == LOST

    def replannable(self) -> np.ndarray:
        """(n,) bool: LOST agents that replanning may still help (lost sight of their route, or blocked)."""
        st = self.state
        return (st.status == LOST) & np.isin(st.lost_reason, REPLANNABLE)

    def status_of(self, agent: int) -> tuple[str, str]:
        """An agent's status as words: ("walking" | "arrived" | "lost", the reason a lost agent is lost)."""
        code = int(self.state.status[agent])
        if code == ARRIVED:
            return "arrived", ""
        if code == WALKING:
            return "walking", ""
        reason = int(self.state.lost_reason[agent])
        return "lost", REASON_NAMES.get(reason) or REASON_NAMES[1]

    def give_up(self, agents: np.ndarray) -> None:
        """Mark agents LOST for good with the reason "no progress" (they will not be replanned)."""
        self.state.status[agents] = LOST
        self.state.lost_reason[agents] = REASON_NO_PROGRESS

    def positions(self) -> np.ndarray:
        """A copy of the (n, 2) positions (a snapshot another thread may keep)."""
        return self.state.pos.copy()

    def path(self, agent: int) -> np.ndarray:
        """(m, 3) float64 [t, x, y] rows of an agent's walked path."""
        return self.recorder.path(agent)

    def fork(self, keep_paths: bool = True) -> "Simulation":
        """An independent copy of this simulation in its current state (e.g. the app's preview of the future).

        ``keep_paths=False`` starts the copy's recorder afresh at the current positions (the walked history is not
        copied), so a preview of the future costs O(agents), not O(history)."""
        c = object.__new__(Simulation)
        c.__dict__.update(self.__dict__)
        c.params = self.params.copy()
        c.state = self.state.copy()
        c.routes = self.routes.copy()
        if keep_paths:
            c.recorder = self.recorder.copy()
        else:
            c.recorder = Recorder(every=self.recorder.every)
            if c.recorder.enabled and c.state.n:
                c.recorder.append(np.arange(c.state.n, dtype=np.int32), self.time, c.state.pos)
        c._clock = self._clock.copy()
        c.rng = np.random.default_rng(self.seed)
        c.planned = dict(self.planned)
        c.unrouted = dict(self.unrouted)
        c.misfit = dict(self.misfit)
        c.corridors = self.corridors.copy()
        c._events = list(self._events)
        c._replans = self._replans.copy()
        return c

    def recovery(self) -> dict[str, np.ndarray]:
        """The public recovery counter (core.sim.progress), per agent over its whole life: ``steps`` walked,
        ``recovered_steps`` of them walked by the progress guarantee instead of the method's forces, ``stalls``
        (recoveries started); copies."""
        st = self.state
        return {"steps": st.walk_steps.copy(), "recovered_steps": st.rec_steps.copy(), "stalls": st.stalls.copy()}

    def summary(self) -> dict:
        """Counts for a quick report: agents, walking, arrived, lost, time, steps, and the recovery counter's
        totals (agent-steps walked, of them in recovery, stalls, characters that stalled)."""
        st = self.state
        return {"agents": st.n, "walking": self.walking(), "arrived": int(self.arrived().sum()),
                "lost": int(self.lost().sum()), "time": self.time, "steps": self.steps,
                "agent_steps": int(st.walk_steps.sum()), "recovered_steps": int(st.rec_steps.sum()),
                "stalls": int(st.stalls.sum()), "stalled": int(np.count_nonzero(st.stalls))}


# What an untraced step passes as the trace buffers (zero-size: the kernels never write to them).
_NO_TRACE = TraceBuffers.empty(0).kernel_tuple()


def default_threads() -> int:
    """All cores but one (left to the UI), at least 1: the app's and the CLI's default number of threads."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, cores - 1)


def checked_threads(threads: object, path: str = "threads") -> int:
    """``threads`` as an int >= 1; InputError naming ``path`` otherwise."""
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
        raise InputError([Problem(path, f"must be a whole number >= 1, got {threads!r}")])
    return int(threads)


def _checked_method(name: str, path: str = "method") -> str:
    if name not in CODES:
        raise InputError([Problem(path, f"unknown method {name!r} (valid: {', '.join(CODES)})")])
    if name not in IMPLEMENTED:
        raise InputError([Problem(path, f"method {name!r} is not available in this version "
                                        f"(available: {', '.join(IMPLEMENTED)})")])
    return name


__all__ = ["IMPLEMENTED", "Simulation", "checked_threads", "default_threads"]
