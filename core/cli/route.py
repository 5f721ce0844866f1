"""``miran route SCENE``: plan indicative routes with one of the five planners.

One query: ``--from X,Y --to X,Y``; many: ``--queries FILE`` with a JSON list of [x0, y0, x1, y1] (the ``ecm``
planner answers them in one batch kernel call, ``core.ecm.query_batch``). ``--out`` writes
a ``miran-route`` file (core/routes/io.py) with every route; ``--json`` prints that document. A query that cannot
be planned names itself (``queries[3]: ...``) and nothing is written.
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from core.cli.output import check_destination, json_bytes, print_json, write_result
from core.scene.io import load_scene
from core.scene.jsonio import read_json
from core.scene.model import DEFAULT_PLANNER, PLANNERS
from core.scene.problems import InputError, Problem, fmt_point


def add_parser(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("route", help="plan an indicative route",
                       description="Plan indicative routes from start to goal with one of the planners "
                                   f"({', '.join(PLANNERS)}); print a summary or JSON, or write a miran-route file.")
    p.add_argument("scene", metavar="SCENE")
    p.add_argument("--from", dest="start", metavar="X,Y", help="start point")
    p.add_argument("--to", dest="goal", metavar="X,Y", help="goal point")
    p.add_argument("--queries", metavar="FILE", help="JSON list of [x0, y0, x1, y1] queries (instead of --from/--to)")
    p.add_argument("--planner", default=DEFAULT_PLANNER, metavar="P",
                   help=f"one of {', '.join(PLANNERS)} (default {DEFAULT_PLANNER})")
    p.add_argument("--profile", metavar="ID", help="profile whose terrain weights are used (default: the first)")
    p.add_argument("--clearance", metavar="C", help="clearance to keep from obstacles (default: the profile's "
                                                    "radius, the character's own width)")
    p.add_argument("--min-clearance", metavar="M", help="accept routes that keep only M (>= 0) where no route keeps "
                                                        "the clearance (default: refuse them, naming the "
                                                        "narrowest spot)")
    p.add_argument("--cell-size", metavar="H", help="grid planner: cell size (default: 1/400 of the longer side)")
    p.add_argument("--network", metavar="ID", help="network planner: the network to use (default: all)")
    p.add_argument("--out", metavar="FILE", help="write the routes to a miran-route JSON file")
    p.add_argument("--json", action="store_true", help="print the miran-route document instead of a summary")
    return p


def parse_point(text: str | None, name: str) -> tuple[float, float]:
    """``X,Y`` as a point; InputError naming the option otherwise."""
    if text is None:
        raise InputError([Problem(name, "missing: give X,Y (or --queries FILE)")])
    parts = text.split(",")
    try:
        if len(parts) != 2:
            raise ValueError
        x, y = float(parts[0]), float(parts[1])
    except ValueError:
        raise InputError([Problem(name, f"expected X,Y (two numbers separated by a comma), got {text!r}")]) from None
    if not (math.isfinite(x) and math.isfinite(y)):
        raise InputError([Problem(name, f"expected finite numbers, got {text!r}")])
    return x, y


def parse_number(text: str | None, name: str, positive: bool = False) -> float | None:
    """An optional number option; InputError naming it when it is not a number (>= 0, or > 0 if positive)."""
    if text is None:
        return None
    try:
        v = float(text)
    except ValueError:
        raise InputError([Problem(name, f"expected a number, got {text!r}")]) from None
    if not math.isfinite(v) or v < 0 or (positive and v == 0):
        raise InputError([Problem(name, f"expected a number {'> 0' if positive else '>= 0'}, got {text!r}")])
    return v


# 10,000 queries of a 20 m scene plan in 5 s of CPU; 10^5 ran past the 60 s that any command may take.
MAX_QUERIES = 10_000


def read_queries(path: str) -> list[tuple[float, float, float, float]]:
    """A JSON list of at most MAX_QUERIES [x0, y0, x1, y1]; InputError naming each bad entry."""
    data = read_json(path)
    if not isinstance(data, list):
        raise InputError([Problem("", "expected a JSON list of [x0, y0, x1, y1] queries")], path)
    if len(data) > MAX_QUERIES:
        raise InputError([Problem("", f"{len(data)} queries, over the limit of {MAX_QUERIES} (split the file)")],
                         path)
    out: list[tuple[float, float, float, float]] = []
    problems: list[Problem] = []
    for i, q in enumerate(data):
        if (isinstance(q, list) and len(q) == 4 and
                all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in q)):
            x0, y0, x1, y1 = (float(v) for v in q)
            out.append((x0, y0, x1, y1))
        else:
            problems.append(Problem(f"[{i}]", f"expected [x0, y0, x1, y1] (four numbers), got {q!r}"))
    if problems:
        raise InputError(problems, path)
    return out


def run(args) -> int:
    from core.routes import PlannerContext, plan_route
    from core.routes.io import routes_document

    if args.planner not in PLANNERS:
        raise InputError([Problem("--planner", f"unknown planner {args.planner!r} (valid: {', '.join(PLANNERS)})")])
    clearance = parse_number(args.clearance, "--clearance")
    least = parse_number(args.min_clearance, "--min-clearance")
    cell = parse_number(args.cell_size, "--cell-size", positive=True)
    if args.queries is not None:
        if args.start is not None or args.goal is not None:
            raise InputError([Problem("--queries", "give either --queries or --from/--to, not both")])
        queries = read_queries(args.queries)
        labels = [f"queries[{i}]" for i in range(len(queries))]
    else:
        s, g = parse_point(args.start, "--from"), parse_point(args.goal, "--to")
        queries, labels = [(s[0], s[1], g[0], g[1])], [""]
    check_destination(args.out, "--out")
    scene = load_scene(args.scene)
    diagonal = math.hypot(scene.bounds[2] - scene.bounds[0], scene.bounds[3] - scene.bounds[1])
    if clearance is not None and clearance > diagonal:
        raise InputError([Problem("--clearance", f"{clearance:g} is more than the bounds' diagonal ({diagonal:g}): "
                                                 "no point of the scene can keep it")], args.scene)
    if cell is not None and args.planner == "grid":
        from core.routes.planners.grid import cell_size_problem

        msg = cell_size_problem(scene.bounds, cell)
        if msg:
            raise InputError([Problem("--cell-size", msg)], args.scene)
    if args.profile is not None and args.profile not in [p.id for p in scene.profiles]:
        valid = ", ".join(p.id for p in scene.profiles) or "the scene has no profiles"
        raise InputError([Problem("--profile", f"unknown profile {args.profile!r} (valid: {valid})")])
    if clearance is None:
        # The character's own width: the radius of the profile whose weights are used (0 without profiles).
        chosen = args.profile or (scene.profiles[0].id if scene.profiles else None)
        clearance = scene.profile(chosen).radius if chosen is not None else 0.0
    ctx = PlannerContext(scene, cell_size=cell, network=args.network)
    if args.planner == "ecm" and len(queries) > 1:
        # One batch kernel call answers the ECM queries at the asked clearance; plan_route reads them.
        q = np.array(queries, dtype=np.float64)
        ctx.planner("ecm").prefetch(q[:, 0:2], q[:, 2:4], clearance)
    results, problems = [], []
    for label, (x0, y0, x1, y1) in zip(labels, queries):
        try:
            results.append(plan_route(scene, (x0, y0), (x1, y1), args.planner, args.profile, clearance, ctx,
                                      min_clearance=least))
        except InputError as e:
            problems += [Problem(_join(label, p.path), p.message) for p in e.problems]
    if problems:
        raise InputError(problems, args.scene)
    profile = results[0].profile if results else ctx.weights(args.profile)[0]
    doc = routes_document(results, scene.name, args.planner, profile, clearance)
    if args.out:
        write_result(args.out, "--out", json_bytes(doc))
    if args.json:
        print_json(doc)
        return 0
    for label, r in zip(labels, results):
        head = f"{label}: " if label else ""
        ok = ("keeps" if r.clearance_ok else "does NOT keep") + f" the clearance {r.clearance:g}"
        at = f" at {fmt_point(r.narrowest_at)}" if r.narrowest_at is not None else ""
        print(f"{head}{r.planner} route, {len(r.route)} points, length {r.route.length:.2f} {scene.units}, "
              f"cost {r.cost:.2f}, narrowest {r.narrowest:.3f} {scene.units}{at} ({ok})")
    if args.out:
        print(f"wrote {len(results)} route(s) to {args.out}")
    return 0


def _join(label: str, path: str) -> str:
    if not label:
        return path
    return f"{label}.{path}" if path else label
