"""The ``miran-scene`` v1 reader: validates a JSON document and builds a Scene, reporting every problem at once.

The rules are listed in the guide (docs: Reference, scene format); ``resources/schemas/miran-scene.schema.json``
states the structural ones as a JSON Schema. The reader never raises on any JSON value: every problem becomes a
``Problem(json_path, sentence)``.
"""

from __future__ import annotations

from typing import Any, Callable

from .fields import MAX_COORD, FieldReader, join, short, type_name
from .model import (
    FIDELITIES,
    INTEGRATORS,
    METHODS,
    PLANNERS,
    Agent,
    HeightField,
    Measurement,
    Network,
    Obstacle,
    Profile,
    Route,
    Scene,
    SimulationSettings,
    TerrainPolygon,
    TerrainType,
)
from .measurement import area_problem, line_problem
from .placement import check_placement
from .polygons import clean_ring, hole_problems, ring_problem
from .problems import InputError, Problem, fmt_point
from .ranges import candidates_problem, range_problem

FORMAT = "miran-scene"
VERSION = 1
# Sane size limits: beyond them a scene is refused before any geometry is computed. The vertex limit is one the
# engine meets in reasonable time in the worst case measured, one obstacle of that many vertices (docs: Reference,
# command line, limits).
MAX_VERTICES = 20_000
MAX_AGENTS = 200_000
DEFAULT_COLOR = "#cbd5a3"

TOP_REQUIRED = ("format", "version", "bounds", "terrain_types", "default_terrain")
TOP_OPTIONAL = ("name", "units", "obstacles", "terrains", "profiles", "routes", "networks", "agents", "simulation",
                "heightfield", "measurement")
# Height field rasters: at most this many nodes.
MAX_HEIGHT_NODES = 4_000_000


def parse_scene(data: Any, source: str = "") -> Scene:
    """Build a Scene from a parsed JSON document, or raise InputError listing every problem."""
    scene, problems = check_scene(data)
    if problems:
        raise InputError(problems, source)
    assert scene is not None
    return scene


def check_scene(data: Any) -> tuple[Scene | None, list[Problem]]:
    """Validate a parsed document: the Scene (None when there are problems) and the list of problems."""
    r = FieldReader()
    top = r.obj("", data, TOP_REQUIRED, TOP_OPTIONAL)
    if top is None:
        return None, r.problems
    if "format" in top and top["format"] != FORMAT:
        r.add("format", f"expected {FORMAT!r}, got {short(top['format'])}")
    if "version" in top and (isinstance(top["version"], bool) or top["version"] != VERSION):
        r.add("version", f"unsupported version {short(top['version'])} (this program reads version {VERSION})")
    if _over_size_limits(r, top):
        return None, r.problems

    name = r.string("name", top.get("name", "Untitled"), nonempty=False)
    units = r.string("units", top.get("units", "m"))
    bounds = _bounds(r, top.get("bounds")) if "bounds" in top else None
    type_ids = _raw_ids(top.get("terrain_types"))
    types = _terrain_types(r, top.get("terrain_types")) if "terrain_types" in top else None
    default = r.string("default_terrain", top["default_terrain"]) if "default_terrain" in top else None
    if default is not None and type_ids is not None and default not in type_ids:
        r.add("default_terrain", f"unknown terrain type {short(default)}")

    obstacles = _items(r, top, "obstacles", _obstacle)
    terrains = _items(r, top, "terrains", lambda r_, p, v: _terrain(r_, p, v, type_ids))
    profiles = _items(r, top, "profiles", lambda r_, p, v: _profile(r_, p, v, type_ids))
    routes = _items(r, top, "routes", _route)
    networks = _items(r, top, "networks", _network)
    has_networks = isinstance(top.get("networks"), list) and len(top["networks"]) > 0
    profile_ids = _raw_ids(top.get("profiles", []))
    route_ids = _raw_ids(top.get("routes", []))
    agents = _items(r, top, "agents", lambda r_, p, v: _agent(r_, p, v, profile_ids, route_ids, has_networks))
    sim = _simulation(r, top.get("simulation", {}))
    heightfield = _heightfield(r, top["heightfield"], bounds) if "heightfield" in top else None
    measurement = _measurement(r, top["measurement"], bounds) if "measurement" in top else Measurement()

    if bounds is not None:
        # Checked with the items that are themselves valid, so that a bad obstacle does not hide a misplaced route.
        check_placement(r, bounds, obstacles, terrains, routes, networks, agents)

    # The readers return None only after recording a problem: the None tests are for the type checker.
    if r.problems or bounds is None or types is None or default is None or name is None or units is None:
        return None, r.problems

    def bare(indexed):
        return [item for _, item in indexed]

    scene = Scene(
        bounds=bounds, terrain_types=types, default_terrain=default, name=name, units=units,
        obstacles=bare(obstacles), terrains=bare(terrains), profiles=bare(profiles), routes=bare(routes),
        networks=bare(networks), agents=bare(agents), simulation=sim, heightfield=heightfield,
        measurement=measurement,
    )
    return scene, []


def _raw_ids(v: Any) -> set[str] | None:
    """The string ids present in a raw list of objects, so references are checked even when a list has problems."""
    if not isinstance(v, list):
        return None
    return {o["id"] for o in v if isinstance(o, dict) and isinstance(o.get("id"), str)}


def _raw_len(v: Any) -> int:
    return len(v) if isinstance(v, list) else 0


def _over_size_limits(r: FieldReader, top: dict) -> bool:
    """Count vertices and agents in the raw document; a scene over the limits is refused before any geometry."""
    nv = 0
    for key, fields in (("obstacles", ("polygon",)), ("terrains", ("polygon",)), ("routes", ("points",)),
                        ("networks", ("nodes",))):
        items = top.get(key)
        if not isinstance(items, list):
            continue
        for o in items:
            if isinstance(o, dict):
                nv += sum(_raw_len(o.get(f)) for f in fields)
                if key == "terrains" and isinstance(o.get("holes"), list):
                    nv += sum(_raw_len(h) for h in o["holes"])
    if isinstance(top.get("measurement"), dict):
        nv += _raw_len(top["measurement"].get("area"))
    too_big = False
    if nv > MAX_VERTICES:
        r.add("", f"the scene has {nv} vertices, over the limit of {MAX_VERTICES}")
        too_big = True
    na = _raw_len(top.get("agents"))
    if na > MAX_AGENTS:
        r.add("agents", f"{na} agents, over the limit of {MAX_AGENTS}")
        too_big = True
    return too_big


def _bounds(r: FieldReader, v: Any) -> tuple[float, float, float, float] | None:
    lst = r.list_("bounds", v)
    if lst is None:
        return None
    if len(lst) != 4:
        r.add("bounds", f"expected [xmin, ymin, xmax, ymax], got {len(lst)} items")
        return None
    read = [r.number(f"bounds[{i}]", x) for i, x in enumerate(lst)]
    nums = [n for n in read if n is not None]
    if len(nums) < len(read):
        return None
    for i, n in enumerate(nums):
        if abs(n) > MAX_COORD:
            r.add(f"bounds[{i}]", f"coordinate {n:g} is beyond the limit of +/-{MAX_COORD:g}")
            return None
    x0, y0, x1, y1 = nums
    if x1 <= x0 or y1 <= y0:
        r.add("bounds", f"xmax and ymax must exceed xmin and ymin, got [{x0:g}, {y0:g}, {x1:g}, {y1:g}]")
        return None
    return (x0, y0, x1, y1)


def _items(r: FieldReader, top: dict, key: str, read_one: Callable) -> list[tuple[int, Any]]:
    """Read an optional list of objects with ids: the valid items with their index in the file.

    Invalid items and repeated ids are recorded as problems and left out, so later checks still see the rest.
    """
    lst = r.list_(key, top.get(key, []))
    if lst is None:
        return []
    out: list[tuple[int, Any]] = []
    seen: dict[str, int] = {}
    for i, v in enumerate(lst):
        path = f"{key}[{i}]"
        item = read_one(r, path, v)
        if item is None:
            continue
        if item.id in seen:
            r.add(join(path, "id"), f"duplicate id {short(item.id)} (also {key}[{seen[item.id]}])")
            continue
        seen[item.id] = i
        out.append((i, item))
    return out


def _terrain_types(r: FieldReader, v: Any):
    if not isinstance(v, list):
        r.list_("terrain_types", v)
        return None
    if not v:
        r.add("terrain_types", "at least one terrain type is needed")
        return None
    n = len(r.problems)
    types = _items(r, {"terrain_types": v}, "terrain_types", _terrain_type)
    return [t for _, t in types] if len(r.problems) == n else None


def _terrain_type(r: FieldReader, path: str, v: Any):
    o = r.obj(path, v, ("id",), ("name", "color"))
    if o is None:
        return None
    n = len(r.problems)
    tid = r.string(join(path, "id"), o.get("id")) if "id" in o else None
    name = r.string(join(path, "name"), o.get("name", tid or ""), nonempty=False)
    color = r.string(join(path, "color"), o.get("color", DEFAULT_COLOR))
    if color is not None and not _is_color(color):
        r.add(join(path, "color"), f"expected a colour like '#7f7f7f', got {short(color)}")
    if len(r.problems) != n or tid is None or name is None or color is None:
        return None
    return TerrainType(tid, name, color)


def _is_color(s: str) -> bool:
    return len(s) in (7, 9) and s[0] == "#" and all(c in "0123456789abcdefABCDEF" for c in s[1:])


def _ring(r: FieldReader, path: str, v: Any):
    """A ring of points with at least 3 distinct vertices, non-zero area and no self-intersection (cleaned)."""
    pts = r.points(path, v, 3)
    if pts is None:
        return None
    msg = ring_problem(pts)
    if msg:
        r.add(path, msg)
        return None
    return [(float(x), float(y)) for x, y in clean_ring(pts)]


def _obstacle(r: FieldReader, path: str, v: Any):
    o = r.obj(path, v, ("id", "polygon"), ("appears", "vanishes", "path", "speed", "loop", "turns"))
    if o is None:
        return None
    motion = _motion(r, path, o)
    oid = r.string(join(path, "id"), o["id"]) if "id" in o else None
    ring = _ring(r, join(path, "polygon"), o["polygon"]) if "polygon" in o else None
    appears = r.number(join(path, "appears"), o["appears"], nonnegative=True) if "appears" in o else 0.0
    vanishes = r.number(join(path, "vanishes"), o["vanishes"], positive=True) if "vanishes" in o else None
    if appears is not None and vanishes is not None and vanishes <= appears:
        r.add(join(path, "vanishes"), f"must be later than appears ({appears:g} s), got {vanishes:g}")
        return None
    if oid is None or ring is None or appears is None or ("vanishes" in o and vanishes is None) or motion is None:
        return None
    return Obstacle(oid, ring, appears, vanishes, *motion)


def _motion(r: FieldReader, path: str, o: dict) -> tuple | None:
    """A moving obstacle's (path, speed, loop, turns), (None, 0.0, False, False) for one that stands still; None
    after a problem. ``speed``, ``loop`` and ``turns`` go with ``path`` only."""
    extra = [key for key in ("speed", "loop", "turns") if key in o]
    if "path" not in o:
        for key in extra:
            r.add(join(path, key), "applies only to a moving obstacle: give its 'path' too")
        return None if extra else (None, 0.0, False, False)
    pts = r.points(join(path, "path"), o["path"], 2)
    if pts is not None and all(p == pts[0] for p in pts):
        r.add(join(path, "path"), "must have at least two distinct points (the obstacle would not move)")
        pts = None
    speed = None
    if "speed" not in o:
        r.add(join(path, "speed"), "missing: a moving obstacle needs its speed (units/s)")
    else:
        speed = r.number(join(path, "speed"), o["speed"])
        msg = range_problem("obstacle_speed", speed) if speed is not None else None
        if msg:
            r.add(join(path, "speed"), msg)
            speed = None
    flags = []
    for key in ("loop", "turns"):
        v = o.get(key, False)
        if not isinstance(v, bool):
            r.add(join(path, key), f"expected true or false, got {type_name(v)}")
        flags.append(v)
    if pts is None or speed is None or not all(isinstance(v, bool) for v in flags):
        return None
    return ([(float(x), float(y)) for x, y in pts], speed, flags[0], flags[1])


def _terrain(r: FieldReader, path: str, v: Any, type_ids):
    o = r.obj(path, v, ("id", "type", "polygon"), ("holes",))
    if o is None:
        return None
    tid = r.string(join(path, "id"), o["id"]) if "id" in o else None
    ttype = r.string(join(path, "type"), o["type"]) if "type" in o else None
    if ttype is not None and type_ids is not None and ttype not in type_ids:
        r.add(join(path, "type"), f"unknown terrain type {short(ttype)}")
        ttype = None
    shell = _ring(r, join(path, "polygon"), o["polygon"]) if "polygon" in o else None
    holes, holes_ok = [], True
    hl = r.list_(join(path, "holes"), o.get("holes", []))
    if hl is None:
        holes_ok = False
    else:
        for i, h in enumerate(hl):
            ring = _ring(r, f"{join(path, 'holes')}[{i}]", h)
            holes_ok = holes_ok and ring is not None
            holes.append(ring)
    if shell is not None and holes_ok and holes:
        for which, msg in hole_problems(shell, holes):
            r.add(f"{path}.{which}", msg)
            holes_ok = False
    if tid is None or ttype is None or shell is None or not holes_ok:
        return None
    return TerrainPolygon(tid, ttype, shell, holes)


def _profile(r: FieldReader, path: str, v: Any, type_ids):
    o = r.obj(path, v, ("id",), ("weights", "radius", "max_speed", "sigma", "d"))
    if o is None:
        return None
    n = len(r.problems)
    pid = r.string(join(path, "id"), o["id"]) if "id" in o else None
    weights: dict[str, float] = {}
    wv = o.get("weights", {})
    if not isinstance(wv, dict):
        r.add(join(path, "weights"), "expected an object mapping terrain type ids to weights")
    else:
        for k, w in wv.items():
            wp = join(join(path, "weights"), k)
            if type_ids is not None and k not in type_ids:
                r.add(wp, f"unknown terrain type {short(k)}")
                continue
            x = _ranged(r, wp, w, "weight")
            if x is not None:
                weights[k] = x
    d = Profile("")
    vals: dict[str, float | None] = {}
    for key in ("radius", "max_speed", "sigma", "d"):
        vals[key] = _ranged(r, join(path, key), o.get(key, getattr(d, key)), key)
    if vals["sigma"] is not None and vals["d"] is not None:
        msg = candidates_problem(vals["sigma"], vals["d"])
        if msg:
            r.add(join(path, "d"), msg)
    radius, max_speed, sigma, dd = vals["radius"], vals["max_speed"], vals["sigma"], vals["d"]
    if len(r.problems) != n or pid is None or radius is None or max_speed is None or sigma is None or dd is None:
        return None
    return Profile(pid, weights, radius=radius, max_speed=max_speed, sigma=sigma, d=dd)


def _ranged(r: FieldReader, path: str, v: Any, name: str) -> float | None:
    """A positive number within the documented range of parameter ``name`` (core.scene.ranges)."""
    x = r.number(path, v, positive=True)
    if x is None:
        return None
    msg = range_problem(name, x)
    if msg:
        r.add(path, msg)
        return None
    return x


def _route(r: FieldReader, path: str, v: Any):
    o = r.obj(path, v, ("id", "points"))
    if o is None:
        return None
    rid = r.string(join(path, "id"), o["id"]) if "id" in o else None
    pts = r.points(join(path, "points"), o["points"], 2) if "points" in o else None
    if pts is not None and len(set(pts)) < 2:
        r.add(join(path, "points"), "a route needs at least 2 distinct points")
        pts = None
    return Route(rid, pts) if rid is not None and pts is not None else None


def _network(r: FieldReader, path: str, v: Any):
    o = r.obj(path, v, ("id", "nodes", "edges"))
    if o is None:
        return None
    n = len(r.problems)
    nid = r.string(join(path, "id"), o["id"]) if "id" in o else None
    nodes = r.points(join(path, "nodes"), o["nodes"], 2) if "nodes" in o else None
    el = r.list_(join(path, "edges"), o["edges"]) if "edges" in o else None
    edges: list[tuple[int, int]] = []
    seen: dict[tuple[int, int], int] = {}
    for i, e in enumerate(el or []):
        ep = f"{path}.edges[{i}]"
        if not isinstance(e, list) or len(e) != 2:
            r.add(ep, "expected an edge [i, j] of two node indices")
            continue
        a, b = r.integer(f"{ep}[0]", e[0]), r.integer(f"{ep}[1]", e[1])
        if a is None or b is None:
            continue
        if nodes is not None:
            for j, k in ((0, a), (1, b)):
                if not 0 <= k < len(nodes):
                    r.add(f"{ep}[{j}]", f"node index {short(k)} out of range (the network has {len(nodes)} nodes)")
        if a == b:
            r.add(ep, f"an edge joins node {short(a)} to itself")
            continue
        key = (min(a, b), max(a, b))
        if key in seen:
            r.add(ep, f"duplicate edge between nodes {key[0]} and {key[1]} (also edges[{seen[key]}])")
            continue
        seen[key] = i
        edges.append((a, b))
    if len(r.problems) != n or nid is None or nodes is None or el is None:
        return None
    return Network(nid, nodes, edges)


def _agent(r: FieldReader, path: str, v: Any, profile_ids, route_ids, has_networks: bool):
    o = r.obj(path, v, ("id", "profile"), ("route", "start", "goal", "planner"))
    if o is None:
        return None
    n = len(r.problems)
    aid = r.string(join(path, "id"), o["id"]) if "id" in o else None
    prof = r.string(join(path, "profile"), o["profile"]) if "profile" in o else None
    if prof is not None and profile_ids is not None and prof not in profile_ids:
        r.add(join(path, "profile"), f"unknown profile {short(prof)}")
    route = start = goal = planner = None
    if "route" in o:
        route = r.string(join(path, "route"), o["route"])
        if route is not None and route_ids is not None and route not in route_ids:
            r.add(join(path, "route"), f"unknown route {short(route)}")
    if "start" in o:
        start = r.point(join(path, "start"), o["start"])
    if "goal" in o:
        goal = r.point(join(path, "goal"), o["goal"])
    if "planner" in o:
        planner = r.choice(join(path, "planner"), o["planner"], PLANNERS)
    has_ends = "start" in o or "goal" in o
    if "route" in o and has_ends:
        r.add(path, "an agent follows either a route or is planned from a start to a goal, not both")
    elif "route" not in o and not has_ends:
        r.add(path, "an agent needs a route, or a start and a goal")
    elif "start" in o and "goal" not in o:
        r.add(join(path, "goal"), "missing: an agent with a start also needs a goal")
    elif "goal" in o and "start" not in o:
        r.add(join(path, "start"), "missing: an agent with a goal also needs a start")
    elif start is not None and goal is not None and tuple(start) == tuple(goal):
        r.add(join(path, "goal"), f"the same point as the start {fmt_point(start)}: nothing to plan (for a round "
                                  f"trip, give the agent a route that ends where it starts)")
    if "planner" in o and "route" in o:
        r.add(join(path, "planner"),
              "a planner applies only to agents with a start and a goal, not to one with a route")
    if planner == "network" and not has_networks:
        r.add(join(path, "planner"), "planner 'network' needs an indicative network, and 'networks' is empty")
    if len(r.problems) != n or aid is None or prof is None:
        return None
    return Agent(aid, prof, route, start, goal, planner)


def _simulation(r: FieldReader, v: Any):
    o = r.obj("simulation", v, (), ("method", "integrator", "dt", "fidelity"))
    if o is None:
        return None
    d = SimulationSettings()
    method = r.choice("simulation.method", o.get("method", d.method), METHODS)
    integ = r.choice("simulation.integrator", o.get("integrator", d.integrator), INTEGRATORS)
    dt = _ranged(r, "simulation.dt", o.get("dt", d.dt), "dt")
    fidelity = r.choice("simulation.fidelity", o.get("fidelity", d.fidelity), FIDELITIES)
    if method is None or integ is None or dt is None or fidelity is None:
        return None
    return SimulationSettings(method, integ, dt, fidelity)


def _measurement(r: FieldReader, v: Any, bounds) -> Measurement:
    """The optional measurement area (a polygon) and line (two points), each within the bounds."""
    o = r.obj("measurement", v, (), ("area", "line"))
    if o is None:
        return Measurement()
    area = line = None
    if "area" in o and (pts := r.points("measurement.area", o["area"], 3)) is not None:
        msg = area_problem(pts, bounds)
        if msg:
            r.add("measurement.area", msg)
        else:
            area = [(float(x), float(y)) for x, y in clean_ring(pts)]
    if "line" in o and (pts := r.points("measurement.line", o["line"], 2)) is not None:
        msg = line_problem(pts, bounds)
        if msg:
            r.add("measurement.line", msg)
        else:
            line = [(float(x), float(y)) for x, y in pts]
    return Measurement(area, line)


def _heightfield(r: FieldReader, v: Any, bounds):
    """The optional height raster: origin, a positive cell size and at least 2 x 2 finite heights in equal rows,
    overlapping the bounds."""
    o = r.obj("heightfield", v, ("origin", "cell", "heights"))
    if o is None:
        return None
    n = len(r.problems)
    origin = r.point("heightfield.origin", o["origin"]) if "origin" in o else None
    cell = r.number("heightfield.cell", o["cell"], positive=True) if "cell" in o else None
    rows = r.list_("heightfield.heights", o["heights"]) if "heights" in o else None
    heights: list[list[float]] = []
    if rows is not None:
        if len(rows) < 2:
            r.add("heightfield.heights", f"expected at least 2 rows of heights, got {len(rows)}")
        width = None
        for j, row in enumerate(rows):
            path = f"heightfield.heights[{j}]"
            if not isinstance(row, list):
                r.add(path, f"expected a row (list) of heights, got {short(row)}")
                continue
            if width is None:
                width = len(row)
                if width < 2:
                    r.add(path, f"expected at least 2 heights in a row, got {width}")
            elif len(row) != width:
                r.add(path, f"expected {width} heights like row 0, got {len(row)}")
                continue
            if width * len(rows) > MAX_HEIGHT_NODES:
                r.add("heightfield.heights", f"{width * len(rows)} heights, over the limit of {MAX_HEIGHT_NODES}")
                break
            vals: list[float] = []
            for i, h in enumerate(row):
                x = r.number(f"{path}[{i}]", h)
                if x is not None and abs(x) > MAX_COORD:
                    r.add(f"{path}[{i}]", f"height {x:g} is beyond the limit of +/-{MAX_COORD:g}")
                elif x is not None:
                    vals.append(x)
                if len(r.problems) - n >= 10:
                    break
            if len(r.problems) - n >= 10:
                r.add("heightfield.heights", "more bad heights not listed")
                break
            heights.append(vals)
    if len(r.problems) != n or origin is None or cell is None or rows is None:
        return None
    if bounds is not None:
        x1 = origin[0] + cell * (len(heights[0]) - 1)
        y1 = origin[1] + cell * (len(heights) - 1)
        if x1 < bounds[0] or origin[0] > bounds[2] or y1 < bounds[1] or origin[1] > bounds[3]:
            r.add("heightfield", f"the raster [{origin[0]:g}, {origin[1]:g}, {x1:g}, {y1:g}] lies outside the bounds")
            return None
    return HeightField(origin, cell, heights)


__all__ = ["parse_scene", "check_scene", "FORMAT", "VERSION", "MAX_VERTICES", "MAX_AGENTS"]
