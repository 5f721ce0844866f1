"""Paths and scenes as GeoJSON, in the scene's own metres, readable back by ``miran import``.

A FeatureCollection whose features carry ``role`` (obstacle, terrain with its ``type``, route, network, agent,
path) and ``id`` properties; walked paths are LineStrings with their measures and the ``times`` of their points.
Networks are drawn as their edges and carry ``nodes`` and ``edges`` as the scene format writes them; agents are
drawn at their start and carry ``profile`` and ``route`` or ``start``/``goal``/``planner``. GeoJSON is WGS 84
by definition, and these coordinates are not: the collection says so in a foreign member ``"miran": {"units":
"m", "crs": "local"}`` (which the importer honours, with the terrain types and profiles it also lists) and gives
the scene's bounds as the standard ``bbox``; the member also carries the scene's simulation settings, measurement
area and line and height field, as the scene format writes them, so that ``miran import`` gives the scene back.
Coordinates are rounded to ``decimals`` places (3: 1 mm).
"""

from __future__ import annotations

import os
from typing import Any

from core.scene.io import scene_to_dict
from core.scene.jsonio import write_json_atomic
from core.scene.model import Scene

from .paths import PathsFile

LOCAL_MEMBER = "miran"


def _r(v: float, decimals: int) -> float | int:
    f = round(float(v), decimals) + 0.0
    return int(f) if f.is_integer() and abs(f) < 2**53 else f


def _ring(pts, decimals: int, ccw: bool = True) -> list[list[float | int]]:
    """A closed GeoJSON ring turning the way RFC 7946's right-hand rule asks (exteriors counter-clockwise)."""
    ring = [[_r(x, decimals), _r(y, decimals)] for x, y in pts]
    twice_area = sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(ring, ring[1:] + ring[:1]))
    if (twice_area > 0) != ccw:
        ring.reverse()
    return ring + ring[:1] if ring and ring[0] != ring[-1] else ring


def _feature(geom: dict, props: dict) -> dict:
    return {"type": "Feature", "geometry": geom, "properties": props}


def scene_features(scene: Scene, decimals: int = 3) -> list[dict]:
    """The scene's obstacles, terrain polygons and routes as GeoJSON features; an obstacle that comes and goes or
    moves carries its schedule and motion as properties (its polygon is where it stands first)."""
    out = []
    for o in scene.obstacles:
        props: dict = {"role": "obstacle", "id": o.id}
        if o.scheduled:
            props.update(appears=o.appears, vanishes=o.vanishes)
        if o.path is not None:
            props.update(path=[[_r(x, decimals), _r(y, decimals)] for x, y in o.path], speed=o.speed, loop=o.loop,
                         turns=o.turns)
        out.append(_feature({"type": "Polygon", "coordinates": [_ring(o.polygon, decimals)]}, props))
    for t in scene.terrains:
        out.append(_feature({"type": "Polygon", "coordinates": [_ring(t.polygon, decimals)]
                             + [_ring(h, decimals, ccw=False) for h in t.holes]},
                            {"role": "terrain", "type": t.type, "id": t.id}))
    for r in scene.routes:
        out.append(_feature({"type": "LineString", "coordinates": [[_r(x, decimals), _r(y, decimals)]
                                                                   for x, y in r.points]},
                            {"role": "route", "id": r.id}))
    return out + network_features(scene, decimals) + agent_features(scene, decimals)


def network_features(scene: Scene, decimals: int = 3) -> list[dict]:
    """Each network as a MultiLineString of its edges (a MultiPoint of its nodes when it has none) with its
    ``nodes`` and ``edges`` as properties: what ``miran import`` reads back."""
    out = []
    for n in scene.networks:
        nodes = [[_r(x, decimals), _r(y, decimals)] for x, y in n.nodes]
        geom = ({"type": "MultiLineString", "coordinates": [[nodes[i], nodes[j]] for i, j in n.edges]} if n.edges
                else {"type": "MultiPoint", "coordinates": nodes})
        out.append(_feature(geom, {"role": "network", "id": n.id, "nodes": nodes,
                                   "edges": [[int(i), int(j)] for i, j in n.edges]}))
    return out


def agent_features(scene: Scene, decimals: int = 3) -> list[dict]:
    """Each agent as a Point where it starts (a route's first point) with its profile and its route or its
    start, goal and planner as properties."""
    routes = {r.id: r for r in scene.routes}
    out = []
    for a in scene.agents:
        props: dict[str, Any] = {"role": "agent", "id": a.id, "profile": a.profile}
        start = a.start
        if a.route is not None:
            props["route"] = a.route
            start = routes[a.route].points[0] if a.route in routes else None
        if a.start is not None and a.goal is not None:
            props["start"] = [_r(a.start[0], decimals), _r(a.start[1], decimals)]
            props["goal"] = [_r(a.goal[0], decimals), _r(a.goal[1], decimals)]
        if a.planner is not None:
            props["planner"] = a.planner
        geom: dict[str, Any] | None = ({"type": "Point", "coordinates": [_r(start[0], decimals),
                                                                          _r(start[1], decimals)]} if start else None)
        out.append({"type": "Feature", "geometry": geom, "properties": props})
    return out


def path_features(pf: PathsFile, decimals: int = 3) -> list[dict]:
    """Each agent's walked path as a LineString feature with its measures and point times (``role: path``; the
    importer leaves paths out unless ``--map paths=route``)."""
    out = []
    for a in pf.agents:
        pts = a.points
        coords = [[_r(x, decimals), _r(y, decimals)] for x, y in pts[:, 1:3].tolist()]
        geom = ({"type": "LineString", "coordinates": coords} if len(coords) >= 2
                else {"type": "Point", "coordinates": coords[0]})
        out.append(_feature(geom, {
            "role": "path", "layer": "paths", "id": a.id, "profile": a.profile, "reached_goal": bool(a.reached_goal),
            "time": float(a.time), "length": float(a.length), "weighted_length": float(a.weighted_length),
            "terrain_lengths": {k: float(v) for k, v in a.terrain_lengths.items()},
            "min_clearance": float(a.min_clearance),
            "times": [_r(t, 9) for t in pts[:, 0].tolist()],
        }))
    return out


def to_geojson(scene: Scene | None = None, pf: PathsFile | None = None, decimals: int = 3) -> dict[str, Any]:
    """A FeatureCollection of the scene (when given) and the paths (when given), in scene metres."""
    feats: list[dict] = []
    member: dict[str, Any] = {"units": "m", "crs": "local"}
    doc: dict[str, Any] = {"type": "FeatureCollection"}
    if scene is not None:
        feats += scene_features(scene, decimals)
        member["scene"] = scene.name
        member["terrain_types"] = [{"id": t.id, "name": t.name, "color": t.color} for t in scene.terrain_types]
        member["default_terrain"] = scene.default_terrain
        member["profiles"] = [{"id": p.id, "weights": dict(p.weights), "radius": p.radius, "max_speed": p.max_speed,
                               "sigma": p.sigma, "d": p.d} for p in scene.profiles]
        doc["bbox"] = [_r(b, decimals) for b in scene.bounds]
        extras = scene_to_dict(scene)
        for key in ("simulation", "measurement", "heightfield"):
            if key in extras:
                member[key] = extras[key]
    if pf is not None:
        feats += path_features(pf, decimals)
        member.setdefault("scene", pf.scene)
        member.update({"method": pf.method, "dt": pf.dt})
    doc[LOCAL_MEMBER] = member
    doc["features"] = feats
    return doc


def write_geojson(path: str | os.PathLike, scene: Scene | None = None, pf: PathsFile | None = None,
                  decimals: int = 3) -> None:
    """Write the GeoJSON file atomically."""
    write_json_atomic(path, to_geojson(scene, pf, decimals))


__all__ = ["LOCAL_MEMBER", "agent_features", "network_features", "path_features", "scene_features", "to_geojson",
           "write_geojson"]
