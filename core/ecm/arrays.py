"""Named structures the ECM query kernels take and return (numba types them as named tuples).

- ``EcmArrays``: the map's flat arrays and its feature grid, built once per map (``ECM.arrays``); field meanings as
  in ``graph.ECM`` (ECM Definition 1), the obstacle rings as in ``sites.Sites``.
- ``End``: where a query's start or goal retracts onto the medial axis (IRM section 3.2).
- ``Plan``: the outcome of retraction and graph search, the input of the explicit corridor (ECM section II-C).
- ``QueryWork``: the search's per-vertex buffers, allocated once per map and reused by every query of a batch.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from core.jitcache import jit

F8 = npt.NDArray[np.float64]
I8 = npt.NDArray[np.int64]
I4 = npt.NDArray[np.int32]
B1 = npt.NDArray[np.bool_]


class EcmArrays(NamedTuple):
    """The ECM's arrays as the query kernels read them (``graph.ECM`` documents each; ``xy``, ``ring_next``,
    ``ring_prev``, ``normal`` are the obstacle rings' ``ring_xy``, links and edge normals; ``grid_*`` the bucket
    grid over the ring edges; ``bounds`` the scene's (x0, y0, x1, y1))."""

    vert_xy: F8
    vert_R: F8
    edge_uv: I4
    edge_len: F8
    edge_minR: F8
    edge_ptr: I8
    ev_B: F8
    ev_R: F8
    ev_l: F8
    ev_r: F8
    ev_s: F8
    ev_fl: I4
    ev_fr: I4
    adj_ptr: I8
    adj_edge: I4
    adj_other: I4
    feat_ptr: I8
    feat_cell: I8
    xy: F8
    ring_next: I4
    ring_prev: I4
    normal: F8
    grid_x0: float
    grid_y0: float
    grid_size: float
    grid_nx: int
    grid_ny: int
    grid_ptr: I8
    grid_idx: I8
    bounds: F8


class End(NamedTuple):
    """A start or goal retracted onto the medial axis: the piece after event ``i`` of edge ``k``, at arc length
    ``s`` from the edge's start, point (``x``, ``y``) of clearance ``R``."""

    i: int
    k: int
    s: float
    x: float
    y: float
    R: float


class Plan(NamedTuple):
    """Retraction and graph search of one query: ``status`` (``path.OK`` ...), both ends, and the node path with
    the ECM edge used to reach each node (``astar``; empty unless OK)."""

    status: int
    start: End
    goal: End
    nodes: I8
    edges: I8


class QueryWork(NamedTuple):
    """Buffers of the graph searches over nv + 2 nodes (the ECM's vertices, the start, the goal), reset by
    ``reset_work`` at every query: A* costs, parents and the funnel state kept per node (``search``), the heap, and
    scratch for one edge's portals and the funnel's chains. ``edge_rows`` (2 * events, 7) keeps every edge's shrunk
    portals in both walking directions (``search.edge_rows``) for the clearance in ``edge_rows_c`` (per edge, NaN
    until first needed): they depend on the map and the clearance only, so they outlive ``reset_work``."""

    best: F8
    medial: F8
    parent: I8
    via: I8
    closed: B1
    st_ap: F8
    st_d: F8
    st_last: F8
    st_has: B1
    st_found: B1
    st_fresh: B1
    st_chains: I8
    hk: F8
    hv: I8
    P: F8
    Lc: F8
    Rc: F8
    ap: F8
    last: F8
    pool: F8
    edge_rows: F8
    edge_rows_c: F8


@jit
def query_work(ecm: EcmArrays) -> QueryWork:
    """Buffers sized for this map (the heap holds every push of one search: 4 (edges + vertices) + 16)."""
    nv = ecm.vert_xy.shape[0]
    n = nv + 2
    maxev = 0
    for k in range(ecm.edge_ptr.shape[0] - 1):
        maxev = max(maxev, ecm.edge_ptr[k + 1] - ecm.edge_ptr[k])
    cap = 4 * (ecm.edge_uv.shape[0] + nv) + 16
    return QueryWork(np.full(n, np.inf), np.zeros(n), np.full(n, -1, dtype=np.int64), np.full(n, -1, dtype=np.int64),
                     np.zeros(n, dtype=np.bool_), np.zeros((n, 2)), np.zeros(n), np.zeros((n, 4)),
                     np.zeros(n, dtype=np.bool_), np.zeros(n, dtype=np.bool_), np.zeros(n, dtype=np.bool_),
                     np.zeros((n, 4), dtype=np.int64), np.empty(cap, dtype=np.float64), np.empty(cap, dtype=np.int64),
                     np.empty((2 * maxev + 8, 7)), np.empty((4 * maxev + 64, 2)), np.empty((4 * maxev + 64, 2)),
                     np.empty(2), np.empty(4), np.empty((1024, 2)), np.empty((2 * ecm.ev_R.shape[0], 7)),
                     np.full(ecm.edge_uv.shape[0], np.nan))


@jit(noalloc=True)
def reset_work(w: QueryWork, funnel: bool) -> None:
    """Every per-node entry back to its state before a search (as freshly allocated by ``query_work``); the
    funnel state only for the funnel-guided search (``funnel``), the medial A* reads the first four alone."""
    w.best[:] = np.inf
    w.parent[:] = -1
    w.via[:] = -1
    w.closed[:] = False
    if not funnel:
        return
    w.medial[:] = 0.0
    w.st_ap[:] = 0.0
    w.st_d[:] = 0.0
    w.st_last[:] = 0.0
    w.st_has[:] = False
    w.st_found[:] = False
    w.st_fresh[:] = False
    w.st_chains[:] = 0
