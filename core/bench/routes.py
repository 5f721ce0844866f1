"""Benchmark section ``routes``: query time of every planner on the city, and route lengths against the exact
shortest path (visibility graph).

Each planner answers the same random queries (both ends in the free space) through ``plan_route`` with a shared
PlannerContext, so the times include validation, search, post-processing and the clearance measure. Query times
are CPU time of the calling thread (``time.thread_time``), so other processes on the machine disturb them less;
building the structures and the first (JIT) call are timed apart (wall time). Niederberger et al. (2004, section 8)
report 0.19 ms (loose map) to 0.28 ms (dense map) per query on a 1 GHz Pentium III. Lengths are compared with a
uniform-weight profile, so the weighted planners are not charged for following their terrain preferences.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import numpy as np

from core.scene.io import load_scene
from core.scene.model import PLANNERS, Profile
from core.scene.problems import InputError

from .record import Record

SECTION = "routes"
CITY = Path(__file__).resolve().parents[2] / "scenes" / "city.json"
NIEDERBERGER = "Niederberger 2004: 0.19-0.28 ms per query (1 GHz Pentium III)"


def _record(name: str, value: float, unit: str, reference: str = "") -> Record:
    return Record(SECTION, name, float(value), unit, reference)


def _queries(ctx, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x0, y0, x1, y1 = ctx.scene.bounds
    out = np.zeros((0, 2))
    while len(out) < 2 * n:
        p = rng.uniform([x0, y0], [x1, y1], size=(4 * n, 2))
        out = np.vstack([out, p[ctx.contains(p)]])
    return out[:2 * n].reshape(n, 4)


def available_planners() -> list[str]:
    """The planners this installation can run (``ecm`` needs core.ecm's shortest-path query)."""
    from core.routes.planners.ecm import ecm_available

    return [p for p in PLANNERS if p != "ecm" or ecm_available()]


def run(quick: bool = False) -> list[Record]:
    """Median query time per planner on the city, build times, and length ratios to the exact shortest path."""
    from core.routes import PlannerContext, plan_route
    from core.routes.planners.portal import centre_graph, centre_route
    from core.routes.reference import VisibilityGraph

    scene = load_scene(CITY)
    scene = dataclasses.replace(scene, profiles=[Profile("uniform")] + list(scene.profiles))
    ctx = PlannerContext(scene)
    n = 60 if quick else 400
    queries = _queries(ctx, n, 2004)
    records = []
    t = time.perf_counter()
    vg = VisibilityGraph(ctx)
    records.append(_record("build visibility graph (reference)", time.perf_counter() - t, "s"))
    shortest = np.array([vg.shortest(q[:2], q[2:])[1] for q in queries])
    for planner in available_planners():
        t = time.perf_counter()
        ctx.planner(planner)
        try:
            plan_route(scene, queries[0, :2], queries[0, 2:], planner, "uniform", context=ctx)
        except InputError:
            pass
        records.append(_record(f"build + first query {planner}", time.perf_counter() - t, "s"))
        times, ratios, failed = [], [], 0
        for q, best in zip(queries, shortest):
            t = time.thread_time()
            try:
                res = plan_route(scene, q[:2], q[2:], planner, "uniform", context=ctx)
            except InputError:
                failed += 1
                continue
            times.append(time.thread_time() - t)
            ratios.append(res.route.length / best)
        ref = NIEDERBERGER if planner in ("portal", "cdt", "ecm") else ""
        records.append(_record(f"median query {planner} city", 1e3 * np.median(times), "ms", ref))
        records.append(_record(f"length / shortest median {planner} city", np.median(ratios), "ratio",
                               "exact shortest path (visibility graph) = 1"))
        records.append(_record(f"length / shortest p90 {planner} city", np.percentile(ratios, 90), "ratio",
                               "exact shortest path (visibility graph) = 1"))
        if failed:
            records.append(_record(f"refused queries {planner} city", failed / len(queries), "fraction",
                                   "grid: passages under ~2.4 cells; network: no visible network point"))
    # Niederberger section 8: moving nodes against the static portal-centre graph, same post-processing.
    dec = ctx.planner("portal").decomposition()
    cg = centre_graph(dec)
    wins = strict = 0
    for q in queries:
        s, g = q[:2], q[2:]
        ps, pg = dec.locate(np.vstack([s, g]))
        ours = plan_route(scene, s, g, "portal", "uniform", context=ctx).route.length
        base = centre_route(dec, cg, s, g, int(ps), int(pg))
        # No baseline route counts as a win for ours (plan_route joined the two points).
        base_len = float(np.sum(np.hypot(*np.diff(base, axis=0).T))) if base is not None else np.inf
        wins += ours <= base_len * (1 + 1e-9)
        strict += ours < base_len * (1 - 1e-9)
    records.append(_record("portal equal or shorter than portal centres", wins / len(queries), "fraction",
                           "Niederberger 2004 section 8: over 90 %"))
    records.append(_record("portal strictly shorter than portal centres", strict / len(queries), "fraction",
                           "Niederberger 2004 section 8: over 50 %"))
    records.append(_record("portal cells / trapezoids after Hertel-Mehlhorn", dec.n_polygons / dec.n_pieces,
                           "ratio", "Niederberger 2004 section 6.1: about 50 % of the trapezoids eliminated "
                                    "(their obstacles are non-convex; the city's are convex, so few merge)"))
    return records
