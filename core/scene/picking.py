"""Hit tests, rubber-band queries, snapping and polyline simplification on a scene, over flat arrays.

The editor asks these questions on every mouse move, so a PickIndex flattens the scene once (per scene version)
into vertex and segment arrays and answers with vectorised numpy / shapely queries, never a Python loop over
items.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import Polygon

from .edits import ITEM_KINDS, agent_ends, item_rings, items, ring_is_closed
from .model import Scene

KIND_CODE = {k: i for i, k in enumerate(ITEM_KINDS)}
# Which kind wins when several are under the cursor: the small and thin ones drawn on top first.
PICK_ORDER = ("agent", "network", "route", "obstacle", "terrain")


@dataclass(frozen=True)
class VertexHit:
    """A vertex near a point: item ``kind`` / ``item`` (index in its list), vertex ``index`` of vertex list
    ``ring``, its position ``point`` and its ``distance`` to the query point (scene units)."""

    kind: str
    item: int
    ring: int
    index: int
    point: tuple[float, float]
    distance: float


@dataclass(frozen=True)
class SegmentHit:
    """An edge near a point: edge ``index`` of vertex list ``ring`` (for a network, the edge number), the closest
    ``point`` on it, the parameter ``t`` in [0, 1] of that point along the edge and its ``distance``."""

    kind: str
    item: int
    ring: int
    index: int
    point: tuple[float, float]
    t: float
    distance: float


class PickIndex:
    """A scene flattened for hit tests.

    Arrays (n vertices, m segments):
    - ``vertices`` (n, 2) float64 scene units; ``v_kind`` (n,) int8 code in ``ITEM_KINDS``; ``v_item``,
      ``v_ring``, ``v_index`` (n,) int32: which item, vertex list and vertex each row is. Agents contribute their
      start and goal markers (ring 0, index 0 and 1), taken from their route when they follow one.
    - ``seg_a``, ``seg_b`` (m, 2) float64 segment ends; ``s_kind``, ``s_item``, ``s_ring``, ``s_index`` (m,)
      like the vertex columns, ``s_index`` being the edge's first vertex (or the network edge number).
    """

    def __init__(self, scene: Scene):
        self.scene = scene
        rings: list[tuple[int, int, int, bool, list]] = []
        for kind in ITEM_KINDS:
            code = KIND_CODE[kind]
            closed = ring_is_closed(kind)
            for i, it in enumerate(items(scene, kind)):
                if kind == "agent":
                    s, g = agent_ends(scene, it)
                    pts = [p for p in (s, g) if p is not None]
                    if len(pts) == 2:
                        rings.append((code, i, 0, False, pts))
                    continue
                for r, ring in enumerate(item_rings(kind, it)):
                    rings.append((code, i, r, closed, ring))
        lens = np.array([len(r[4]) for r in rings], dtype=np.int64)
        n = int(lens.sum())
        self.vertices = np.array([p for r in rings for p in r[4]], dtype=np.float64).reshape(n, 2)
        self.v_kind = np.repeat(np.array([r[0] for r in rings], dtype=np.int8), lens)
        self.v_item = np.repeat(np.array([r[1] for r in rings], dtype=np.int32), lens)
        self.v_ring = np.repeat(np.array([r[2] for r in rings], dtype=np.int32), lens)
        starts = np.concatenate([[0], np.cumsum(lens)[:-1]]).astype(np.int64) if len(lens) else np.zeros(0, np.int64)
        self.v_index = (np.arange(n) - np.repeat(starts, lens)).astype(np.int32)
        # Consecutive segments inside each vertex list; closed rings add last -> first; agents and networks none.
        nxt = np.arange(n) + 1
        last = np.repeat(starts + lens - 1, lens)
        ring_closed = np.repeat(np.array([r[3] for r in rings], dtype=bool), lens)
        wraps = np.arange(n) == last
        nxt = np.where(wraps, np.repeat(starts, lens), nxt)
        seg_kind_ok = (self.v_kind != KIND_CODE["agent"]) & (self.v_kind != KIND_CODE["network"])
        keep = seg_kind_ok & (~wraps | ring_closed)
        src = np.nonzero(keep)[0]
        dst = nxt[src]
        seg_a = [self.vertices[src]]
        seg_b = [self.vertices[dst]]
        cols = [(self.v_kind[src], self.v_item[src], self.v_ring[src], self.v_index[src])]
        for i, net in enumerate(scene.networks):
            if not net.edges:
                continue
            e = np.asarray(net.edges, dtype=np.int64).reshape(-1, 2)
            nodes = np.asarray(net.nodes, dtype=np.float64).reshape(-1, 2)
            seg_a.append(nodes[e[:, 0]])
            seg_b.append(nodes[e[:, 1]])
            k = len(e)
            cols.append((np.full(k, KIND_CODE["network"], np.int8), np.full(k, i, np.int32), np.zeros(k, np.int32),
                         np.arange(k, dtype=np.int32)))
        self.seg_a = np.concatenate(seg_a).reshape(-1, 2)
        self.seg_b = np.concatenate(seg_b).reshape(-1, 2)
        self.s_kind = np.concatenate([c[0] for c in cols]).astype(np.int8)
        self.s_item = np.concatenate([c[1] for c in cols]).astype(np.int32)
        self.s_ring = np.concatenate([c[2] for c in cols]).astype(np.int32)
        self.s_index = np.concatenate([c[3] for c in cols]).astype(np.int32)
        self._trees: dict[str, tuple[shapely.STRtree, np.ndarray]] = {}

    # -- queries -----------------------------------------------------------------------------------------------

    def _mask(self, kind_col: np.ndarray, item_col: np.ndarray, kinds, only, exclude) -> np.ndarray:
        m = np.ones(len(kind_col), dtype=bool)
        if kinds is not None:
            m &= np.isin(kind_col, [KIND_CODE[k] for k in kinds])
        if only is not None:
            m &= (kind_col == KIND_CODE[only[0]]) & (item_col == only[1])
        if exclude is not None:
            m &= ~((kind_col == KIND_CODE[exclude[0]]) & (item_col == exclude[1]))
        return m

    def nearest_vertex(self, x: float, y: float, tol: float, kinds=None, only=None, exclude=None) -> VertexHit | None:
        """The nearest vertex within ``tol`` of (x, y), among ``kinds`` (all when None), of item ``only``
        ``(kind, index)`` if given, skipping item ``exclude``; None when there is none."""
        m = self._mask(self.v_kind, self.v_item, kinds, only, exclude)
        if not m.any():
            return None
        idx = np.nonzero(m)[0]
        d2 = (self.vertices[idx, 0] - x) ** 2 + (self.vertices[idx, 1] - y) ** 2
        j = int(np.argmin(d2))
        d = float(np.sqrt(d2[j]))
        if d > tol:
            return None
        k = idx[j]
        return VertexHit(ITEM_KINDS[self.v_kind[k]], int(self.v_item[k]), int(self.v_ring[k]), int(self.v_index[k]),
                         (float(self.vertices[k, 0]), float(self.vertices[k, 1])), d)

    def nearest_segment(self, x: float, y: float, tol: float, kinds=None, only=None,
                        exclude=None) -> SegmentHit | None:
        """The nearest edge within ``tol`` of (x, y), with the closest point on it; filters as ``nearest_vertex``."""
        m = self._mask(self.s_kind, self.s_item, kinds, only, exclude)
        if not m.any():
            return None
        idx = np.nonzero(m)[0]
        a, b = self.seg_a[idx], self.seg_b[idx]
        d = b - a
        ll = np.einsum("ij,ij->i", d, d)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(ll > 0, ((x - a[:, 0]) * d[:, 0] + (y - a[:, 1]) * d[:, 1]) / ll, 0.0)
        t = np.clip(t, 0.0, 1.0)
        px = a[:, 0] + t * d[:, 0]
        py = a[:, 1] + t * d[:, 1]
        dist2 = (px - x) ** 2 + (py - y) ** 2
        j = int(np.argmin(dist2))
        dist = float(np.sqrt(dist2[j]))
        if dist > tol:
            return None
        k = idx[j]
        return SegmentHit(ITEM_KINDS[self.s_kind[k]], int(self.s_item[k]), int(self.s_ring[k]), int(self.s_index[k]),
                          (float(px[j]), float(py[j])), float(t[j]), dist)

    def _tree(self, kind: str) -> tuple[shapely.STRtree, np.ndarray]:
        """An STRtree of the items of one kind as shapely geometry, and the item index of each geometry."""
        if kind not in self._trees:
            geoms, owners = [], []
            for i, it in enumerate(items(self.scene, kind)):
                if kind == "obstacle":
                    g = Polygon(it.polygon)
                elif kind == "terrain":
                    g = Polygon(it.polygon, it.holes)
                else:
                    continue
                geoms.append(g)
                owners.append(i)
            self._trees[kind] = (shapely.STRtree(geoms), np.asarray(owners, dtype=np.int64))
        return self._trees[kind]

    def pick(self, x: float, y: float, tol: float, kinds=None) -> tuple[str, int] | None:
        """The topmost item at (x, y) as ``(kind, index)``: markers and lines within ``tol``, then polygons whose
        outline is within ``tol`` or that contain the point (the last drawn terrain wins)."""
        allowed = ITEM_KINDS if kinds is None else tuple(kinds)
        for kind in PICK_ORDER:
            if kind not in allowed:
                continue
            if kind in ("agent", "network"):
                h = self.nearest_vertex(x, y, tol, kinds=(kind,))
                if h is not None:
                    return kind, h.item
            if kind != "agent":
                s = self.nearest_segment(x, y, tol, kinds=(kind,))
                if s is not None:
                    return kind, s.item
            if kind in ("obstacle", "terrain"):
                tree, owners = self._tree(kind)
                if len(owners):
                    hits = tree.query(shapely.points(x, y), predicate="intersects")
                    if len(hits):
                        return kind, int(owners[hits].max())
        return None

    def in_rect(self, x0: float, y0: float, x1: float, y1: float, kinds=None) -> list[tuple[str, int]]:
        """Every item that meets the rectangle, as ``(kind, index)`` pairs in kind then list order."""
        allowed = ITEM_KINDS if kinds is None else tuple(kinds)
        lo_x, hi_x = min(x0, x1), max(x0, x1)
        lo_y, hi_y = min(y0, y1), max(y0, y1)
        out: list[tuple[str, int]] = []
        box = shapely.box(lo_x, lo_y, hi_x, hi_y)
        for kind in ITEM_KINDS:
            if kind not in allowed:
                continue
            code = KIND_CODE[kind]
            found: set[int] = set()
            vm = self.v_kind == code
            v = self.vertices[vm]
            inside = (v[:, 0] >= lo_x) & (v[:, 0] <= hi_x) & (v[:, 1] >= lo_y) & (v[:, 1] <= hi_y)
            found.update(self.v_item[vm][inside].tolist())
            sm = self.s_kind == code
            if sm.any():
                segs = shapely.linestrings(np.stack([self.seg_a[sm], self.seg_b[sm]], axis=1))
                hit = shapely.intersects(segs, box)
                found.update(self.s_item[sm][hit].tolist())
            if kind in ("obstacle", "terrain"):
                tree, owners = self._tree(kind)
                if len(owners):
                    found.update(owners[tree.query(box, predicate="intersects")].tolist())
            out.extend((kind, i) for i in sorted(found))
        return out

    def snap(self, x: float, y: float, tol: float, grid: float | None, vertices: bool = True,
             exclude=None, kinds=None) -> tuple[float, float, str]:
        """(x, y) snapped to the nearest vertex (of ``kinds``, all when None) within ``tol`` when ``vertices``, else
        to the ``grid`` spacing when given; returns the point and how it snapped: ``"vertex"``, ``"grid"`` or
        ``"none"``."""
        if vertices:
            h = self.nearest_vertex(x, y, tol, kinds=kinds, exclude=exclude)
            if h is not None:
                return h.point[0], h.point[1], "vertex"
        if grid:
            gx, gy = snap_to_grid(x, y, grid)
            return gx, gy, "grid"
        return float(x), float(y), "none"


def snap_to_grid(x: float, y: float, step: float) -> tuple[float, float]:
    """(x, y) rounded to the nearest multiple of ``step``."""
    return float(np.round(x / step) * step), float(np.round(y / step) * step)


def simplify_polyline(points, tolerance: float) -> np.ndarray:
    """A freehand stroke ((n, 2) scene units) simplified with Douglas-Peucker within ``tolerance``: (k, 2) float64,
    the first and last points kept, no repeated consecutive points."""
    a = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    if len(a) == 0:
        return a
    keep = np.ones(len(a), dtype=bool)
    keep[1:] = np.any(a[1:] != a[:-1], axis=1)
    a = a[keep]
    if len(a) < 3:
        return a
    line = shapely.linestrings(a)
    return np.asarray(shapely.get_coordinates(shapely.simplify(line, tolerance, preserve_topology=False)))


def nice_step(span: float, ladder: tuple[float, ...] = (1.0, 2.0, 5.0)) -> float:
    """The least ``ladder`` x 10^k number at or above ``span`` (1-2-5 by default: grid spacings, scale bars, tick
    steps; a finer ladder for a plot's growing range); 1 for no span (not finite, or not positive)."""
    if not np.isfinite(span) or span <= 0:
        return 1.0
    e = np.floor(np.log10(span))
    for m in (*ladder, 10.0):
        if m * 10 ** e >= span * (1 - 1e-9):
            return float(m * 10 ** e)
    return float(10 ** (e + 1))


__all__ = ["PICK_ORDER", "PickIndex", "SegmentHit", "VertexHit", "nice_step", "simplify_polyline", "snap_to_grid"]
