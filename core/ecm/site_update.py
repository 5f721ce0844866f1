"""Sites updated locally: the obstacle components a change touches are derived afresh, the others keep their rings.

A change (an obstacle inserted, deleted or moved) can only alter the components of the obstacle union that meet a
changed polygon, and those that the obstacles meeting them join to. Those components are unioned again from the
scene's obstacles that meet them (clipped to the bounds, as ``obstacle_union`` clips the whole union) and
decomposed as ``build_sites`` decomposes any component; every other component keeps its rings, pieces and order.
The result holds the same rings as ``build_sites`` of the whole new union, numbered differently.
"""

from __future__ import annotations

from itertools import chain
from typing import Sequence

import numpy as np
import shapely
from shapely.geometry import MultiPolygon, Polygon

from core.scene.polygons import clean_ring
from core.scene.model import Scene

from .graph import csr_rows
from .sites import Sites, build_sites


def ring_components(sites: Sites) -> np.ndarray:
    """(nr,) int64: the obstacle component of each ring (``n_components`` for the walls)."""
    comp = np.full(len(sites.ring_ptr) - 1, sites.n_components, dtype=np.int64)
    comp[sites.ring_of[sites.piece_vert]] = np.repeat(sites.piece_comp, np.diff(sites.piece_ptr))
    return comp


def _component_polygon(sites: Sites, ring_comp: np.ndarray, c: int) -> Polygon:
    """The polygon (exterior, then holes) of obstacle component ``c``."""
    xy = [sites.ring_xy[sites.ring_ptr[r]:sites.ring_ptr[r + 1]] for r in np.flatnonzero(ring_comp == c).tolist()]
    return Polygon(xy[0], xy[1:])


def _component_boxes(sites: Sites, ring_comp: np.ndarray) -> np.ndarray:
    """(n_components, 4) bounding boxes of the obstacle components."""
    w0 = int(sites.ring_ptr[-2])
    vcomp = ring_comp[sites.ring_of[:w0]]
    xy = sites.ring_xy[:w0]
    box = np.empty((sites.n_components, 4))
    box[:, :2] = np.inf
    box[:, 2:] = -np.inf
    np.minimum.at(box[:, 0], vcomp, xy[:, 0])
    np.minimum.at(box[:, 1], vcomp, xy[:, 1])
    np.maximum.at(box[:, 2], vcomp, xy[:, 0])
    np.maximum.at(box[:, 3], vcomp, xy[:, 1])
    return box


def _boxes_meet(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(len(a), len(b)) bool: closed boxes [x0, y0, x1, y1] that meet."""
    return ((a[:, None, 0] <= b[None, :, 2]) & (a[:, None, 2] >= b[None, :, 0])
            & (a[:, None, 1] <= b[None, :, 3]) & (a[:, None, 3] >= b[None, :, 1]))


def touched_components(sites: Sites, scene: Scene, changed: Sequence[Polygon]) -> tuple[np.ndarray, list[Polygon]]:
    """(the old components a change of ``changed`` polygons may alter, the new scene's obstacles that make them up
    now): closed under "meets", so that the union of those obstacles is exactly the new union's components there."""
    ring_comp = ring_components(sites)
    cbox = _component_boxes(sites, ring_comp)
    static = scene.at(0.0).obstacles
    obox = np.zeros((len(static), 4))
    if static:
        sizes = [len(o.polygon) for o in static]
        pts = np.array(list(chain.from_iterable(o.polygon for o in static)), dtype=np.float64).reshape(-1, 2)
        first = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        obox = np.column_stack([np.minimum.reduceat(pts, first), np.maximum.reduceat(pts, first)])
    made: dict[int, Polygon] = {}

    def obstacle(k: int) -> Polygon:
        """Static obstacle k as ``obstacle_polygons`` makes it, made once."""
        if k not in made:
            made[k] = Polygon(clean_ring(static[k].polygon))
        return made[k]
    polys = [g for g in changed if not g.is_empty]
    touched = np.zeros(sites.n_components, dtype=bool)
    taken = np.zeros(len(static), dtype=bool)
    region = list(polys)
    comp_polys: dict[int, Polygon] = {}
    while region:
        rbox = shapely.bounds(np.array(region, dtype=object)).reshape(-1, 4)
        grown = []
        cand = np.flatnonzero(~touched & _boxes_meet(cbox, rbox).any(axis=1))
        for c in cand.tolist():
            if c not in comp_polys:
                comp_polys[c] = _component_polygon(sites, ring_comp, c)
            if any(comp_polys[c].intersects(g) for g in region):
                touched[c] = True
                grown.append(comp_polys[c])
        cand = np.flatnonzero(~taken & _boxes_meet(obox, rbox).any(axis=1))
        for k in cand.tolist():
            if any(obstacle(k).intersects(g) for g in region):
                taken[k] = True
                grown.append(obstacle(k))
        region = grown
    return np.flatnonzero(touched), [obstacle(k) for k in np.flatnonzero(taken).tolist()]


def updated_sites(sites: Sites, scene: Scene, changed: Sequence[Polygon]) -> tuple[Sites, np.ndarray]:
    """The Sites of ``scene`` from ``sites`` (those of the scene before the change of the ``changed`` polygons),
    and vmap (old nv,) int64: each old ring vertex's index in the new Sites, -1 where its ring was replaced."""
    touched, parts = touched_components(sites, scene, changed)
    x0, y0, x1, y1 = (float(v) for v in sites.bounds)
    union = shapely.intersection(shapely.union_all(parts), shapely.box(x0, y0, x1, y1)) if parts else MultiPolygon()
    fresh = build_sites(union, sites.bounds)
    ring_comp = ring_components(sites)
    keep_ring = ~np.isin(ring_comp, touched)
    keep_ring[-1] = False                       # the walls come from ``fresh``, last
    keep_v = keep_ring[sites.ring_of]
    kept = np.flatnonzero(keep_v)
    nk = len(kept)
    vmap = np.full(len(sites.ring_xy), -1, dtype=np.int64)
    vmap[kept] = np.arange(nk)
    w0_old = int(sites.ring_ptr[-2])
    vmap[w0_old:] = nk + int(fresh.ring_ptr[-2]) + np.arange(len(sites.ring_xy) - w0_old)
    sizes = np.concatenate([np.diff(sites.ring_ptr)[keep_ring], np.diff(fresh.ring_ptr)]).astype(np.int64)
    ring_ptr = np.zeros(len(sizes) + 1, dtype=np.int32)
    np.cumsum(sizes, out=ring_ptr[1:])
    ring_of = np.repeat(np.arange(len(sizes), dtype=np.int32), sizes)
    ring_xy = np.ascontiguousarray(np.vstack([sites.ring_xy[kept], fresh.ring_xy]))
    ring_next = np.concatenate([vmap[sites.ring_next[kept]], nk + fresh.ring_next]).astype(np.int32)
    ring_prev = np.concatenate([vmap[sites.ring_prev[kept]], nk + fresh.ring_prev]).astype(np.int32)
    ring_pos = np.concatenate([sites.ring_pos[kept], fresh.ring_pos])
    ring_len = np.concatenate([sites.ring_len[keep_ring], fresh.ring_len])
    normal = np.ascontiguousarray(np.vstack([sites.edge_normal[kept], fresh.edge_normal]))
    # Pieces: the kept components' (renumbered in order), then the fresh ones', then the walls.
    keep_comp = np.ones(sites.n_components, dtype=bool)
    keep_comp[touched] = False
    comp_new = np.cumsum(keep_comp) - 1
    n_kept_comp = int(keep_comp.sum())
    n_comp = n_kept_comp + fresh.n_components
    old_piece = np.flatnonzero(sites.piece_comp < sites.n_components)
    old_piece = old_piece[keep_comp[sites.piece_comp[old_piece]]]
    f_obst = np.flatnonzero(fresh.piece_comp < fresh.n_components)
    f_walls = np.flatnonzero(fresh.piece_comp == fresh.n_components)

    def gathered(ptr: np.ndarray, idx: np.ndarray, which: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return np.diff(ptr)[which], idx[csr_rows(ptr, which)]

    o_len, o_vert = gathered(sites.piece_ptr, sites.piece_vert, old_piece)
    o_rlen, o_real = gathered(sites.real_ptr, sites.real_edge, old_piece)
    f_len, f_vert = gathered(fresh.piece_ptr, fresh.piece_vert, f_obst)
    f_rlen, f_real = gathered(fresh.real_ptr, fresh.real_edge, f_obst)
    w_len, w_vert = gathered(fresh.piece_ptr, fresh.piece_vert, f_walls)
    w_rlen, w_real = gathered(fresh.real_ptr, fresh.real_edge, f_walls)
    lens = np.concatenate([o_len, f_len, w_len])
    rlens = np.concatenate([o_rlen, f_rlen, w_rlen])
    piece_ptr = np.zeros(len(lens) + 1, dtype=np.int32)
    np.cumsum(lens, out=piece_ptr[1:])
    real_ptr = np.zeros(len(rlens) + 1, dtype=np.int32)
    np.cumsum(rlens, out=real_ptr[1:])
    piece_vert = np.concatenate([vmap[o_vert], nk + f_vert, nk + w_vert]).astype(np.int32)
    real_edge = np.concatenate([vmap[o_real], nk + f_real, nk + w_real]).astype(np.int32)
    piece_comp = np.concatenate([comp_new[sites.piece_comp[old_piece]], n_kept_comp + fresh.piece_comp[f_obst],
                                 np.full(len(f_walls), n_comp)]).astype(np.int32)
    piece_bbox = np.vstack([sites.piece_bbox[old_piece], fresh.piece_bbox[f_obst], fresh.piece_bbox[f_walls]])
    new = Sites(
        ring_xy=ring_xy, ring_next=ring_next, ring_prev=ring_prev, ring_of=ring_of, ring_ptr=ring_ptr,
        ring_pos=ring_pos, ring_len=ring_len, edge_normal=normal, piece_ptr=piece_ptr, piece_vert=piece_vert,
        real_ptr=real_ptr, real_edge=real_edge, piece_comp=piece_comp, piece_bbox=piece_bbox,
        bounds=sites.bounds.copy(), n_components=n_comp, scale=sites.scale,
    )
    return new, vmap
