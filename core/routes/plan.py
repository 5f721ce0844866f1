"""``plan_route``: one entry point for the five planners, with a reusable PlannerContext.

A planner asked for clearance C plans in the free space eroded by C (an end point closer than C to an obstacle is
joined to it by a straight segment). Where no route keeps C (a passage is narrower than 2C) the query fails with an
InputError that names the narrowest spot of the best route that keeps less, unless the caller accepts less with
``min_clearance``: then it tries C/2 and 0 down to that, and the result says so. ``clearance_ok`` is False when the
route comes closer than C anywhere, and ``narrowest`` / ``narrowest_at`` are the smallest distance from the route
to an obstacle or the bounds and where on the route it is, measured exactly on the returned polyline. Only the
``ecm`` planner handles clearance itself (the ECM's minimum-clearance path keeps C wherever the corridor is wide
enough).
"""

from __future__ import annotations

import copy
import importlib
import threading
from dataclasses import dataclass

import numpy as np

from core.scene.geometry import SceneGeometry, build_geometry
from core.scene.model import PLANNERS, Scene
from core.scene.problems import InputError, Problem, fmt_point

from .freespace import FreeSpace
from .route import Route


@dataclass(frozen=True, eq=False)
class PlanResult:
    """A planned indicative route.

    - ``route``: the Route from start to goal.
    - ``cost``: the planner's cost of the route: its terrain-weighted length for the profile in the planner's model
      (``grid``: the cells' terrain; ``cdt`` and ``network``: exact terrain lengths), its Euclidean length for
      ``portal`` and ``ecm``.
    - ``search_cost``: the optimum of the planner's search (A* on its graph); equals ``cost`` except for ``cdt``,
      whose route shortcuts the triangle centroids of the dual graph (``cost <= search_cost``).
    - ``planner``: the planner's name; ``profile``: the profile id whose weights were used (None: all weights 1).
    - ``clearance``: the clearance asked for; ``clearance_used``: the level the route was planned at.
    - ``clearance_ok``: every route point keeps ``clearance``; ``narrowest``: the route's smallest distance to an
      obstacle or the bounds (scene units), ``narrowest_at`` the (2,) point of the route where it is.
    """

    route: Route
    cost: float
    planner: str
    clearance_ok: bool
    narrowest: float
    profile: str | None = None
    clearance: float = 0.0
    clearance_used: float = 0.0
    search_cost: float = float("nan")
    narrowest_at: tuple[float, float] | None = None

    def to_dict(self) -> dict:
        """One entry of a ``miran-route`` file's ``routes`` list."""
        return {
            "from": [float(v) for v in self.route.start],
            "to": [float(v) for v in self.route.goal],
            "points": self.route.to_list(),
            "length": self.route.length,
            "cost": float(self.cost),
            "clearance_ok": bool(self.clearance_ok),
            "narrowest": float(self.narrowest),
            **({"narrowest_at": [float(v) for v in self.narrowest_at]} if self.narrowest_at is not None else {}),
        }


# Planner name -> (module under core.routes.planners, class); imported on first use.
PLANNER_CLASSES = {"grid": ("grid", "GridPlanner"), "cdt": ("cdt", "CdtPlanner"), "ecm": ("ecm", "EcmPlanner"),
                   "portal": ("portal", "PortalPlanner"), "network": ("network", "NetworkPlanner")}


class PlannerContext:
    """The structures built for one scene, reused by every query: geometry, free space per clearance level,
    navigation meshes, grid, convex decomposition, ECM and network graph.

    ``cell_size`` is the ``grid`` planner's cell size (default: 1/200 of the longer side of the bounds) and
    ``network`` the id of the indicative network the ``network`` planner uses (default: all of the scene's);
    ``portal_pieces`` what the ``portal`` planner merges into convex cells: "trapezoids" (Niederberger) or
    "triangles".

    Build one per scene (``PlannerContext(scene)``) and pass it to ``plan_route``; the simulation and batch queries
    then build each structure once. ``navmesh`` and ``ecm`` may be handed in when already built for the scene's
    own free space. A context must not be used with another (or an edited) scene.
    """

    def __init__(self, scene: Scene, geometry: SceneGeometry | None = None, navmesh=None, ecm=None,
                 cell_size: float | None = None, network: str | None = None, portal_pieces: str = "trapezoids"):
        self.scene = scene
        self.network = network
        self.portal_pieces = portal_pieces
        self._geometry = geometry
        self.cell_size = cell_size
        self._free: dict[float, FreeSpace] = {}
        self._planners: dict[str, object] = {}
        self._navmeshes: dict[float, object] = {} if navmesh is None else {0.0: navmesh}
        self.ecm = ecm
        self.lock = threading.RLock()

    def for_static_world(self, scene: Scene) -> "PlannerContext":
        """This context for ``scene``, the static world of its own scene (``Scene.at(0.0)``: the same free space,
        without the obstacles that come later or move), sharing every structure built and to be built."""
        twin = copy.copy(self)
        twin.scene = scene
        return twin

    @property
    def geometry(self) -> SceneGeometry:
        """The scene's SceneGeometry (built on first use)."""
        with self.lock:
            if self._geometry is None:
                self._geometry = build_geometry(self.scene)
            return self._geometry

    def free(self, clearance: float = 0.0) -> FreeSpace:
        """The free space eroded by ``clearance`` (cached per level)."""
        key = float(clearance)
        with self.lock:
            if key not in self._free:
                self._free[key] = FreeSpace.of(self.geometry, key)
            return self._free[key]

    def navmesh(self, clearance: float = 0.0):
        """The constrained triangulation (core.navmesh) of the free space eroded by ``clearance`` (cached)."""
        from core.navmesh import build_navmesh

        key = float(clearance)
        with self.lock:
            if key not in self._navmeshes:
                self._navmeshes[key] = build_navmesh(self.scene, geometry=self.free(key).geometry)
            return self._navmeshes[key]

    @property
    def mesh(self):
        """The navigation mesh of the scene's own free space (level 0), for exact queries."""
        return self.navmesh(0.0)

    def contains(self, pts) -> np.ndarray:
        """(n,) bool: points in the closed free space (exact point location on the navigation mesh)."""
        from core.navmesh.queries import locate

        return locate(self.mesh, np.asarray(pts, dtype=np.float64).reshape(-1, 2)) >= 0

    def visible(self, p, q) -> np.ndarray:
        """(n,) bool: segment p[i] -> q[i] stays in the closed free space (exact walk on the navigation mesh)."""
        from core.navmesh.queries import segment_visible

        return segment_visible(self.mesh, np.asarray(p, dtype=np.float64).reshape(-1, 2),
                               np.asarray(q, dtype=np.float64).reshape(-1, 2))

    def terrain_lengths(self, p, q) -> np.ndarray:
        """(n, n_types) float64 exact length of each segment p[i] -> q[i] in each terrain type (MIRAN 3.3)."""
        from core.navmesh.queries import segment_terrain_lengths

        return segment_terrain_lengths(self.mesh, np.asarray(p, dtype=np.float64).reshape(-1, 2),
                                       np.asarray(q, dtype=np.float64).reshape(-1, 2))

    def narrowest(self, pts) -> float:
        """Smallest distance from the polyline pts (m, 2) to an obstacle or the bounds."""
        from core.navmesh.queries import polyline_clearance

        return polyline_clearance(self.mesh, np.asarray(pts, dtype=np.float64).reshape(-1, 2))

    def narrowest_spot(self, pts) -> np.ndarray:
        """(2,) the point of the polyline pts (m, 2) nearest to an obstacle or the bounds (shapely's nearest
        boundary segment to the nearest piece)."""
        import shapely

        p = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
        free = self.free(0.0)
        if len(p) < 2 or len(free.segments) == 0:
            return p[0].copy()
        pieces = shapely.linestrings(np.stack([p[:-1], p[1:]], axis=1))
        (ia, ib), d = free.tree.query_nearest(pieces, return_distance=True, all_matches=False)
        k = int(np.argmin(d))
        near = shapely.shortest_line(pieces[ia[k]], free._lines[ib[k]])
        return np.asarray(near.coords[0], dtype=np.float64)

    def planner(self, name: str):
        """The planner object for ``name`` (built on first use, then reused)."""
        with self.lock:
            p = self._planners.get(name)
            if p is None:
                module, cls = PLANNER_CLASSES[name]
                p = getattr(importlib.import_module(f"core.routes.planners.{module}"), cls)(self)
                self._planners[name] = p
            return p

    def weights(self, profile: str | None) -> tuple[str | None, np.ndarray]:
        """The profile id used and its (n_types,) float64 weights; None means the first profile (all 1 if none)."""
        ntypes = len(self.scene.terrain_types)
        if profile is None:
            if not self.scene.profiles:
                return None, np.ones(ntypes)
            profile = self.scene.profiles[0].id
        ids = [p.id for p in self.scene.profiles]
        if profile not in ids:
            valid = ", ".join(ids) if ids else "the scene has no profiles"
            raise InputError([Problem("profile", f"unknown profile {profile!r} (valid: {valid})")])
        p = self.scene.profile(profile)
        return profile, np.array([p.weight(t.id) for t in self.scene.terrain_types], dtype=np.float64)


def clearance_levels(clearance: float) -> list[float]:
    """The clearance levels tried in turn: C, C/2, 0 (just 0 when C is 0)."""
    c = float(clearance)
    return [c, 0.5 * c, 0.0] if c > 0 else [0.0]


def check_point(ctx: PlannerContext, name: str, p) -> np.ndarray:
    """A query point as a (2,) array; InputError naming it when it is not finite, outside the bounds or blocked."""
    try:
        a = np.asarray(p, dtype=np.float64).reshape(2)
    except (TypeError, ValueError):
        raise InputError([Problem(name, f"expected a point [x, y], got {p!r}")]) from None
    if not np.all(np.isfinite(a)):
        raise InputError([Problem(name, f"{fmt_point(a)} is not a finite point")])
    x0, y0, x1, y1 = ctx.scene.bounds
    if not (x0 <= a[0] <= x1 and y0 <= a[1] <= y1):
        raise InputError([Problem(name, f"{fmt_point(a)} is outside the bounds {list(ctx.scene.bounds)}")])
    if not ctx.contains(a)[0]:
        raise InputError([Problem(name, f"{fmt_point(a)} is inside an obstacle")])
    return a


def _unreachable(ctx: PlannerContext, planner: str, start: np.ndarray, goal: np.ndarray, hint: str) -> InputError:
    comps = ctx.geometry.components
    import shapely

    def comp(p):
        for i, c in enumerate(comps):
            if shapely.intersects_xy(c, p[0], p[1]):
                return i
        return -1

    why = hint
    if comp(start) != comp(goal):
        why = "start and goal lie in different connected parts of the free space"
    return InputError([Problem("", f"no {planner} route from {fmt_point(start)} to {fmt_point(goal)}: {why}")])


def plan_route(scene: Scene, start, goal, planner: str, profile: str | None = None, clearance: float = 0.0,
               context: PlannerContext | None = None, min_clearance: float | None = None,
               spot: bool = True) -> PlanResult:
    """Plan an indicative route from start to goal with one of the five planners (see the module docstring).

    ``min_clearance`` (default: ``clearance``) is the least clearance the caller accepts where no route keeps
    ``clearance``. Raises InputError for an unknown planner or profile, a start or goal outside the free space, a
    negative clearance, a goal that cannot be reached, or one that cannot be reached with ``min_clearance`` (the
    message names the narrowest spot of the best route that keeps less).

    ``spot=False`` leaves ``narrowest_at`` None and a refusal for too little clearance without the best route's
    narrowest spot: finding the spot (a nearest-pair query of every route piece against every boundary segment) is
    a third of a planning's time, and naming it in a refusal takes a second search; a crowd's errands and replans
    only need the route, or to know there is none.
    """
    if planner not in PLANNERS:
        raise InputError([Problem("planner", f"unknown planner {planner!r} (valid: {', '.join(PLANNERS)})")])
    ctx = context if context is not None else PlannerContext(scene)
    if ctx.scene is not scene:
        raise ValueError("this PlannerContext was built for another scene")
    try:
        c = float(clearance)
    except (TypeError, ValueError):
        raise InputError([Problem("clearance", f"expected a number, got {clearance!r}")]) from None
    if not np.isfinite(c) or c < 0:
        raise InputError([Problem("clearance", f"must be a number >= 0, got {clearance!r}")])
    diagonal = float(np.hypot(scene.bounds[2] - scene.bounds[0], scene.bounds[3] - scene.bounds[1]))
    if c > diagonal:
        raise InputError([Problem("clearance", f"{c:g} is more than the bounds' diagonal ({diagonal:g}): no point "
                                               "of the scene can keep it")])
    least = c if min_clearance is None else min(c, float(min_clearance))
    if not np.isfinite(least) or least < 0:
        raise InputError([Problem("min_clearance", f"must be a number >= 0, got {min_clearance!r}")])
    prof, weights = ctx.weights(profile)
    s = check_point(ctx, "start", start)
    g = check_point(ctx, "goal", goal)
    if np.all(s == g):
        raise InputError([Problem("", f"start and goal are the same point {fmt_point(s)}")])
    p = ctx.planner(planner)
    levels = [c] if getattr(p, "native_clearance", False) else clearance_levels(c)
    leg, used = None, 0.0
    for level in [lv for lv in levels if lv >= least or lv == c]:
        leg = p.plan(s, g, weights, level)
        if leg is not None and not (np.isfinite(leg.cost) and np.all(np.isfinite(leg.points))):
            leg = None  # an infinite cost is a search that found no connection, never a route
        if leg is not None:
            used = level
            break
    if leg is None and least > 0.0:
        raise _too_narrow(ctx, p, planner, s, g, weights, c, least, spot=spot)
    if leg is None:
        raise _unreachable(ctx, planner, s, g, getattr(p, "unreachable_hint", "the goal cannot be reached"))
    route = Route.from_points(leg.points)
    narrowest = ctx.narrowest(route.points)
    scale = max(1.0, float(np.max(np.abs(route.points))))
    ok = narrowest >= c - 1e-9 * scale
    if narrowest < least - 1e-9 * scale and _ends_clearance(ctx, s, g) >= least - 1e-9 * scale:
        # The ECM keeps the clearance only where the corridor is wide enough: a narrower route is refused here too.
        raise _too_narrow(ctx, p, planner, s, g, weights, c, least, route.points, spot=spot)
    search = float(leg.cost if leg.search_cost is None else leg.search_cost)
    at = ctx.narrowest_spot(route.points) if spot else None
    return PlanResult(route, float(leg.cost), planner, bool(ok), float(narrowest), prof, c, used, search,
                      (float(at[0]), float(at[1])) if at is not None else None)


def _ends_clearance(ctx: PlannerContext, s: np.ndarray, g: np.ndarray) -> float:
    """The smaller clearance of the two end points (a route cannot keep more than its ends have)."""
    return float(ctx.free(0.0).point_clearance(np.vstack([s, g])).min())


def _too_narrow(ctx: PlannerContext, p, planner: str, s: np.ndarray, g: np.ndarray, weights: np.ndarray,
                c: float, least: float, pts: np.ndarray | None = None, spot: bool = True) -> InputError:
    """The error for a goal that no route reaches with ``least`` clearance: the narrowest spot of the best route
    that keeps less (planned with no clearance), or the plain unreachable error when there is none; without
    ``spot`` only that no route keeps it (no second search, no spot)."""
    asked = f"a clearance of {c:g}" if least == c else f"a clearance of at least {least:g}"
    if not spot:
        return InputError([Problem("", f"no {planner} route from {fmt_point(s)} to {fmt_point(g)} keeps {asked}")])
    head = f"no {planner} route from {fmt_point(s)} to {fmt_point(g)} keeps {asked}"
    coarse = getattr(p, "coarse_hint", None)
    if pts is None and coarse is not None:
        hint = coarse(s, g, least)
        if hint:
            return InputError([Problem("", f"{head}: {hint}")])
    if pts is None:
        leg = p.plan(s, g, weights, 0.0)
        if leg is None:
            return _unreachable(ctx, planner, s, g, getattr(p, "unreachable_hint", "the goal cannot be reached"))
        pts = leg.points
    width = ctx.narrowest(pts)
    at = ctx.narrowest_spot(pts)
    if width >= least:
        # The planner's route without a clearance keeps it after all: its discretisation missed the passage.
        return InputError([Problem("", f"{head}: its route planned without a clearance comes within {width:.3g} of "
                                       f"an obstacle at {fmt_point(at)}, which keeps it, but its search at "
                                       f"{least:g} found none; plan this character with another planner")])
    return InputError([Problem("", f"{head}: the best route comes within {width:.3g} of an obstacle at "
                                   f"{fmt_point(at)}, less than {least:g} (a passage narrower than twice the "
                                   f"clearance); ask for less clearance or widen the passage")])
