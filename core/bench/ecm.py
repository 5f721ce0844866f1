"""Benchmark section ``ecm``: building the Explicit Corridor Map of the city and querying it (ECM section VI).

Build, GPU backend: the city at 1024, 2048 and 4096 pixels (``--quick``: 512 and 1024), per phase (sites, cull, resolve,
render, readback, tracing, annotation), wall time (the GPU or llvmpipe's threads work outside the calling thread),
the median of three builds after one warm-up build, and the process's CPU time; creating the OpenGL context and the
first builds (numba's cache load or compilation) are reported apart. Beside them: the paper's 0.60 s (4,000 x 4,000
pixels, GeForce 8800 GTX), and, as the render's baseline in the same run, the GVD with every tile shaded and the
distance image read back (the render before the culling's settled tiles were filled).

Build, exact backend: the same map from Boost.Polygon's segment Voronoi diagram (pyvoronoi) on the CPU, median of
seven, beside the GPU build at 2048 px of the same run.

Queries: random pairs in the free space at least 1 m from obstacles; corridor + shrink (1 m, as the paper) +
funnel, CPU time of the calling thread per query (median, and mean), and the three parts apart; path length over
the exact shortest path (visibility graph on the navigation mesh, ``core.routes.reference``) at clearance 0, for the
funnel-guided search (default) and the paper's A* on medial-axis length.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from core.scene.io import load_scene

from .record import Record

SECTION = "ecm"
CITY = Path(__file__).resolve().parents[2] / "scenes" / "city.json"
PAPER_BUILD = "ECM 2010: 0.60 s at 4000x4000 px (GeForce 8800 GTX)"
PAPER_QUERY = "ECM 2010: 3.56 ms (corridor 1.19 + shrink 0.54 + triangulation and path 1.83; Core2 2.4 GHz)"
PHASES = ("sites", "cull", "resolve", "render", "readback", "tracing", "annotation", "total")


def _rec(name: str, value: float, unit: str, reference: str = "") -> Record:
    return Record(SECTION, name, float(value), unit, reference)


def _pairs(geometry, n: int, clearance: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    import shapely

    rng = np.random.default_rng(seed)
    x0, y0, x1, y1 = geometry.box.bounds
    walls = geometry.box.boundary
    out = np.zeros((0, 2))
    while len(out) < 2 * n:
        p = rng.uniform([x0, y0], [x1, y1], size=(4 * n, 2))
        pts = shapely.points(p)
        ok = shapely.contains(geometry.free, pts) & (shapely.distance(pts, walls) >= clearance)
        if not geometry.obstacles.is_empty:
            ok &= shapely.distance(pts, geometry.obstacles) >= clearance
        out = np.vstack([out, p[ok]])
    out = out[: 2 * n]
    return out[0::2].copy(), out[1::2].copy()


def _median_build(scene, geometry, sites, res: int, repeat: int, backend: str):
    """``repeat`` builds after a warm-up: (median timings per phase (wall), median process CPU seconds, last ECM);
    ``sites`` None builds them each time (the ``sites`` phase counts)."""
    from core.ecm.build import build_ecm

    build_ecm(scene, res, geometry=geometry, sites=sites, backend=backend)
    runs = []
    cpu = []
    for _ in range(repeat):
        t0 = time.process_time()
        runs.append(build_ecm(scene, res, geometry=geometry, sites=sites, backend=backend))
        cpu.append(time.process_time() - t0)
    phases = {ph: float(np.median([r.timings[ph] for r in runs])) for ph in runs[0].timings}
    return phases, float(np.median(cpu)), runs[-1]


def _render_cpu(sites, res: int, repeat: int) -> tuple[float, float]:
    """Median process CPU seconds of the GVD as the build renders it (settled tiles filled, labels only) and with
    every tile shaded and the distance image read back too (the render before the fill): (build's, baseline)."""
    from core.ecm.gvd import render_gvd

    out = []
    for with_dist in (False, True):
        render_gvd(sites, res, with_dist=with_dist)
        cpu = []
        for _ in range(repeat):
            t0 = time.process_time()
            render_gvd(sites, res, with_dist=with_dist)
            cpu.append(time.process_time() - t0)
        out.append(float(np.median(cpu)))
    return out[0], out[1]


def _gpu_build_records(scene, geometry, sites, quick: bool):
    """GPU backend on the city per resolution: phases, CPU, the full-shading baseline; returns (records, ECM)."""
    records: list[Record] = []
    ecm = None
    resolutions = (512, 1024) if quick else (1024, 2048, 4096)
    repeat = 1 if quick else 3
    for res in resolutions:
        phases, cpu, last = _median_build(scene, geometry, None, res, repeat, "gpu")
        for ph in PHASES:
            ref = f"wall time, median of {repeat}"
            if ph == "total":
                ref = PAPER_BUILD + ("; must show <= 0.6 s on llvmpipe" if res == 4096 else "")
            records.append(_rec(f"city build {res} px: {ph}", phases[ph], "s", ref))
        records.append(_rec(f"city build {res} px: process CPU", cpu, "s",
                            "all threads of this process (llvmpipe's rasteriser threads included), median"))
        done, full = _render_cpu(sites, res, repeat)
        records.append(_rec(f"city build {res} px: GVD render, process CPU", done, "s",
                            f"cull + render + readback as the build draws it ({last.stats['quads']} quads), median"))
        records.append(_rec(f"city build {res} px: GVD render, every tile shaded (baseline), process CPU", full, "s",
                            f"same run: the build's render takes {done / max(full, 1e-9):.2f} of it"))
        st = last.stats
        records.append(_rec(f"city build {res} px: quads drawn", st["quads"], "count",
                            f"of {st['quads_culled']} (tile, site) quads the culling left: the other tiles' pixels "
                            "were labelled on the CPU, where the GPU's answer is certain"))
        records.append(_rec(f"city build {res} px: vertices / edges / events", st["vertices"], "count",
                            f"{st['edges']} edges, {st['events']} event points, {st['bytes']} bytes; paper's city: "
                            "1439 vertices, 1618 edges, 6322 events"))
        if res == 2048 or ecm is None:
            ecm = last
    return records, ecm


def _exact_build_records(scene, geometry, sites, gpu_ecm, quick: bool) -> list[Record]:
    """Exact backend (Boost.Polygon segment Voronoi diagram) on the city, beside the GPU build of the same run."""
    from core.ecm.exact import ExactUnavailableError

    repeat = 3 if quick else 7
    try:
        phases, cpu, ecm = _median_build(scene, geometry, None, gpu_ecm.resolution, repeat, "exact")
    except ExactUnavailableError as e:
        return [_rec("exact backend build", 0, "missing", "; ".join(e.lines()))]
    gpu_total = gpu_ecm.timings["total"]
    same = (ecm.n_vertices, ecm.n_edges, ecm.n_events) == (gpu_ecm.n_vertices, gpu_ecm.n_edges, gpu_ecm.n_events)
    out = [_rec(f"exact backend build: {ph}", phases[ph], "s", f"wall time, median of {repeat}")
           for ph in ("sites", "voronoi", "annotation")]
    out.append(_rec("exact backend build: total", phases["total"], "s",
                    f"must show <= 0.1 s; the GPU build at {gpu_ecm.resolution} px in this run: {gpu_total:.3f} s"))
    out.append(_rec("exact backend build: process CPU", cpu, "s", "median (no OpenGL; one thread)"))
    out.append(_rec("exact backend: vertices / edges / events", ecm.n_vertices, "count",
                    f"{ecm.n_edges} edges, {ecm.n_events} events; "
                    + ("the same counts as the GPU map" if same else
                       f"GPU map: {gpu_ecm.n_vertices} / {gpu_ecm.n_edges} / {gpu_ecm.n_events}")))
    return out


def run(quick: bool = False) -> list[Record]:
    """Build times per phase and resolution (GPU and exact backends), query times and path length excess."""
    from core.ecm import glcontext
    from core.ecm.build import build_ecm
    from core.ecm.glcontext import GLUnavailableError
    from core.ecm.sites import build_sites
    from core.scene.geometry import build_geometry

    scene = load_scene(CITY)
    geometry = build_geometry(scene)
    sites = build_sites(geometry, scene.bounds)
    records: list[Record] = []
    try:
        t0 = time.perf_counter()
        glcontext.get_context()
        ctx_s = time.perf_counter() - t0
    except GLUnavailableError as e:
        return [_rec("build: no OpenGL context", 0, "missing", "; ".join(e.lines()))]
    records.append(_rec("OpenGL context creation (once per process)", ctx_s, "s",
                        f"renderer {glcontext.renderer()}; excluded from build times"))
    t0 = time.perf_counter()
    build_ecm(scene, 256, geometry=geometry, backend="gpu")
    build_ecm(scene, 256, geometry=geometry, backend="exact")
    records.append(_rec("first builds at 256 px, gpu and exact (numba cache load or JIT)", time.perf_counter() - t0,
                        "s", "excluded from the steady-state build times"))
    gpu_records, ecm = _gpu_build_records(scene, geometry, sites, quick)
    records.extend(gpu_records)
    records.extend(_exact_build_records(scene, geometry, sites, ecm, quick))
    records.extend(_queries(scene, geometry, ecm, 100 if quick else 1000, 50 if quick else 1000))
    return records


def _queries(scene, geometry, ecm, n_time: int, n_length: int) -> list[Record]:
    from core.ecm.corridor import explicit_corridor
    from core.ecm.funnel import ARC_STEP, corridor_path, portals
    from core.ecm.path import OK, path_kernel, plan, shortest_paths

    out: list[Record] = []
    args = ecm.arrays
    S, G = _pairs(geometry, n_time, 1.0, 2010)
    shortest_paths(ecm, S[:2], G[:2], 1.0)
    for medial in (False, True):
        # The single-query kernel's first call (cache load or compilation) stays out of the timed calls.
        path_kernel(args, S[0, 0], S[0, 1], G[0, 0], G[0, 1], 1.0, ARC_STEP, medial)
    for search, medial in (("funnel", False), ("medial", True)):
        times = []
        lengths = []
        for q in range(n_time):
            t0 = time.thread_time()
            pts, length, status = path_kernel(args, S[q, 0], S[q, 1], G[q, 0], G[q, 1], 1.0, ARC_STEP, medial)
            times.append(time.thread_time() - t0)
            if status == OK:
                lengths.append(length)
        ms = 1e3 * np.array(times)
        tag = "funnel-guided A*" if not medial else "paper's A* on the medial axis"
        out.append(_rec(f"query ({search} search), clearance 1 m: median", float(np.median(ms)), "ms",
                        PAPER_QUERY + "; must show < 1 ms, target 0.1 ms" if not medial else PAPER_QUERY))
        out.append(_rec(f"query ({search} search), clearance 1 m: mean", float(np.mean(ms)), "ms",
                        f"{tag}; {len(lengths)} of {n_time} pairs joined; mean length {np.mean(lengths):.0f} m "
                        "(paper 321 m)"))
    out.extend(_batch_records(ecm, S, G))
    # The parts: retraction + search, corridor + shrink (portals), funnel.
    parts: dict[str, list[float]] = {"retraction + graph search": [], "explicit corridor + shrink": [],
                                     "strip + funnel": []}
    s = ecm.sites
    for q in range(n_time):
        t0 = time.thread_time()
        res = plan(ecm, S[q], G[q], 1.0)
        t1 = time.thread_time()
        if res.status != OK:
            continue
        cB, cR, cl, cr, cf = explicit_corridor(args, res)
        P = portals(cB, cR, cl, cr, cf, 1.0, s.ring_xy, s.ring_next, s.edge_normal, ARC_STEP)
        t2 = time.thread_time()
        corridor_path(P, S[q, 0], S[q, 1], G[q, 0], G[q, 1], 1e-9 * s.scale)
        t3 = time.thread_time()
        parts["retraction + graph search"].append(t1 - t0)
        parts["explicit corridor + shrink"].append(t2 - t1)
        parts["strip + funnel"].append(t3 - t2)
    for name, v in parts.items():
        out.append(_rec(f"query part: {name}, median", 1e3 * float(np.median(v)), "ms",
                        "separate kernel calls (each with its own call overhead)"))
    # Length against the exact shortest path (clearance 0).
    from core.routes import PlannerContext
    from core.routes.reference import VisibilityGraph

    ctx = PlannerContext(scene, geometry=geometry)
    t0 = time.perf_counter()
    vg = VisibilityGraph(ctx)
    vg_s = time.perf_counter() - t0
    S2, G2 = _pairs(geometry, n_length, 0.25, 1968)
    exact = np.array([vg.shortest(S2[q], G2[q])[1] for q in range(n_length)])
    for search in ("funnel", "medial"):
        pts, offs, lengths, ok = shortest_paths(ecm, S2, G2, 0.0, search=search)
        sel = ok & np.isfinite(exact) & (exact > 0)
        excess = lengths[sel] / exact[sel] - 1.0
        ref = "a crowd simulator's navmesh router: +1.6 %"
        if search == "funnel":
            ref += "; must show mean < 1 %"
        out.append(_rec(f"length over exact ({search} search): mean", 100 * float(np.mean(excess)), "%",
                        f"{int(sel.sum())} pairs, clearance 0; {ref}"))
        out.append(_rec(f"length over exact ({search} search): max", 100 * float(np.max(excess)), "%",
                        f"{int(np.sum(excess > 0.01))} of {int(sel.sum())} pairs above 1 %"))
        out.append(_rec(f"length over exact ({search} search): shorter than exact", int(np.sum(excess < -1e-9)),
                        "count", "must be 0 (a path shorter than the exact shortest path would be invalid)"))
    out.append(_rec("exact reference: visibility graph build", vg_s, "s", f"{len(vg.corners)} reflex corners"))
    return out


def _batch_records(ecm, S: np.ndarray, G: np.ndarray) -> list[Record]:
    """Per-query time of the batch query (``core.ecm.query_batch``: one nogil kernel call for all pairs, its work
    buffers and cache of arc portals made in that call, so amortised over the batch) against single queries from
    Python on the same pairs in the same run (CPU time of the calling thread, best of three rounds), and the batch on
    two threads (wall time); the issue's target is 0.03 ms per query."""
    from core.ecm.path import query_batch, shortest_path_status

    n = len(S)
    single, batch, threaded = np.inf, np.inf, np.inf
    for _ in range(3):
        t0 = time.thread_time()
        answers = [shortest_path_status(ecm, S[q], G[q], 1.0) for q in range(n)]
        single = min(single, (time.thread_time() - t0) / n)
        t0 = time.thread_time()
        b = query_batch(ecm, S, G, 1.0)
        batch = min(batch, (time.thread_time() - t0) / n)
        t0 = time.perf_counter()
        query_batch(ecm, S, G, 1.0, threads=2)
        threaded = min(threaded, (time.perf_counter() - t0) / n)
    pairs = f"{n} pairs, clearance 1 m, funnel search; target 0.03 ms per query"
    ref = ("batches of " + pairs + "; the batch's own set-up (work buffers, cache of arc portals) included in its "
           "time, amortised over its queries")
    same = sum(int(b.status[q]) == st and b.path(q).tobytes() == pts.tobytes()
               and b.lengths[q].tobytes() == np.float64(length).tobytes()
               for q, (pts, length, st) in enumerate(answers))
    return [_rec("batch answers equal to the single queries (status, points and length to the bit)", same, "count",
                 f"of {n}; must be all"),
            _rec("query, one call per pair (shortest_path_status): per query", 1e3 * single, "ms",
                 "CPU time, best of 3 rounds; the same " + pairs),
            _rec("batch query (query_batch, one kernel call): per query", 1e3 * batch, "ms",
                 f"CPU time, best of 3 rounds, {single / batch:.2f}x the single calls; " + ref),
            _rec("batch query on 2 threads: per query", 1e3 * threaded, "ms",
                 f"wall time, best of 3 rounds, {batch / threaded:.2f}x one thread's CPU time; " + ref)]
