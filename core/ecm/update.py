"""Local updates of an ECM: an obstacle inserted, deleted or moved recomputes only the edges whose corridors change.

After van Toll, Cook and Geraerts (CAVW 23(6), 2012), who repair only the part of the medial axis a new or removed
obstacle takes over or frees. Here the unit of repair is a whole ECM edge, as the navigation mesh's is a whole
triangle (``core.navmesh.update``):

- an edge is *affected* when one of its empty disks (clearance R around a point B of the edge) meets or touches a
  changed ring edge (a new one, or a removed one), or when its closest features include a removed one. The disks
  along a piece between two events lie in the convex hull of the two events' disks (the support function of the
  disk is convex along a bisector of two features), so a piece is tested with the capsule of the larger radius
  around the segment between its events. Every point of a new obstacle's Voronoi region lies in an affected
  edge's corridor: its old disk towards its old closest point contained the new obstacle's nearest point; and
  every point of a removed obstacle's region lies in the corridor of an edge that names it;
- every other edge is kept as it is, its features renumbered. Its end vertices keep their three closest features,
  so the affected edges' vertices that a kept edge shares stay vertices of the new diagram, with the same degree;
- the new edges are read off Boost.Polygon's diagram of the ring edges that meet a box around the affected edges'
  disks (``exact.exact_chains`` with a box). A chain of that partial diagram is exact where every event disk lies
  inside the box (a missing ring edge lies outside it), so only such chains are taken, less those that repeat a
  kept edge (the same end vertices and the same closest features).

The splice is checked before it is used: each shared vertex gets back its degree, each new vertex its degree in the
partial diagram, and no kept vertex gains an edge. Where a check fails the box grows; after ``GROWTHS`` tries
``local_update`` returns None and the caller builds the map afresh.
"""

from __future__ import annotations

import time
from typing import Sequence

import numpy as np
import shapely
from shapely.geometry import Polygon

from core.scene.model import Scene

from .exact import exact_available, exact_chains
from .graph import ECM, assemble, csr_rows
from .site_update import updated_sites
from .sites import Sites

#: Tries of the partial diagram, its box's margin four times larger each time, before the update gives up.
GROWTHS = 3
#: Tolerance (a fraction of the scene's diagonal) for a vertex matched to a kept one, and for a disk touching a
#: ring edge or the box.
MATCH_FRACTION = 1e-7


def _affected(ecm: ECM, fmap: np.ndarray, seg_a: np.ndarray, seg_b: np.ndarray, tol: float) -> np.ndarray:
    """(ne,) bool: edges with an empty disk met or touched by a changed ring edge (``seg_a -> seg_b``: the new ones
    and the removed ones, whose disks touch an edge's end vertex), or a closest feature removed.

    The disks along a piece between two events lie in the convex hull of the two events' disks (the support
    function of a disk is convex along a bisector of two features: affine for two lines, convex for a point and
    a line or two points), so within the capsule of radius max(R) around the segment between the two events."""
    rows = np.diff(ecm.edge_ptr)
    row_edge = np.repeat(np.arange(ecm.n_edges), rows)
    gone = ((ecm.ev_fl >= 0) & (fmap[np.maximum(ecm.ev_fl, 0)] < 0)) | \
           ((ecm.ev_fr >= 0) & (fmap[np.maximum(ecm.ev_fr, 0)] < 0))
    hit = gone.copy()
    if len(seg_a):
        lo = np.minimum(seg_a, seg_b).min(axis=0)
        hi = np.maximum(seg_a, seg_b).max(axis=0)
        # Piece i runs from event i to event i + 1 of the same edge (an edge's last event starts none).
        first = np.flatnonzero(np.arange(len(ecm.ev_B)) < np.repeat(ecm.edge_ptr[1:] - 1, rows))
        B0, B1 = ecm.ev_B[first], ecm.ev_B[first + 1]
        R = np.maximum(ecm.ev_R[first], ecm.ev_R[first + 1]) + tol
        b_lo, b_hi = np.minimum(B0, B1) - R[:, None], np.maximum(B0, B1) + R[:, None]
        near = np.flatnonzero((b_hi[:, 0] >= lo[0]) & (b_lo[:, 0] <= hi[0]) & (b_hi[:, 1] >= lo[1])
                              & (b_lo[:, 1] <= hi[1]))
        if len(near):
            changed = shapely.multilinestrings(np.stack([seg_a, seg_b], axis=1))
            pieces = shapely.linestrings(np.stack([B0[near], B1[near]], axis=1))
            hit[first[near[shapely.dwithin(pieces, changed, R[near])]]] = True
    out = np.zeros(ecm.n_edges, dtype=bool)
    out[row_edge[hit]] = True
    return out


def _box(ecm: ECM, affected: np.ndarray, extra: np.ndarray, margin: float) -> np.ndarray:
    """[x0, y0, x1, y1]: the event disks of the ``affected`` edges ((ne,) bool) and the ``extra`` points (k, 2),
    grown by ``margin``."""
    rows = np.repeat(affected, np.diff(ecm.edge_ptr))
    B, R = ecm.ev_B[rows], ecm.ev_R[rows]
    lo = np.min(np.vstack([B - R[:, None], extra]), axis=0) - margin
    hi = np.max(np.vstack([B + R[:, None], extra]), axis=0) + margin
    return np.concatenate([lo, hi])


def _inside(box: np.ndarray, B: np.ndarray, R: np.ndarray, tol: float) -> np.ndarray:
    """(n,) bool: disks (B, R) strictly inside the box."""
    return ((B[:, 0] - R > box[0] + tol) & (B[:, 0] + R < box[2] - tol)
            & (B[:, 1] - R > box[1] + tol) & (B[:, 1] + R < box[3] - tol))


def local_update(ecm: ECM, scene: Scene, changed: Sequence[Polygon]) -> ECM | None:
    """The ECM of ``scene`` from ``ecm`` (that of the scene before the change of the ``changed`` polygons: those
    inserted, deleted or moved, old and new places), recomputing only the edges whose corridors change; None where
    the splice fails its checks or pyvoronoi (whose diagram it splices in) is missing, for the caller to build
    afresh."""
    if not exact_available():
        return None
    t0 = time.perf_counter()
    old = ecm.sites
    sites, vmap = updated_sites(old, scene, changed)
    nv = len(sites.ring_xy)
    fmap = np.concatenate([vmap, np.where(vmap >= 0, nv + vmap, -1)])
    fresh_v = np.ones(nv, dtype=bool)
    fresh_v[vmap[vmap >= 0]] = False
    fresh_e = np.flatnonzero(fresh_v)
    new_a, new_b = sites.ring_xy[fresh_e], sites.ring_xy[sites.ring_next[fresh_e]]
    gone = np.flatnonzero(vmap < 0)
    extra = np.vstack([new_a, old.ring_xy[gone]])
    if not len(extra):
        return ecm                                      # no ring changed: inside an obstacle, or off the bounds
    tol = MATCH_FRACTION * old.scale
    affected = _affected(ecm, fmap, extra, np.vstack([new_b, old.ring_xy[old.ring_next[gone]]]), tol)
    if np.any(ecm.edge_uv[affected, 0] == ecm.edge_uv[affected, 1]):
        return None                                     # a closed loop: no shared vertex to splice at
    kept = np.flatnonzero(~affected)
    deg_old = np.diff(ecm.adj_ptr)
    deg_kept = np.bincount(ecm.edge_uv[kept].ravel(), minlength=ecm.n_vertices)
    margin = 1e-3 * old.scale
    for _ in range(GROWTHS):
        box = _box(ecm, affected, extra, margin)
        got = _splice(ecm, sites, fmap, kept, deg_old, deg_kept, box, tol)
        if got is not None:
            got.timings.update({"local_update": time.perf_counter() - t0})
            got.stats.update({"edges_replaced": int(affected.sum()), "backend": ecm.stats.get("backend"),
                              "local_update": True})
            return got
        margin *= 4.0
    return None


def changed_obstacles(before: Scene, after: Scene) -> list[Polygon]:
    """The outlines of the static obstacles (standing at time 0, not moving: those a map is built of) that differ
    between two scenes: those gone or reshaped, as they were, and those come or reshaped, as they are."""
    def static(scene: Scene) -> dict:
        return {o.id: o.polygon for o in scene.at(0.0).obstacles}

    a, b = static(before), static(after)
    gone = [Polygon(p) for k, p in a.items() if b.get(k) != p]
    come = [Polygon(p) for k, p in b.items() if a.get(k) != p]
    return gone + come


def update_between(ecm: ECM, before: Scene, after: Scene) -> ECM | None:
    """The map of ``after`` from ``ecm``, that of ``before``, updated locally for the obstacles that differ
    (``changed_obstacles``): ``ecm`` itself when none does; None where the bounds differ or the update fails its
    checks, for a fresh build."""
    if tuple(before.bounds) != tuple(after.bounds):
        return None
    changed = changed_obstacles(before, after)
    return local_update(ecm, after, changed) if changed else ecm


def _splice(ecm: ECM, sites: Sites, fmap: np.ndarray, kept: np.ndarray, deg_old: np.ndarray,
            deg_kept: np.ndarray, box: np.ndarray, tol: float) -> ECM | None:
    """The kept edges and the exact chains of the partial diagram in ``box`` assembled into one map, or None where
    the checks of ``local_update`` fail."""
    (chain_ptr, chain_nodes, node_xy, node_R, node_kind, ev_ptr, ev, ev_f, ok,
     info) = exact_chains(sites, box)
    nc = len(chain_nodes)
    n_ev = np.diff(ev_ptr)
    row_chain = np.repeat(np.arange(nc), n_ev)
    inside = _inside(box, ev[:, 0:2], ev[:, 2], tol)
    outside = np.bincount(row_chain[~inside], minlength=nc) > 0
    exact = ok & (n_ev >= 2) & ~info["open_chain"] & ~outside
    # Match the partial diagram's vertices to the kept ones (those of a kept edge).
    keep_v = np.flatnonzero(deg_kept > 0)
    match = np.full(len(node_xy), -1, dtype=np.int64)
    if len(keep_v) and len(node_xy):
        kxy = ecm.vert_xy[keep_v]
        for j in np.unique(chain_nodes[exact].ravel()).tolist():
            d = np.hypot(kxy[:, 0] - node_xy[j, 0], kxy[:, 1] - node_xy[j, 1])
            k = int(np.argmin(d))
            if d[k] <= tol * 10.0:
                match[j] = keep_v[k]
    is_kept = np.zeros(ecm.n_edges, dtype=bool)
    is_kept[kept] = True
    take = exact.copy()
    for c in np.flatnonzero(exact).tolist():
        u, v = match[chain_nodes[c]]
        if u < 0 or v < 0:
            continue
        a, b = ev_f[ev_ptr[c]]
        for y in range(ecm.adj_ptr[u], ecm.adj_ptr[u + 1]):
            k = int(ecm.adj_edge[y])
            if ecm.adj_other[y] != v or not is_kept[k]:
                continue
            r0, r1 = int(ecm.edge_ptr[k]), int(ecm.edge_ptr[k + 1])
            if ecm.edge_uv[k, 0] == u:
                same = fmap[ecm.ev_fl[r0]] == a and fmap[ecm.ev_fr[r0]] == b
            else:
                same = fmap[ecm.ev_fr[r1 - 2]] == a and fmap[ecm.ev_fl[r1 - 2]] == b
            if same:
                take[c] = False
                break
    taken = np.flatnonzero(take)
    # Checks: shared vertices get their degree back, kept-only vertices gain nothing, new vertices are whole.
    ends = chain_nodes[taken].ravel()
    on_old = match[ends]
    gained = np.bincount(on_old[on_old >= 0], minlength=ecm.n_vertices)
    if np.any(deg_kept + gained != np.where((deg_kept > 0) | (gained > 0), deg_old, 0)):
        return None
    local_deg = np.bincount(chain_nodes.ravel(), minlength=len(node_xy))
    fresh_ends = ends[on_old < 0]
    if np.any(np.bincount(fresh_ends, minlength=len(node_xy))[fresh_ends] != local_deg[fresh_ends]):
        return None
    # Assemble: the old vertices (those no kept edge uses are dropped by ``assemble``), then the new ones.
    nvo = ecm.n_vertices
    new_nodes = np.unique(fresh_ends)
    node_id = match.copy()
    node_id[new_nodes] = nvo + np.arange(len(new_nodes))
    all_xy = np.vstack([ecm.vert_xy, node_xy[new_nodes]])
    all_R = np.concatenate([ecm.vert_R, node_R[new_nodes]])
    all_kind = np.concatenate([ecm.vert_kind, node_kind[new_nodes]]).astype(np.int32)
    k_len = np.diff(ecm.edge_ptr)[kept]
    k_rows = csr_rows(ecm.edge_ptr, kept)
    t_len = n_ev[taken]
    t_rows = csr_rows(ev_ptr, taken)
    k_ev = np.column_stack([ecm.ev_B[k_rows], ecm.ev_R[k_rows], ecm.ev_l[k_rows], ecm.ev_r[k_rows],
                            ecm.ev_s[k_rows]])
    k_f = np.column_stack([ecm.ev_fl[k_rows], ecm.ev_fr[k_rows]]).astype(np.int64)
    k_f = np.where(k_f >= 0, fmap[np.maximum(k_f, 0)], -1)
    all_ev = np.vstack([k_ev, ev[t_rows, :8]])
    all_f = np.vstack([k_f, ev_f[t_rows]]).astype(np.int32)
    counts = np.concatenate([k_len, t_len])
    all_ptr = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=all_ptr[1:])
    all_nodes = np.vstack([ecm.edge_uv[kept], node_id[chain_nodes[taken]]]).astype(np.int64)
    # Every chain counts as long in pixels: the kept ones passed ``assemble``'s spur test when they were built.
    spur_free = np.arange(len(counts) + 1, dtype=np.int64) * 1000
    out = assemble(sites, spur_free, all_nodes, all_xy, all_R, all_kind, all_ptr, all_ev, all_f,
                   np.ones(len(counts), dtype=bool), ecm.pixel, ecm.resolution)
    return out

