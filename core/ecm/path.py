"""Shortest minimum-clearance paths on the ECM: retraction, A*, explicit corridor, shrinking, funnel (one kernel).

``shortest_path(ecm, start, goal, clearance)`` is the query of ECM section VI ("querying the map, computing the
Explicit Corridor, shrinking the corridor, building a triangulation and computing the shortest path"), run as a
single numba call. ``query_batch`` answers many queries in one call (one set of work buffers, ``arrays.QueryWork``),
each exactly as alone. ``corridor(ecm, start, goal, clearance)`` returns the intermediate structures for display.
The kernels take the map as one ``arrays.EcmArrays`` (``ECM.arrays``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from core.jitcache import jit

from core.kernels.buffers import reserve

from .arrays import Plan, query_work, reset_work
from .astar import astar
from .corridor import corridor_disks, explicit_corridor
from .funnel import ARC_STEP, cached_portals, corridor_path, portals
from .graph import ECM
from .portal_cache import arc_cache
from .retract import edge_of_event, retract, retract_end
from .search import corridor_search

# Why a query failed (``status``).
OK = 0
START_BLOCKED = 1   # the start is not in the free space, or closer than the clearance to an obstacle
GOAL_BLOCKED = 2
NO_CORRIDOR = 3     # no corridor with that clearance connects them


@jit(shared=True)
def _plan(ecm, work, sx, sy, tx, ty, clearance, medial):
    """Retract both ends and search the graph: an ``arrays.Plan``. ``medial`` selects the paper's A* on medial-axis
    length instead of the funnel-guided search; ``work`` is ``arrays.query_work(ecm)``, reused between queries."""
    scale = np.hypot(ecm.bounds[2] - ecm.bounds[0], ecm.bounds[3] - ecm.bounds[1])
    empty = np.zeros(0, dtype=np.int64)
    start, ds = retract_end(sx, sy, ecm, scale)
    if start.i < 0 or ds < clearance:
        return Plan(START_BLOCKED, start, start, empty, empty)
    goal, dg = retract_end(tx, ty, ecm, scale)
    if goal.i < 0 or dg < clearance:
        return Plan(GOAL_BLOCKED, start, goal, empty, empty)
    reset_work(work, not medial)
    if medial:
        nodes, edges, found = astar(ecm, work, start, goal, clearance)
    else:
        nodes, edges, found = corridor_search(ecm, work, start, goal, sx, sy, tx, ty, clearance, 1e-9 * scale)
    if not found:
        return Plan(NO_CORRIDOR, start, goal, empty, empty)
    return Plan(OK, start, goal, nodes, edges)


@jit(shared=True)
def _query(ecm, work, sx, sy, tx, ty, clearance, step, medial, cache):
    """The whole query: (points (p, 2), length, status); ``cache`` (``portal_cache.ArcCache``) keeps the arc portals
    of the corridor's pieces for the next queries of a batch."""
    plan = _plan(ecm, work, sx, sy, tx, ty, clearance, medial)
    if plan.status != OK:
        return np.zeros((0, 2)), 0.0, plan.status
    d, n = corridor_disks(ecm, plan)
    P = cached_portals(d.B[:n], d.R[:n], d.l[:n], d.r[:n], d.f[:n], d.p[:n], clearance, ecm.xy, ecm.ring_next,
                       ecm.normal, step, cache)
    scale = np.hypot(ecm.bounds[2] - ecm.bounds[0], ecm.bounds[3] - ecm.bounds[1])
    pts, length = corridor_path(P, sx, sy, tx, ty, 1e-9 * scale)
    return pts, length, OK


@jit
def path_kernel(ecm, sx, sy, tx, ty, clearance, step, medial):
    """One query with its own work buffers: (points (p, 2), length, status)."""
    return _query(ecm, query_work(ecm), sx, sy, tx, ty, clearance, step, medial, arc_cache(0, 0))


@jit
def paths_kernel(ecm, starts, goals, clearances, step, medial):
    """Many queries in one call, one set of work buffers and one cache of arc portals (rows for up to 64 per query,
    at most 8 per event point), query q at ``clearances[q]``: (points (P, 2), offsets (n + 1,), lengths (n,),
    status (n,))."""
    n = starts.shape[0]
    work = query_work(ecm)
    cache = arc_cache(ecm.ev_R.shape[0], min(64 * n + 64, 8 * ecm.ev_R.shape[0] + 64))
    offs = np.zeros(n + 1, dtype=np.int64)
    lengths = np.zeros(n)
    status = np.zeros(n, dtype=np.int64)
    buf = np.empty((64 * n + 16, 2))
    for q in range(n):
        pts, length, st = _query(ecm, work, starts[q, 0], starts[q, 1], goals[q, 0], goals[q, 1], clearances[q],
                                 step, medial, cache)
        buf = reserve(buf, offs[q] + pts.shape[0])
        buf[offs[q]:offs[q] + pts.shape[0]] = pts
        offs[q + 1] = offs[q] + pts.shape[0]
        lengths[q] = length
        status[q] = st
    return buf[: offs[n]].copy(), offs, lengths, status


SEARCHES = ("funnel", "medial")


def _medial(search: str) -> bool:
    if search not in SEARCHES:
        raise ValueError(f"search must be one of {', '.join(SEARCHES)}, got {search!r}")
    return search == "medial"


def shortest_path(ecm: ECM, start, goal, clearance: float = 0.0,
                  search: str = "funnel") -> tuple[np.ndarray, float, bool]:
    """The shortest path from start to goal keeping ``clearance`` from every obstacle and wall, inside the corridor
    that the graph search picks on the ECM: (points (n, 2) float64, length, ok). ``ok`` is False (and points
    empty) when the start or goal lies in an obstacle or closer than ``clearance`` to one, or no corridor of that
    clearance joins them. ``search``: ``funnel`` (default, ``search.corridor_search``) or ``medial`` (the paper's
    A* on medial-axis length)."""
    pts, length, status = shortest_path_status(ecm, start, goal, clearance, search)
    return pts, length, status == OK


def shortest_path_status(ecm: ECM, start, goal, clearance: float = 0.0,
                         search: str = "funnel") -> tuple[np.ndarray, float, int]:
    """Like ``shortest_path`` but with the status code (``OK``, ``START_BLOCKED``, ``GOAL_BLOCKED``,
    ``NO_CORRIDOR``)."""
    pts, length, status = path_kernel(ecm.arrays, float(start[0]), float(start[1]), float(goal[0]), float(goal[1]),
                                      float(clearance), ARC_STEP, _medial(search))
    return pts, float(length), int(status)


@dataclass(frozen=True, eq=False)
class PathBatch:
    """The answers of many queries: path q is ``points[offsets[q]:offsets[q + 1]]`` (empty unless ``status[q]`` is
    ``OK``), of length ``lengths[q]``, keeping ``clearances[q]``."""

    points: np.ndarray
    offsets: np.ndarray
    lengths: np.ndarray
    status: np.ndarray
    clearances: np.ndarray

    @property
    def ok(self) -> np.ndarray:
        """(n,) bool: which queries found a path."""
        return self.status == OK

    def path(self, q: int) -> np.ndarray:
        """Path q's points (p, 2)."""
        return self.points[self.offsets[q]:self.offsets[q + 1]]


def query_batch(ecm: ECM, starts, goals, clearance=0.0, search: str = "funnel", threads: int = 1) -> PathBatch:
    """Many shortest-path queries in one nogil kernel call per thread, each answered exactly as
    ``shortest_path_status`` answers it alone. ``starts``, ``goals``: (n, 2); ``clearance``: one for all or (n,);
    ``threads`` > 1 splits the batch into that many contiguous blocks run on threads (same results)."""
    s = _points(starts, "starts")
    g = _points(goals, "goals")
    if len(s) != len(g):
        raise ValueError(f"starts and goals differ in length ({len(s)} and {len(g)})")
    c = np.ascontiguousarray(np.broadcast_to(np.asarray(clearance, dtype=np.float64), (len(s),)))
    if not np.all(np.isfinite(c)) or np.any(c < 0):
        raise ValueError("clearance must be finite and >= 0")
    if int(threads) < 1:
        raise ValueError(f"threads must be >= 1, got {threads}")
    medial = _medial(search)
    arrays = ecm.arrays
    cuts = np.linspace(0, len(s), min(int(threads), max(len(s), 1)) + 1).astype(np.int64)
    blocks = [(int(a), int(b)) for a, b in zip(cuts[:-1], cuts[1:])]

    def run(block: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        a, b = block
        return paths_kernel(arrays, s[a:b], g[a:b], c[a:b], ARC_STEP, medial)

    if len(blocks) == 1:
        parts = [run(blocks[0])]
    else:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(len(blocks)) as pool:
            parts = list(pool.map(run, blocks))
    offsets = np.zeros(len(s) + 1, dtype=np.int64)
    base = 0
    for (a, b), part in zip(blocks, parts):
        offsets[a + 1:b + 1] = part[1][1:] + base
        base += int(part[1][-1])
    points = np.concatenate([p[0] for p in parts]) if parts else np.zeros((0, 2))
    lengths = np.concatenate([p[2] for p in parts]) if parts else np.zeros(0)
    status = np.concatenate([p[3] for p in parts]) if parts else np.zeros(0, dtype=np.int64)
    return PathBatch(points.reshape(-1, 2), offsets, lengths, status, c)


def _points(a, name: str) -> np.ndarray:
    """(n, 2) float64 contiguous, finite; ValueError naming the argument otherwise."""
    p = np.asarray(a, dtype=np.float64)
    if p.ndim == 1 and p.size == 0:
        p = p.reshape(0, 2)
    if p.ndim != 2 or p.shape[1] != 2:
        raise ValueError(f"{name} must have shape (n, 2), got {p.shape}")
    if not np.all(np.isfinite(p)):
        raise ValueError(f"{name} must be finite")
    return np.ascontiguousarray(p)


def shortest_paths(ecm: ECM, starts, goals, clearance: float = 0.0, search: str = "funnel"):
    """Many queries in one kernel call: (points (P, 2), offsets (n + 1,), lengths (n,), ok (n,) bool); path q is
    ``points[offsets[q]:offsets[q+1]]`` (``query_batch`` gives the status codes and runs on threads)."""
    b = query_batch(ecm, starts, goals, clearance, search)
    return b.points, b.offsets, b.lengths, b.ok


@dataclass(frozen=True, eq=False)
class Corridor:
    """An Explicit Corridor and what the query built from it (for display and inspection).

    - ``B`` (n, 2), ``R`` (n,), ``l`` (n, 2), ``r`` (n, 2): the disks and their left/right closest points, from the
      start's retraction to the goal's (ECM Definition 2); ``features`` (n, 2) int64 the obstacle features of the
      piece after each disk (-1 where the corridor turns at a Voronoi vertex).
    - ``left`` (m, 2), ``right`` (m, 2): the shrunk corridor's portals (boundary points); the left boundary is
      ``left`` in order, the right one ``right``.
    - ``path`` (p, 2), ``length``: the shortest path through the portals; ``vertices``: the ECM vertices passed.
    - ``status``: ``OK``, ``START_BLOCKED``, ``GOAL_BLOCKED`` or ``NO_CORRIDOR``.
    """

    B: np.ndarray
    R: np.ndarray
    l: np.ndarray
    r: np.ndarray
    features: np.ndarray
    left: np.ndarray
    right: np.ndarray
    path: np.ndarray
    length: float
    vertices: np.ndarray
    clearance: float
    status: int

    @property
    def ok(self) -> bool:
        return self.status == OK


def plan(ecm: ECM, start, goal, clearance: float = 0.0, search: str = "funnel") -> Plan:
    """Retraction and graph search of one query (``arrays.Plan``: status, both ends, node and edge path), the first
    phase of ``corridor`` and of the timings that take the query apart."""
    return _plan(ecm.arrays, query_work(ecm.arrays), float(start[0]), float(start[1]), float(goal[0]),
                 float(goal[1]), float(clearance), _medial(search))


def corridor(ecm: ECM, start, goal, clearance: float = 0.0, search: str = "funnel") -> Corridor:
    """The explicit corridor between start and goal, shrunk by ``clearance``, its portals and shortest path."""
    sx, sy, tx, ty = float(start[0]), float(start[1]), float(goal[0]), float(goal[1])
    p = plan(ecm, start, goal, clearance, search)
    e2 = np.zeros((0, 2))
    if p.status != OK:
        return Corridor(e2, np.zeros(0), e2, e2, np.zeros((0, 2), dtype=np.int64), e2, e2, e2, 0.0,
                        np.zeros(0, dtype=np.int64), float(clearance), int(p.status))
    s = ecm.sites
    cB, cR, cl, cr, cf = explicit_corridor(ecm.arrays, p)
    P = portals(cB, cR, cl, cr, cf, float(clearance), s.ring_xy, s.ring_next, s.edge_normal, ARC_STEP)
    pts, length = corridor_path(P, sx, sy, tx, ty, 1e-9 * s.scale)
    inner = p.nodes[1:-1]
    return Corridor(cB, cR, cl, cr, cf, np.ascontiguousarray(P[:, 0:2]), np.ascontiguousarray(P[:, 2:4]), pts,
                    float(length), inner, float(clearance), OK)


def retract_point(ecm: ECM, p) -> tuple[np.ndarray, float, int]:
    """Retraction of p onto the medial axis (IRM section 3.2): (S (2,), clearance of S, ECM edge); edge -1 when p is
    not in the free space."""
    i, sx, sy, R, d = retract(float(p[0]), float(p[1]), ecm.arrays, ecm.sites.scale)
    if i < 0:
        return np.array([float(p[0]), float(p[1])]), 0.0, -1
    return np.array([sx, sy]), float(R), int(edge_of_event(ecm.edge_ptr, i))
