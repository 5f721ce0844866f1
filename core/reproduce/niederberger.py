"""Niederberger, Radovic and Gross (2004), "Generic path planning for real-time applications": the experiments
of sections 6.1, 7.2 and 8 rerun on this engine.

- ``niederberger_table1``: Table 1 and section 6.1, the static graphs' node counts and how many trapezoids the
  Hertel-Mehlhorn merging removes.
- ``niederberger_fig9``: Figures 9 and 8, portal A* against the static graphs (Center, Width 1/3, Width 1/10) on a
  loose and a dense map: path lengths and time per query.
- ``niederberger_fig10``: Figure 10, the movement adapted to the slope on scenes/hills.json.
"""

from __future__ import annotations

import time

import numpy as np
import shapely

from . import plot
from .experiment import OTHER_MACHINE, Experiment, Recovery, length, no_walkers, shipped_scene
from .verdict import check, construction

QUERIES_ONLY = "route queries only: no character walks"


def random_map(seed: int, n_obstacles: int, size: float = 1000.0):
    """Niederberger's test maps: size x size with n convex obstacles (random rotated quadrilaterals and pentagons)
    that do not overlap."""
    from core.scene.model import Obstacle, Profile, Scene, TerrainType

    rng = np.random.default_rng(seed)
    polys: list[shapely.Polygon] = []
    obstacles: list[Obstacle] = []
    while len(obstacles) < n_obstacles:
        c = rng.uniform(0.05 * size, 0.95 * size, 2)
        r = rng.uniform(0.015, 0.045) * size
        k = int(rng.integers(4, 6))
        a = np.sort(rng.uniform(0, 2 * np.pi, k))
        ring = np.round(np.column_stack([c[0] + r * np.cos(a), c[1] + r * np.sin(a)]), 2)
        p = shapely.Polygon(ring)
        if not p.is_valid or p.area < 1.0 or any(p.distance(q) < 0.01 * size for q in polys):
            continue
        polys.append(p)
        obstacles.append(Obstacle(f"o{len(obstacles)}", [(float(x), float(y)) for x, y in ring]))
    return Scene(bounds=(0.0, 0.0, size, size), terrain_types=[TerrainType("default")], default_terrain="default",
                 obstacles=obstacles, profiles=[Profile("uniform")], name=f"{n_obstacles} obstacles")


# Niederberger Table 1: centre nodes (one per portal) on the loose (100 obstacles) and dense (200) maps.
NIEDERBERGER_NODES = {100: 281, 200: 395}
NIEDERBERGER_WIDTH_NODES = {"Width 1/3": {100: 323, 200: 408}, "Width 1/10": {100: 567, 200: 568}}
# Section 8's static baselines: "Center" (a node per portal) and the maximal portal width set to a third and a
# tenth of the map's width.
BASELINES = (("Center", np.inf), ("Width 1/3", 1000.0 / 3.0), ("Width 1/10", 100.0))
# Niederberger section 8: mean query time of portal A* (ms, 1 GHz Pentium III).
NIEDERBERGER_MS = {100: 0.19, 200: 0.28}
MAPS = (("loose map, 100 obstacles", 100), ("dense map, 200 obstacles", 200))


def niederberger_table1(quick: bool = False) -> Experiment:
    """Table 1 and section 6.1: the convex decomposition's cells and portals (the "center nodes") on the two maps,
    from trapezoids (the paper's Seidel decomposition) and from triangles, each merged after Hertel-Mehlhorn."""
    from core.routes import PlannerContext
    from core.routes.convex import decompose
    from core.routes.planners.portal import width_graph

    data: dict = {}
    for label, count in MAPS:
        scene = random_map(2004 + count, count)
        free = PlannerContext(scene).free(0.0).free    # what the portal planner decomposes
        for pieces in ("trapezoids", "triangles"):
            dec = decompose(free, pieces)
            data.setdefault(label, {})[pieces] = {"pieces": dec.n_pieces, "cells": dec.n_polygons,
                                                  "portals": int(len(dec.portals)),
                                                  "removed": 1.0 - dec.n_polygons / dec.n_pieces}
            data[label][pieces]["width_nodes"] = {name: int(len(width_graph(dec, w)[1]))
                                                  for name, w in BASELINES[1:]}
    fig, ax = plot.figure(8.0, 4.6)
    x = np.arange(len(MAPS))
    ax.bar(x - 0.3, [NIEDERBERGER_NODES[c] for _, c in MAPS], 0.2, color=plot.PAPER, label="paper: center nodes")
    for k, pieces in enumerate(("trapezoids", "triangles")):
        ax.bar(x - 0.1 + 0.2 * k, [data[lab][pieces]["portals"] for lab, _ in MAPS], 0.2, color=plot.PALETTE[k],
               label=f"ours: portals, {pieces} + Hertel-Mehlhorn")
    ax.bar(x + 0.3, [data[lab]["trapezoids"]["pieces"] for lab, _ in MAPS], 0.2, color=plot.PALETTE[2],
           label="ours: trapezoids before merging")
    ax.set_xticks(x, [lab for lab, _ in MAPS])
    ax.set_ylabel("count")
    ax.set_title("Niederberger Table 1: graph nodes on the 1000 x 1000 maps")
    ax.legend(fontsize=8)
    reflex = ("on maps of disjoint convex obstacles every horizontal cut of the trapezoidal map ends at an obstacle "
              "vertex, where the free space is reflex: no cut can be removed (tests/core/reproduce); the paper's "
              "maps are not published")
    checks = []
    for label, count in MAPS:
        t = data[label]["trapezoids"]
        # Criterion: merging removes at least 40 % of the trapezoids (paper: "on average 50 percent").
        checks.append(check(f"merging removes about 50 % of the trapezoids ({label})", "removed >= 40 %", "~50 %",
                            f"{100 * t['removed']:.1f} %", t["removed"] >= 0.40, reflex))
        # Criterion: the centre graph has as many nodes as the paper's within 50 %.
        checks.append(check(f"{NIEDERBERGER_NODES[count]} center nodes ({label})", "portals within 50 %",
                            str(NIEDERBERGER_NODES[count]), str(t["portals"]),
                            abs(t["portals"] - NIEDERBERGER_NODES[count]) <= 0.5 * NIEDERBERGER_NODES[count],
                            "stand-in random maps; no cut merged (above)"))
        for name, paper_nodes in NIEDERBERGER_WIDTH_NODES.items():
            ours = t["width_nodes"][name]
            checks.append(check(f"{paper_nodes[count]} {name} nodes ({label})", "nodes within 50 %",
                                str(paper_nodes[count]), str(ours),
                                abs(ours - paper_nodes[count]) <= 0.5 * paper_nodes[count],
                                "stand-in random maps; no cut merged (above)"))
    md = ("Generated 1000 x 1000 maps with 100 and 200 disjoint convex obstacles (quadrilaterals and pentagons). "
          "Paper (section 6.1): Seidel's trapezoids, merged after Hertel and Mehlhorn, \"on average 50 percent of "
          "the trapezoids are eliminated\"; Table 1: 281 and 395 center nodes. A portal between two cells is a "
          "center node.\n\n| map | pieces | pieces before | cells after merging | removed | portals (center nodes) "
          "| paper nodes |\n|---|---|---:|---:|---:|---:|---:|\n"
          + "".join(f"| {lab} | {p} | {v['pieces']} | {v['cells']} | {100 * v['removed']:.1f} % | {v['portals']} | "
                    f"{NIEDERBERGER_NODES[c]} |\n" for lab, c in MAPS for p, v in data[lab].items())
          + "\n| map | pieces | Width 1/3 nodes (paper) | Width 1/10 nodes (paper) |\n|---|---|---:|---:|\n"
          + "".join(f"| {lab} | {p} | {v['width_nodes']['Width 1/3']} ({NIEDERBERGER_WIDTH_NODES['Width 1/3'][c]}) | "
                    f"{v['width_nodes']['Width 1/10']} ({NIEDERBERGER_WIDTH_NODES['Width 1/10'][c]}) |\n"
                    for lab, c in MAPS for p, v in data[lab].items())
          + "\nThe trapezoids' merging removes almost nothing, and rightly: each horizontal cut of the trapezoidal "
            "map starts at an obstacle vertex, the free space's angle there is reflex (over 180 degrees, the "
            "obstacle being convex), and Hertel-Mehlhorn removes only cuts whose removal leaves both end points "
            "convex. Merging a triangulation instead removes over half of the triangles.\n")
    return Experiment("niederberger_table1", "Niederberger Table 1: decomposition and node counts", fig, md, data,
                      checks, no_walkers("decompositions only: no character walks"))


def niederberger_fig9(quick: bool = False) -> Experiment:
    """Figures 9 and 8: how often portal A* with movable nodes finds a shorter, equal or longer path than A* over
    each static graph (Center, Width 1/3, Width 1/10; the same post-processing), on a loose (100 obstacles) and a
    dense (200) map, and the time per query of each."""
    from core.routes import PlannerContext, plan_route
    from core.routes.planners.portal import centre_route, portal_path, width_graph
    from core.scene.problems import InputError
    from core.sim.population import random_free_points

    n = 40 if quick else 500
    data: dict = {}
    for label, count in MAPS[::-1]:
        scene = random_map(2004 + count, count)
        ctx = PlannerContext(scene)
        dec = ctx.planner("portal").decomposition()
        graphs = {name: width_graph(dec, w) for name, w in BASELINES}
        rng = np.random.default_rng(count)
        pts = random_free_points(ctx.mesh, rng, 2 * n)
        locs = dec.locate(pts)
        try:   # warm-up: kernels compiled before the clock
            plan_route(scene, pts[0], pts[1], "portal", "uniform", context=ctx)
            portal_path(dec, pts[0], pts[1], int(locs[0]), int(locs[1]))
            for g, npor in graphs.values():
                centre_route(dec, g, pts[0], pts[1], int(locs[0]), int(locs[1]), npor)
        except InputError:
            pass
        counts = {name: {"shorter": 0, "equal": 0, "longer": 0} for name in graphs}
        ms: dict[str, list[float]] = {"portal A*": [], **{name: [] for name in graphs}, "plan_route": []}
        for k in range(n):
            s, g = pts[2 * k], pts[2 * k + 1]
            ps, pg = int(locs[2 * k]), int(locs[2 * k + 1])
            # Every planner timed from the same entry: start and goal with their located cells, A* and the same
            # cone-of-sight post-processing; plan_route (the engine's API: checks, joins, the Route) apart.
            t0 = time.thread_time()
            path = portal_path(dec, s, g, ps, pg)
            took = 1e3 * (time.thread_time() - t0)
            if path is None:
                continue
            ms["portal A*"].append(took)
            ours = length(path)
            t0 = time.thread_time()
            try:
                plan_route(scene, s, g, "portal", "uniform", context=ctx)
            except InputError:
                pass
            ms["plan_route"].append(1e3 * (time.thread_time() - t0))
            for name, (graph, npor) in graphs.items():
                t0 = time.thread_time()
                base = centre_route(dec, graph, s, g, ps, pg, npor)
                ms[name].append(1e3 * (time.thread_time() - t0))
                b = length(base) if base is not None else np.inf  # no baseline route: ours is shorter
                key = "shorter" if ours < b * (1 - 1e-9) else "equal" if ours <= b * (1 + 1e-9) else "longer"
                counts[name][key] += 1
        data[label] = {"ms_per_query": {k: float(np.mean(v)) for k, v in ms.items()},
                       "nodes": {name: int(len(npor)) for name, (_, npor) in graphs.items()}}
        for name, c in counts.items():
            done = max(sum(c.values()), 1)
            data[label][name] = {"queries": sum(c.values()), **c, "fractions": {k: v / done for k, v in c.items()}}
    fig, axes = plot.figure(10.0, 4.6, ncols=2)
    ax = axes[0]
    rows = [(label, name) for label, _ in MAPS[::-1] for name, _ in BASELINES]
    names = [f"{'dense' if 'dense' in label else 'loose'}: {name}" for label, name in rows]
    left = np.zeros(len(rows))
    for key, col, lab in (("shorter", "#2ca02c", "portal A* shorter"), ("equal", "#1f77b4", "equal"),
                          ("longer", "#d62728", "static graph shorter")):
        w = np.array([100 * data[label][name]["fractions"][key] for label, name in rows])
        ax.barh(names, w, left=left, color=col, label=lab)
        left += w
    ax.invert_yaxis()
    ax.set_xlabel("share of random queries (%)")
    ax.set_xlim(0, 100)
    ax.set_title("Figure 9: path length against static graphs")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncols=3)
    ax = axes[1]
    keys = ["portal A*"] + [name for name, _ in BASELINES]
    x = np.arange(len(keys))
    for k, (label, count) in enumerate(MAPS[::-1]):
        ax.bar(x + (k - 0.5) * 0.38, [data[label]["ms_per_query"][q] for q in keys], 0.38,
               color=plot.PALETTE[k], label=label)
    ax.set_xticks(x, keys, fontsize=8)
    ax.set_ylabel("CPU time per query (ms)")
    ax.set_title("Figure 8: query time (this machine)")
    ax.legend(fontsize=7)
    fig.suptitle("Niederberger Figures 9 and 8: portal A* with movable nodes against static graphs")
    checks = []
    for label, count in MAPS:
        need_eq, need_sh = (0.97, 0.60) if count == 100 else (0.90, 0.50)
        for name, _ in BASELINES:
            f = data[label][name]["fractions"]
            eq, sh = f["shorter"] + f["equal"], f["shorter"]
            # Criteria: the paper's shares, equal-or-shorter and strictly shorter, against every static graph.
            checks.append(check(f"equal or shorter than {name} in {100 * need_eq:.0f} % ({label})",
                                f">= {100 * need_eq:.0f} %", f"{100 * need_eq:.0f} %", f"{100 * eq:.0f} %",
                                eq >= need_eq, "stand-in random maps, whose trapezoids do not merge (Table 1): "
                                f"portal A* moves its nodes on {data[label]['nodes']['Center']} short portals "
                                f"where the paper's map had {NIEDERBERGER_NODES[count]} (docs: the papers)"))
            checks.append(check(f"strictly shorter than {name} in {100 * need_sh:.0f} % ({label})",
                                f">= {100 * need_sh:.0f} %", f"{100 * need_sh:.0f} %", f"{100 * sh:.0f} %",
                                sh >= need_sh, "stand-in random maps"))
        q = data[label]["ms_per_query"]
        paper_ms = NIEDERBERGER_MS[count]
        checks.append(check(f"a query takes {paper_ms} ms ({label})", f"mean CPU ms per query <= {paper_ms}",
                            f"{paper_ms} ms", f"{q['portal A*']:.2f} ms", q["portal A*"] <= paper_ms, OTHER_MACHINE))
        # Criterion (Figure 8): "Width 1/10 always performs slower since its graph has more nodes".
        checks.append(check(f"Width 1/10 is slower than portal A* ({label})", "mean ms: Width 1/10 > portal A*",
                            "slower", f"{q['Width 1/10']:.2f} vs {q['portal A*']:.2f} ms",
                            q["Width 1/10"] > q["portal A*"]))
    md = ("Random queries on the generated maps, every planner followed by the same cone-of-sight post-processing "
          "(Niederberger 7.1), so that only the graph differs: portal A* with movable nodes against the static "
          "graphs of section 8 (a node at the centre of each portal, or of each piece of a portal cut to at most "
          "a third or a tenth of the map's width, all nodes of a cell joined). Paper: equal or shorter in more "
          "than 90 % of the cases, strictly shorter in over 50 % (loose map: 97 % and 60 %); 0.19 ms (loose) and "
          "0.28 ms (dense) per query on a 1 GHz Pentium III.\n\n"
          "| map | graph | nodes | queries | shorter | equal | longer | ms per query |\n"
          "|---|---|---:|---:|---:|---:|---:|---:|\n"
          + "".join(f"| {label} | {name} | {data[label]['nodes'][name]} | {v['queries']} | "
                    f"{100 * v['fractions']['shorter']:.0f} % | {100 * v['fractions']['equal']:.0f} % | "
                    f"{100 * v['fractions']['longer']:.0f} % | {data[label]['ms_per_query'][name]:.2f} |\n"
                    for label, _ in MAPS for name, _ in BASELINES for v in [data[label][name]])
          + "".join(f"| {label} | portal A* | - | - | - | - | - | {data[label]['ms_per_query']['portal A*']:.2f} |\n"
                    for label, _ in MAPS)
          + "".join(f"| {label} | portal A* through `plan_route` (checks, joins, the Route object) | - | - | - | - | - "
                    f"| {data[label]['ms_per_query']['plan_route']:.2f} |\n" for label, _ in MAPS)
          + "\nEvery graph is timed from the same entry (start, goal and their cells located, A* and the "
            "post-processing); the engine's `plan_route` around portal A* adds its input checks and the Route "
            "object, shown apart.\n")
    return Experiment("niederberger_fig9", "Niederberger Figures 9 and 8: portal A* against static graphs", fig, md,
                      data, checks, no_walkers(QUERIES_ONLY))


def _heights_along(hf, pts: np.ndarray) -> np.ndarray:
    """Heights of a height field at points (n, 2): the steering's own bilinear interpolation (core.steering.slope),
    constant beyond the raster's border."""
    from core.steering.slope import height_gradient

    geo = np.array([hf.origin[0], hf.origin[1], hf.cell], dtype=np.float64)
    h = np.ascontiguousarray(hf.array())
    grad = np.zeros(2)
    return np.array([height_gradient(geo, h, float(x), float(y), grad) for x, y in pts])


def _climb(hf, path: np.ndarray, step: float = 2.0) -> dict:
    """Height profile of a walked path resampled every ``step``: total ascent, the steepest ascent over one
    step, and the highest point."""
    line = shapely.LineString(path)
    pts = shapely.get_coordinates(shapely.line_interpolate_point(line, np.arange(0.0, line.length, step)))
    z = _heights_along(hf, pts)
    dz = np.diff(z)
    return {"ascent": float(np.sum(dz[dz > 0])), "steepest": float(np.max(dz) / step) if len(dz) else 0.0,
            "highest": float(np.max(z)), "length": float(line.length)}


# Figure 10's two hikers: the slope deflection off, then on (a test turns both off to turn the verdict).
FIG10_SLOPE = (False, True)


def niederberger_fig10(quick: bool = False) -> Experiment:
    """Figure 10 and section 7.2: the movement adapted to the slope. The hiker of scenes/hills.json follows a
    straight route over a steep hill, once without and once with the slope deflection (eqs. 1-3)."""
    from core.sim import Simulation

    scene = shipped_scene("hills")
    hf = scene.heightfield
    route = np.array(scene.routes[0].points, dtype=float)
    data, paths = {}, {}
    recovery = Recovery()
    for label, slope in zip(("without slope", "with slope (eqs. 1-3)"), FIG10_SLOPE):
        sim = Simulation(scene)
        sim.params.set("slope", slope)
        sim.run()
        recovery.add(sim)
        paths[label] = sim.path(0)[:, 1:]
        data[label] = {**_climb(hf, paths[label]), "arrived": bool(sim.arrived().all())}
    fig, ax = plot.figure(9.0, 5.8)
    handles = plot.draw_scene(ax, scene, heights=True)
    plot.line(ax, route, "route (planned path)", "white", 2.2, "-", z=3)
    plot.line(ax, paths["without slope"], "movement without slope", "#1f77b4", 1.6, "--")
    plot.line(ax, paths["with slope (eqs. 1-3)"], "movement adapted to the slope", "#d62728", 1.8, "-")
    ax.legend(handles=ax.get_legend_handles_labels()[0] + handles, loc="upper left", fontsize=7, framealpha=0.9)
    ax.set_title("Niederberger Figure 10: the path and the movement adapted to the slope (contours in m)")
    off, on = data["without slope"], data["with slope (eqs. 1-3)"]
    checks = [
        # Criterion: the deflection turns away from steep ascents, so the steepest ascent walked is smaller.
        check("the movement turns away from steep ascents", "steepest ascent with slope < without", "smaller",
              f"{on['steepest']:.2f} vs {off['steepest']:.2f}", on["steepest"] < off["steepest"]),
        check("the movement climbs less", "total ascent with slope < without", "less",
              f"{on['ascent']:.1f} m vs {off['ascent']:.1f} m", on["ascent"] < off["ascent"]),
        construction("the waypoint is still reached (f -> 0 near it)", "both arrive", "yes",
                     "yes" if on["arrived"] and off["arrived"] else "no", on["arrived"] and off["arrived"],
                     "the progress guarantee (core.sim.progress)"),
    ]
    md = ("A straight route across a 30 m hill (scenes/hills.json); the slope deflection of section 7.2 turns the "
          "heading away from ascents by up to 1 rad, fading out near the waypoint. Paper: Figure 10 shows the "
          "movement (red) leaving the planned path (white) around the slope; no numbers are given.\n\n"
          "| | path length (m) | total ascent (m) | steepest ascent (m/m over 2 m) | highest point (m) | arrived |\n"
          "|---|---:|---:|---:|---:|---|\n"
          + "".join(f"| {k} | {v['length']:.1f} | {v['ascent']:.1f} | {v['steepest']:.2f} | {v['highest']:.1f} | "
                    f"{'yes' if v['arrived'] else 'NO'} |\n" for k, v in data.items()))
    return Experiment("niederberger_fig10", "Niederberger Figure 10: movement adapted to the slope", fig, md, data,
                      checks, recovery)

