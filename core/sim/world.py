"""A world that changes while characters walk: obstacles added to and removed from a running
simulation between steps, by the API or by the scene's schedule (an obstacle's ``appears`` and ``vanishes``).

Each change updates the navigation mesh locally, retriangulating only the cavity around the changed polygon
(``core.navmesh.update``: the same free space and terrain as a fresh build of the changed scene; a fresh build where
the local update fails its checks), updates the Explicit Corridor Map the planners' context holds, if it holds one,
recomputing only the edges whose corridors the change reaches (``core.ecm.update``; dropped where its checks fail,
for the ``ecm`` planner to build afresh), and drops the rest of the planners' context and the kept windows, which
the next replan and the next step build anew from the changed scene (or takes a context prepared ahead, below). The
characters then react:

- one that the new obstacle covers, or whose disc (disc MIRAN, IRM) it overlaps, is moved to the nearest place
  where its disc and its route clearance fit, and is replanned from there;
- one whose way on (the rest of its route, from its reference point) crosses the new obstacle, within its disc's
  radius, gets a new route from where it stands, by the simulation's planner, keeping its clearance, as MIRAN 3.5
  replans a lost character; this replanning does not count towards the replans that give up on a character;
- one left without a route is lost with the reason "its goal was closed off", and is replanned when an obstacle is
  removed.

Replanning is spread over the steps that follow, as DetourCrowd's path queue spreads its path requests: the
characters to replan wait in a queue, nearest to the change first, and each step replans at most
``Simulation.replans_per_step`` of them (a count, not a time, so that a run does not depend on the machine's speed).
A character waiting walks on along its old route; one the obstacle moved out is replanned at once.

A change can be prepared on another thread before it is applied: ``prepare`` computes its scenes, meshes and
planners' structures while the characters walk on, and ``apply_change`` takes them (the same pure functions of the
same inputs, so the run does not change, only the stop at the change is shorter). A change on the scene's schedule
is known in advance, and ``prepare_ahead`` prepares it before it is due; the app prepares its live edits.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np
import shapely
import shapely.ops

from core.navmesh import NavMesh, build_navmesh
from core.navmesh.queries import locate
from core.navmesh.update import local_update
from core.priority import lower_thread_priority
from core.routes import PlannerContext, plan_route
from core.scene.fields import MAX_COORD
from core.scene.model import Obstacle, Scene
from core.scene.problems import InputError, Problem

from .moving import grown, guard_radius
from .state import ARRIVED, LOST, REASON_CLOSED_OFF, WALKING
from .ways import near_box


# A scheduled obstacle's events (core.scene.model.Obstacle.appears / vanishes): (time, kind, obstacle).
GOES = 0
COMES = 1

# Characters replanned per step after a change of the world (Simulation.replans_per_step): about 12 ms a step at the
# 1.5 ms a replan measured on the city.
REPLANS_PER_STEP = 8
# A scheduled change of the world is prepared off the step thread once it is this many simulated seconds away
# (Simulation.prepare_ahead_s; ``prepare_ahead``).
PREPARE_AHEAD_S = 10.0
# Nice steps the preparing thread takes above the thread that first prepares: the steps (and the app's window) run
# first on a busy machine, the preparation in the time they leave.
PREPARE_NICE = 10
_PREPARER: list[ThreadPoolExecutor] = []
_PREPARER_LOCK = threading.Lock()


def schedule_of(scene) -> list:
    """The scene's scheduled obstacles as events in the order they happen, (time, GOES or COMES, obstacle); at one
    time, going before coming. An obstacle standing at time 0 is in the scene the run starts from (Scene.at). A
    moving obstacle's schedule is its own (core.sim.moving): it changes no mesh."""
    events = []
    for o in scene.obstacles:
        if o.moving:
            continue
        if o.appears > 0.0:
            events.append((o.appears, COMES, o))
        if o.vanishes is not None:
            events.append((o.vanishes, GOES, o))
    return sorted(events, key=lambda e: (e[0], e[1]))


def apply_due(sim, events: list) -> int:
    """Apply, in order, the events of ``events`` due by ``sim``'s time (removed from the list); returns how many.
    An obstacle the API already added or removed under the same id is left as it is."""
    done = 0
    while events and events[0][0] <= sim.time + 1e-9 * max(1.0, sim.time):
        event = events.pop(0)
        _, kind, o = event
        standing = any(s.id == o.id for s in sim.scene.obstacles)
        ready = _take_prepared(sim, event)
        if kind == COMES and not standing:
            add_obstacle(sim, o.polygon, o.id, ready)
        elif kind == GOES and standing:
            remove_obstacle(sim, o.id, ready)
        done += 1
    return done


@dataclasses.dataclass(frozen=True, eq=False)
class Ready:
    """One scheduled change computed ahead: the scene it leads to, its mesh (and whether that was a local update)
    and a planners' context for that scene and mesh, its structures built by one route a profile where it will
    plan (an addition, or the last change of a preparation; otherwise built when first asked); ``ecm_from``
    the Explicit Corridor Map the context's was updated from (None if none was held)."""

    scene: Scene
    mesh: NavMesh
    local: bool
    context: PlannerContext
    ecm_from: object = None


class Preparation:
    """Changes of the world being computed on another thread (``prepare``): ``ops`` and, once ``done``, their
    Ready ``steps``; ``base`` the mesh they start from (that of the preparation it follows, when it follows one)."""

    def __init__(self, ops: tuple, future: Future, base: NavMesh | None, after: "Preparation | None") -> None:
        self.ops = ops
        self.future = future
        self._base = base
        self._after = after

    def done(self) -> bool:
        return self.future.done()

    def steps(self) -> list[Ready]:
        """The Ready steps, waiting for them; InputError when they could not be prepared."""
        return self.future.result()

    def base(self) -> NavMesh | None:
        """The mesh the steps start from (waiting for the preparation this one follows); None if unknown."""
        if self._after is None:
            return self._base
        try:
            return self._after.steps()[-1].mesh
        except InputError:
            return None


def prepare(sim, ops: tuple, after: Preparation | None = None) -> Preparation:
    """Start computing, on another thread, what the changes ``ops`` ((COMES or GOES, obstacle) each, in order) make
    of ``sim``'s world, or of the world ``after`` leads to: the scene after each, its mesh and a planners' context
    (warmed with one route a profile where it will plan: an addition, or the last change), for ``apply_change``."""
    st = sim.state
    # One errand a profile to plan ahead (two walking characters' goals: points the characters walk to anyway).
    errands = []
    for k, p in enumerate(sim.params.profile_ids):
        goals = st.goal[(st.status == WALKING) & (st.profile == k)]
        if len(goals):
            errands.append((p, sim.clearance_for(p), goals[0].copy(), goals[-1].copy()))
    with _PREPARER_LOCK:
        if not _PREPARER:
            _PREPARER.append(ThreadPoolExecutor(max_workers=1, thread_name_prefix="miran-world",
                                                initializer=lower_thread_priority, initargs=(PREPARE_NICE,)))
    planner = sim.planner
    if after is None:
        future = _PREPARER[0].submit(_prepared_steps, sim.scene, sim.mesh, held_ecm(sim), ops, planner, errands)
        return Preparation(ops, future, sim.mesh, None)

    def following() -> list[Ready]:
        last = after.steps()[-1]        # one worker thread: ``after`` is done before this starts
        return _prepared_steps(last.scene, last.mesh, last.context.ecm, ops, planner, errands)
    return Preparation(ops, _PREPARER[0].submit(following), None, after)


def apply_change(sim, ops: tuple, prepared: Preparation | None = None) -> float:
    """Apply ``ops`` (as in ``prepare``) to ``sim``: a GOES removes its obstacle, a COMES adds it. With
    ``prepared`` (``prepare``'s answer) made from the simulation's present mesh, each step takes what was computed
    ahead, waiting for what is not finished; the result is the same either way. Returns the CPU seconds spent."""
    steps = _steps_of(prepared, sim)
    spent = 0.0
    for k, (kind, o) in enumerate(ops):
        ready = steps[k] if steps is not None else None
        if kind == GOES:
            remove_obstacle(sim, o.id, ready)
        else:
            add_obstacle(sim, o.polygon, o.id, ready)
        spent += sim.last_world_update_s
        if ready is not None and not sim.last_world_update_prepared:
            steps = None                  # computed afresh: the later steps were prepared from another mesh
    return spent


def prepare_ahead(sim) -> None:
    """Prepare (``prepare``) the scheduled changes due next, those at the next event's time, once they are
    ``sim.prepare_ahead_s`` simulated seconds away or less. ``apply_due`` then takes them instead of computing them
    at the step that meets them: the run is the same, but that step no longer stops for the planners' structures."""
    events = sim._events
    if not events or sim.prepare_ahead_s < 0 or events[0][0] - sim.time > sim.prepare_ahead_s:
        return
    group = tuple(e for e in events if e[0] == events[0][0])
    if sim._prepared is not None and sim._prepared[0][0] is group[0] and sim._prepared[1].base() is sim.mesh:
        return                            # prepared already, from the world as it is now
    sim._prepared = (group, prepare(sim, tuple((kind, o) for _, kind, o in group)))


def held_ecm(sim):
    """The Explicit Corridor Map the simulation's planners' context holds, None if it holds none (the ``ecm``
    planner builds one when first asked)."""
    return sim._context.ecm if sim._context is not None else None


def updated_ecm(ecm, scene, changed: list):
    """(the ECM of ``scene`` updated locally from ``ecm``, that of the scene before the ``changed`` polygons
    changed (``core.ecm.update``), whether it was): None where no ECM was held or the update failed its checks,
    and the ``ecm`` planner builds the changed scene's afresh when it is next asked."""
    if ecm is None or not changed:
        return ecm, ecm is not None
    from core.ecm.update import local_update as ecm_local_update

    updated = ecm_local_update(ecm, scene, changed)
    return updated, updated is not None


def _prepared_steps(scene, mesh, ecm, ops: tuple, planner: str, errands: list) -> list[Ready]:
    """What applying ``ops`` in turn to ``scene`` (whose mesh is ``mesh`` and ECM ``ecm``, None if none is held)
    builds, as ``add_obstacle`` and ``remove_obstacle`` build it (an obstacle added that stands already, or removed
    that does not, changes nothing); the context of each addition, and of the last step, warmed by the errands."""
    out = []
    for k, (kind, o) in enumerate(ops):
        standing = any(s.id == o.id for s in scene.obstacles)
        if kind == COMES and not standing:
            pts = checked_polygon(o.polygon, scene.bounds, f"obstacle {o.id}")
            scene, changed = _with(scene, o.id, pts), [shapely.Polygon(pts)]
        elif kind == GOES and standing:
            scene, changed = _without(scene, o.id)
        else:
            changed = []
        base = ecm
        if changed:
            updated = local_update(mesh, scene, changed)
            local = updated is not None
            mesh = updated if updated is not None else build_navmesh(scene)
            ecm = updated_ecm(ecm, scene, changed)[0]
        else:
            local = True
        ctx = PlannerContext(scene, navmesh=mesh, ecm=ecm)
        # Warmed only where it will plan: an addition replans the characters it covers as it is applied, and the
        # last step's context plans every character queued. A removal with more changes after it (a move's first
        # half) only queues characters, so its structures would never be read: half a move's preparation.
        plans = kind == COMES or k == len(ops) - 1
        for profile, clearance, a, b in errands if plans else ():
            try:
                plan_route(scene, a, b, planner, profile=profile, clearance=clearance, context=ctx, spot=False)
            except InputError:
                pass                      # the structures are built before a route is refused
        out.append(Ready(scene, mesh, local, ctx, base))
        ecm = ctx.ecm                     # the next step starts from this one's map, or one its errands built
    return out


def _steps_of(prepared: Preparation | None, sim) -> list[Ready] | None:
    """The Ready steps of ``prepared`` when it was prepared from ``sim``'s present mesh (waiting for them), else
    None."""
    if prepared is None or prepared.base() is not sim.mesh:
        return None
    try:
        return prepared.steps()
    except InputError:
        return None


def _take_prepared(sim, event) -> Ready | None:
    """The step prepared ahead for the scheduled ``event`` when it was prepared from the simulation's present mesh
    (waiting for it if it is not finished), None otherwise."""
    if sim._prepared is None:
        return None
    group, prepared = sim._prepared
    if prepared.base() is not sim.mesh:
        sim._prepared = None              # the world changed since: prepared for another scene
        return None
    if group[0] is not event:
        return None
    steps = _steps_of(prepared, sim)
    if steps is None:
        sim._prepared = None
        return None
    ready = steps[0]
    rest = Preparation(prepared.ops[1:], _done(steps[1:]), ready.mesh, None)
    sim._prepared = (group[1:], rest) if len(group) > 1 else None
    return ready


def _done(value) -> Future:
    f: Future = Future()
    f.set_result(value)
    return f


def checked_polygon(polygon, bounds, where: str) -> np.ndarray:
    """(k, 2) float64 of an obstacle's outline: at least 3 finite points, a valid polygon of positive area that
    meets the scene's bounds; InputError naming ``where`` otherwise."""
    try:
        pts = np.asarray(polygon, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError([Problem(where, "must be a list of [x, y] points")]) from None
    if pts.ndim != 2 or pts.shape[1] != 2 or len(pts) < 3:
        raise InputError([Problem(where, f"must be at least 3 [x, y] points, got shape {pts.shape}")])
    if not np.isfinite(pts).all():
        raise InputError([Problem(where, "every coordinate must be a finite number")])
    poly = shapely.Polygon(pts)
    if not poly.is_valid or poly.area <= 0.0:
        why = shapely.is_valid_reason(poly)
        raise InputError([Problem(where, f"is not a simple polygon of positive area ({why})")])
    if not poly.intersects(shapely.box(*bounds)):
        raise InputError([Problem(where, f"lies outside the scene's bounds {tuple(bounds)}")])
    return pts


def _with(scene, obstacle_id: str, pts: np.ndarray):
    """``scene`` with the obstacle ``obstacle_id`` of outline ``pts`` added last."""
    return dataclasses.replace(scene, obstacles=[*scene.obstacles,
                                                 Obstacle(obstacle_id, [tuple(p) for p in pts.tolist()])])


def _without(scene, obstacle_id: str):
    """(``scene`` without the obstacle ``obstacle_id``, [its outline as a shapely polygon])."""
    gone = shapely.Polygon(next(o for o in scene.obstacles if o.id == obstacle_id).polygon)
    return dataclasses.replace(scene, obstacles=[o for o in scene.obstacles if o.id != obstacle_id]), [gone]


def add_obstacle(sim, polygon, obstacle_id: str | None = None, ready: Ready | None = None) -> str:
    """Add an obstacle to the running simulation ``sim`` (see the module docstring); returns its id. ``ready``: the
    change prepared ahead (``prepare_ahead``)."""
    taken = {o.id for o in sim.scene.obstacles} | {o.id for o in sim._moving.obstacles}
    if obstacle_id is None:
        k = len(taken)
        while f"obstacle-{k}" in taken:
            k += 1
        obstacle_id = f"obstacle-{k}"
    elif not isinstance(obstacle_id, str) or not obstacle_id:
        raise InputError([Problem("obstacle id", f"must be a non-empty string, got {obstacle_id!r}")])
    elif obstacle_id in taken:
        raise InputError([Problem(f"obstacle {obstacle_id}", "an obstacle with this id is already in the scene")])
    pts = checked_polygon(polygon, sim.scene.bounds, f"obstacle {obstacle_id}")
    t0 = time.thread_time()
    _rebuild(sim, _with(sim.scene, obstacle_id, pts), [shapely.Polygon(pts)], ready)
    _react_to(sim, shapely.Polygon(pts))
    sim.last_world_update_s = time.thread_time() - t0
    return obstacle_id


def remove_obstacle(sim, obstacle_id: str, ready: Ready | None = None) -> None:
    """Remove an obstacle from the running simulation ``sim``; the characters whose goal it had closed off are
    replanned. A moving obstacle simply goes. ``ready``: the change prepared ahead (``prepare_ahead``)."""
    if sim._moving.find(obstacle_id) is not None:
        sim._moving = sim._moving.replaced(obstacle_id, None)
        return
    if not any(o.id == obstacle_id for o in sim.scene.obstacles):
        raise InputError([Problem(f"obstacle {obstacle_id}", "no obstacle with this id in the scene")])
    t0 = time.thread_time()
    scene, changed = _without(sim.scene, obstacle_id)
    _rebuild(sim, scene, changed, ready)
    _reopen(sim, changed[0])
    sim.last_world_update_s = time.thread_time() - t0


def move_obstacle(sim, obstacle_id: str, offset) -> None:
    """Move an obstacle of the running simulation ``sim`` by ``offset`` (dx, dy): a standing one is taken away and
    put back there at once (its old ground opens, the characters react to the new one as to an addition); a moving
    one is carried with its whole path."""
    try:
        d = np.asarray(offset, dtype=np.float64).reshape(2)
    except (TypeError, ValueError):
        raise InputError([Problem("offset", f"must be [dx, dy], got {offset!r}")]) from None
    if not np.isfinite(d).all() or np.abs(d).max() > MAX_COORD:
        raise InputError([Problem("offset", f"every coordinate must be a finite number within +/-{MAX_COORD:g}, "
                                            f"got {offset!r}")])
    dx, dy = float(d[0]), float(d[1])
    o = sim._moving.find(obstacle_id)
    if o is not None:
        shifted = dataclasses.replace(o, polygon=[(x + dx, y + dy) for x, y in o.polygon],
                                      path=[(x + dx, y + dy) for x, y in o.path or []])
        if max(abs(c) for p in (*shifted.polygon, *(shifted.path or [])) for c in p) > MAX_COORD:
            raise InputError([Problem(f"obstacle {obstacle_id}", f"moved by {(dx, dy)} it would go beyond the "
                                                                 f"coordinate limit of +/-{MAX_COORD:g}")])
        sim._moving = sim._moving.replaced(obstacle_id, shifted)
        return
    old = [o for o in sim.scene.obstacles if o.id == obstacle_id]
    if not old:
        raise InputError([Problem(f"obstacle {obstacle_id}", "no obstacle with this id in the scene")])
    pts = checked_polygon([(x + dx, y + dy) for x, y in old[0].polygon], sim.scene.bounds, f"obstacle {obstacle_id}")
    t0 = time.thread_time()
    moved = Obstacle(obstacle_id, [tuple(p) for p in pts.tolist()])
    before = shapely.Polygon(old[0].polygon)
    _rebuild(sim, dataclasses.replace(sim.scene, obstacles=[moved if o.id == obstacle_id else o
                                                            for o in sim.scene.obstacles]),
             [before, shapely.Polygon(pts)])
    _react_to(sim, shapely.Polygon(pts))
    _reopen(sim, before)
    sim.last_world_update_s = time.thread_time() - t0


def _reopen(sim, near) -> None:
    """Queue for replanning the characters an obstacle had closed off from their goal (one has gone or moved),
    nearest to ``near`` (its old outline) first."""
    st = sim.state
    closed = np.flatnonzero((st.status == LOST) & (st.lost_reason == REASON_CLOSED_OFF))
    queue_replans(sim, closed, near)


def queue_replans(sim, agents: np.ndarray, near) -> None:
    """Put ``agents`` in the replanning queue, nearest to ``near`` (a shapely geometry) first, behind those already
    waiting; an agent already waiting keeps its place."""
    if len(agents) == 0:
        return
    waiting = sim._replans
    agents = agents[~np.isin(agents, waiting)]
    order = np.argsort(shapely.distance(near, shapely.points(sim.state.pos[agents])), kind="stable")
    sim._replans = np.concatenate([waiting, agents[order]]).astype(np.int64)


def replan_queued(sim, most: int | None = None) -> int:
    """Replan the first ``most`` (default ``sim.replans_per_step``) characters of the queue that have not arrived,
    dropping those that have; returns how many were replanned."""
    most = sim.replans_per_step if most is None else most
    q = sim._replans
    done = 0
    k = 0
    while k < len(q) and done < most:
        i = int(q[k])
        k += 1
        if sim.state.status[i] != ARRIVED:
            _replan(sim, i)
            done += 1
    sim._replans = q[k:]
    return done


def _rebuild(sim, scene, changed: list, ready: Ready | None = None) -> None:
    """Everything the step reads of the world, from ``scene``: the mesh updated around the ``changed`` polygons
    (shapely), or built afresh where the local update fails its checks; or, ``ready``, the mesh and the planners'
    context prepared ahead for the same scene."""
    t0 = time.thread_time()
    ecm = None
    if ready is not None and ready.scene.obstacles == scene.obstacles:
        scene, mesh, sim.last_mesh_update_local = ready.scene, ready.mesh, ready.local
    else:
        ready = None
        updated = local_update(sim.mesh, scene, changed)
        sim.last_mesh_update_local = updated is not None
        mesh = updated if updated is not None else build_navmesh(scene)
    t1 = time.thread_time()
    sim.last_mesh_update_s = t1 - t0
    held = held_ecm(sim)
    if ready is not None and ready.ecm_from is held:
        sim.last_ecm_update_local = held is not None and ready.context.ecm is not None
    else:
        # Not prepared, or prepared from another map (one first built after the change was prepared): updated now
        # from the map held, as the preparation would have.
        ecm, sim.last_ecm_update_local = updated_ecm(held, scene, changed)
        if ready is not None:
            ready.context.ecm = ecm
    sim.last_ecm_update_s = time.thread_time() - t1
    sim.last_world_update_prepared = ready is not None
    sim.scene = scene
    sim.mesh = mesh
    sim._arrays = mesh.arrays
    if ready is not None:
        sim._context = ready.context
    else:
        sim._context = PlannerContext(scene, navmesh=mesh, ecm=ecm) if ecm is not None else None
    for cached in ("_ext", "_keep"):
        sim.__dict__.pop(cached, None)
    sim.state.tri[:] = -1


def _react_to(sim, added) -> None:
    """The characters' reaction to the obstacle ``added`` (a shapely polygon): moved out, replanned or lost."""
    st = sim.state
    radius = guard_radius(sim)
    here = shapely.points(st.pos)
    hit = (st.status != ARRIVED) & ((shapely.distance(added, here) < radius) | shapely.covers(added, here))
    moved = np.flatnonzero(hit).tolist()
    rooms: dict[float, object] = {}       # the free space shrunk by each radius met, made once
    for i in moved:
        # Out to where its clearance fits too, so that a route can start there.
        fit = max(float(radius[i]), sim.clearance_for(sim.params.profile_ids[int(st.profile[i])]))
        st.pos[i] = _nearest_fit(sim.context.geometry.free, here[i], fit, sim.scale, rooms)
        st.vel[i] = 0.0
        st.has_force[i] = False
    if moved:
        at = locate(sim.mesh, st.pos[moved])
        bad = [i for i, t in zip(moved, at.tolist()) if t < 0]
        for i in bad:
            st.status[i] = LOST
            st.lost_reason[i] = REASON_CLOSED_OFF
        if sim.recorder.enabled:
            sim.recorder.append(np.asarray(moved, dtype=np.int32), sim.time, st.pos[moved])
        for i in moved:
            if st.status[i] == WALKING:
                _replan(sim, i)
    walking = np.flatnonzero((st.status == WALKING) & ~hit)
    # Only the ways on whose bounding box comes near the obstacle are built and measured.
    r = radius[walking]
    near_mask = np.zeros(len(walking), dtype=np.bool_)
    near_box(st.route_lo, st.route_hi, st.s_ref, st.pos, sim.routes.points, sim.routes.s, walking,
             np.asarray(added.bounds, dtype=np.float64), r, near_mask)
    near = np.flatnonzero(near_mask)
    crossing = walking[near][shapely.distance(_ways_on(sim, walking[near]), added) <= r[near]]
    queue_replans(sim, crossing, added)


def _packed_ways(sim, agents: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(ids, points): each agent's way on as consecutive rows, ``ids`` (m,) the agent's index in ``agents`` (sorted),
    ``points`` (m, 2) where it stands, then its route's points ahead of its reference point, in route order."""
    st = sim.state
    lo, hi = st.route_lo[agents], st.route_hi[agents]
    n = hi - lo
    rows = np.repeat(lo - np.cumsum(np.r_[0, n[:-1]]), n) + np.arange(int(np.sum(n)))
    owner = np.repeat(np.arange(len(agents)), n)
    keep = sim.routes.s[rows] > np.repeat(st.s_ref[agents], n)
    owner, rows = owner[keep], rows[keep]
    count = np.bincount(owner, minlength=len(agents)) + 1        # where it stands, then its points ahead
    ids = np.repeat(np.arange(len(agents)), count)
    pts = np.empty((len(ids), 2))
    pts[np.cumsum(count) - count] = st.pos[agents]
    pts[np.arange(len(rows)) + owner + 1] = sim.routes.points[rows]
    return ids, pts


def _ways_on(sim, agents: np.ndarray) -> np.ndarray:
    """Each agent's way on, one shapely geometry each: from where it stands along the rest of its route, from its
    reference point on (a point when nothing of the route is left)."""
    st = sim.state
    ids, pts = _packed_ways(sim, agents)
    count = np.bincount(ids, minlength=len(agents))
    out = np.empty(len(agents), dtype=object)
    lines = count >= 2
    if lines.any():
        sel = lines[ids]
        out[lines] = shapely.linestrings(pts[sel], indices=np.searchsorted(np.flatnonzero(lines), ids[sel]))
    out[~lines] = shapely.points(st.pos[agents[~lines]])
    return out


def _replan(sim, i: int) -> None:
    """A new route for character i from where it stands to its goal, or LOST: "its goal was closed off"."""
    st = sim.state
    prof = sim.params.profile_ids[int(st.profile[i])]
    try:
        res = plan_route(sim.scene, st.pos[i].copy(), st.goal[i].copy(), sim.planner, profile=prof,
                         clearance=sim.clearance_for(prof), context=sim.context, spot=False)
        sim.set_route(i, res.route)
    except InputError:
        st.status[i] = LOST
        st.lost_reason[i] = REASON_CLOSED_OFF


def _nearest_fit(free, x, r: float, scale: float, rooms: dict) -> np.ndarray:
    """The point nearest x where a disc of radius r (a point for 0) lies in ``free``, a hair inside; x itself when
    none does (the character is then lost). ``rooms``: the shrunk free spaces already made, by r, kept there."""
    room = rooms.get(r)
    if room is None:
        margin = 1e-6 * scale
        room = rooms[r] = grown(free, -(r + margin)) if r + margin > 0 else free
    if room.is_empty:
        return np.array([x.x, x.y])
    p = shapely.ops.nearest_points(room, x)[0]
    return np.array([p.x, p.y])

