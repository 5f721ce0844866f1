"""The ``miran-scene`` v1 reader: validates a JSON document and builds a Scene, reporting every problem at once."""

from __future__ import annotations

from typing import Any

import numpy as np
import shapely
from shapely.geometry import Polygon

from .fields import FieldReader, join
from .model import (
    INTEGRATORS,
    METHODS,
    PLANNERS,
    Agent,
    Network,
    Obstacle,
    Profile,
    Route,
    Scene,
    SimulationSettings,
    TerrainPolygon,
    TerrainType,
)
from .polygons import clean_ring, polygon_problem
from .problems import InputError, Problem, fmt_point

FORMAT = "miran-scene"
VERSION = 1
MAX_VERTICES = 1_000_000
MAX_AGENTS = 200_000

TOP_REQUIRED = ("format", "version", "bounds", "terrain_types", "default_terrain")
TOP_OPTIONAL = ("name", "units", "obstacles", "terrains", "profiles", "routes", "networks", "agents", "simulation")


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
        r.add("format", f"expected {FORMAT!r}, got {top['format']!r}")
    if "version" in top and (isinstance(top["version"], bool) or top["version"] != VERSION):
        r.add("version", f"unsupported version {top['version']!r} (this program reads version {VERSION})")

    name = r.string("name", top.get("name", "Untitled"), nonempty=False)
    units = r.string("units", top.get("units", "m"))
    bounds = _bounds(r, top.get("bounds"))
    types = _terrain_types(r, top.get("terrain_types"))
    type_ids = _raw_ids(top.get("terrain_types"))
    default = r.string("default_terrain", top.get("default_terrain"))
    if default is not None and type_ids is not None and default not in type_ids:
        r.add("default_terrain", f"unknown terrain type {default!r}")

    obstacles = _items(r, top, "obstacles", _obstacle)
    terrains = _items(r, top, "terrains", lambda r_, p, v: _terrain(r_, p, v, type_ids))
    profiles = _items(r, top, "profiles", lambda r_, p, v: _profile(r_, p, v, type_ids))
    routes = _items(r, top, "routes", _route)
    networks = _items(r, top, "networks", _network)
    profile_ids = _raw_ids(top.get("profiles", []))
    route_ids = _raw_ids(top.get("routes", []))
    agents = _items(r, top, "agents", lambda r_, p, v: _agent(r_, p, v, profile_ids, route_ids))
    sim = _simulation(r, top.get("simulation", {}))

    _check_sizes(r, obstacles, terrains, routes, networks, agents)
    if bounds is not None and obstacles is not None:
        _check_placement(r, bounds, obstacles, terrains or [], routes or [], networks or [], agents or [])

    if r.problems:
        return None, r.problems
    scene = Scene(
        bounds=bounds, terrain_types=types, default_terrain=default, name=name, units=units,
        obstacles=obstacles, terrains=terrains, profiles=profiles, routes=routes, networks=networks,
        agents=agents, simulation=sim,
    )
    return scene, []


def _raw_ids(v: Any) -> set[str] | None:
    """The string ids present in a raw list of objects, so references are checked even when a list has problems."""
    if not isinstance(v, list):
        return None
    return {o["id"] for o in v if isinstance(o, dict) and isinstance(o.get("id"), str)}


def _bounds(r: FieldReader, v: Any):
    lst = r.list_("bounds", v)
    if lst is None:
        return None
    if len(lst) != 4:
        r.add("bounds", f"expected [xmin, ymin, xmax, ymax], got {len(lst)} numbers")
        return None
    nums = [r.number(f"bounds[{i}]", x) for i, x in enumerate(lst)]
    if any(n is None for n in nums):
        return None
    x0, y0, x1, y1 = nums
    if x1 <= x0 or y1 <= y0:
        r.add("bounds", f"xmax and ymax must exceed xmin and ymin, got {lst}")
        return None
    return (x0, y0, x1, y1)


def _items(r: FieldReader, top: dict, key: str, read_one):
    """Read a list of objects with ids; duplicate ids are problems. None when the list itself is bad."""
    lst = r.list_(key, top.get(key, []))
    if lst is None:
        return None
    out, seen, ok = [], {}, True
    for i, v in enumerate(lst):
        path = f"{key}[{i}]"
        item = read_one(r, path, v)
        if item is None:
            ok = False
            continue
        if item.id in seen:
            r.add(join(path, "id"), f"duplicate id {item.id!r} (also {key}[{seen[item.id]}])")
            ok = False
        else:
            seen[item.id] = i
        out.append(item)
    return out if ok else None


def _terrain_types(r: FieldReader, v: Any):
    if not isinstance(v, list):
        r.list_("terrain_types", v)
        return None
    if not v:
        r.add("terrain_types", "at least one terrain type is needed")
        return None
    return _items(r, {"terrain_types": v}, "terrain_types", _terrain_type)


def _terrain_type(r: FieldReader, path: str, v: Any):
    o = r.obj(path, v, ("id",), ("name", "color"))
    if o is None:
        return None
    n = len(r.problems)
    tid = r.string(join(path, "id"), o.get("id"))
    name = r.string(join(path, "name"), o.get("name", tid or ""), nonempty=False)
    color = r.string(join(path, "color"), o.get("color", "#cbd5a3"))
    if color is not None and not _is_color(color):
        r.add(join(path, "color"), f"expected a colour like '#7f7f7f', got {color!r}")
    return TerrainType(tid, name, color) if len(r.problems) == n else None


def _is_color(s: str) -> bool:
    return len(s) in (7, 9) and s[0] == "#" and all(c in "0123456789abcdefABCDEF" for c in s[1:])


def _polygon(r: FieldReader, path: str, v: Any, holes_v: Any = None):
    pts = r.points(path, v, 3)
    holes = []
    if holes_v is not None:
        hl = r.list_(join(path.rsplit(".", 1)[0], "holes"), holes_v)
        if hl is None:
            return None, None
        hbase = join(path.rsplit(".", 1)[0], "holes")
        for i, h in enumerate(hl):
            hp = r.points(f"{hbase}[{i}]", h, 3)
            if hp is None:
                return pts, None
            holes.append(hp)
    if pts is None:
        return None, None
    bad = polygon_problem(pts, holes)
    if bad:
        which, msg = bad
        where = path if not which else f"{path.rsplit('.', 1)[0]}.{which}"
        r.add(where, msg)
        return None, None
    return pts, holes


def _obstacle(r: FieldReader, path: str, v: Any):
    o = r.obj(path, v, ("id", "polygon"))
    if o is None:
        return None
    oid = r.string(join(path, "id"), o.get("id"))
    pts, _ = _polygon(r, join(path, "polygon"), o.get("polygon")) if "polygon" in o else (None, None)
    return Obstacle(oid, pts) if oid is not None and pts is not None else None


def _terrain(r: FieldReader, path: str, v: Any, type_ids):
    o = r.obj(path, v, ("id", "type", "polygon"), ("holes",))
    if o is None:
        return None
    tid = r.string(join(path, "id"), o.get("id"))
    ttype = r.string(join(path, "type"), o.get("type"))
    if ttype is not None and type_ids is not None and ttype not in type_ids:
        r.add(join(path, "type"), f"unknown terrain type {ttype!r}")
        ttype = None
    pts, holes = (None, None)
    if "polygon" in o:
        pts, holes = _polygon(r, join(path, "polygon"), o.get("polygon"), o.get("holes", []))
    if None in (tid, ttype, pts, holes):
        return None
    return TerrainPolygon(tid, ttype, pts, holes)


def _profile(r: FieldReader, path: str, v: Any, type_ids):
    o = r.obj(path, v, ("id",), ("weights", "radius", "max_speed", "sigma", "d"))
    if o is None:
        return None
    n = len(r.problems)
    pid = r.string(join(path, "id"), o.get("id"))
    weights = {}
    wv = o.get("weights", {})
    if not isinstance(wv, dict):
        r.add(join(path, "weights"), "expected an object mapping terrain type ids to weights")
    else:
        for k, w in wv.items():
            wp = f"{path}.weights.{k}"
            if type_ids is not None and k not in type_ids:
                r.add(wp, f"unknown terrain type {k!r}")
                continue
            x = r.number(wp, w, positive=True)
            if x is not None:
                weights[k] = x
    d = Profile(pid or "")
    vals = {}
    for key in ("radius", "max_speed", "sigma", "d"):
        vals[key] = r.number(join(path, key), o.get(key, getattr(d, key)), positive=True)
    if len(r.problems) != n:
        return None
    return Profile(pid, weights, **vals)


def _route(r: FieldReader, path: str, v: Any):
    o = r.obj(path, v, ("id", "points"))
    if o is None:
        return None
    rid = r.string(join(path, "id"), o.get("id"))
    pts = r.points(join(path, "points"), o.get("points"), 2) if "points" in o else None
    if pts is not None and len(set(pts)) < 2:
        r.add(join(path, "points"), "a route needs at least 2 distinct points")
        pts = None
    return Route(rid, pts) if rid is not None and pts is not None else None


def _network(r: FieldReader, path: str, v: Any):
    o = r.obj(path, v, ("id", "nodes", "edges"))
    if o is None:
        return None
    nid = r.string(join(path, "id"), o.get("id"))
    nodes = r.points(join(path, "nodes"), o.get("nodes"), 2) if "nodes" in o else None
    edges = []
    el = r.list_(join(path, "edges"), o.get("edges")) if "edges" in o else None
    if el is None or nodes is None:
        return None
    ok = True
    for i, e in enumerate(el):
        ep = f"{path}.edges[{i}]"
        if not isinstance(e, list) or len(e) != 2:
            r.add(ep, "expected an edge [i, j] of two node indices")
            ok = False
            continue
        a, b = r.integer(f"{ep}[0]", e[0]), r.integer(f"{ep}[1]", e[1])
        if a is None or b is None:
            ok = False
            continue
        for j, k in ((0, a), (1, b)):
            if not 0 <= k < len(nodes):
                r.add(f"{ep}[{j}]", f"node index {k} out of range (the network has {len(nodes)} nodes)")
                ok = False
        if a == b:
            r.add(ep, f"an edge joins node {a} to itself")
            ok = False
        edges.append((a, b))
    return Network(nid, nodes, edges) if ok and nid is not None else None


def _agent(r: FieldReader, path: str, v: Any, profile_ids, route_ids):
    o = r.obj(path, v, ("id", "profile"), ("route", "start", "goal", "planner"))
    if o is None:
        return None
    n = len(r.problems)
    aid = r.string(join(path, "id"), o.get("id"))
    prof = r.string(join(path, "profile"), o.get("profile"))
    if prof is not None and profile_ids is not None and prof not in profile_ids:
        r.add(join(path, "profile"), f"unknown profile {prof!r}")
    route = start = goal = planner = None
    if "route" in o and o["route"] is not None:
        route = r.string(join(path, "route"), o["route"])
        if route is not None and route_ids is not None and route not in route_ids:
            r.add(join(path, "route"), f"unknown route {route!r}")
    if o.get("start") is not None:
        start = r.point(join(path, "start"), o["start"])
    if o.get("goal") is not None:
        goal = r.point(join(path, "goal"), o["goal"])
    if o.get("planner") is not None:
        planner = r.choice(join(path, "planner"), o["planner"], PLANNERS)
    if route is None and "route" not in o and (o.get("start") is None or o.get("goal") is None):
        r.add(path, "an agent needs a route, or a start and a goal")
    if len(r.problems) != n:
        return None
    return Agent(aid, prof, route, start, goal, planner)


def _simulation(r: FieldReader, v: Any):
    o = r.obj("simulation", v, (), ("method", "integrator", "dt"))
    if o is None:
        return None
    d = SimulationSettings()
    method = r.choice("simulation.method", o.get("method", d.method), METHODS)
    integ = r.choice("simulation.integrator", o.get("integrator", d.integrator), INTEGRATORS)
    dt = r.number("simulation.dt", o.get("dt", d.dt), positive=True)
    if None in (method, integ, dt):
        return None
    return SimulationSettings(method, integ, dt)


def _check_sizes(r: FieldReader, obstacles, terrains, routes, networks, agents) -> None:
    nv = sum(len(o.polygon) for o in obstacles or [])
    nv += sum(len(t.polygon) + sum(len(h) for h in t.holes) for t in terrains or [])
    nv += sum(len(x.points) for x in routes or []) + sum(len(x.nodes) for x in networks or [])
    if nv > MAX_VERTICES:
        r.add("", f"the scene has {nv} vertices, over the limit of {MAX_VERTICES}")
    if agents is not None and len(agents) > MAX_AGENTS:
        r.add("agents", f"{len(agents)} agents, over the limit of {MAX_AGENTS}")


def _check_placement(r: FieldReader, bounds, obstacles, terrains, routes, networks, agents) -> None:
    """Obstacles must touch the bounds; route points, network nodes and agent ends must be in free space."""
    box = shapely.box(*bounds)
    polys = [Polygon(clean_ring(o.polygon)) for o in obstacles]
    for i, p in enumerate(polys):
        if not p.intersects(box):
            r.add(f"obstacles[{i}].polygon", "lies entirely outside the bounds")
    for i, t in enumerate(terrains):
        if not Polygon(clean_ring(t.polygon)).intersects(box):
            r.add(f"terrains[{i}].polygon", "lies entirely outside the bounds")
    tree = shapely.STRtree(polys)

    def check_points(path_of, pts: np.ndarray) -> None:
        if len(pts) == 0:
            return
        geoms = shapely.points(pts)
        outside = ~shapely.covered_by(geoms, box)
        inside_pairs = tree.query(geoms, predicate="within")
        blocked = {}
        for gi, oi in zip(*inside_pairs):
            blocked.setdefault(int(gi), int(oi))
        for k in range(len(pts)):
            if outside[k]:
                r.add(path_of(k), f"{fmt_point(pts[k])} is outside the bounds {list(bounds)}")
            elif k in blocked:
                r.add(path_of(k), f"{fmt_point(pts[k])} is inside obstacle {obstacles[blocked[k]].id!r}")

    for i, route in enumerate(routes):
        check_points(lambda k, i=i: f"routes[{i}].points[{k}]", np.asarray(route.points, dtype=float))
    for i, net in enumerate(networks):
        check_points(lambda k, i=i: f"networks[{i}].nodes[{k}]", np.asarray(net.nodes, dtype=float))
    ends, paths = [], []
    for i, a in enumerate(agents):
        for key in ("start", "goal"):
            p = getattr(a, key)
            if p is not None:
                ends.append(p)
                paths.append(f"agents[{i}].{key}")
    check_points(lambda k: paths[k], np.asarray(ends, dtype=float).reshape(-1, 2))


__all__ = ["parse_scene", "check_scene", "FORMAT", "VERSION"]
