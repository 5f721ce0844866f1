"""``build_ecm``: scene -> sites -> GVD on the GPU -> traced chains -> exact annotation -> ECM (timed per phase).

The exact backend replaces the GVD, tracing and annotation with Boost.Polygon's segment Voronoi diagram (``exact``).
"""

from __future__ import annotations

import time

import numpy as np

from core.navmesh.build import BuildCancelled
from core.scene.geometry import SceneGeometry
from core.scene.model import Scene
from core.scene.problems import InputError, Problem

from .annotate import annotate_chains, solve_nodes, split_four_way
from .graph import ECM, assemble
from .kernel_views import PixelGrid, real_edges
from .exact import exact_chains
from .gvd import image_shape, render_gvd
from .sites import Sites, build_sites, obstacle_union
from .trace import crack_flags, trace_chains

DEFAULT_RESOLUTION = 2048
# 8192 px took 7 s and 2 GB for a small scene (16384: 25 s and 4.8 GB; 32768 would need about 19 GB).
MAX_RESOLUTION = 8192


def check_resolution(resolution: int) -> int:
    """The resolution as an int, or an InputError naming the allowed range."""
    try:
        r = int(resolution)
    except (TypeError, ValueError):
        raise InputError([Problem("resolution", f"must be a whole number of pixels, got {resolution!r}")]) from None
    if r < 16 or r > MAX_RESOLUTION:
        raise InputError([Problem("resolution", f"must be between 16 and {MAX_RESOLUTION} pixels, got {r}")])
    return r


#: ``build_ecm``'s backends: ``gpu`` renders the GVD with OpenGL, ``exact`` reads the ECM off Boost.Polygon's
#: segment Voronoi diagram on the CPU, ``auto`` is exact unless the rendered GVD is asked for (``resolve_backend``).
BACKENDS = ("auto", "gpu", "exact")


def resolve_backend(backend: str, keep_gvd: bool = False) -> tuple[str, str]:
    """(backend used, why). ``auto`` becomes exact: a map that depends on no graphics driver, and on a machine
    without a GPU faster than OpenGL's software renderer. It becomes gpu where the rendered GVD itself is wanted
    (``keep_gvd``) or pyvoronoi is missing, and exact again where no OpenGL context can be made."""
    if backend not in BACKENDS:
        raise InputError([Problem("backend", f"must be one of {', '.join(BACKENDS)}, got {backend!r}")])
    if backend != "auto":
        return backend, "requested"
    from .exact import exact_available
    from .glcontext import GLUnavailableError, get_context

    if not keep_gvd and exact_available():
        return "exact", "the default: the exact diagram on the CPU"
    why = "the rendered GVD was asked for" if keep_gvd else "pyvoronoi is not installed"
    try:
        get_context()
    except GLUnavailableError as e:
        return "exact", "no OpenGL context (" + "; ".join(e.lines()) + ")"
    return "gpu", why


def _report(progress, fraction: float, stage: str) -> None:
    if progress is not None and progress(fraction, stage) is False:
        raise BuildCancelled(stage)


def build_ecm(scene: Scene, resolution: int = DEFAULT_RESOLUTION, geometry: SceneGeometry | None = None,
              sites: Sites | None = None, keep_gvd: bool = False, max_block: int | None = None,
              progress=None, backend: str = "auto") -> ECM:
    """Build the Explicit Corridor Map of a (validated) scene with a GVD of ``resolution`` pixels on its longer side.

    ``backend`` (``BACKENDS``): ``gpu``, ``exact`` (no OpenGL; ``resolution`` then only sets ``ecm.pixel`` for
    drawing) or ``auto``; ``ecm.stats["backend"]`` and ``["backend_reason"]`` say which was used and why.

    ``timings`` of the result hold seconds for: ``sites`` (convex decomposition), ``cull``, ``resolve`` (tiles
    labelled on the CPU), ``render``,
    ``readback``, ``tracing``, ``annotation`` (exact vertices, events, graph) and ``total``. ``keep_gvd`` keeps
    the rendered id/distance buffers on the result (``ecm.gvd``) for drawing. ``progress(fraction, stage)`` is
    called between phases; returning False cancels the build (``core.navmesh.BuildCancelled``). Raises
    ``glcontext.GLUnavailableError`` (an InputError) where no OpenGL context can be created.
    """
    resolution = check_resolution(resolution)
    used, why = resolve_backend(backend, keep_gvd)
    t_all = time.perf_counter()
    _report(progress, 0.0, "sites")
    t = time.perf_counter()
    if sites is None:
        sites = build_sites(geometry.obstacles if geometry is not None else obstacle_union(scene), scene.bounds)
    t_sites = time.perf_counter() - t
    if used == "exact":
        ecm = _build_exact(sites, resolution, progress)
        ecm.timings.update({"sites": t_sites, "total": time.perf_counter() - t_all})
        ecm.stats.update({"backend": used, "backend_reason": why})
        _report(progress, 1.0, "done")
        return ecm
    _report(progress, 0.1, "render")
    gvd = render_gvd(sites, resolution, max_block=max_block, with_dist=keep_gvd)
    _report(progress, 0.6, "tracing")
    h = gvd.h
    x0, y0 = float(gvd.origin[0]), float(gvd.origin[1])
    t = time.perf_counter()
    vb, hb, cracks = crack_flags(gvd.labels, real_edges(sites), PixelGrid(int(gvd.shape[1]), int(gvd.shape[0]), h,
                                                                           x0, y0), gvd.tile_labels, gvd.tile)
    node_ij, node_deg, chain_ptr, pts, lab, chain_nodes = trace_chains(gvd.labels, vb, hb, cracks)
    t_trace = time.perf_counter() - t
    _report(progress, 0.8, "annotation")
    t = time.perf_counter()
    node_xy, node_R, node_kind = solve_nodes(node_ij, node_deg, gvd.labels, vb, hb, sites.real_ptr,
                                             sites.real_edge, sites.ring_xy, sites.ring_next, x0, y0, h,
                                             sites.scale)
    (node_ij, node_deg, node_xy, node_R, node_kind, chain_ptr, pts, lab,
     chain_nodes) = split_four_way(node_ij, node_deg, node_xy, node_R, node_kind, gvd.labels, chain_ptr, pts, lab,
                                   chain_nodes, sites, h)
    ev_ptr, ev, ev_f, ok = annotate_chains(chain_ptr, pts, lab, chain_nodes, node_ij, node_deg, node_xy, node_R,
                                           node_kind, sites.real_ptr, sites.real_edge, sites.ring_xy,
                                           sites.ring_next, sites.ring_prev, sites.ring_of, sites.ring_pos,
                                           sites.ring_len, sites.edge_normal, x0, y0, h, sites.scale)
    ecm = assemble(sites, chain_ptr, chain_nodes, node_xy, node_R, node_kind, ev_ptr, ev, ev_f, ok, h, resolution)
    t_annot = time.perf_counter() - t
    timings = {"sites": t_sites, **gvd.timings, "tracing": t_trace, "annotation": t_annot,
               "total": time.perf_counter() - t_all}
    ecm.timings.update(timings)
    ecm.stats.update({"sites": sites.n_sites, "obstacle_vertices": sites.n_obstacle_vertices,
                      "vertices": ecm.n_vertices, "edges": ecm.n_edges, "events": ecm.n_events,
                      "quads": gvd.instances, "quads_culled": gvd.culled, "blocks": gvd.blocks,
                      "width": int(gvd.shape[1]),
                      "height": int(gvd.shape[0]), "nodes_traced": int(len(node_ij)),
                      "crack_pixels": int(len(pts)), "bytes": ecm.nbytes()})
    ecm.stats.update({"backend": used, "backend_reason": why})
    if keep_gvd:
        object.__setattr__(ecm, "gvd", gvd)
    _report(progress, 1.0, "done")
    return ecm


def _build_exact(sites: Sites, resolution: int, progress) -> ECM:
    """The ECM from the exact segment Voronoi diagram (``exact``); timings ``voronoi`` and ``annotation``."""
    _report(progress, 0.1, "voronoi")
    t = time.perf_counter()
    chain_ptr, chain_nodes, node_xy, node_R, node_kind, ev_ptr, ev, ev_f, ok, info = exact_chains(sites)
    _report(progress, 0.8, "annotation")
    height, width, h = image_shape(sites.bounds, resolution)
    ecm = assemble(sites, chain_ptr, chain_nodes, node_xy, node_R, node_kind, ev_ptr, ev, ev_f, ok, h, resolution)
    t_annot = time.perf_counter() - t - info["voronoi_seconds"]
    ecm.timings.update({"voronoi": info["voronoi_seconds"], "annotation": t_annot})
    ecm.stats.update({"sites": sites.n_sites, "obstacle_vertices": sites.n_obstacle_vertices,
                      "vertices": ecm.n_vertices, "edges": ecm.n_edges, "events": ecm.n_events, "width": width,
                      "height": height, "bytes": ecm.nbytes()})
    ecm.stats.update({k: v for k, v in info.items() if k != "voronoi_seconds"})
    return ecm


def event_rows(ecm: ECM) -> np.ndarray:
    """(n,) int64 edge index of every event row."""
    return np.repeat(np.arange(ecm.n_edges), np.diff(ecm.edge_ptr))
