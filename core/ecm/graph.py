"""The Explicit Corridor Map as flat arrays (ECM Definition 1), assembled from the traced and annotated chains."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .annotate import NODE_OPEN
from .arrays import EcmArrays
from .cull import site_grid
from .sites import Sites


@dataclass(frozen=True, eq=False)
class ECM:
    """A generalized Voronoi diagram G = (V, E) whose edges are annotated with event points and closest points.

    Vertices (scene units):

    - ``vert_xy`` (nv, 2) float64: Voronoi vertices (and edge ends at concave corners or where the pixels lost an
      edge); ``vert_R`` (nv,) float64: their clearance; ``vert_kind`` (nv,) int32: ``annotate.NODE_*``.

    Edges (edge k runs from ``edge_uv[k, 0]`` to ``edge_uv[k, 1]``; left and right are seen walking that way):

    - ``edge_uv`` (ne, 2) int32; ``edge_len`` (ne,) float64 arc length of the medial-axis curve;
      ``edge_minR`` (ne,) float64 smallest clearance along the edge.
    - ``edge_ptr`` (ne + 1,) int64: edge k's event points are rows ``edge_ptr[k]:edge_ptr[k+1]`` (first = start
      vertex, last = end vertex).

    Event points (one row each):

    - ``ev_B`` (n, 2) float64 centre B; ``ev_R`` (n,) float64 clearance R (the radius of the empty disk);
      ``ev_l``, ``ev_r`` (n, 2) float64 left and right closest obstacle points; ``ev_s`` (n,) float64 arc length
      from the edge's start.
    - ``ev_fl``, ``ev_fr`` (n,) int32: the closest obstacle feature on each side for the piece of curve from
      this event to the next (``distance`` feature codes: vertex v, or ``nv_ring + e`` for ring edge e; -1 on an
      edge's last event). The piece is a line segment when both are vertices or both edges, else a parabolic arc.

    Graph and lookup structures:

    - ``adj_ptr`` (nv + 1,) int64, ``adj_edge`` / ``adj_other`` (2 ne,) int32: edges and far ends around each
      vertex (CSR).
    - ``feat_ptr`` (2 nv_ring + 1,) int64, ``feat_cell`` (k,) int64: the ECM cells bounded by each obstacle
      feature; cell ``2 i + side`` is the region between the curve piece after event i and its ``side`` (0 left,
      1 right) closest points. Used to retract a point (IRM section 3.2).
    - ``grid_*``: a bucket grid over the ring edges for nearest-obstacle queries.
    - ``sites``: the rings and sites the map was built from; ``resolution``, ``pixel``: the GVD's resolution and
      pixel size; ``timings``: seconds per build phase; ``stats``: counts.
    """

    vert_xy: np.ndarray
    vert_R: np.ndarray
    vert_kind: np.ndarray
    edge_uv: np.ndarray
    edge_len: np.ndarray
    edge_minR: np.ndarray
    edge_ptr: np.ndarray
    ev_B: np.ndarray
    ev_R: np.ndarray
    ev_l: np.ndarray
    ev_r: np.ndarray
    ev_s: np.ndarray
    ev_fl: np.ndarray
    ev_fr: np.ndarray
    adj_ptr: np.ndarray
    adj_edge: np.ndarray
    adj_other: np.ndarray
    feat_ptr: np.ndarray
    feat_cell: np.ndarray
    grid_origin: np.ndarray
    grid_size: float
    grid_shape: tuple
    grid_ptr: np.ndarray
    grid_idx: np.ndarray
    sites: Sites
    resolution: int
    pixel: float
    timings: dict = field(default_factory=dict)
    stats: dict = field(default_factory=dict)
    gvd: object = None

    @property
    def n_vertices(self) -> int:
        return len(self.vert_xy)

    @property
    def n_edges(self) -> int:
        return len(self.edge_uv)

    @property
    def n_events(self) -> int:
        return len(self.ev_B)

    def edge_events(self, k: int) -> slice:
        """The rows of edge k's event points."""
        return slice(int(self.edge_ptr[k]), int(self.edge_ptr[k + 1]))

    def nbytes(self) -> int:
        """Memory held by the map's own arrays (the sites not counted)."""
        return int(sum(getattr(self, f).nbytes for f in (
            "vert_xy", "vert_R", "vert_kind", "edge_uv", "edge_len", "edge_minR", "edge_ptr", "ev_B", "ev_R",
            "ev_l", "ev_r", "ev_s", "ev_fl", "ev_fr", "adj_ptr", "adj_edge", "adj_other", "feat_ptr",
            "feat_cell", "grid_ptr", "grid_idx")))

    @cached_property
    def arrays(self) -> EcmArrays:
        """The arrays the query kernels take (``arrays.EcmArrays``), gathered once per map."""
        s = self.sites
        return EcmArrays(self.vert_xy, self.vert_R, self.edge_uv, self.edge_len, self.edge_minR, self.edge_ptr,
                         self.ev_B, self.ev_R, self.ev_l, self.ev_r, self.ev_s, self.ev_fl, self.ev_fr, self.adj_ptr,
                         self.adj_edge, self.adj_other, self.feat_ptr, self.feat_cell, s.ring_xy, s.ring_next,
                         s.ring_prev, s.edge_normal, float(self.grid_origin[0]), float(self.grid_origin[1]),
                         float(self.grid_size), int(self.grid_shape[0]), int(self.grid_shape[1]), self.grid_ptr,
                         self.grid_idx, s.bounds)


def csr_rows(ptr: np.ndarray, which: np.ndarray) -> np.ndarray:
    """The rows ``ptr[k]:ptr[k + 1]`` of every k in ``which``, one range after the other (a CSR structure's gather)."""
    start = np.asarray(ptr[:-1])[which]
    lens = np.asarray(ptr[1:])[which] - start
    return np.repeat(start - np.cumsum(lens) + lens, lens) + np.arange(int(lens.sum()), dtype=np.int64)


def _union_find(n: int, pairs: np.ndarray) -> np.ndarray:
    parent = np.arange(n)

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for a, b in pairs:
        ra, rb = find(int(a)), find(int(b))
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    return np.array([find(i) for i in range(n)], dtype=np.int64)


def assemble(sites: Sites, chain_ptr, chain_nodes, node_xy, node_R, node_kind, ev_ptr, ev, ev_f, ok, h: float,
             resolution: int, spur_pixels: float = 4.0) -> ECM:
    """Keep the good chains, drop short spurs that end in mid-air, merge coincident nodes, build the lookups."""
    nc = len(chain_nodes)
    cracks = np.diff(chain_ptr) - 1
    keep = ok.copy()
    n_ev_chain = np.diff(ev_ptr)
    keep &= n_ev_chain >= 2
    # Spurs: a chain with an open (lost) end and at most a few pixels long is pixel noise.
    open_end = (node_kind[chain_nodes[:, 0]] == NODE_OPEN) | (node_kind[chain_nodes[:, 1]] == NODE_OPEN)
    keep &= ~(open_end & (cracks <= spur_pixels))
    # Chains of zero length between two nodes that solved to the same point: the nodes are one vertex.
    last = np.maximum(ev_ptr[1:] - 1, ev_ptr[:-1])
    length = np.where(n_ev_chain >= 2, ev[last, 7], 0.0)
    tiny = keep & (length <= 1e-9 * sites.scale) & (chain_nodes[:, 0] != chain_nodes[:, 1])
    root = _union_find(len(node_xy), chain_nodes[tiny])
    keep &= ~tiny
    kept = np.flatnonzero(keep)
    uv = root[chain_nodes[kept]]
    used = np.unique(uv.ravel())
    remap = np.full(len(node_xy), -1, dtype=np.int64)
    remap[used] = np.arange(len(used))
    edge_uv = remap[uv].astype(np.int32).reshape(-1, 2)
    vert_xy = np.ascontiguousarray(node_xy[used])
    vert_R = np.ascontiguousarray(node_R[used])
    vert_kind = np.ascontiguousarray(node_kind[used]).astype(np.int32)
    counts = n_ev_chain[kept]
    edge_ptr = np.zeros(len(kept) + 1, dtype=np.int64)
    np.cumsum(counts, out=edge_ptr[1:])
    rows = csr_rows(ev_ptr, kept)
    E = ev[rows]
    F = ev_f[rows]
    ev_B = np.ascontiguousarray(E[:, 0:2])
    ev_R = np.ascontiguousarray(E[:, 2])
    ev_l = np.ascontiguousarray(E[:, 3:5])
    ev_r = np.ascontiguousarray(E[:, 5:7])
    ev_s = np.ascontiguousarray(E[:, 7])
    ev_fl = np.ascontiguousarray(F[:, 0]).astype(np.int32)
    ev_fr = np.ascontiguousarray(F[:, 1]).astype(np.int32)
    ne = len(kept)
    edge_len = ev_s[edge_ptr[1:] - 1] if ne else np.zeros(0)
    edge_minR = np.minimum.reduceat(ev_R, edge_ptr[:-1]) if ne else np.zeros(0)
    # Adjacency (CSR).
    nv = len(vert_xy)
    ends = np.concatenate([edge_uv[:, 0], edge_uv[:, 1]])
    others = np.concatenate([edge_uv[:, 1], edge_uv[:, 0]])
    eids = np.concatenate([np.arange(ne), np.arange(ne)])
    order = np.argsort(ends, kind="stable")
    adj_ptr = np.zeros(nv + 1, dtype=np.int64)
    np.cumsum(np.bincount(ends, minlength=nv), out=adj_ptr[1:])
    adj_edge = eids[order].astype(np.int32)
    adj_other = others[order].astype(np.int32)
    # Feature -> cells.
    nring = sites.n_vertices
    valid_l = ev_fl >= 0
    valid_r = ev_fr >= 0
    idx = np.arange(len(ev_B), dtype=np.int64)
    keys = np.concatenate([ev_fl[valid_l], ev_fr[valid_r]]).astype(np.int64)
    cells = np.concatenate([2 * idx[valid_l], 2 * idx[valid_r] + 1])
    order = np.argsort(keys, kind="stable")
    feat_ptr = np.zeros(2 * nring + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys, minlength=2 * nring), out=feat_ptr[1:])
    feat_cell = np.ascontiguousarray(cells[order])
    # Bucket grid over the ring edges for nearest-obstacle queries.
    segs = sites.segments()
    bbox = np.column_stack([np.minimum(segs[:, 0], segs[:, 2]), np.minimum(segs[:, 1], segs[:, 3]),
                            np.maximum(segs[:, 0], segs[:, 2]), np.maximum(segs[:, 1], segs[:, 3])])
    x0, y0, x1, y1 = sites.bounds
    ext = max(x1 - x0, y1 - y0)
    gsize = ext / max(1.0, np.ceil(np.sqrt(len(segs)) * 1.5))
    gnx = int(np.floor((x1 - x0) / gsize)) + 1
    gny = int(np.floor((y1 - y0) / gsize)) + 1
    gptr, gidx = site_grid(bbox, x0, y0, gsize, gnx, gny)
    return ECM(
        vert_xy=vert_xy, vert_R=vert_R, vert_kind=vert_kind, edge_uv=edge_uv, edge_len=np.ascontiguousarray(edge_len),
        edge_minR=edge_minR, edge_ptr=edge_ptr, ev_B=ev_B, ev_R=ev_R, ev_l=ev_l, ev_r=ev_r, ev_s=ev_s, ev_fl=ev_fl,
        ev_fr=ev_fr, adj_ptr=adj_ptr, adj_edge=adj_edge, adj_other=adj_other, feat_ptr=feat_ptr,
        feat_cell=feat_cell, grid_origin=np.array([x0, y0], dtype=np.float64), grid_size=float(gsize),
        grid_shape=(gnx, gny), grid_ptr=gptr, grid_idx=gidx, sites=sites, resolution=int(resolution),
        pixel=float(h), stats={"chains": int(nc), "chains_kept": int(ne)},
    )
