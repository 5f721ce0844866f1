"""Benchmark section ``navmesh``: mesh size and build time per shipped scene, query costs on the city.

Query figures are steady-state CPU microseconds per query over thousands of random inputs, timed around the numba
batch kernels (no Python per query); the first call of each kernel (numba cache load or compilation) is reported
apart. The city is ``scenes/city.json`` (the largest shipped scene if it is missing).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np

from .record import Record
from .timing import first_call, median_time, per_item

SECTION = "navmesh"
SCENES_DIR = Path(__file__).resolve().parents[2] / "scenes"
# MIRAN's steering step: candidates within sigma = 40 m of route, agents at 10 Hz (MIRAN 2013, Table 1 setups).
SIGMA = 40.0
AGENTS, CANDIDATES, RATE_HZ = 10_000, 10, 10


def _rec(name: str, value, unit: str, reference: str = "") -> Record:
    return Record(SECTION, name, value, unit, reference)


def _scenes():
    from core.scene.io import load_scene

    return [(p.stem, load_scene(p)) for p in sorted(SCENES_DIR.glob("*.json"))
            if not p.name.endswith(".sweep.json")]


def run(quick: bool) -> list[Record]:
    """Mesh size and build time per shipped scene, then per-query costs on the city."""
    from core.navmesh import build
    from core.navmesh.kernels import grids
    from core.scene.geometry import build_geometry

    out: list[Record] = []
    scenes = _scenes()
    if not scenes:
        return [_rec("shipped scenes", 0, "scenes", f"none found in {SCENES_DIR}")]
    geoms = {name: build_geometry(scene) for name, scene in scenes}
    # The first build loads (or compiles) the build kernels: reported apart.
    name0, scene0 = scenes[0]
    t, origin = first_call(grids.seed_cells, lambda: build.build_navmesh(scene0, geoms[name0]))
    out.append(_rec("jit first build_navmesh", t, "s", f"{name0}; kernels from {origin}"))
    meshes = {}
    for name, scene in scenes:
        g = geoms[name]
        meshes[name] = build.build_navmesh(scene, g)
        m = meshes[name]
        tb = median_time(partial(build.build_navmesh, scene, g), 1 if quick else 5)
        tg = median_time(partial(build_geometry, scene), 1 if quick else 3)
        out.append(_rec(f"triangles {name}", int(m.n_triangles), "triangles",
                        f"{m.xtriangles.shape[0]} with obstacle interiors, {len(m.vertices)} vertices"))
        out.append(_rec(f"build {name}", 1e3 * tb, "ms",
                        f"CPU, navmesh from geometry; build_geometry itself {1e3 * tg:.1f} ms"))
    city = "city" if "city" in meshes else max(meshes, key=lambda k: meshes[k].n_triangles)
    out += _queries(city, dict(scenes)[city], meshes[city], quick)
    return out


def _random_segments(rng, bounds, n: int, length: float) -> tuple[np.ndarray, np.ndarray]:
    """n segments of the given length with both ends in the bounds."""
    x0, y0, x1, y1 = bounds
    p = np.empty((0, 2))
    q = np.empty((0, 2))
    while len(p) < n:
        a = np.column_stack([rng.uniform(x0, x1, 2 * n), rng.uniform(y0, y1, 2 * n)])
        ang = rng.uniform(0, 2 * np.pi, 2 * n)
        b = a + length * np.column_stack([np.cos(ang), np.sin(ang)])
        ok = (b[:, 0] >= x0) & (b[:, 0] <= x1) & (b[:, 1] >= y0) & (b[:, 1] <= y1)
        p = np.concatenate([p, a[ok]])
        q = np.concatenate([q, b[ok]])
    return np.ascontiguousarray(p[:n]), np.ascontiguousarray(q[:n])


def _free_points(rng, mesh, n: int) -> np.ndarray:
    from core.navmesh import locate

    x0, y0, x1, y1 = mesh.bounds
    pts = np.empty((0, 2))
    while len(pts) < n:
        c = np.column_stack([rng.uniform(x0, x1, 2 * n), rng.uniform(y0, y1, 2 * n)])
        pts = np.concatenate([pts, c[locate(mesh, c) >= 0]])
    return np.ascontiguousarray(pts[:n])


def _route_windows(rng, scene, mesh, n: int):
    """Packed routes (the scene's, or random ones) and n queries near them: x, route index, [s0, s0 + sigma]."""
    from core.navmesh import locate

    routes = [np.asarray(r.points, dtype=np.float64) for r in scene.routes if len(r.points) >= 2]
    x0, y0, x1, y1 = mesh.bounds
    if not routes:
        routes = [np.column_stack([rng.uniform(x0, x1, 12), rng.uniform(y0, y1, 12)]) for _ in range(8)]
    arcs = [np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(r, axis=0).T))]) for r in routes]
    rp = np.ascontiguousarray(np.concatenate(routes))
    rs = np.ascontiguousarray(np.concatenate(arcs))
    offsets = np.concatenate([[0], np.cumsum([len(r) for r in routes])]).astype(np.int64)
    xs: list[np.ndarray] = []
    which: list[int] = []
    s0: list[float] = []
    while len(xs) < n:
        r = int(rng.integers(len(routes)))
        s = rng.uniform(0, arcs[r][-1])
        p = np.array([np.interp(s, arcs[r], routes[r][:, 0]), np.interp(s, arcs[r], routes[r][:, 1])])
        x = p + rng.normal(0, 3.0, 2)
        if x0 <= x[0] <= x1 and y0 <= x[1] <= y1 and locate(mesh, x)[0] >= 0:
            xs.append(x)
            which.append(r)
            s0.append(s)
    s0a = np.array(s0)
    return rp, rs, offsets, np.array(xs), np.array(which, dtype=np.int64), s0a, s0a + SIGMA


def _queries(city: str, scene, mesh, quick: bool) -> list[Record]:
    from core.navmesh.kernels import clearance as kc
    from core.navmesh.kernels import disc as kd
    from core.navmesh.kernels import segments as ks
    from core.navmesh.kernels import shadows as ksh
    from core.navmesh.kernels import walk as kw

    rng = np.random.default_rng(2024)
    n = 2000 if quick else 20000
    repeat = 3 if quick else 5
    walk, edges = mesh.arrays
    w = np.ascontiguousarray(scene.weight_matrix()[0] if scene.profiles else np.ones(mesh.n_terrain_types))
    x0, y0, x1, y1 = mesh.bounds
    pts = np.ascontiguousarray(np.column_stack([rng.uniform(x0, x1, n), rng.uniform(y0, y1, n)]))
    p50, q50 = _random_segments(rng, mesh.bounds, n, 50.0)
    p10, q10 = _random_segments(rng, mesh.bounds, n, 10.0)
    nfan = max(n // CANDIDATES, 1)
    fan_x = _free_points(rng, mesh, nfan)
    fan_c = fan_x[:, None, :] + rng.uniform(-SIGMA, SIGMA, (nfan, CANDIDATES, 2))
    fan_c = np.ascontiguousarray(np.clip(fan_c, [x0, y0], [x1, y1]))
    nvis = max(n // 10, 50)
    rp, rs, offsets, vx, vr, s0, s1 = _route_windows(rng, scene, mesh, nvis)

    loc = np.empty(n, dtype=np.int32)
    vis = np.empty(n, dtype=np.bool_)
    lengths = np.zeros((n, mesh.n_terrain_types))
    cost = np.empty(n)
    dist = np.empty(n)
    near = np.empty((n, 2))
    fvis = np.empty((nfan, CANDIDATES), dtype=np.bool_)
    fcost = np.empty((nfan, CANDIDATES))
    iv = np.empty((nvis, 16, 2))
    counts = np.empty(nvis, dtype=np.int64)

    cases = [
        ("locate", kw.locate_batch, lambda: kw.locate_batch(walk, pts, loc), n, "point location",
         "random points in the bounds"),
        ("segment walk 50 m (visibility)", ks.visible_batch, lambda: ks.visible_batch(walk, p50, q50, vis), n,
         "50 m segment", "target: a few us (10,000 agents x 10 candidates x 10 Hz)"),
        ("terrain lengths 50 m", ks.terrain_lengths_batch,
         lambda: ks.terrain_lengths_batch(walk, p50, q50, lengths), n, "50 m segment", "l^T per terrain type"),
        ("weighted cost 50 m", ks.cost_batch, lambda: ks.cost_batch(walk, p50, q50, w, cost), n, "50 m segment",
         "sum w(T) l^T (MIRAN 3.3)"),
        ("visible intervals sigma 40 m window", ksh.visible_intervals_batch,
         lambda: ksh.visible_intervals_batch(mesh.arrays, vx, rp, rs, offsets, vr, s0, s1, iv, counts, False),
         nvis, "query", "MIRAN 3.2, x within ~3 m of the route; obstacle edges' shadows"),
        ("visible intervals sigma 40 m window, triangle expansion", ksh.visible_intervals_batch,
         lambda: ksh.visible_intervals_batch(mesh.arrays, vx, rp, rs, offsets, vr, s0, s1, iv, counts, True),
         nvis, "query", "the exact expansion alone, which the shadows defer to in degenerate cases"),
        ("disc cost r 0.25 m, 10 m", kd.disc_cost_batch,
         lambda: kd.disc_cost_batch(walk, p10, q10, 0.25, w, cost), n, "10 m segment",
         "Kremyzas ch. 3, max-weight rule"),
        ("clearance", kc.clearance_batch, lambda: kc.clearance_batch(edges, pts, dist, near), n, "point",
         "nearest obstacle edge"),
    ]
    cases.append((f"fan of {CANDIDATES} candidates within {SIGMA:g} m", ks.fan_costs_batch,
                  lambda: ks.fan_costs_batch(mesh.arrays, fan_x, fan_c, w, fvis, fcost), nfan * CANDIDATES, "candidate",
                  "visibility + weighted cost in one walk, one location per agent"))
    out: list[Record] = []
    # First calls (JIT) of every kernel before any steady-state timing.
    for label, disp, fn, count, _, _ in cases:
        t, origin = first_call(disp, fn)
        out.append(_rec(f"jit first call {label}", t, "s", origin))
    per = {}
    for label, disp, fn, count, item, ref in cases:
        per[label] = 1e6 * per_item(fn, count, repeat)
        out.append(_rec(f"{label} ({city})", per[label], "us", f"per {item}, {count} inputs; {ref}"))
    fan_us = per[cases[-1][0]]
    load = fan_us * 1e-6 * AGENTS * CANDIDATES * RATE_HZ
    out.append(_rec(f"cpu_load {AGENTS} agents x {CANDIDATES} candidates x {RATE_HZ} Hz ({city})", load,
                    "fraction", "of one core, candidate walks only; real time = 0.30 (IRM 2009, section 6)"))
    return out
