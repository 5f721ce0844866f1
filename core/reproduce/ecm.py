"""The Explicit Corridor Map (Geraerts 2010): section VI's experiments and figures rerun on this engine.

- ``ecm_timings``: section VI, building the map of the city (warm; first build apart), its counts, and the
  per-stage time of corridor queries.
- ``ecm_fig8``: Figures 5 and 8, a corridor that narrows below cl_min = 2.25 m, shrunk by it, and its shortest
  path, which runs on the Voronoi edges where the corridor is narrower than the clearance.
- ``ecm_fig6``: Figure 6, flexible paths: the shortest path as IRM's control path (section V), smooth, and
  avoiding small obstacles.
- ``ecm_cpu_load``: section VI's CPU-load of steering one character (query and smoothing over the traversal).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import shapely

from . import plot
from .experiment import (OTHER_MACHINE, Experiment, Recovery, clearance, length, md_table, mean_distance,
                         shipped_scene)
from .verdict import check, construction

# ECM section VI (Core2 Quad 2.4 GHz, GeForce 8800 GTX; 4000 x 4000 pixels): ms, and the map's counts.
# Smoothing alone is the difference of the totals with it (4.14 ms) and without (3.56 ms).
ECM_PAPER = {"build": 600.0, "corridor": 1.19, "shrink": 0.54, "path": 1.83, "total": 3.56, "smooth": 0.58,
             "with_smoothing": 4.14}
# How many of the queries' paths ecm_timings smooths (each walks the whole path).
ECM_SMOOTHED = 100
ECM_COUNTS = {"vertices": 1439, "edges": 1618, "events": 6322}
ECM_CLEARANCE = 1.0
# The city's ECM per resolution, built once per process (ecm_timings builds it; ecm_fig8 reuses it).
_CITY_ECM: dict = {}


def _ecm_stages(ecm, starts: np.ndarray, goals: np.ndarray, clearance: float,
                paths: list | None = None) -> dict[str, list[float]]:
    """Per query, CPU ms of the paper's three stages: the explicit corridor (retraction, graph search and the
    corridor's disks), shrinking it by the clearance (its portals), and the shortest path through them; each
    path is appended to ``paths`` when given."""
    from core.ecm.funnel import ARC_STEP, corridor_path, portals
    from core.ecm.path import OK, plan
    from core.ecm.corridor import explicit_corridor

    s = ecm.sites
    out: dict[str, list[float]] = {"corridor": [], "shrink": [], "path": [], "total": []}
    for a, b in zip(starts, goals):
        t0 = time.thread_time()
        res = plan(ecm, a, b, clearance)
        if res.status != OK:
            continue
        cB, cR, cl, cr, cf = explicit_corridor(ecm.arrays, res)
        t1 = time.thread_time()
        P = portals(cB, cR, cl, cr, cf, clearance, s.ring_xy, s.ring_next, s.edge_normal, ARC_STEP)
        t2 = time.thread_time()
        path, _ = corridor_path(P, float(a[0]), float(a[1]), float(b[0]), float(b[1]), 1e-9 * s.scale)
        t3 = time.thread_time()
        for k, v in (("corridor", t1 - t0), ("shrink", t2 - t1), ("path", t3 - t2), ("total", t3 - t0)):
            out[k].append(1e3 * v)
        if paths is not None:
            paths.append(path)
    return out


def paper_backend() -> str:
    """The paper's construction, the GVD rendered (``gpu``), where an OpenGL context can be made; else ``exact``."""
    from core.ecm.build import resolve_backend

    return resolve_backend("auto", keep_gvd=True)[0]


def ecm_timings(quick: bool = False) -> Experiment:
    """ECM section VI: building the Explicit Corridor Map of the city (first build apart, then warm), the map's
    counts, and shortest minimum-clearance path queries timed per stage."""
    from core.ecm.build import build_ecm
    from core.ecm.glcontext import renderer
    from core.sim.smooth import PathSmoother
    from core.routes import PlannerContext
    from core.sim.population import random_free_points

    scene = shipped_scene("city")
    res = 1024 if quick else 4000
    data: dict = {"resolution": res}
    t0 = time.perf_counter()
    build_ecm(scene, res, backend=paper_backend())
    data["first_build_ms"] = 1e3 * (time.perf_counter() - t0)     # kernels compiled or loaded from numba's cache
    builds = []
    for _ in range(1 if quick else 3):
        t0 = time.perf_counter()
        ecm = build_ecm(scene, res, backend=paper_backend())
        builds.append(1e3 * (time.perf_counter() - t0))
    data["build_ms"] = min(builds)
    _CITY_ECM[res] = ecm
    data["build_stages_ms"] = {k: 1e3 * v for k, v in ecm.timings.items()}
    data["counts"] = {k: int(ecm.stats[k]) for k in ECM_COUNTS}
    data["obstacle_vertices"] = int(ecm.stats["obstacle_vertices"])
    data["renderer"] = renderer()
    ctx = PlannerContext(scene)
    rng = np.random.default_rng(2010)
    n = 50 if quick else 1000
    pts = random_free_points(ctx.mesh, rng, 2 * n)
    _ecm_stages(ecm, pts[:2], pts[2:4], ECM_CLEARANCE)                # warm-up: kernels compiled before the clock
    paths: list = []
    st = _ecm_stages(ecm, pts[0::2], pts[1::2], ECM_CLEARANCE, paths)
    data["queries"] = len(st["total"])
    data["query_ms"] = {k: float(np.mean(v)) for k, v in st.items()}
    # ECM section V's smoothing: each shortest path the control path of an IRM character (core.sim.smooth), timed
    # in CPU time after one smoothing that compiled the kernels; the first paths of the queries above.
    smoother = PathSmoother(scene, ctx.mesh)
    smoother.smooth(paths[0])
    smoother.cpu_s = 0.0
    smoothed = paths[1: 1 + (10 if quick else ECM_SMOOTHED)]
    steps = sum(len(smoother.smooth(p)) - 1 for p in smoothed)
    data["smoothed"] = len(smoothed)
    data["query_ms"]["smooth"] = 1e3 * smoother.cpu_s / len(smoothed)
    data["query_ms"]["with_smoothing"] = data["query_ms"]["total"] + data["query_ms"]["smooth"]
    data["smooth_us_per_step"] = 1e6 * smoother.cpu_s / max(steps, 1)
    data["smoothed_length_m"] = float(np.mean([length(p) for p in smoothed]))
    fig, axes = plot.figure(11.0, 4.6, ncols=2)
    ax = axes[0]
    stages = ["corridor", "shrink", "path", "total", "smooth", "with_smoothing"]
    x = np.arange(len(stages))
    ax.bar(x - 0.2, [ECM_PAPER[k] for k in stages], 0.4, color=plot.PAPER, label="paper (Core2 Quad 2.4 GHz)")
    ax.bar(x + 0.2, [data["query_ms"][k] for k in stages], 0.4, color=plot.PALETTE[1], label="ours")
    ax.set_xticks(x, ["explicit\ncorridor", "shrink", "triangulate\n+ path", "total", "smoothing\n(IRM)",
                      "total with\nsmoothing"], fontsize=7)
    ax.set_ylabel("CPU time per query (ms)")
    ax.set_title(f"query stages, clearance {ECM_CLEARANCE:g} m, mean of {data['queries']} "
                 f"({data['smoothed']} smoothed)", fontsize=9)
    ax.legend(fontsize=8)
    ax = axes[1]
    ax.bar([0], [ECM_PAPER["build"]], 0.5, color=plot.PAPER, label="paper (GPU, 4,000 px)")
    ax.bar([1], [data["build_ms"]], 0.5, color=plot.PALETTE[1], label=f"ours warm ({res} px)")
    ax.bar([2], [data["first_build_ms"]], 0.5, color=plot.PALETTE[4], label="ours first build")
    ax.set_xticks([0, 1, 2], ["paper", "ours (warm)", "ours (first)"])
    ax.set_yscale("log")
    ax.set_ylabel("wall time to build the ECM (ms, log scale)")
    ax.set_title("building the map")
    ax.legend(fontsize=8)
    fig.suptitle("ECM section VI: the city (500 x 500 m, 181 obstacles)")
    q = data["query_ms"]
    gpu = f"the GVD is rendered by this machine's OpenGL ({data['renderer']}), not a GeForce 8800 GTX"
    checks = []
    if res == 4000:   # the paper's resolution; a quick run's smaller map is not compared
        checks.append(check(f"the map builds in {ECM_PAPER['build'] / 1e3:.2f} s", "warm build at 4,000 px <= 600 ms",
                            "600 ms", f"{data['build_ms']:.0f} ms", data["build_ms"] <= ECM_PAPER["build"], gpu))
    checks += [check("a query (corridor, shrink, path) takes 3.56 ms", "mean total <= 3.56 ms", "3.56 ms",
                    f"{q['total']:.2f} ms", q["total"] <= ECM_PAPER["total"], OTHER_MACHINE),
               # Criterion: the smoothing alone adds at most the paper's 4.14 - 3.56 = 0.58 ms.
               check("smoothing adds 0.58 ms (4.14 - 3.56)", "mean smoothing <= 0.58 ms", "0.58 ms",
                     f"{q['smooth']:.2f} ms", q["smooth"] <= ECM_PAPER["smooth"],
                     OTHER_MACHINE + "; the smoothing integrates every 0.1 s of the walk "
                     f"({data['smoothed_length_m']:.0f} m at 2 m/s) with the simulator's IRM step, "
                     f"{data['smooth_us_per_step']:.1f} us each"),
               # Criterion: the query with the smoothing of section V costs at most the paper's 4.14 ms.
               check("with smoothing a query takes 4.14 ms", "mean total + mean smoothing <= 4.14 ms", "4.14 ms",
                     f"{q['with_smoothing']:.2f} ms (smoothing {q['smooth']:.2f} ms)",
                     q["with_smoothing"] <= ECM_PAPER["with_smoothing"], OTHER_MACHINE)]
    for k, v in ECM_COUNTS.items():
        # Criterion: the stand-in city's map has as many features as the paper's within 25 %.
        ours = data["counts"][k]
        checks.append(check(f"the map has {v:,} {k}", "within 25 % of the paper's count", f"{v:,}", f"{ours:,}",
                            abs(ours - v) <= 0.25 * v,
                            f"stand-in city with {data['obstacle_vertices']:,} obstacle vertices; the paper's city "
                            "and its vertex count are not published (scenes/README.md)"))
    md = ("The city of ECM section VI (500 x 500 m, 181 obstacles). Paper: Core2 Quad 2.4 GHz with a GeForce 8800 "
          "GTX, 4,000 x 4,000 pixels; ECM in 0.60 s with 1,439 vertices, 1,618 edges and 6,322 event points; "
          "per query the corridor 1.19 ms, shrinking 0.54 ms, triangulation and path 1.83 ms (3.56 ms in all, "
          "4.14 ms with smoothing: the path as the control path of IRM, section V). Ours: builds timed warm (best "
          "of the builds after the first, whose time includes compiling or loading the kernels, reported apart); "
          "queries timed per stage in CPU time after a warm-up; smoothing is core.sim.smooth, the engine's IRM "
          "steering (Verlet, dt 0.1 s, 2 m/s as section VI's character, no noise) with the path as its route, "
          "timed on the first paths of the queries.\n\n"
          + md_table(("paper", "ours"), [
              (f"build ({res} px, warm)", "600 ms", f"{data['build_ms']:.0f} ms"),
              ("first build (kernels compiled or loaded)", "-", f"{data['first_build_ms']:.0f} ms"),
              *((f"build stage: {k}", "-", f"{v:.0f} ms") for k, v in data["build_stages_ms"].items()
                if k != "total"),
              ("obstacle vertices", "not stated", f"{data['obstacle_vertices']:,}"),
              *((k, f"{ECM_COUNTS[k]:,}", f"{data['counts'][k]:,}") for k in ECM_COUNTS),
              ("query: explicit corridor", "1.19 ms", f"{q['corridor']:.3f} ms"),
              (f"query: shrinking (clearance {ECM_CLEARANCE:g} m)", "0.54 ms", f"{q['shrink']:.3f} ms"),
              ("query: triangulation and path", "1.83 ms", f"{q['path']:.3f} ms"),
              (f"query: total (mean of {data['queries']})", "3.56 ms", f"{q['total']:.3f} ms"),
              (f"smoothing (section V; mean of {data['smoothed']}, {data['smoothed_length_m']:.0f} m)", "0.58 ms",
               f"{q['smooth']:.3f} ms"),
              ("query with smoothing", "4.14 ms", f"{q['with_smoothing']:.3f} ms"),
          ]))
    return Experiment("ecm_timings", "ECM section VI: the city's map and corridor queries", fig, md, data, checks,
                      Recovery(note="the smoothing walks, one IRM character per path").add(smoother.sim))



def city_ecm(res: int):
    """The city's ECM at ``res`` pixels, built once per process (ecm_timings builds it first)."""
    from core.ecm.build import build_ecm

    ecm = _CITY_ECM.get(res)
    if ecm is None:
        ecm = _CITY_ECM[res] = build_ecm(shipped_scene("city"), res, backend=paper_backend())
    return ecm


# ECM Figure 8: a shrunk corridor with cl_min = 2.25 m, "larger than the available clearance in the middle part of
# the corridor", its shortest path, a query of 2.77 ms; the smooth path of a character of radius 0.4 m. The paper
# does not give the query's ends: ours are the first of seeded random pairs of the city whose shortest corridor
# narrows below cl_min (to no less than ECM_FIG8 "narrowest" so that the 0.4 m character fits) between two ends
# that keep it.
ECM_FIG8: dict[str, Any] = {"clearance": 2.25, "ms": 2.77, "radius": 0.4, "narrowest": 0.8, "seed": 2010,
                            "tries": 4000}
# Where the corridor is narrower than cl_min, the path "ran on the Voronoi edges": within this fraction of the local
# radius of the corridor's backbone. Where the corridor is wide enough, it keeps cl_min less the documented 1.6 %
# where the funnel wraps an obstacle corner (core/ecm/funnel.py).
ON_EDGE, ARC_SLACK = 0.02, 0.984


def _corridor_parts(ecm, a, b, search_clearance: float, clearance: float):
    """The paper's query, stage by stage: the explicit corridor between a and b found by the search at
    ``search_clearance``, shrunk by ``clearance`` (ECM III: where a disc is narrower, both sides collapse onto its
    centre on the Voronoi edge), and the shortest path through it. (B, R, left, right, path) or None."""
    from core.ecm.corridor import explicit_corridor
    from core.ecm.funnel import ARC_STEP, corridor_path, portals
    from core.ecm.path import OK, plan

    s = ecm.sites
    res = plan(ecm, a, b, search_clearance)
    if res.status != OK:
        return None
    cB, cR, cl, cr, cf = explicit_corridor(ecm.arrays, res)
    P = portals(cB, cR, cl, cr, cf, clearance, s.ring_xy, s.ring_next, s.edge_normal, ARC_STEP)
    path, _ = corridor_path(P, float(a[0]), float(a[1]), float(b[0]), float(b[1]), 1e-9 * s.scale)
    return cB, cR, P[:, 0:2], P[:, 2:4], path


def narrow_query(ecm, mesh, clearance: float, narrowest: float, seed: int, tries: int):
    """The first of seeded random pairs of free points, both at least ``clearance`` from the obstacles, whose
    shortest corridor (searched without a clearance) narrows below ``clearance`` but not below ``narrowest``
    between them; (start, goal) or None."""
    from core.ecm.path import plan
    from core.ecm.corridor import explicit_corridor
    from core.ecm.path import OK
    from core.navmesh.queries import clearance as mesh_clearance
    from core.sim.population import random_free_points

    rng = np.random.default_rng(seed)
    pts = random_free_points(mesh, rng, 2 * tries)
    d, _ = mesh_clearance(mesh, pts)
    for k in range(tries):
        a, b = pts[2 * k], pts[2 * k + 1]
        if d[2 * k] < clearance or d[2 * k + 1] < clearance or np.hypot(*(a - b)) < 100.0:
            continue
        res = plan(ecm, a, b, 0.0)
        if res.status != OK:
            continue
        R = explicit_corridor(ecm.arrays, res)[1]
        if narrowest <= R.min() < clearance:
            return a, b
    return None


def ecm_fig8(quick: bool = False) -> Experiment:
    """ECM Figures 5 and 8: an explicit corridor of the city that narrows below cl_min = 2.25 m, shrunk by it, its
    shortest path (on the Voronoi edges where the corridor is narrower), the query's time and the smooth path."""
    from core.ecm.path import shortest_path_status
    from core.navmesh import build_navmesh
    from core.scene.geometry import build_geometry
    from core.sim.smooth import PathSmoother

    scene = shipped_scene("city")
    res = 1024 if quick else 4000
    ecm = city_ecm(res)
    mesh = build_navmesh(scene)
    c = ECM_FIG8["clearance"]
    q = narrow_query(ecm, mesh, c, ECM_FIG8["narrowest"], ECM_FIG8["seed"], ECM_FIG8["tries"])
    if q is None:
        raise RuntimeError(f"no query of the city's corridors narrows below {c:g} m")
    s, g = q
    B, R, left, right, path = _corridor_parts(ecm, s, g, 0.0, c)
    _corridor_parts(ecm, s, g, 0.0, c)                                  # warm-up: kernels compiled
    times = []
    for _ in range(5 if quick else 50):
        t0 = time.thread_time()
        _corridor_parts(ecm, s, g, 0.0, c)
        times.append(1e3 * (time.thread_time() - t0))
    engine = shortest_path_status(ecm, s, g, c)[2]
    obstacles = build_geometry(scene).obstacles
    walls = shapely.box(*scene.bounds).exterior
    line = shapely.LineString(path)
    samples = shapely.line_interpolate_point(line, np.arange(0.0, line.length, 0.25))
    pts = shapely.get_coordinates(samples)
    gap = np.minimum(shapely.distance(samples, obstacles), shapely.distance(samples, walls))
    # Each sample's disc: the backbone disc nearest to it; narrow where that disc is narrower than cl_min.
    near = np.argmin(np.hypot(pts[:, None, 0] - B[None, :, 0], pts[:, None, 1] - B[None, :, 1]), axis=1)
    narrow = R[near] < c
    off_edge = shapely.distance(samples, shapely.LineString(B)) if len(B) > 1 else np.zeros(len(pts))
    on_edge = float(np.mean(off_edge[narrow] <= ON_EDGE * R[near][narrow])) if narrow.any() else float("nan")
    wide_gap = float(gap[~narrow].min()) if (~narrow).any() else float("nan")
    smoother = PathSmoother(scene, radius=ECM_FIG8["radius"])
    smooth = smoother.smooth(path)
    shortest = length(path)
    data = {"start": s.tolist(), "goal": g.tolist(), "length": shortest, "disks": int(len(R)),
            "narrowest_radius": float(R.min()), "narrow_share": float(np.mean(narrow)), "on_edge": on_edge,
            "wide_clearance": wide_gap, "query_ms": float(np.median(times)), "resolution": res,
            "engine_status": int(engine), "smooth_length": length(smooth),
            "smooth_clearance": clearance(smooth, obstacles, walls),
            "smooth_arrived": bool(np.hypot(*(smooth[-1] - np.asarray(g))) <= 0.2 + 1e-9)}
    fig, ax = plot.figure(8.0, 8.0)
    handles = plot.draw_scene(ax, scene)
    from matplotlib.collections import LineCollection
    from matplotlib.patches import Circle

    step = max(1, len(R) // 120)
    for b, r in zip(B[::step], R[::step]):
        ax.add_patch(Circle(b, r, fill=False, edgecolor="#6a51a3", linewidth=0.4, zorder=3))
    ax.plot([], [], "o", mfc="none", color="#6a51a3", label="corridor: maximum clearance disks")
    ax.add_collection(LineCollection(list(np.stack([left, right], axis=1)), colors="#969696", linewidths=0.3,
                                     zorder=4, label="portals of the triangle strip (Figure 5)"))
    plot.line(ax, B, "Voronoi edges (the corridor's backbone)", "#9e9ac8", 0.8, ":", z=4)
    plot.line(ax, left, f"shrunk corridor boundary (cl_min = {c:g} m)", "#2171b5", 1.0, "-", z=4)
    plot.line(ax, right, None, "#2171b5", 1.0, "-", z=4)
    plot.line(ax, path, "shortest minimum-clearance path", "#d62728", 2.0, "-", z=5)
    plot.line(ax, smooth, "smooth path (section V: IRM along it, r = 0.4 m)", "#ff7f00", 1.2, "--", z=6)
    pad = 25.0
    ax.set_xlim(min(s[0], g[0], B[:, 0].min()) - pad, max(s[0], g[0], B[:, 0].max()) + pad)
    ax.set_ylim(min(s[1], g[1], B[:, 1].min()) - pad, max(s[1], g[1], B[:, 1].max()) + pad)
    ax.legend(handles=ax.get_legend_handles_labels()[0] + handles, loc="upper left", fontsize=7, framealpha=0.9)
    ax.set_title(f"ECM Figure 8: a corridor shrunk by {c:g} m where it is only {2 * R.min():.1f} m wide")
    checks = [
        construction("this clearance was larger than the available clearance in the middle part of the corridor",
                     f"narrowest disc radius < {c:g} m", f"< {c:g} m", f"{R.min():.2f} m", R.min() < c,
                     "the query is chosen so (the first seeded pair whose corridor narrows so)"),
        # Criterion: where the corridor is narrower than cl_min, the path lies on the backbone (the Voronoi edges),
        # within 2 % of the local radius, at every sample.
        check("in this part, the shortest path ran on the Voronoi edges induced by the obstacles",
              f"path samples in discs narrower than cl_min within {100 * ON_EDGE:.0f} % of R of the Voronoi edges",
              "all", f"{100 * on_edge:.0f} % of {int(narrow.sum())} samples", on_edge >= 1.0),
        # Criterion: elsewhere the path keeps cl_min, less the funnel's documented 1.6 % at obstacle corners.
        check(f"elsewhere the path keeps the minimum clearance of {c:g} m", f"min distance to obstacles where the "
              f"corridor is wide enough >= {c:g} x {ARC_SLACK}", f"{c:g} m", f"{wide_gap:.2f} m",
              wide_gap >= c * ARC_SLACK),
        check(f"the query phase for this example took {ECM_FIG8['ms']} ms", f"median CPU ms <= {ECM_FIG8['ms']}",
              f"{ECM_FIG8['ms']} ms", f"{data['query_ms']:.3f} ms", data["query_ms"] <= ECM_FIG8["ms"],
              OTHER_MACHINE),
        # Criteria: the smooth path reaches the goal, is at most 5 % longer than the shortest path ("short") and
        # keeps the character's disc (r = 0.4 m) off the obstacles ("did not run too close").
        check("this path, traversed by a character with radius 0.4 m, was short, smooth, and did not run too close "
              "to the obstacles", "arrives, length <= 1.05 x the shortest path's, clearance >= 0.4 m",
              "short, clear", f"{data['smooth_length']:.1f} m against {shortest:.1f} m, clearance "
              f"{data['smooth_clearance']:.2f} m, arrived {'yes' if data['smooth_arrived'] else 'no'}",
              bool(data["smooth_arrived"]) and data["smooth_length"] <= 1.05 * shortest
              and data["smooth_clearance"] >= ECM_FIG8["radius"]),
    ]
    md = (f"From ({s[0]:.1f}, {s[1]:.1f}) to ({g[0]:.1f}, {g[1]:.1f}) on the city's ECM ({res} px): the first of "
          f"seeded random pairs whose shortest corridor narrows below cl_min = {c:g} m (to {R.min():.2f} m). "
          "Paper (section VI, Figure 8): \"We created a shrunk corridor having a high clearance (cl_min = 2.25m) to "
          "the obstacles ... Note that this clearance was larger than the available clearance in the middle part of "
          "the corridor. In this part, the shortest path ran on the Voronoi edges induced by the obstacles\"; the "
          "query took 2.77 ms. Ours runs the paper's stages: the corridor found without a clearance, shrunk by "
          "cl_min (where a disc is narrower, both its sides collapse onto its centre), triangulated and fed to the "
          "funnel. The engine's own query refuses such a corridor (status "
          f"{data['engine_status']}, NO_CORRIDOR = 3: docs, departures from the papers). The smooth path is "
          "section V's: the shortest path as the control path of IRM for a character of radius 0.4 m.\n\n"
          + md_table(("paper", "ours"), [
              ("path length (m)", "-", f"{shortest:.1f}"),
              ("corridor disks", "-", f"{data['disks']}"),
              ("narrowest disc radius (m)", "< 2.25", f"{R.min():.2f}"),
              ("path samples where the corridor is narrower than cl_min", "-", f"{100 * data['narrow_share']:.0f} %"),
              ("of them on the Voronoi edges", "all", f"{100 * on_edge:.0f} %"),
              ("smallest clearance where wide enough (m)", "2.25", f"{wide_gap:.2f}"),
              ("query (ms, median)", "2.77", f"{data['query_ms']:.3f}"),
              ("smooth path length (m)", "-", f"{data['smooth_length']:.1f}"),
              ("smallest clearance of the smooth path (m; r = 0.4)", '"not too close"',
               f"{data['smooth_clearance']:.2f}"),
          ]))
    return Experiment("ecm_fig8", "ECM Figure 8: a shortest minimum-clearance path", fig, md, data, checks,
                      Recovery(note="the smooth path's IRM walk").add(smoother.sim))


# ECM Figure 6: "Both paths keep some minimum clearance to the corridor's boundaries and try to follow the shortest
# path. The first one is a smooth path (i.e. C1-continuous). The second one avoids the gray obstacles while it stays
# smooth and short." Our query crosses the city; the shortest path keeps `clearance` and is the control path of an
# IRM character (section V) of radius `radius` at 2 m/s. Stated before the run: smooth is no turn of more than
# `turn` degrees between consecutive steps (dt = `dt`), short is at most `longer` times the shortest path, and
# following it is a mean distance from its samples of at most `follow` m.
ECM_FIG6: dict[str, Any] = {"start": (50.0, 50.0), "goal": (450.0, 450.0), "clearance": 1.0, "radius": 0.4,
                            "dt": 0.1, "turn": 20.0, "longer": 1.05, "follow": 1.0,
                            "obstacle_radius": 0.4, "obstacle_offset": 0.3, "obstacles": (0.3, 0.5, 0.7)}


def _gray_obstacles(path: np.ndarray, where: tuple, offset: float, radius: float) -> np.ndarray:
    """Small disc obstacles [x, y, r] on the path at the fractions ``where`` of its length, each ``offset`` to the
    left of it, moved along to the middle of the nearest straight stretch (the figure's obstacles stand on the
    path, not at its corners)."""
    line = shapely.LineString(path)
    s = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(path, axis=0).T))])
    out = []
    seg = [j for j in range(len(path) - 1) if s[j + 1] - s[j] > 8.0]
    for f in where:
        k = int(np.clip(np.searchsorted(s, f * s[-1]) - 1, 0, len(path) - 2))
        j = min(seg, key=lambda j: abs(j - k)) if seg else k
        if j in seg and len(seg) > 1:
            seg.remove(j)
        m = 0.5 * (s[j] + s[j + 1])
        p = np.array(shapely.get_coordinates(line.interpolate(m))[0])
        d = path[j + 1] - path[j]
        n = np.array([-d[1], d[0]]) / np.hypot(*d)
        out.append([*(p + offset * n), radius])
    return np.array(out)


def sharpest_turn_cause(path: np.ndarray, gray: np.ndarray, radius: float) -> str:
    """Where the path round the gray obstacles turns most, measured: how close it is there to a gray obstacle."""
    from .irm import largest_turn_at

    turn, at = largest_turn_at(path)
    gap = float(np.min(np.hypot(gray[:, 0] - at[0], gray[:, 1] - at[1]) - gray[:, 2])) - radius
    if gap > 0.1:
        return ""
    return (f"the {turn:.0f} deg turn is {gap:.3f} m from a gray obstacle: IRM eq. 6's push outweighs the steering "
            "force of eq. 3 only a few centimetres from contact, and then turns the character within one step")


def ecm_fig6(quick: bool = False) -> Experiment:
    """ECM Figure 6 (section V): flexible paths. (a) The shortest minimum-clearance path as the control path of an
    IRM character: a smooth short path. (b) The same with small obstacles on the path (IRM eq. 6): it avoids them and
    stays smooth and short."""
    from core.ecm.path import shortest_path_status
    from core.navmesh import build_navmesh
    from core.routes.route import Route
    from core.scene.geometry import build_geometry
    from core.sim.smooth import PathSmoother

    from .cmm import Walker, walk
    from .irm import largest_turn

    p = ECM_FIG6
    scene = shipped_scene("city")
    ecm = city_ecm(1024 if quick else 4000)
    mesh = build_navmesh(scene)
    path, _, status = shortest_path_status(ecm, p["start"], p["goal"], p["clearance"])
    smoother = PathSmoother(scene, mesh, radius=p["radius"], dt=p["dt"])
    smooth = smoother.smooth(path)
    gray = _gray_obstacles(path, p["obstacles"], p["obstacle_offset"], p["obstacle_radius"])
    who = Walker(radius=p["radius"], vmax=2.0, dt=p["dt"])
    avoid = walk("irm", mesh, Route.from_points(path), gray, scene, who, max_time=3.0 * length(path) / who.vmax)
    obstacles = build_geometry(scene).obstacles
    walls = shapely.box(*scene.bounds).exterior
    shortest = length(path)
    gaps = [float(np.min(np.hypot(avoid[:, 0] - o[0], avoid[:, 1] - o[1])) - o[2] - who.radius) for o in gray]

    def measures(q: np.ndarray) -> dict:
        return {"length": length(q), "turn": largest_turn(q), "follow": mean_distance(q, path),
                "clearance": clearance(q, obstacles, walls),
                "arrived": bool(np.hypot(*(q[-1] - path[-1])) <= who.vmax * who.dt + 1e-9)}

    data: dict[str, Any] = {"shortest_length": shortest, "status": int(status), "smooth": measures(smooth),
                            "avoiding": {**measures(avoid), "obstacle_gaps": gaps}, "obstacles": gray.tolist()}
    a, b = data["smooth"], data["avoiding"]
    fig, axes = plot.figure(11.0, 5.4, ncols=2)
    from matplotlib.patches import Circle

    for ax, (q, lab) in zip(axes, ((smooth, "(a) smooth short path"), (avoid, "(b) avoiding the gray obstacles"))):
        handles = plot.draw_scene(ax, scene, legend_terrain=False)
        plot.line(ax, path, f"shortest path, clearance {p['clearance']:g} m (control path)", "black", 1.0, "--", z=4)
        plot.line(ax, q, lab, "#d62728", 1.6, "-", z=5)
        if q is avoid:
            for o in gray:
                ax.add_patch(Circle(o[:2], o[2], facecolor="#9e9e9e", edgecolor="black", linewidth=0.5, zorder=6))
            o = gray[len(gray) // 2]
            ax.set_xlim(o[0] - 12, o[0] + 12)
            ax.set_ylim(o[1] - 12, o[1] + 12)
        ax.legend(handles=ax.get_legend_handles_labels()[0] + handles, loc="upper left", fontsize=7)
        ax.set_title(lab)
    fig.suptitle("ECM Figure 6: flexible path planning along the shortest minimum-clearance path")

    def smooth_short(m: dict) -> bool:
        return m["turn"] <= p["turn"] and m["length"] <= p["longer"] * shortest

    checks = [
        check("the first one is a smooth path (C1-continuous), short", f"largest turn between steps <= {p['turn']:g} "
              f"deg and length <= {p['longer']:g} x the shortest path", "smooth, short",
              f"{a['turn']:.1f} deg, {a['length']:.1f} m against {shortest:.1f} m", smooth_short(a)),
        check("both paths keep some minimum clearance to the corridor's boundaries",
              f"clearance of both >= the character's radius {p['radius']:g} m", "kept",
              f"(a) {a['clearance']:.2f} m, (b) {b['clearance']:.2f} m",
              min(a["clearance"], b["clearance"]) >= p["radius"]),
        check("both paths try to follow the shortest path", f"mean distance of the shortest path's samples to each "
              f"<= {p['follow']:g} m", "followed", f"(a) {a['follow']:.2f} m, (b) {b['follow']:.2f} m",
              max(a["follow"], b["follow"]) <= p["follow"]),
        check("the second one avoids the gray obstacles", "closest gap to every gray obstacle > 0", "avoided",
              ", ".join(f"{v:.2f} m" for v in gaps), min(gaps) > 0.0),
        check("while it stays smooth and short", f"largest turn <= {p['turn']:g} deg and length <= {p['longer']:g} x "
              "the shortest path", "smooth, short", f"{b['turn']:.1f} deg, {b['length']:.1f} m", smooth_short(b),
              sharpest_turn_cause(avoid, gray, who.radius)),
        construction("both reach the goal", "both arrived", "yes", f"(a) {a['arrived']}, (b) {b['arrived']}",
                     a["arrived"] and b["arrived"], "(a) by the progress guarantee; (b) checked on arrival"),
    ]
    md = (f"The shortest path from {p['start']} to {p['goal']} with clearance {p['clearance']:g} m on the city's ECM "
          f"({shortest:.0f} m) is the control path of an IRM character (r {p['radius']:g} m, 2 m/s, Verlet, dt "
          f"{p['dt']:g} s; section V). (a) alone, with the engine's IRM steering (core.sim.smooth); (b) with "
          f"{len(gray)} gray obstacles of {p['obstacle_radius']:g} m {p['obstacle_offset']:g} m off the path, felt "
          "through IRM eq. 6 (core.reproduce.cmm's IRM walker, as IRM Figure 1). Paper (section V): \"Both paths "
          "keep some minimum clearance to the corridor's boundaries and try to follow the shortest path. The first "
          "one is a smooth path (i.e. C1-continuous). The second one avoids the gray obstacles while it stays smooth "
          "and short.\" No numbers; the bounds are stated before the run (above).\n\n"
          + md_table(("(a) smooth", "(b) avoiding"), [
              (f"length (m; shortest {shortest:.1f})", f"{a['length']:.1f}", f"{b['length']:.1f}"),
              ("largest turn between steps (deg)", f"{a['turn']:.1f}", f"{b['turn']:.1f}"),
              ("mean distance from the shortest path (m)", f"{a['follow']:.2f}", f"{b['follow']:.2f}"),
              ("smallest clearance (m)", f"{a['clearance']:.2f}", f"{b['clearance']:.2f}"),
              ("closest gap to a gray obstacle (m)", "-", f"{min(gaps):.2f}"),
          ]))
    return Experiment("ecm_fig6", "ECM Figure 6: flexible paths", fig, md, data, checks,
                      Recovery(note="(a)'s walk; (b) is walked by core.reproduce.cmm's loop without a recovery "
                                    "rule").add(smoother.sim))


# ECM section VI: "By having an average traveled distance of 321m, the CPU-load was 0.002% for steering a single
# character": the query with smoothing (4.14 ms) over the traversal at 2 m/s.
ECM_LOAD = {"percent": 0.002, "distance": 321.0, "speed": 2.0}


def ecm_cpu_load(quick: bool = False) -> Experiment:
    """ECM section VI's CPU-load: per random query, the CPU time of the query and of its smoothing (section V) over
    the time to traverse the smooth path at 2 m/s."""
    from core.ecm.path import OK, shortest_path_status
    from core.navmesh import build_navmesh
    from core.sim.population import random_free_points
    from core.sim.smooth import PathSmoother

    scene = shipped_scene("city")
    ecm = city_ecm(1024 if quick else 4000)
    mesh = build_navmesh(scene)
    n = 20 if quick else 200
    rng = np.random.default_rng(2010)
    pts = random_free_points(mesh, rng, 2 * n + 2)
    first, _, status = shortest_path_status(ecm, pts[0], pts[1], ECM_CLEARANCE)   # warm-up: kernels compiled
    smoother = PathSmoother(scene, mesh, speed=ECM_LOAD["speed"])
    if status == OK:
        smoother.smooth(first)
    query_ms, smooth_ms, dist = [], [], []
    for k in range(1, n + 1):
        a, b = pts[2 * k], pts[2 * k + 1]
        t0 = time.thread_time()
        path, _, status = shortest_path_status(ecm, a, b, ECM_CLEARANCE)
        t1 = time.thread_time()
        if status != OK:
            continue
        before = smoother.cpu_s
        walked = smoother.smooth(path)
        query_ms.append(1e3 * (t1 - t0))
        smooth_ms.append(1e3 * (smoother.cpu_s - before))
        dist.append(length(walked))
    total_ms = float(np.mean(query_ms) + np.mean(smooth_ms))
    traverse_s = float(np.mean(dist)) / ECM_LOAD["speed"]
    load = 100.0 * total_ms / (1e3 * traverse_s)
    paper_own = 100.0 * ECM_PAPER["with_smoothing"] / (1e3 * ECM_LOAD["distance"] / ECM_LOAD["speed"])
    data = {"queries": len(query_ms), "query_ms": float(np.mean(query_ms)), "smooth_ms": float(np.mean(smooth_ms)),
            "distance_m": float(np.mean(dist)), "traverse_s": traverse_s, "cpu_load_percent": load,
            "paper_inputs_percent": paper_own, "characters_in_real_time": 30.0 / load if load > 0 else float("inf")}
    fig, ax = plot.figure(7.0, 4.4)
    ax.bar([0, 1], [ECM_LOAD["percent"], load], 0.5, color=[plot.PAPER, plot.PALETTE[1]])
    ax.set_xticks([0, 1], ["paper (Core2 Quad 2.4 GHz)", "ours"])
    ax.set_ylabel("CPU-load of one character (%)")
    ax.set_title(f"ECM section VI: CPU-load of steering one character ({data['queries']} queries)")
    checks = [
        check("the CPU-load was 0.002 % for steering a single character",
              f"(query + smoothing) / traversal at {ECM_LOAD['speed']:g} m/s <= {ECM_LOAD['percent']} %",
              f"{ECM_LOAD['percent']} %", f"{load:.4f} % ({total_ms:.2f} ms over {traverse_s:.0f} s)",
              load <= ECM_LOAD["percent"], OTHER_MACHINE + f"; the smoothing integrates every 0.1 s of the walk "
              f"({data['smooth_ms']:.2f} ms of the {total_ms:.2f} ms)"),
    ]
    md = (f"{data['queries']} random queries on the city (clearance {ECM_CLEARANCE:g} m), each path smoothed by an "
          "IRM character at 2 m/s (section V, core.sim.smooth); CPU-load = (query + smoothing CPU time) / "
          "(traveled distance / 2 m/s) x 100 %. Paper (section VI): \"By having an average traveled distance of "
          "321m, the CPU-load was 0.002% for steering a single character\" (its own inputs, 4.14 ms over 160.5 s, "
          f"give {paper_own:.4f} %).\n\n"
          + md_table(("paper", "ours"), [
              ("query (ms)", "3.56", f"{data['query_ms']:.3f}"),
              ("smoothing (ms)", "0.58", f"{data['smooth_ms']:.3f}"),
              ("traveled distance (m)", "321", f"{data['distance_m']:.0f}"),
              ("CPU-load (%)", "0.002", f"{load:.4f}"),
              ("characters within 30 % of one core", "-", f"{data['characters_in_real_time']:,.0f}"),
          ]))
    return Experiment("ecm_cpu_load", "ECM section VI: CPU-load of steering one character", fig, md, data, checks,
                      Recovery(note="the smoothing walks").add(smoother.sim))
