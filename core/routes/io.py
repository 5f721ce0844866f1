"""The ``miran-route`` file (version 1): planned indicative routes, as written by ``miran route --out``.

```json
{
  "format": "miran-route", "version": 1,
  "scene": "City", "planner": "cdt", "profile": "pedestrian", "clearance": 0.0,
  "routes": [{"from": [x0, y0], "to": [x1, y1], "points": [[x0, y0], ..., [x1, y1]],
              "length": 123.4, "cost": 98.7, "clearance_ok": true, "narrowest": 0.0}]
}
```

``profile`` is null when the scene has no profiles (all weights 1). ``cost`` is the planner's cost (see
``PlanResult``), ``length`` the Euclidean length of ``points``, ``narrowest`` the route's smallest distance to an
obstacle or the bounds and ``clearance_ok`` whether it keeps ``clearance``. Schema:
resources/schemas/miran-route.schema.json.
"""

from __future__ import annotations

import os
from typing import Any

from core.scene.jsonio import read_json, write_json_atomic
from core.scene.problems import InputError, Problem

from .plan import PlanResult
from .route import Route

FORMAT = "miran-route"
VERSION = 1


def routes_document(results: list[PlanResult], scene_name: str, planner: str, profile: str | None,
                    clearance: float) -> dict[str, Any]:
    """The ``miran-route`` JSON document of some planned routes."""
    return {"format": FORMAT, "version": VERSION, "scene": scene_name, "planner": planner, "profile": profile,
            "clearance": float(clearance), "routes": [r.to_dict() for r in results]}


def save_routes(path: str | os.PathLike, document: dict[str, Any]) -> None:
    """Write a ``miran-route`` document atomically."""
    write_json_atomic(path, document)


def load_routes(path: str | os.PathLike) -> list[Route]:
    """Read the routes of a ``miran-route`` file; InputError names every bad field by its JSON path."""
    data = read_json(path)
    problems: list[Problem] = []
    if not isinstance(data, dict):
        raise InputError([Problem("", "expected a miran-route JSON object")], str(path))
    if data.get("format") != FORMAT:
        problems.append(Problem("format", f"expected {FORMAT!r}, got {data.get('format')!r}"))
    if data.get("version") != VERSION:
        problems.append(Problem("version", f"expected {VERSION}, got {data.get('version')!r}"))
    items = data.get("routes")
    routes: list[Route] = []
    if not isinstance(items, list):
        problems.append(Problem("routes", "expected a list of routes"))
        items = []
    for i, item in enumerate(items):
        pts = item.get("points") if isinstance(item, dict) else None
        try:
            if not isinstance(pts, list) or not all(isinstance(p, list) and len(p) == 2 and
                                                    all(_is_number(v) for v in p) for p in pts):
                raise ValueError("expected a list of [x, y] numbers")
            routes.append(Route.from_points(pts))
        except ValueError as e:
            problems.append(Problem(f"routes[{i}].points", str(e)))
    if problems:
        raise InputError(problems, str(path))
    return routes


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)
