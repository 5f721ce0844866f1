"""Load and save ``miran-scene`` v1 files; saving is atomic and load -> save -> load is the identity."""

from __future__ import annotations

import os
from typing import Any

from .jsonio import read_json, write_json_atomic
from .model import Scene
from .parse import FORMAT, VERSION, parse_scene


def load_scene(path: str | os.PathLike) -> Scene:
    """Read and validate a scene file; raises InputError with every problem found."""
    return parse_scene(read_json(path), str(path))


def save_scene(scene: Scene, path: str | os.PathLike) -> None:
    """Write a scene atomically (temporary file + rename)."""
    write_json_atomic(path, scene_to_dict(scene))


def _num(v: float) -> float | int:
    """A coordinate as written: integral values without a trailing ``.0`` (read back as the same float)."""
    f = float(v)
    return int(f) if f.is_integer() and abs(f) < 2**53 else f


def _pts(ring) -> list[list[float | int]]:
    return [[_num(x), _num(y)] for x, y in ring]


def scene_to_dict(scene: Scene) -> dict[str, Any]:
    """The scene as a ``miran-scene`` v1 JSON document; every field written, in the order the scene format lists them
    (docs: Reference, scene format; the optional height field and the measurement area and line last, only when the
    scene has them)."""
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "name": scene.name,
        "units": scene.units,
        "bounds": [_num(b) for b in scene.bounds],
        "terrain_types": [{"id": t.id, "name": t.name, "color": t.color} for t in scene.terrain_types],
        "default_terrain": scene.default_terrain,
        "obstacles": [_obstacle_dict(o) for o in scene.obstacles],
        "terrains": [
            {"id": t.id, "type": t.type, "polygon": _pts(t.polygon), "holes": [_pts(h) for h in t.holes]}
            for t in scene.terrains
        ],
        "profiles": [
            {"id": p.id, "weights": dict(p.weights), "radius": p.radius, "max_speed": p.max_speed,
             "sigma": p.sigma, "d": p.d}
            for p in scene.profiles
        ],
        "routes": [{"id": r.id, "points": _pts(r.points)} for r in scene.routes],
        "networks": [
            {"id": n.id, "nodes": _pts(n.nodes), "edges": [[int(a), int(b)] for a, b in n.edges]}
            for n in scene.networks
        ],
        "agents": [_agent_dict(a) for a in scene.agents],
        "simulation": _simulation_dict(scene),
    }
    hf = getattr(scene, "heightfield", None)
    if hf is not None:
        doc["heightfield"] = {"origin": [_num(hf.origin[0]), _num(hf.origin[1])], "cell": _num(hf.cell),
                              "heights": [[_num(h) for h in row] for row in hf.heights]}
    m = scene.measurement
    if not m.is_empty():
        doc["measurement"] = {k: _pts(v) for k, v in (("area", m.area), ("line", m.line)) if v is not None}
    return doc


def _agent_dict(a) -> dict[str, Any]:
    d: dict[str, Any] = {"id": a.id, "profile": a.profile}
    if a.route is not None:
        d["route"] = a.route
    if a.start is not None:
        d["start"] = [_num(a.start[0]), _num(a.start[1])]
    if a.goal is not None:
        d["goal"] = [_num(a.goal[0]), _num(a.goal[1])]
    if a.planner is not None:
        d["planner"] = a.planner
    return d


def _obstacle_dict(o) -> dict:
    """An obstacle's JSON; ``appears`` and ``vanishes`` only when scheduled, ``path`` and ``speed`` only when moving
    (``loop`` and ``turns`` only when true), so older files keep their bytes."""
    out: dict = {"id": o.id, "polygon": _pts(o.polygon)}
    if o.appears > 0.0:
        out["appears"] = _num(o.appears)
    if o.vanishes is not None:
        out["vanishes"] = _num(o.vanishes)
    if o.path is not None:
        out["path"] = _pts(o.path)
        out["speed"] = _num(o.speed)
        if o.loop:
            out["loop"] = True
        if o.turns:
            out["turns"] = True
    return out


def _simulation_dict(scene: Scene) -> dict:
    """The ``simulation`` object; ``fidelity`` only when not exact, so that older readers read the file as before."""
    sim = scene.simulation
    out: dict = {"method": sim.method, "integrator": sim.integrator, "dt": sim.dt}
    if sim.fidelity != "exact":
        out["fidelity"] = sim.fidelity
    return out
