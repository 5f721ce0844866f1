"""Paths and scenes as GeoJSON, in the scene's own units, readable back by ``miran import``.

A FeatureCollection whose features carry ``role`` and ``id`` properties:

- ``obstacle``: a Polygon; ``terrain``: a Polygon with its holes and its ``type``; ``route``: a LineString;
- ``network``: a MultiLineString of its edges (what a GIS draws), with the network itself in the properties:
  ``nodes`` ([x, y] each) and ``edges`` (pairs of node indices), so that isolated nodes and nodes closer than the
  rounding survive;
- ``agent``: a character, with its ``profile``; one that follows a route is the Point where it starts with the
  ``route`` id, one planned from start to goal is a MultiPoint [start, goal] with its ``planner`` (null: the
  default);
- ``path``: a walked path, a LineString with its measures and the ``times`` of its points.

GeoJSON is WGS 84 by definition, and these coordinates are not: the collection says so in a foreign member
``"miran": {"units": "m", "crs": "local"}`` (which the importer honours), which also lists the scene's name, its
terrain types, default terrain, profiles and simulation settings, and gives the scene's bounds as the standard
``bbox``. Coordinates are rounded to ``decimals`` places (3: 1 mm). Not written: the height field and the
measurement area or line.
"""

from __future__ import annotations

import os
from typing import Any

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
    """The scene's obstacles, terrain polygons and routes as GeoJSON features."""
    out = []
    for o in scene.obstacles:
        out.append(_feature({"type": "Polygon", "coordinates": [_ring(o.polygon, decimals)]},
                            {"role": "obstacle", "id": o.id}))
    for t in scene.terrains:
        out.append(_feature({"type": "Polygon", "coordinates": [_ring(t.polygon, decimals)]
                             + [_ring(h, decimals, ccw=False) for h in t.holes]},
                            {"role": "terrain", "type": t.type, "id": t.id}))
    for r in scene.routes:
        out.append(_feature({"type": "LineString", "coordinates": [[_r(x, decimals), _r(y, decimals)]
                                                                   for x, y in r.points]},
                            {"role": "route", "id": r.id}))
    for n in scene.networks:
        nodes = [[_r(x, decimals), _r(y, decimals)] for x, y in n.nodes]
        out.append(_feature({"type": "MultiLineString", "coordinates": [[nodes[i], nodes[j]] for i, j in n.edges]},
                            {"role": "network", "id": n.id, "nodes": nodes,
                             "edges": [[int(i), int(j)] for i, j in n.edges]}))
    routes = {r.id: r for r in scene.routes}
    for a in scene.agents:
        if a.route is not None:
            x, y = routes[a.route].points[0]  # a checked scene's agents name its routes
            geom: dict[str, Any] = {"type": "Point", "coordinates": [_r(x, decimals), _r(y, decimals)]}
            props: dict[str, Any] = {"role": "agent", "id": a.id, "profile": a.profile, "route": a.route}
        else:
            ends = [p for p in (a.start, a.goal) if p is not None]
            geom = {"type": "MultiPoint", "coordinates": [[_r(x, decimals), _r(y, decimals)] for x, y in ends]}
            props = {"role": "agent", "id": a.id, "profile": a.profile, "planner": a.planner}
        out.append(_feature(geom, props))
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
    member: dict[str, Any] = {"units": scene.units if scene is not None else "m", "crs": "local"}
    doc: dict[str, Any] = {"type": "FeatureCollection"}
    if scene is not None:
        feats += scene_features(scene, decimals)
        member["scene"] = scene.name
        member["simulation"] = {"method": scene.simulation.method, "integrator": scene.simulation.integrator,
                                "dt": scene.simulation.dt}
        member["terrain_types"] = [{"id": t.id, "name": t.name, "color": t.color} for t in scene.terrain_types]
        member["default_terrain"] = scene.default_terrain
        member["profiles"] = [{"id": p.id, "weights": dict(p.weights), "radius": p.radius, "max_speed": p.max_speed,
                               "sigma": p.sigma, "d": p.d} for p in scene.profiles]
        doc["bbox"] = [_r(b, decimals) for b in scene.bounds]
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


__all__ = ["LOCAL_MEMBER", "path_features", "scene_features", "to_geojson", "write_geojson"]
