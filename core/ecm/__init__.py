"""The Explicit Corridor Map (Geraerts 2010): a GPU-rendered Generalized Voronoi Diagram annotated exactly.

Build once per scene, query many times::

    from core.ecm import build_ecm, shortest_path
    ecm = build_ecm(scene, resolution=2048)              # backend="auto": exact; gpu to render the GVD
                                                         # progress=(fraction, stage) -> False cancels
    pts, length, ok = shortest_path(ecm, (5, 5), (195, 190), clearance=0.5)

Build (``build.build_ecm``, timed per phase in ``ecm.timings``):

1. ``sites``: the obstacle union's rings, cut into convex pieces (triangle + Hertel-Mehlhorn), and the four walls.
2. ``gvd``: every site drawn over the screen tiles it may own (``cull``, coarse blocks then tiles); a fragment
   shader computes the exact distance to the site, the depth test keeps the nearest (ECM II-A, after Hoff et al.).
   Tiles one site settles are filled without drawing; the rest are drawn into a compact atlas and read back.
3. ``trace``: Voronoi edges are the chains of cracks between pixels of different sites; nodes where three or more
   chains meet are the Voronoi vertices (ECM II-B).
4. ``annotate``: vertices, event points and closest points computed exactly from the obstacles' geometry: event
   points where the Voronoi edge crosses the normal half-lines of obstacle vertices, plus each piece's clearance
   minimum; ``graph.assemble`` gives the flat arrays of ``graph.ECM``.

Backends (``build_ecm(backend=)``): ``gpu`` (steps 2-4 below), ``exact`` (``exact``: the same map read off
Boost.Polygon's segment Voronoi diagram on the CPU, through pyvoronoi; no OpenGL), ``auto`` (exact, or gpu where the
rendered GVD is kept, ``keep_gvd``, and an OpenGL context can be made; ``ecm.stats["backend"]`` says which).

Local updates (``update.local_update(ecm, scene, changed) -> ECM | None``): the map of ``scene`` after obstacles
were inserted, deleted or moved (``changed``: their shapely polygons, old and new places), recomputing only the
edges whose corridors the change reaches from Boost.Polygon's diagram of the ring edges around them (after van Toll,
Cook and Geraerts 2012); the sites' touched components are derived afresh (``site_update``). None where its checks
fail, for a fresh build. A simulation's world changes update the map its planners' context holds this way.

Queries (``path``; numba kernels over ``ECM.arrays``, an ``arrays.EcmArrays`` gathered once per map):

- ``shortest_path(ecm, start, goal, clearance=0.0, search="funnel") -> (points (n, 2), length, ok)``: retraction
  of both ends onto the medial axis (IRM 3.2), the graph search (``search``: the funnel-guided A* of
  ``search.corridor_search``, or ``"medial"``: the paper's A* on medial-axis length), the explicit corridor
  (ECM II-C), shrinking by the clearance (ECM III, arcs approximated from outside: ``funnel.ARC_STEP``), the
  corridor's triangle strip and the funnel algorithm (ECM IV). ``ok`` is False (points empty) when an end lies in
  an obstacle or closer than ``clearance`` to one, or no corridor of that clearance joins them.
- ``shortest_path_status(...) -> (points, length, status)`` with ``OK``, ``START_BLOCKED``, ``GOAL_BLOCKED``,
  ``NO_CORRIDOR``.
- ``query_batch(ecm, starts (n, 2), goals (n, 2), clearance (scalar or (n,)), search, threads=1) -> PathBatch``:
  many queries in one nogil kernel call (per thread block), with one set of work buffers; each answer is bit for bit
  the single query's; ``shortest_paths`` returns its arrays as a tuple.
- ``corridor(ecm, start, goal, clearance) -> Corridor``: the disks (B_i, R_i, l_i, r_i), the shrunk boundaries
  (portals) and the path, for display.
- ``retract_point(ecm, p) -> (S (2,), R, edge)``: the retraction of one point.

Overlays for the app (``debug``): ``medial_axis`` (polylines with clearance), ``medial_axis_segments``,
``closest_point_segments``, ``event_points``; a corridor's ``left``/``right`` boundaries come with ``Corridor``.

Files: ``ecmfile.ecm_to_dict`` (the ``miran ecm --out`` JSON), ``picture.ecm_picture`` and ``picture.write_png``
(``--png``).

Accuracy: every stored number is exact up to floating point (vertices solved from their sites, events in closed
form). What the pixels decide is topology: two obstacles closer than about a pixel may lose the edge between them
(the edge's two ends are then kept as ``NODE_OPEN`` vertices), and Voronoi vertices closer than a pixel to each
other may merge.
"""

from .annotate import NODE_INEXACT, NODE_OPEN, NODE_TOUCH, NODE_VERTEX
from .build import DEFAULT_RESOLUTION, build_ecm
from .debug import closest_point_segments, event_points, medial_axis, medial_axis_segments
from .glcontext import GLUnavailableError
from .graph import ECM
from .path import (
    GOAL_BLOCKED,
    NO_CORRIDOR,
    OK,
    START_BLOCKED,
    Corridor,
    PathBatch,
    corridor,
    plan,
    query_batch,
    retract_point,
    shortest_path,
    shortest_path_status,
    shortest_paths,
)

__all__ = [
    "Corridor", "DEFAULT_RESOLUTION", "ECM", "GLUnavailableError", "GOAL_BLOCKED", "NODE_INEXACT", "NODE_OPEN",
    "NODE_TOUCH", "NODE_VERTEX", "NO_CORRIDOR", "OK", "PathBatch", "START_BLOCKED", "build_ecm",
    "closest_point_segments", "corridor", "event_points", "medial_axis", "medial_axis_segments", "plan",
    "query_batch", "retract_point", "shortest_path", "shortest_path_status", "shortest_paths",
]
