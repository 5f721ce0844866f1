"""Voronoi vertices and edges traced from the GVD's id buffer (ECM section II-B, after Geraerts and Overmars 2008).

The boundaries between Voronoi regions are the *cracks* between two 4-adjacent pixels owned by different sites.
A crack is dropped when it does not separate two closest points: where two convex pieces of one obstacle share a
convex vertex, both are nearest over that vertex's normal cone and the depth test gives the cone to one of them;
the crack along the cone's side has the same closest point on both sides and is no medial axis (ECM II-A: "a
convex chain of obstacle parts casts a single colour"). Cracks bordering an obstacle pixel are dropped too.

On the grid of pixel corners, the remaining cracks form a graph: corners where one, three or four cracks meet are
*nodes* (Voronoi vertices, or the ends of edges at obstacles); chains of two-crack corners between nodes are the
Voronoi edges. Each crack step records its left and right site (seen walking the chain), from which the annotation
takes the two obstacles of the edge (ECM II-B: "the left and right obstacles can be retrieved by looking at the
local direction").

Corner (ci, cj) lies at (x0 + cj h, y0 + ci h). Its four pixels are NE = (ci, cj), NW = (ci, cj-1),
SW = (ci-1, cj-1), SE = (ci-1, cj); its cracks N (between NW and NE), W (NW|SW), S (SW|SE), E (SE|NE).
"""

from __future__ import annotations

import numpy as np
from core.jitcache import jit
from core.kernels.buffers import reserve

from .distance import segment_closest, site_closest

#: Closest points of two sites nearer than this (in pixels) at a pixel centre beside a crack count as one point:
#: the GPU's rounding blurs the side of a shared vertex's normal cone by a few hundredths of a pixel.
SPURIOUS_PIXELS = 0.25

# Directions out of a corner.
N, E, S, W = 0, 1, 2, 3


@jit(noalloc=True)
def _coincident(edges, a, b, px, py, tol):
    da, ax, ay, fa = site_closest(edges.ptr, edges.edge, edges.xy, edges.ring_next, a, px, py)
    db, bx, by, fb = site_closest(edges.ptr, edges.edge, edges.xy, edges.ring_next, b, px, py)
    return (ax - bx) * (ax - bx) + (ay - by) * (ay - by) <= tol * tol


@jit
def _segments_near(ax, ay, bx, by, cx, cy, dx, dy, tol):
    """Whether segments ab and cd come within ``tol`` of each other (they cross, or an end is that near)."""
    d1 = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
    d2 = (bx - ax) * (dy - ay) - (by - ay) * (dx - ax)
    d3 = (dx - cx) * (ay - cy) - (dy - cy) * (ax - cx)
    d4 = (dx - cx) * (by - cy) - (dy - cy) * (bx - cx)
    if ((d1 > 0.0) != (d2 > 0.0)) and ((d3 > 0.0) != (d4 > 0.0)):
        return True
    t2 = tol * tol
    return (segment_closest(ax, ay, cx, cy, dx, dy)[0] <= t2 or segment_closest(bx, by, cx, cy, dx, dy)[0] <= t2
            or segment_closest(cx, cy, ax, ay, bx, by)[0] <= t2 or segment_closest(dx, dy, ax, ay, bx, by)[0] <= t2)


@jit
def _sites_touch(edges, a, b, tol):
    """Whether the real edges of sites a and b come within ``tol``: only then can they share a closest point."""
    xy = edges.xy
    for p in range(edges.ptr[a], edges.ptr[a + 1]):
        e = edges.edge[p]
        f = edges.ring_next[e]
        for q in range(edges.ptr[b], edges.ptr[b + 1]):
            g = edges.edge[q]
            k = edges.ring_next[g]
            if _segments_near(xy[e, 0], xy[e, 1], xy[f, 0], xy[f, 1], xy[g, 0], xy[g, 1], xy[k, 0], xy[k, 1], tol):
                return True
    return False


@jit(noalloc=True)
def _touch_cached(edges, a, b, tol, cache):
    """``_sites_touch`` through a direct-mapped cache of site pairs (``cache`` (K, 2) int64: key, answer + 1)."""
    lo = min(a, b)
    hi = max(a, b)
    key = lo * (edges.ptr.shape[0] - 1) + hi
    slot = (key * 2654435761) % cache.shape[0]
    if cache[slot, 0] == key:
        return cache[slot, 1] == 2
    touch = _sites_touch(edges, lo, hi, tol)
    cache[slot, 0] = key
    cache[slot, 1] = 2 if touch else 1
    return touch


@jit(noalloc=True)
def _is_boundary(labels, i0, j0, i1, j1, edges, pix, tol, cache):
    a = labels[i0, j0]
    b = labels[i1, j1]
    if a < 0 or b < 0 or a == b:
        return False
    # Two sites can share a closest point only where their real edges touch.
    bbox = edges.bbox
    if (bbox[a, 0] > bbox[b, 2] + tol or bbox[b, 0] > bbox[a, 2] + tol
            or bbox[a, 1] > bbox[b, 3] + tol or bbox[b, 1] > bbox[a, 3] + tol):
        return True
    if not _touch_cached(edges, a, b, tol, cache):
        return True
    h = pix.h
    pax = pix.x0 + (j0 + 0.5) * h
    pay = pix.y0 + (i0 + 0.5) * h
    pbx = pix.x0 + (j1 + 0.5) * h
    pby = pix.y0 + (i1 + 0.5) * h
    if _coincident(edges, a, b, pax, pay, tol):
        return False
    if _coincident(edges, a, b, pbx, pby, tol):
        return False
    return True


@jit(noalloc=True)
def _row_pairs(labels, i, kind, j0, j1, row, n):
    """Pixel pairs of two different sites (obstacle pixels skipped) in row i, columns j0:j1: vertical cracks (pixels
    (i, j-1) | (i, j), ``kind`` 0) or horizontal ones (pixels (i-1, j) | (i, j), ``kind`` 1); their columns j
    written to ``row`` from n on; returns the new count."""
    if kind == 0:
        for j in range(max(1, j0), j1):
            a = labels[i, j - 1]
            b = labels[i, j]
            if a != b and a >= 0 and b >= 0:
                row[n] = j
                n += 1
    else:
        for j in range(j0, j1):
            a = labels[i - 1, j]
            b = labels[i, j]
            if a != b and a >= 0 and b >= 0:
                row[n] = j
                n += 1
    return n


@jit
def _differing(labels, tiles, tile):
    """Pixel pairs of two different sites, rows [0, i, j] (pixels (i, j-1) | (i, j)) then [1, i, j] (pixels
    (i-1, j) | (i, j)) in row-major order: tight scans without calls, the exact tests run on the list afterwards.
    ``tiles`` (the GVD's ``tile_labels``) names the tiles of one label: no pair inside them, nor between two of the
    same label, is scanned."""
    H, Wd = labels.shape
    ntx = tiles.shape[1]
    out = np.empty((4096, 3), dtype=np.int32)
    row = np.empty(Wd, dtype=np.int32)
    n = 0
    for kind in range(2):
        for i in range(kind, H):
            ty = i // tile
            tp = (i - kind) // tile
            m = 0
            run = -1  # first tile of the current run of tiles to scan
            for tx in range(ntx + 1):
                skip = True
                if tx < ntx:
                    own = tiles[ty, tx]
                    skip = own >= -1 and (tiles[ty, tx - 1] if tx > 0 and kind == 0 else tiles[tp, tx]) == own
                if not skip and run < 0:
                    run = tx
                elif skip and run >= 0:
                    m = _row_pairs(labels, i, kind, run * tile, min(Wd, tx * tile), row, m)
                    run = -1
            out = reserve(out, n + m)
            for k in range(m):
                out[n + k, 0] = kind
                out[n + k, 1] = i
                out[n + k, 2] = row[k]
            n += m
    return out[:n]


@jit
def crack_flags(labels, edges, pix, tiles, tile):
    """Boundary cracks: (vb (H, W+1) uint8, hb (H+1, W) uint8, cracks (k, 3) int32); ``tiles`` (``tile`` pixels
    square) the GVD's ``tile_labels``, whose single-label tiles are not scanned.

    ``vb[i, j]``: the vertical crack between pixels (i, j-1) and (i, j); ``hb[i, j]``: the horizontal crack
    between pixels (i-1, j) and (i, j). ``cracks`` lists them as rows [0, i, j] (vertical, in row-major order),
    then [1, i, j] (horizontal), so that tracing visits the boundaries only, not the whole image.
    """
    H, Wd = labels.shape
    tol = SPURIOUS_PIXELS * pix.h
    vb = np.zeros((H, Wd + 1), dtype=np.uint8)
    hb = np.zeros((H + 1, Wd), dtype=np.uint8)
    cand = _differing(labels, tiles, tile)
    cracks = np.empty_like(cand)
    cache = np.full((4096, 2), -1, dtype=np.int64)
    n = 0
    for q in range(cand.shape[0]):
        i = cand[q, 1]
        j = cand[q, 2]
        if cand[q, 0] == 0:
            if _is_boundary(labels, i, j - 1, i, j, edges, pix, tol, cache):
                vb[i, j] = 1
                cracks[n] = cand[q]
                n += 1
        elif _is_boundary(labels, i - 1, j, i, j, edges, pix, tol, cache):
            hb[i, j] = 1
            cracks[n] = cand[q]
            n += 1
    return vb, hb, cracks[:n].copy()


@jit(noalloc=True)
def _crack(vb, hb, ci, cj, d):
    """Whether the crack leaving corner (ci, cj) in direction d is a boundary."""
    H = vb.shape[0]
    Wd = hb.shape[1]
    if d == N:
        return ci < H and vb[ci, cj] != 0
    if d == S:
        return ci >= 1 and vb[ci - 1, cj] != 0
    if d == E:
        return cj < Wd and hb[ci, cj] != 0
    return cj >= 1 and hb[ci, cj - 1] != 0


@jit(noalloc=True)
def _visited(vb, hb, ci, cj, d):
    """Whether the crack leaving corner (ci, cj) in direction d has been walked (marked 2 in the crack flags)."""
    if d == N:
        return vb[ci, cj] == 2
    if d == S:
        return vb[ci - 1, cj] == 2
    if d == E:
        return hb[ci, cj] == 2
    return hb[ci, cj - 1] == 2


@jit(noalloc=True)
def _pixel(labels, i, j):
    if i < 0 or j < 0 or i >= labels.shape[0] or j >= labels.shape[1]:
        return -1
    return labels[i, j]


@jit(noalloc=True)
def _degree(vb, hb, ci, cj):
    n = 0
    for d in range(4):
        if _crack(vb, hb, ci, cj, d):
            n += 1
    return n


@jit(noalloc=True)
def _saddle(labels, vb, hb, ci, cj):
    """Four cracks between two sites in a checkerboard: two edges touching, not a Voronoi vertex."""
    if _degree(vb, hb, ci, cj) != 4:
        return False
    ne = _pixel(labels, ci, cj)
    nw = _pixel(labels, ci, cj - 1)
    sw = _pixel(labels, ci - 1, cj - 1)
    se = _pixel(labels, ci - 1, cj)
    return ne == sw and nw == se


@jit(noalloc=True)
def _step(labels, vb, hb, ci, cj, d):
    """Walk the crack out of (ci, cj) in direction d: mark it walked (2), return (next ci, next cj, left site, right
    site)."""
    if d == N:
        vb[ci, cj] = 2
        return ci + 1, cj, _pixel(labels, ci, cj - 1), _pixel(labels, ci, cj)
    if d == S:
        vb[ci - 1, cj] = 2
        return ci - 1, cj, _pixel(labels, ci - 1, cj), _pixel(labels, ci - 1, cj - 1)
    if d == E:
        hb[ci, cj] = 2
        return ci, cj + 1, _pixel(labels, ci, cj), _pixel(labels, ci - 1, cj)
    hb[ci, cj - 1] = 2
    return ci, cj - 1, _pixel(labels, ci - 1, cj - 1), _pixel(labels, ci, cj - 1)


@jit(noalloc=True)
def _walked(vb, hb, cracks, q):
    """Whether crack q of the ``crack_flags`` list has been walked."""
    if cracks[q, 0] == 0:
        return vb[cracks[q, 1], cracks[q, 2]] == 2
    return hb[cracks[q, 1], cracks[q, 2]] == 2


@jit(noalloc=True)
def _is_node(labels, vb, hb, ci, cj):
    """Whether corner (ci, cj) is a node: 1, 3 or 4 boundary cracks meet there (a two-site saddle excepted)."""
    deg = _degree(vb, hb, ci, cj)
    return deg == 1 or deg == 3 or (deg == 4 and not _saddle(labels, vb, hb, ci, cj))


@jit
def trace_chains(labels, vb, hb, cracks):
    """Trace every chain of boundary cracks (``cracks``: the list of ``crack_flags``).

    Returns ``(node_ij (nn, 2) int32, node_deg (nn,) int32, chain_ptr (nc+1,) int64, pts (np, 2) int32 corners,
    lab (np, 2) int32 left/right sites of the crack from point k to k+1 (-1 on a chain's last point),
    chain_nodes (nc, 2) int32)``. Closed loops without a node get a node of degree 2 on the loop. The walk marks
    the cracks it has taken 2 in ``vb``/``hb`` and sets them back to 1 at the end.
    """
    H, Wd = labels.shape
    # Nodes: corners with 1, 3 or 4 boundary cracks (saddles excepted), in scan order (sorted linear index); only
    # the ends of boundary cracks can be nodes, and a node is found from each of its cracks (duplicates dropped).
    ncr = cracks.shape[0]
    found = np.empty(2 * ncr, dtype=np.int64)
    nfound = 0
    for k in range(cracks.shape[0]):
        i = cracks[k, 1]
        j = cracks[k, 2]
        for e in range(2):
            ci = i + e if cracks[k, 0] == 0 else i
            cj = j if cracks[k, 0] == 0 else j + e
            if _is_node(labels, vb, hb, ci, cj):
                found[nfound] = ci * (Wd + 1) + cj
                nfound += 1
    found = np.sort(found[:nfound])
    nodes = np.empty(nfound, dtype=np.int64)
    nn = 0
    for k in range(nfound):
        if k == 0 or found[k] != found[k - 1]:
            nodes[nn] = found[k]
            nn += 1
    node_ij = np.empty((nn, 2), dtype=np.int32)
    node_deg = np.empty(nn, dtype=np.int32)
    for k in range(nn):
        node_ij[k, 0] = nodes[k] // (Wd + 1)
        node_ij[k, 1] = nodes[k] % (Wd + 1)
        node_deg[k] = _degree(vb, hb, node_ij[k, 0], node_ij[k, 1])
    sorted_nodes = nodes[:nn].copy()

    # Every crack is walked once and every chain adds its last corner: room for all without growing in the walk.
    chain_ptr = np.zeros(ncr + 1, dtype=np.int64)
    chain_nodes = np.empty((ncr, 2), dtype=np.int32)
    pts = np.empty((2 * ncr, 2), dtype=np.int32)
    lab = np.empty((2 * ncr, 2), dtype=np.int32)
    nc = 0
    npt = 0
    extra_ij = np.empty((2 * ncr + 1, 2), dtype=np.int32)
    n_extra = 0
    # Pass 1 starts at nodes; pass 2 picks up the loops left over.
    for phase in range(2):
        if phase == 0:
            starts = node_ij.copy()
        else:
            # Cracks not yet walked belong to closed loops: start at the lower or left end of each.
            cnt = 0
            for q in range(cracks.shape[0]):
                if not _walked(vb, hb, cracks, q):
                    cnt += 1
            starts = np.empty((cnt, 2), dtype=np.int32)
            cnt = 0
            for q in range(cracks.shape[0]):
                if not _walked(vb, hb, cracks, q):
                    starts[cnt, 0] = cracks[q, 1]
                    starts[cnt, 1] = cracks[q, 2]
                    cnt += 1
        for k in range(starts.shape[0]):
            si = starts[k, 0]
            sj = starts[k, 1]
            for d0 in range(4):
                if not _crack(vb, hb, si, sj, d0) or _visited(vb, hb, si, sj, d0):
                    continue
                if phase == 0:
                    start_node = k
                else:
                    extra_ij[n_extra, 0] = si
                    extra_ij[n_extra, 1] = sj
                    start_node = nn + n_extra
                    n_extra += 1
                chain_ptr[nc] = npt
                ci = si
                cj = sj
                d = d0
                end_node = -1
                while True:
                    pts[npt, 0] = ci
                    pts[npt, 1] = cj
                    ni, nj, left, right = _step(labels, vb, hb, ci, cj, d)
                    lab[npt, 0] = left
                    lab[npt, 1] = right
                    npt += 1
                    ci = ni
                    cj = nj
                    came = (d + 2) % 4
                    if phase == 1 and ci == si and cj == sj:
                        end_node = start_node
                        break
                    lin = ci * (Wd + 1) + cj
                    pos = np.searchsorted(sorted_nodes, lin)
                    if pos < nn and sorted_nodes[pos] == lin:
                        end_node = pos
                        break
                    nd = -1
                    if _saddle(labels, vb, hb, ci, cj):
                        # Pair N with E and S with W.
                        pair = (E, N, W, S)
                        nd = pair[came]
                    else:
                        for dd in range(4):
                            if dd != came and _crack(vb, hb, ci, cj, dd) and not _visited(vb, hb, ci, cj, dd):
                                nd = dd
                                break
                    if nd < 0 or _visited(vb, hb, ci, cj, nd):
                        # A loop closing on a corner that is not its start (cannot happen) ends as a node here.
                        extra_ij[n_extra, 0] = ci
                        extra_ij[n_extra, 1] = cj
                        end_node = nn + n_extra
                        n_extra += 1
                        break
                    d = nd
                pts[npt, 0] = ci
                pts[npt, 1] = cj
                lab[npt, 0] = -1
                lab[npt, 1] = -1
                npt += 1
                chain_nodes[nc, 0] = start_node
                chain_nodes[nc, 1] = end_node
                nc += 1
    chain_ptr[nc] = npt
    # The flags back to 1: the annotation reads them as the boundary.
    for q in range(cracks.shape[0]):
        if cracks[q, 0] == 0:
            vb[cracks[q, 1], cracks[q, 2]] = 1
        else:
            hb[cracks[q, 1], cracks[q, 2]] = 1
    all_ij = np.empty((nn + n_extra, 2), dtype=np.int32)
    all_ij[:nn] = node_ij
    all_ij[nn:] = extra_ij[:n_extra]
    all_deg = np.empty(nn + n_extra, dtype=np.int32)
    all_deg[:nn] = node_deg
    all_deg[nn:] = 2
    return all_ij, all_deg, chain_ptr[: nc + 1].copy(), pts[:npt].copy(), lab[:npt].copy(), chain_nodes[:nc].copy()
