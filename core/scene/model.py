"""The Scene model: plain typed dataclasses mirroring the ``miran-scene`` v1 file (docs: Reference, scene format).

Points are ``(x, y)`` tuples of floats so that a Scene compares equal after a load -> save -> load round trip.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

Point = tuple[float, float]
Ring = list[Point]

METHODS = ("miran", "disc-miran", "irm")
INTEGRATORS = ("euler", "verlet")
# The crowd level of detail (core.sim.fidelity): the papers' method every step, or the fast mode.
FIDELITIES = ("exact", "fast")
PLANNERS = ("grid", "cdt", "ecm", "portal", "network")
# The planners whose cost weighs each piece of a route by the profile's terrain weight (MIRAN 3.3); the others
# (``ecm`` and ``portal``) find the shortest route whatever the terrain, and their cost is its length.
TERRAIN_PLANNERS = ("grid", "cdt", "network")
# The planner used for a start/goal agent whose file names none.
DEFAULT_PLANNER = "cdt"


@dataclass
class TerrainType:
    """A kind of traversable region (sidewalk, road, mud ...); profiles weight it."""

    id: str
    name: str = ""
    color: str = "#cbd5a3"


@dataclass
class Obstacle:
    """An impassable polygon; may be non-convex and may overlap other obstacles. A scheduled one stands only from
    ``appears`` until ``vanishes`` (seconds of simulated time; None: to the end): a closed street, a market stall.

    A moving one (``path`` set: a car, a cart, a sliding door) is carried along ``path`` at ``speed`` from
    ``appears`` on, once (it then stays at the path's end) or, with ``loop``, round and round (back from the last
    point to the first). ``polygon`` is its outline where the path begins. It keeps its orientation, or with
    ``turns`` it turns with the path, about the path's point, to each leg's heading (a car at a street corner). It
    is no part of the navigation mesh: characters avoid it as they avoid each other (core.sim.moving)."""

    id: str
    polygon: Ring
    appears: float = 0.0
    vanishes: float | None = None
    path: Ring | None = None
    speed: float = 0.0
    loop: bool = False
    turns: bool = False

    def stands_at(self, t: float) -> bool:
        """Whether the obstacle stands at time ``t`` (s)."""
        return self.appears <= t and (self.vanishes is None or t < self.vanishes)

    @property
    def scheduled(self) -> bool:
        """Whether it stands for part of the time only."""
        return self.appears > 0.0 or self.vanishes is not None

    @property
    def moving(self) -> bool:
        """Whether it is carried along a path."""
        return self.path is not None

    def pose_at(self, t: float) -> tuple[float, float, float]:
        """(x, y, angle) of a moving obstacle at time ``t`` (s): the point of its path it has reached and how far
        it has turned (radians, 0 without ``turns``); the path's first point and 0 before ``appears``, and for an
        obstacle that does not move (0, 0, 0)."""
        if self.path is None:
            return (0.0, 0.0, 0.0)
        pts = [p for k, p in enumerate(self.path) if k == 0 or p != self.path[k - 1]]
        if self.loop and pts[-1] != pts[0]:
            pts.append(pts[0])
        legs = [math.hypot(b[0] - a[0], b[1] - a[1]) for a, b in zip(pts, pts[1:])]
        total = sum(legs)
        s = max(0.0, self.speed * (t - self.appears))
        s = math.fmod(s, total) if self.loop else min(s, total)
        first = math.atan2(pts[1][1] - pts[0][1], pts[1][0] - pts[0][0])
        for j, (a, b, leg) in enumerate(zip(pts, pts[1:], legs)):
            if s < leg or j == len(legs) - 1:
                k = min(s / leg, 1.0)
                turn = math.atan2(b[1] - a[1], b[0] - a[0]) - first if self.turns else 0.0
                return (a[0] + k * (b[0] - a[0]), a[1] + k * (b[1] - a[1]), turn)
            s -= leg
        raise AssertionError("unreachable: the last leg returns")

    def polygon_at(self, t: float) -> Ring:
        """The outline where the obstacle stands at time ``t`` (s)."""
        if self.path is None:
            return list(self.polygon)
        x, y, turn = self.pose_at(t)
        c, s = math.cos(turn), math.sin(turn)
        x0, y0 = self.path[0]
        return [(x + c * (u - x0) - s * (v - y0), y + s * (u - x0) + c * (v - y0)) for u, v in self.polygon]


@dataclass
class TerrainPolygon:
    """A polygon painting the free space with one terrain type; later ones cover earlier ones."""

    id: str
    type: str
    polygon: Ring
    holes: list[Ring] = field(default_factory=list)


@dataclass
class Profile:
    """A kind of character: a weight per terrain type (missing types weigh 1), size, speed and MIRAN's sigma, d."""

    id: str
    weights: dict[str, float] = field(default_factory=dict)
    radius: float = 0.25
    max_speed: float = 1.4
    sigma: float = 40.0
    d: float = 10.0

    def weight(self, terrain_type: str) -> float:
        """The weight of a terrain type for this profile (1 where the profile names none)."""
        return self.weights.get(terrain_type, 1.0)


@dataclass
class Route:
    """A sketched indicative route: a polyline of at least two points."""

    id: str
    points: Ring


@dataclass
class Network:
    """An indicative network (IRM section 5): nodes and undirected edges between node indices."""

    id: str
    nodes: Ring = field(default_factory=list)
    edges: list[tuple[int, int]] = field(default_factory=list)


@dataclass
class Agent:
    """A character: follows a named route, or is planned from start to goal with a planner.

    Exactly one of ``route`` and ``(start, goal)`` is set; ``planner`` only with ``start``/``goal``, and None there
    means DEFAULT_PLANNER. An agent with a route starts at the route's first point.
    """

    id: str
    profile: str
    route: str | None = None
    start: Point | None = None
    goal: Point | None = None
    planner: str | None = None


@dataclass
class SimulationSettings:
    """How the scene is simulated by default: steering method, integrator, time step (seconds) and fidelity
    (``exact``, or ``fast``: the crowd level of detail; written to the file only when not exact)."""

    method: str = "miran"
    integrator: str = "euler"
    dt: float = 0.1
    fidelity: str = "exact"


@dataclass
class Measurement:
    """Where the crowd is measured (PedPy's definitions): ``area``, a polygon whose density is plotted over time,
    and ``line``, two points whose crossings give the flow; either may be None. Not read by the simulation."""

    area: Ring | None = None
    line: list[Point] | None = None

    def is_empty(self) -> bool:
        """Neither an area nor a line: the file leaves the field out."""
        return self.area is None and self.line is None


@dataclass
class HeightField:
    """An optional terrain height raster (Niederberger section 7.2): ``heights[j][i]`` is the height (scene units)
    at ``(origin[0] + i * cell, origin[1] + j * cell)``; bilinear between nodes, constant beyond the border."""

    origin: Point
    cell: float
    heights: list[list[float]]

    def array(self) -> npt.NDArray[np.float64]:
        """The heights as a (ny, nx) float64 array."""
        import numpy as np

        return np.asarray(self.heights, dtype=np.float64).reshape(len(self.heights), -1)


@dataclass
class Scene:
    """A whole scene: bounds ``(xmin, ymin, xmax, ymax)``, terrain, obstacles, characters and settings."""

    bounds: tuple[float, float, float, float]
    terrain_types: list[TerrainType]
    default_terrain: str
    name: str = "Untitled"
    units: str = "m"
    obstacles: list[Obstacle] = field(default_factory=list)
    terrains: list[TerrainPolygon] = field(default_factory=list)
    profiles: list[Profile] = field(default_factory=list)
    routes: list[Route] = field(default_factory=list)
    networks: list[Network] = field(default_factory=list)
    agents: list[Agent] = field(default_factory=list)
    simulation: SimulationSettings = field(default_factory=SimulationSettings)
    heightfield: HeightField | None = None
    measurement: Measurement = field(default_factory=Measurement)

    def at(self, t: float = 0.0) -> "Scene":
        """The scene's static world at time ``t`` (s): only the obstacles standing then, each without its schedule,
        and no moving obstacle. What every static tool (the mesh, the planners, the ECM) sees is the scene at
        time 0."""
        if not any(o.scheduled or o.moving for o in self.obstacles):
            return self
        return dataclasses.replace(self, obstacles=[Obstacle(o.id, o.polygon) for o in self.obstacles
                                                    if o.stands_at(t) and not o.moving])

    def terrain_index(self, type_id: str) -> int:
        """Index of a terrain type in ``terrain_types`` (the column of the profile x terrain weight matrix)."""
        for i, t in enumerate(self.terrain_types):
            if t.id == type_id:
                return i
        raise KeyError(type_id)

    def profile(self, profile_id: str) -> Profile:
        """The profile with this id."""
        for p in self.profiles:
            if p.id == profile_id:
                return p
        raise KeyError(profile_id)

    def route(self, route_id: str) -> Route:
        """The route with this id."""
        for r in self.routes:
            if r.id == route_id:
                return r
        raise KeyError(route_id)

    def weight_matrix(self) -> npt.NDArray[np.float64]:
        """The (profile x terrain type) weight matrix as a float64 array, rows in ``profiles`` order."""
        import numpy as np

        return np.array(
            [[p.weight(t.id) for t in self.terrain_types] for p in self.profiles], dtype=np.float64
        ).reshape(len(self.profiles), len(self.terrain_types))

    @classmethod
    def empty(cls, width: float = 100.0, height: float = 100.0, name: str = "Untitled") -> "Scene":
        """A new empty scene of the given size with one terrain type and one profile."""
        return cls(
            bounds=(0.0, 0.0, float(width), float(height)),
            terrain_types=[TerrainType("default", "Open ground", "#cbd5a3")],
            default_terrain="default",
            name=name,
            profiles=[Profile("pedestrian")],
        )
