"""``miran measure SCENE PATHS``: exact length per terrain type, weighted lengths, collision and clearance of paths.

PATHS is a JSON list of polylines (``[[[x, y], ...], ...]``) or a ``miran-paths`` file (its agents' ``points``
rows ``[t, x, y]``). Weights come from ``--profile`` (default: for a miran-paths agent its own profile when the
scene has it, otherwise the scene's first profile; every weight 1 when the scene has none). ``--radius R`` > 0
adds the disc traversal cost (Kremyzas 2014, ch. 3) and measures clearance for a disc of radius R.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

import numpy as np

from core.cli.output import print_json
from core.scene.io import load_scene
from core.scene.fields import MAX_COORD, as_float
from core.scene.jsonio import read_json
from core.scene.problems import InputError, Problem


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("measure", help="measure paths: terrain lengths, weighted length, collisions, clearance",
                       description="Measure polylines exactly on the scene's weighted navigation mesh: length, "
                                   "length per terrain type, weighted length (and disc traversal cost for "
                                   "--radius > 0), whether they stay in the free space, and their clearance.")
    p.add_argument("scene", metavar="SCENE")
    p.add_argument("paths", metavar="PATHS", help="JSON list of polylines [[[x, y], ...], ...] or a miran-paths file")
    p.add_argument("--profile", metavar="ID", help="profile whose terrain weights are used")
    p.add_argument("--radius", default="0", metavar="R", help="disc radius for the disc cost and clearance (default 0)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    return p


def _coordinate(c: Any) -> bool:
    """A finite JSON number no larger than the scene format's MAX_COORD (beyond it lengths lose all precision)."""
    return (isinstance(c, (int, float)) and not isinstance(c, bool) and as_float(c) is not None
            and abs(float(c)) <= MAX_COORD)


def _point(v: Any) -> bool:
    return isinstance(v, list) and len(v) == 2 and all(_coordinate(c) for c in v)


def _row(v: Any) -> bool:
    return (isinstance(v, list) and len(v) == 3 and all(_coordinate(c) for c in v[1:])
            and isinstance(v[0], (int, float)) and not isinstance(v[0], bool) and as_float(v[0]) is not None)


def read_polylines(path: str) -> list[tuple[str, str | None, np.ndarray]]:
    """(id, profile or None, points (m, 2) float64) per polyline of PATHS; InputError naming each bad entry."""
    data = read_json(path)
    problems: list[Problem] = []
    out: list[tuple[str, str | None, np.ndarray]] = []
    if isinstance(data, list):
        for i, line in enumerate(data):
            if not isinstance(line, list) or len(line) == 0:
                problems.append(Problem(f"[{i}]", "expected a non-empty list of points [x, y]"))
                continue
            bad = next((k for k, v in enumerate(line) if not _point(v)), None)
            if bad is not None:
                problems.append(Problem(f"[{i}][{bad}]", f"expected a point [x, y] of finite numbers within "
                                                         f"+/-{MAX_COORD:g}, got {_short(line[bad])}"))
                continue
            out.append((str(i), None, np.array(line, dtype=np.float64)))
    elif isinstance(data, dict) and data.get("format") == "miran-paths":
        agents = data.get("agents")
        if not isinstance(agents, list):
            problems.append(Problem("agents", "expected a list of agents"))
            agents = []
        for i, a in enumerate(agents):
            where = f"agents[{i}]"
            if not isinstance(a, dict):
                problems.append(Problem(where, "expected an object"))
                continue
            pts = a.get("points")
            if not isinstance(pts, list) or len(pts) == 0:
                problems.append(Problem(f"{where}.points", "expected a non-empty list of rows [t, x, y]"))
                continue
            bad = next((k for k, v in enumerate(pts) if not _row(v)), None)
            if bad is not None:
                problems.append(Problem(f"{where}.points[{bad}]", f"expected a row [t, x, y] of finite numbers "
                                                                  f"(x, y within +/-{MAX_COORD:g}), "
                                                                  f"got {_short(pts[bad])}"))
                continue
            aid, prof = a.get("id"), a.get("profile")
            out.append((aid if isinstance(aid, str) else str(i), prof if isinstance(prof, str) else None,
                        np.array(pts, dtype=np.float64)[:, 1:3].copy()))
    elif isinstance(data, dict):
        fmt = data.get("format")
        problems.append(Problem("format", f"expected a JSON list of polylines or a miran-paths file, got format "
                                          f"{fmt!r}" if fmt is not None else
                                          "expected a JSON list of polylines or a miran-paths file (no 'format')"))
    else:
        problems.append(Problem("", "expected a JSON list of polylines [[[x, y], ...], ...] or a miran-paths file"))
    if problems:
        raise InputError(problems, path)
    return out


def _short(v: Any, n: int = 40) -> str:
    s = repr(v)
    return s if len(s) <= n else s[: n - 3] + "..."


def run(args) -> int:
    from core.navmesh.build import build_navmesh
    from core.navmesh.measure import measure_polyline

    scene = load_scene(args.scene)
    radius = _radius(args.radius)
    ids = [p.id for p in scene.profiles]
    if args.profile is not None and args.profile not in ids:
        valid = ", ".join(ids) or "none"
        raise InputError([Problem("--profile", f"unknown profile {args.profile!r} (valid: {valid})")])
    lines = read_polylines(args.paths)
    mesh = build_navmesh(scene)
    wm = scene.weight_matrix()
    ones = np.ones(len(scene.terrain_types))

    def weights_of(prof: str | None) -> tuple[str | None, np.ndarray]:
        pid = args.profile or (prof if prof in ids else (ids[0] if ids else None))
        return pid, (wm[ids.index(pid)] if pid is not None else ones)

    results: list[dict[str, Any]] = []
    for lid, prof, pts in lines:
        pid, w = weights_of(prof)
        m = measure_polyline(mesh, pts, w, radius)
        results.append({
            "id": lid,
            "profile": pid,
            "points": int(len(pts)),
            "length": m.length,
            "terrain_lengths": {t.id: float(v) for t, v in zip(scene.terrain_types, m.terrain_lengths)},
            "obstacle_length": m.blocked_length,
            "weighted_length": m.weighted_length,
            "disc_weighted_length": m.disc_weighted_length,
            "collision_free": m.collision_free,
            "min_clearance": m.min_clearance,
        })
    if args.json:
        print_json({"scene": scene.name, "radius": radius, "paths": results})
        return 0
    print(f"{scene.name}: {len(results)} path(s), radius {radius:g}")
    types = [t.id for t in scene.terrain_types]
    head = f"  {'id':<10} {'profile':<12} {'length':>9} {'weighted':>10}" + ("" if radius == 0 else f" {'disc':>10}")
    print(head + "  " + " ".join(f"{t:>9}" for t in types) + f"  {'clearance':>9}  free")
    for r in results:
        disc = "" if radius == 0 else (f" {r['disc_weighted_length']:>10.3f}" if r["disc_weighted_length"] is not None
                                       else f" {'-':>10}")
        cols = " ".join(f"{r['terrain_lengths'][t]:>9.3f}" for t in types)
        print(f"  {r['id']:<10} {str(r['profile']):<12} {r['length']:>9.3f} {r['weighted_length']:>10.3f}{disc}  "
              f"{cols}  {r['min_clearance']:>9.3f}  {'yes' if r['collision_free'] else 'NO'}")
    return 0


def _radius(text: str) -> float:
    try:
        r = float(text)
    except ValueError:
        raise InputError([Problem("--radius", f"expected a number >= 0, got {text!r}")]) from None
    if not math.isfinite(r) or r < 0:
        raise InputError([Problem("--radius", f"expected a number >= 0, got {text!r}")])
    return r
